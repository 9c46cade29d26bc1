import assert from 'node:assert/strict';
import { ServiceError, type TurnEvent } from '../src';
import { useTestApi } from '../../test/support/api';
import { newSdkWorkspace, type SdkWorkspace } from '../../test/support/sdk';

describe('SDK turns against the real service (offline model)', () => {
  const api = useTestApi();
  let sdk: SdkWorkspace;
  before(async () => {
    sdk = await newSdkWorkspace(api);
  });

  it('await and iterate both work for the same conversation, one request each turn', async () => {
    const agent = await sdk.ws.agents.create({ name: 'Echo' });
    const conversation = await agent.start();
    assert.equal(conversation.ready, true);

    const before = sdk.requests.length;
    const reply = await conversation.ask('first question');
    assert.match(reply, /offline model/);
    assert.equal(sdk.requests.length - before, 1, 'one request for an awaited turn');

    const turn = conversation.ask('second question');
    const events: TurnEvent[] = [];
    for await (const e of turn) events.push(e);
    assert.equal(events[0]?.type, 'start');
    assert.equal(events.filter((e) => e.type === 'done' || e.type === 'error').length, 1);
    const done = events.at(-1);
    assert.ok(done?.type === 'done');
    assert.equal(await turn, done.reply, 'awaiting after iterating gives the same reply without a new request');
    assert.equal(sdk.requests.filter((r) => r.includes('/turns')).length, 2);

    const messages = await sdk.ws.conversation(conversation.id).messages();
    assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
    assert.equal(messages[1]?.content, reply);
    assert.equal(messages[3]?.content, done.reply);
    // Both spec variants reach the same conversation.
    assert.equal((await agent.conversation(conversation.id).get()).id, conversation.id);
    const listed = await agent.conversations();
    assert.equal(listed[0]?.id, conversation.id);
    assert.equal(listed[0]?.title, 'first question');
  });

  it('a refused ask rejects with ServiceError when awaited and ends with one error event when iterated', async () => {
    const agent = await sdk.ws.agents.create({ name: 'Ends' });
    const conversation = await agent.start();
    await conversation.end();
    await assert.rejects(conversation.ask('hello?'), (e: unknown) => e instanceof ServiceError && e.code === 'conversation_ended' && e.status === 409);
    const events: TurnEvent[] = [];
    for await (const e of conversation.ask('hello again?')) events.push(e);
    assert.deepEqual(events.map((e) => e.type), ['error']);
  });

  it('conversation files: write, list, read, remove, and signed URLs that expire and cannot be altered', async () => {
    const agent = await sdk.ws.agents.create({ name: 'Files' });
    const conversation = await agent.start();
    const bytes = new Uint8Array(256).map((_, i) => i);
    const entry = await conversation.writeFile('data/blob.bin', bytes);
    assert.equal(entry.size, 256);
    await conversation.writeFile('notes.md', '# Notes\nhello');
    assert.deepEqual((await conversation.files()).map((f) => [f.path, f.kind]), [['data', 'directory'], ['notes.md', 'file']]);
    assert.deepEqual(await conversation.readFileBytes('data/blob.bin'), bytes);
    assert.equal(await conversation.readFile('notes.md'), '# Notes\nhello');

    const url = await conversation.fileUrl('notes.md', { download: true, ttl: 60 });
    const served = await fetch(url);
    assert.equal(served.status, 200, 'served without an API key');
    assert.equal(await served.text(), '# Notes\nhello');
    assert.match(served.headers.get('content-disposition') ?? '', /^attachment; filename="notes.md"/);
    const inline = await fetch(await conversation.fileUrl('notes.md'));
    assert.match(inline.headers.get('content-disposition') ?? '', /^inline/);

    const [payload, signature] = url.split('/v1/files/')[1]!.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), path: 'data/blob.bin' })).toString('base64url');
    assert.equal((await fetch(url.replace(payload!, forged))).status, 404, 'a tampered URL is refused');
    assert.equal((await fetch(url.replace(signature!, `${signature!.slice(0, -2)}AA`))).status, 404);
    const short = await conversation.fileUrl('notes.md', { ttl: 1 });
    await new Promise((r) => setTimeout(r, 2100));
    assert.equal((await fetch(short)).status, 404, 'an expired URL is refused');

    await conversation.removeFile('notes.md');
    assert.deepEqual((await conversation.files()).map((f) => f.path), ['data']);
  });

  it('attachments: a file lands in the conversation drive and the model is told where', async () => {
    const agent = await sdk.ws.agents.create({ name: 'Attach' });
    const conversation = await agent.start();
    const data = Buffer.from('id,amount\n1,20\n').toString('base64');
    const reply = await conversation.ask('see the attached', { attachments: [{ kind: 'file', name: 'orders.csv', mimeType: 'text/csv', data }] });
    assert.match(reply, /offline/);
    const files = await conversation.files('attachments');
    assert.equal(files.length, 1, 'one folder for the turn');
    const inner = await conversation.files(files[0]!.path);
    assert.deepEqual(inner.map((f) => [f.path.split('/').pop(), f.mimeType]), [['orders.csv', 'text/csv']]);
  });
});
