import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { json, openEventStream, sseEvent, startTestServer, type TestServer } from './support/test-server';

/** The package's public surface, typed from source so this file typechecks before a build. */
type Sdk = typeof import('../../sdk/src');

const packageName = '@hosted-agents/sdk';
const sdkDir = path.resolve(__dirname, '..');

/**
 * The built package (`npm run build -w @hosted-agents/sdk`), loaded the way users load it:
 * `require` picks dist/index.cjs and `import()` picks dist/index.js through the exports map.
 * Each format gets the same checks: the bundles are separate instances, so each must work alone.
 */
describe('SDK build: both module formats load and work', () => {
  let server: TestServer;
  let cjs: Sdk;
  let esm: Sdk;
  before(async () => {
    server = await startTestServer();
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS entry is what this checks
    cjs = require(packageName);
    const specifier: string = packageName; // a variable keeps TypeScript from resolving dist/ types
    esm = await import(specifier);
  });
  after(() => server.close());

  it('require() resolves to dist/index.cjs and import() to a separate ESM instance', () => {
    assert.equal(path.relative(sdkDir, require.resolve(packageName)), path.join('dist', 'index.cjs'));
    assert.notEqual(esm.ServiceError, cjs.ServiceError, 'import() returned the CommonJS build');
  });

  for (const format of ['cjs', 'esm'] as const) {
    it(`the ${format} build exposes Service and ServiceError and fails with its own ServiceError`, async () => {
      const sdk = format === 'cjs' ? cjs : esm;
      assert.equal(typeof sdk.Service, 'function');
      assert.equal(typeof sdk.Service.getWorkspace, 'function');
      server.respond((_req, res) => json(res, 404, { error: { code: 'workspace_not_found', message: 'gone', retryable: false } }));
      const err = await new sdk.Service({ apiKey: 'k', baseURL: server.baseURL }).get().catch((e: unknown) => e);
      assert.ok(err instanceof sdk.ServiceError, `not the ${format} ServiceError: ${String(err)}`);
      assert.equal(err.code, 'workspace_not_found');
      assert.equal(err.status, 404);
    });

    it(`the ${format} build has ws.agents and loadWorkflows, which loads Node's fs only when called`, async () => {
      const sdk = format === 'cjs' ? cjs : esm;
      const ws = new sdk.Service({ apiKey: 'k', baseURL: server.baseURL });
      assert.equal(typeof ws.agents.create, 'function');
      assert.equal(ws.agent('agt_1').id, 'agt_1');
      const dir = mkdtempSync(path.join(tmpdir(), 'sdk-build-'));
      try {
        writeFileSync(path.join(dir, 'w.md'), '---\nname: W\nwhen: always\n---\nDo it.\n');
        assert.deepEqual(await sdk.loadWorkflows(dir), [{ name: 'W', when: 'always', content: 'Do it.' }]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it(`the ${format} build exports Turn, ConversationHandle and attachmentFromBytes, and a turn can be awaited and iterated`, async () => {
      const sdk = format === 'cjs' ? cjs : esm;
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
      const sdk = format === 'cjs' ? cjs : esm;
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

  // jose (signVisitorToken) is built on Web Crypto alone: it runs in browsers as the rest does.
  it('the bundles import no Node built-ins and nothing but eventsource-parser and jose (they run in browsers)', () => {
    for (const file of ['dist/index.js', 'dist/index.cjs']) {
      const code = readFileSync(path.join(sdkDir, file), 'utf8');
      const specifiers = [...code.matchAll(/(?:\bfrom\s*|\brequire\(\s*|\bimport\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]);
      assert.deepEqual([...new Set(specifiers)].sort(), ['eventsource-parser', 'jose'], file);
    }
  });
});
