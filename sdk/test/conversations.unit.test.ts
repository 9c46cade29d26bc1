import assert from 'node:assert/strict';
import {
  type AgentConversation,
  type AgentConversationRecord,
  type Attachment,
  attachmentFromBytes,
  type Conversation,
  ConversationHandle,
  type FileEntry,
  type Message,
  type ProjectConversationRecord,
  Service,
  Turn,
} from '../src';
import { failure, json, openEventStream, sseEvent, type TestServer, useSdkServer } from './support/test-server';

const agentConversation: AgentConversationRecord = {
  id: 'cnv_1',
  agentId: 'agt_1',
  version: 3,
  startedAt: '2025-01-01T00:00:00.000Z',
  ready: false,
  requires: [{ kind: 'secret', name: 'CRM_KEY', required: true }],
};

const projectConversation: ProjectConversationRecord = {
  id: 'cnv_2',
  projectId: 'prj_1',
  startedAt: '2025-01-02T00:00:00.000Z',
  title: 'Launch plan',
  ready: true,
  requires: [],
  endedAt: '2025-01-03T00:00:00.000Z',
};

const entry: FileEntry = { path: 'out/a b.txt', kind: 'file', mimeType: 'text/plain', size: 5, modifiedAt: '2025-01-01T00:00:00.000Z' };

function calls(server: TestServer): string[] {
  return server.received.map((r) => `${r.method} ${r.url}`);
}

/** JSON bodies of the requests, `undefined` for none. */
function bodies(server: TestServer): unknown[] {
  return server.received.map((r) => (r.body === '' ? undefined : JSON.parse(r.body)));
}

const methods = ['ask', 'get', 'messages', 'end', 'files', 'readFile', 'readFileBytes', 'writeFile', 'removeFile', 'fileUrl'] as const;

/** A conversation object: handle methods, serializing to exactly `expected`. */
function assertConversation(conversation: Conversation, expected: AgentConversationRecord | ProjectConversationRecord): void {
  assert.ok(conversation instanceof ConversationHandle);
  for (const method of methods) assert.equal(typeof conversation[method], 'function', method);
  assert.deepEqual(JSON.parse(JSON.stringify(conversation)), expected);
  assert.deepEqual({ ...conversation }, expected);
  assert.deepEqual(Object.keys(conversation), Object.keys(expected));
}

