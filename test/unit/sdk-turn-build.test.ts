import assert from 'node:assert/strict';
import { json, openEventStream, sseEvent, startTestServer, type TestServer } from './sdk-test-server';

/** The package's public surface, typed from source so this file typechecks before a build. */
type Sdk = typeof import('../../sdk/src');

const packageName = '@hosted-agents/sdk';

/** Turns through the built package (`npm run build -w @hosted-agents/sdk`), in both module formats. */
describe('SDK build: turns and conversations work from both module formats', () => {
  let server: TestServer;
  const builds: Record<'cjs' | 'esm', Sdk> = {} as Record<'cjs' | 'esm', Sdk>;
  before(async () => {
    server = await startTestServer();
    builds.cjs = require(packageName);
    const specifier: string = packageName; // a variable keeps TypeScript from resolving dist/ types
    builds.esm = await import(specifier);
  });
  after(() => server.close());

  for (const format of ['cjs', 'esm'] as const) {
    it(`the ${format} build exports Turn, ConversationHandle and attachmentFromBytes, and a turn can be awaited and iterated`, async () => {
      const sdk = builds[format];
      assert.equal(sdk.attachmentFromBytes('file', 'text/plain', new TextEncoder().encode('hi')).data, 'aGk=');
      server.respond((_req, res) => {
        openEventStream(res);
        res.end(sseEvent(1, { type: 'start', turnId: 'trn_1' }) + sseEvent(2, { type: 'text', text: 'ok' }) + sseEvent(3, { type: 'done', reply: 'ok' }));
      });
      const ws = new sdk.Service({ apiKey: 'k', baseURL: server.baseURL });
      const conversation = ws.conversation('cnv_1');
      assert.ok(conversation instanceof sdk.ConversationHandle);
      const turn = conversation.ask('Hi');
      assert.ok(turn instanceof sdk.Turn);
      const types: string[] = [];
      for await (const event of turn) types.push(event.type);
      assert.deepEqual(types, ['start', 'text', 'done']);
      assert.equal(await turn, 'ok');

      server.respond((_req, res) => json(res, 409, { error: { code: 'conversation_ended', message: 'ended', retryable: false } }));
      const error = await ws
        .conversation('cnv_1')
        .ask('Hi')
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(error instanceof sdk.ServiceError, `not the ${format} ServiceError`);
      assert.equal(error.code, 'conversation_ended');
    });

    it(`the ${format} build re-attaches to a turn by id (ws.turn) and exports DEFAULT_RESUME_TIMEOUT_MS`, async () => {
      const sdk = builds[format];
      assert.equal(sdk.DEFAULT_RESUME_TIMEOUT_MS, 180_000);
      server.respond((_req, res) => {
        openEventStream(res);
        res.end(sseEvent(1, { type: 'start', turnId: 'trn_1' }) + sseEvent(2, { type: 'done', reply: 'again' }));
      });
      const turn = new sdk.Service({ apiKey: 'k', baseURL: server.baseURL, resumeTimeout: 1000 }).turn('trn_1');
      assert.ok(turn instanceof sdk.Turn);
      assert.equal(await turn, 'again');
    });
  }
});
