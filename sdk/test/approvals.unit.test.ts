import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { type Approval, Service, type TurnEvent } from '../src';
import { collectEvents, failure, json, openEventStream, sseEvents, startTestServer, type TestServer, within } from './support/test-server';

const pending: TurnEvent = { type: 'approval', approvalId: 'apr_1', tool: 'refund', arguments: { order: '42' }, approver: 'workspace', status: 'pending' };
const approval = (status: Approval['status'], note: string | null = null): Approval => ({
  id: 'apr_1',
  turnId: 'trn_1',
  conversationId: 'cnv_1',
  agentId: 'agt_1',
  tool: 'refund',
  arguments: { order: '42' },
  approver: 'workspace',
  status,
  note,
  createdAt: '2026-11-28T07:00:00.000Z',
  expiresAt: '2026-11-29T07:00:00.000Z',
  decidedAt: status === 'pending' ? null : '2026-11-28T07:00:01.000Z',
});

describe('SDK approvals: turn.approve()/deny() and ws.approval(id)', () => {
  let server: TestServer;
  let ws: Service;
  before(async () => {
    server = await startTestServer();
    ws = new Service({ apiKey: 'k', baseURL: server.baseURL });
  });
  after(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.received.length = 0;
  });

  /** A turn that stops at a pending approval and ends once the decision is posted. */
  function waitingTurn(outcome: TurnEvent[]): void {
    let stream: ServerResponse | undefined;
    server.respond((req, res, received) => {
      if (req.url === '/v1/conversations/cnv_1/turns') {
        openEventStream(res);
        res.write(sseEvents([{ type: 'start', turnId: 'trn_1' }, pending], 1));
        stream = res;
        return;
      }
      const decision = JSON.parse(received.body) as { decision: string; note?: string };
      json(res, 200, approval(decision.decision === 'approve' ? 'approved' : 'denied', decision.note ?? null));
      stream?.end(sseEvents([{ type: 'start', turnId: 'trn_1' }, pending, ...outcome], 3));
    });
  }

  it('iterates the approval event and approves the call the turn waits on, with the note', async () => {
    waitingTurn([{ ...pending, status: 'approved', note: 'ok' }, { type: 'done', reply: 'Refunded.' }]);
    const turn = ws.conversation('cnv_1').ask('Refund order 42');
    const seen: TurnEvent[] = [];
    for await (const event of turn) {
      seen.push(event);
      if (event.type === 'approval' && event.status === 'pending') assert.equal((await turn.approve('ok')).status, 'approved');
    }
    assert.deepEqual(seen.map((e) => (e.type === 'approval' ? `approval:${e.status}` : e.type)), ['start', 'approval:pending', 'approval:approved', 'done']);
    const post = server.received.find((r) => r.url === '/v1/approvals/apr_1');
    assert.equal(post?.method, 'POST');
    assert.deepEqual(JSON.parse(post!.body), { decision: 'approve', note: 'ok' });
    assert.equal(await turn, 'Refunded.');
  });

  it('deny() before the approval event arrives waits for it, and sends no note when none is given', async () => {
    waitingTurn([{ ...pending, status: 'denied' }, { type: 'done', reply: 'Not refunded.' }]);
    const turn = ws.conversation('cnv_1').ask('Refund order 42');
    const denied = await within(5000, turn.deny(), 'the denial');
    assert.equal(denied.status, 'denied');
    assert.deepEqual(JSON.parse(server.received.find((r) => r.url === '/v1/approvals/apr_1')!.body), { decision: 'deny' });
    assert.equal(await turn, 'Not refunded.');
  });

  it('a turn that ends with no call waiting rejects approve() with approval_not_found, sending nothing', async () => {
    server.respond((_req, res) => {
      openEventStream(res);
      res.end(sseEvents([{ type: 'start', turnId: 'trn_1' }, { type: 'done', reply: 'Hi' }], 1));
    });
    const turn = ws.conversation('cnv_1').ask('Hi');
    const error = await failure(turn.approve());
    assert.equal(error.code, 'approval_not_found');
    assert.equal(error.status, 404);
    assert.ok(server.received.every((r) => !r.url.startsWith('/v1/approvals/')));
    assert.deepEqual((await collectEvents(turn)).map((e) => e.type), ['start', 'done']);
  });

  it('ws.approval(id) reads and decides one request each, and passes the 409 of a second decision through', async () => {
    server.respond((req, res) => {
      if (req.method === 'GET') return json(res, 200, approval('pending'));
      json(res, 409, { error: { code: 'approval_decided', message: 'the approval is already denied; the first decision stands', retryable: false } });
    });
    const handle = ws.approval('apr_1');
    assert.equal(handle.id, 'apr_1');
    assert.equal(server.received.length, 0, 'a handle sends nothing');
    assert.deepEqual(await handle.get(), approval('pending'));
    const error = await failure(handle.approve());
    assert.equal(error.code, 'approval_decided');
    assert.equal(error.status, 409);
    assert.deepEqual(server.received.map((r) => `${r.method} ${r.url}`), ['GET /v1/approvals/apr_1', 'POST /v1/approvals/apr_1']);
  });

  it('ws.approvals.list() sends only the filters given and resolves to the data', async () => {
    server.respond((_req, res) => json(res, 200, { data: [approval('pending')] }));
    assert.deepEqual(await ws.approvals.list({ status: 'pending' }), [approval('pending')]);
    await ws.approvals.list();
    assert.deepEqual(server.received.map((r) => r.url), ['/v1/approvals?status=pending', '/v1/approvals']);
  });
});