describe('SDK conversations: handles, agent.start/conversations, messages and files', () => {
  let server: TestServer;
  let ws: Service;
  useSdkServer((_req, res) => json(res, 200, agentConversation), (srv, client) => {
    server = srv;
    ws = client;
  });

  describe('handles', () => {
    it('ws.conversation(id) and agent.conversation(id) send no request', async () => {
      const a = ws.conversation('cnv_1');
      const b = ws.agent('agt_1').conversation('cnv_1');
      for (const handle of [a, b]) {
        assert.ok(handle instanceof ConversationHandle);
        assert.equal(handle.id, 'cnv_1');
        for (const method of methods) assert.equal(typeof handle[method], 'function', method);
      }
      ws.conversation('..'); // not checked until a call
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(server.received.length, 0);
    });

    it('get() sends GET /v1/conversations/:id and resolves to the record with its methods', async () => {
      const conversation: AgentConversation = await ws.agent('agt_1').conversation('cnv_1').get();
      assert.deepEqual(calls(server), ['GET /v1/conversations/cnv_1']);
      assertConversation(conversation, agentConversation);
      assert.equal(conversation.version, 3);

      server.respond((_req, res) => json(res, 200, projectConversation));
      const either: Conversation = await ws.conversation('cnv_2').get();
      assertConversation(either, projectConversation);
      assert.ok('projectId' in either && either.projectId === 'prj_1');
    });

    it('ids are percent-encoded; an unusable id rejects with invalid_request without a request', async () => {
      await ws.conversation('cnv 1/x').get();
      assert.deepEqual(calls(server), ['GET /v1/conversations/cnv%201%2Fx']);
      assert.equal((await failure(ws.conversation('').messages())).code, 'invalid_request');
      assert.equal((await failure(ws.conversation('..').end())).code, 'invalid_request');
      assert.equal(server.received.length, 1);
    });
  });

  describe('agent.start() and agent.conversations()', () => {
    it('start({ version, parameters }) sends POST /v1/agents/:agentId/conversations with exactly those fields', async () => {
      server.respond((_req, res) => json(res, 201, agentConversation));
      const controller = new AbortController();
      const conversation = await ws.agent('agt_1').start({ version: 3, parameters: { plan: 'pro', seats: 4 }, signal: controller.signal });
      assert.deepEqual(calls(server), ['POST /v1/agents/agt_1/conversations']);
      assert.deepEqual(bodies(server), [{ version: 3, parameters: { plan: 'pro', seats: 4 } }]);
      assert.equal(server.received[0]?.headers['content-type'], 'application/json');
      assertConversation(conversation, agentConversation);
    });

    it('start() without options sends an empty object', async () => {
      server.respond((_req, res) => json(res, 201, agentConversation));
      await ws.agent('agt_1').start();
      assert.deepEqual(bodies(server), [{}]);
    });

    it('a started conversation can be asked at once', async () => {
      server.respond((_req, res, received) => {
        if (received.url.endsWith('/conversations')) return json(res, 201, agentConversation);
        openEventStream(res);
        res.end(sseEvent(1, { type: 'start', turnId: 'trn_1' }) + sseEvent(2, { type: 'done', reply: 'ok' }));
      });
      const conversation = await ws.agent('agt_1').start();
      assert.equal(await conversation.ask('Hi'), 'ok');
      assert.deepEqual(calls(server), ['POST /v1/agents/agt_1/conversations', 'POST /v1/conversations/cnv_1/turns']);
    });

    it('conversations() sends GET /v1/agents/:agentId/conversations and unwraps { data } into conversations', async () => {
      const older: AgentConversationRecord = { ...agentConversation, id: 'cnv_0', version: 1, ready: true, requires: [] };
      server.respond((_req, res) => json(res, 200, { data: [agentConversation, older] }));
      const list = await ws.agent('agt_1').conversations();
      assert.deepEqual(calls(server), ['GET /v1/agents/agt_1/conversations']);
      assert.equal(list.length, 2);
      assertConversation(list[0]!, agentConversation);
      assertConversation(list[1]!, older);
    });

    it('a list answer without data rejects with invalid_response', async () => {
      server.respond((_req, res) => json(res, 200, [agentConversation]));
      assert.equal((await failure(ws.agent('agt_1').conversations())).code, 'invalid_response');
    });
  });

  describe('messages, end, ask', () => {
    it('messages() sends GET /v1/conversations/:id/messages and resolves to the list', async () => {
      const history: Message[] = [
        { role: 'user', content: 'Hi', at: '2025-01-01T00:00:01.000Z' },
        { role: 'assistant', content: 'Hello!', at: '2025-01-01T00:00:02.000Z' },
      ];
      server.respond((_req, res) => json(res, 200, { data: history }));
      assert.deepEqual(await ws.conversation('cnv_1').messages(), history);
      assert.deepEqual(calls(server), ['GET /v1/conversations/cnv_1/messages']);
    });

    it('end() sends POST /v1/conversations/:id/end with no body and resolves to undefined on 204', async () => {
      server.respond((_req, res) => res.writeHead(204).end());
      assert.equal(await ws.conversation('cnv_1').end(), undefined);
      assert.deepEqual(calls(server), ['POST /v1/conversations/cnv_1/end']);
      assert.equal(server.received[0]?.body, '');
    });

    it('ask() returns a Turn synchronously and sends the attachments as given', async () => {
      server.respond((_req, res) => {
        openEventStream(res);
        res.end(sseEvent(1, { type: 'start', turnId: 'trn_1' }) + sseEvent(2, { type: 'done', reply: 'a chart' }));
      });
      const attachments: Attachment[] = [
        { kind: 'image', name: 'chart.png', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
        { kind: 'file', mimeType: 'application/pdf', data: 'JVBERi0=' },
      ];
      const turn = ws.agent('agt_1').conversation('cnv_1').ask('What is this?', { attachments });
      assert.ok(turn instanceof Turn);
      assert.equal(await turn, 'a chart');
      assert.deepEqual(calls(server), ['POST /v1/conversations/cnv_1/turns']);
      assert.deepEqual(bodies(server), [{ text: 'What is this?', attachments }]);
    });
  });

  describe('files', () => {
    it('files(dir?) sends GET /v1/conversations/:id/files[?dir=]', async () => {
      server.respond((_req, res) => json(res, 200, { data: [entry] }));
      const c = ws.conversation('cnv_1');
      assert.deepEqual(await c.files(), [entry]);
      assert.deepEqual(await c.files('out/drafts'), [entry]);
      assert.deepEqual(calls(server), ['GET /v1/conversations/cnv_1/files', 'GET /v1/conversations/cnv_1/files?dir=out%2Fdrafts']);
    });

    it('readFile(path) decodes UTF-8; readFileBytes(path) gives the bytes as sent', async () => {
      const text = 'héllo ☕ 日本';
      server.respond((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.from(text, 'utf8')));
      const c = ws.conversation('cnv_1');
      assert.equal(await c.readFile('out/a b.txt'), text);
      const binary = Buffer.from([0, 1, 0xfe, 0xff, 0x80]);
      server.respond((_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(binary));
      const bytes = await c.readFileBytes('img/x.bin');
      assert.ok(bytes instanceof Uint8Array);
      assert.deepEqual([...bytes], [...binary]);
      assert.deepEqual(calls(server), ['GET /v1/conversations/cnv_1/files/out/a%20b.txt', 'GET /v1/conversations/cnv_1/files/img/x.bin']);
    });

    it('writeFile(path, bytes) sends PUT with the raw bytes as application/octet-stream and resolves to the entry', async () => {
      server.respond((_req, res) => json(res, 200, entry));
      const c = ws.conversation('cnv_1');
      const bytes = Uint8Array.from([104, 105, 0, 255]);
      assert.deepEqual(await c.writeFile('out/a b.txt', bytes), entry);
      assert.deepEqual(await c.writeFile('notes.md', 'ça va'), entry);
      assert.deepEqual(calls(server), ['PUT /v1/conversations/cnv_1/files/out/a%20b.txt', 'PUT /v1/conversations/cnv_1/files/notes.md']);
      assert.equal(server.received[0]?.headers['content-type'], 'application/octet-stream');
      assert.deepEqual([...server.received[0]!.bytes], [...bytes]);
      assert.equal(server.received[1]?.body, 'ça va');
    });

    it('removeFile(path) sends DELETE and resolves to undefined', async () => {
      server.respond((_req, res) => res.writeHead(204).end());
      assert.equal(await ws.conversation('cnv_1').removeFile('out/old.txt'), undefined);
      assert.deepEqual(calls(server), ['DELETE /v1/conversations/cnv_1/files/out/old.txt']);
    });

    it('fileUrl(path, { download, ttl }) sends POST /v1/conversations/:id/file-urls and resolves to the url', async () => {
      server.respond((_req, res) => json(res, 200, { url: 'https://files.example.com/signed?x=1' }));
      const c = ws.conversation('cnv_1');
      assert.equal(await c.fileUrl('out/report.pdf', { download: true, ttl: 600 }), 'https://files.example.com/signed?x=1');
      assert.equal(await c.fileUrl('out/report.pdf'), 'https://files.example.com/signed?x=1');
      assert.deepEqual(calls(server), ['POST /v1/conversations/cnv_1/file-urls', 'POST /v1/conversations/cnv_1/file-urls']);
      assert.deepEqual(bodies(server), [{ path: 'out/report.pdf', download: true, ttl: 600 }, { path: 'out/report.pdf' }]);
    });

    it('fileUrl rejects an answer without a url string with invalid_response', async () => {
      server.respond((_req, res) => json(res, 200, { href: 'x' }));
      assert.equal((await failure(ws.conversation('cnv_1').fileUrl('a.txt'))).code, 'invalid_response');
    });

    it('an unusable path rejects with invalid_request without a request', async () => {
      const c = ws.conversation('cnv_1');
      for (const call of [c.readFile('../etc/passwd'), c.writeFile('a/./b', 'x'), c.removeFile(''), c.fileUrl('a/../b'), c.readFileBytes('/')]) {
        assert.equal((await failure(call)).code, 'invalid_request');
      }
      assert.equal(server.received.length, 0);
    });

    it('a 404 keeps the service code', async () => {
      server.respond((_req, res) => json(res, 404, { error: { code: 'file_not_found', message: 'no such file', retryable: false } }));
      const error = await failure(ws.conversation('cnv_1').readFile('missing.txt'));
      assert.deepEqual([error.code, error.status], ['file_not_found', 404]);
    });
  });

  describe('attachmentFromBytes', () => {
    it('base64-encodes bytes of any length exactly as Buffer does, without using Buffer', () => {
      for (const length of [0, 1, 2, 3, 4, 5, 100, 0x8000 - 1, 0x8000, 0x8000 + 1, 100_000]) {
        const bytes = Uint8Array.from({ length }, (_v, i) => (i * 131 + 7) % 256);
        const attachment = attachmentFromBytes('file', 'application/octet-stream', bytes);
        assert.equal(attachment.data, Buffer.from(bytes).toString('base64'), `length ${length}`);
      }
    });

    it('builds the attachment fields, name only when given; accepts an ArrayBuffer', () => {
      const bytes = new TextEncoder().encode('hi');
      assert.deepEqual(attachmentFromBytes('image', 'image/png', bytes, 'a.png'), { kind: 'image', name: 'a.png', mimeType: 'image/png', data: 'aGk=' });
      const plain = attachmentFromBytes('file', 'text/plain', bytes.buffer);
      assert.deepEqual(plain, { kind: 'file', mimeType: 'text/plain', data: 'aGk=' });
      assert.equal('name' in plain, false);
    });
  });
});
