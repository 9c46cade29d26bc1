import assert from 'node:assert/strict';
import { type Approval, Service, ServiceError, type Turn, type TurnEvent } from '../../sdk/src';
import { kill } from '../../harness/fault-stack';
import type { ModelServer, ScriptedResponse } from '../../harness/model-servers/scripted-server';
import { freePort } from '../../infra/temporal-dev-server';
import { refundTool, startRefunds } from '../support/refunds';
import { waitFor } from '../support/wait';
import { useIsolatedStack } from '../support/isolated-stack';
import { spawnApi } from '../support/workers';

type ApprovalEvent = Extract<TurnEvent, { type: 'approval' }>;
const approvalsOf = (events: TurnEvent[]) => events.filter((e): e is ApprovalEvent => e.type === 'approval');
const terminalsOf = (events: TurnEvent[]) => events.filter((e) => e.type === 'done' || e.type === 'error');

/** The tool messages the model server received, in order (OpenAI wire: `role: tool`). */
function toolResultsSent(model: ModelServer): string[] {
  return model.requests.flatMap((r) => {
    const messages = (r.body as { messages?: Array<{ role: string; content: unknown }> } | undefined)?.messages ?? [];
    return messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
  });
}

/**
 * Tool calls a person approves (docs/approvals.md), on a real worker process and a scripted
 * OpenAI-wire model: the turn waits durably, survives restarts, and goes on exactly once with
 * the decision — or without one, denied. The turn deadline (8 s here) never cuts a wait short.
 */
describe('tool calls a person approves', function () {
  this.timeout(180_000);
  const stack = useIsolatedStack({ model: 'openai', worker: 'process', env: { OUTBOUND_ALLOW_PRIVATE: '127.0.0.0/8', TURN_TIMEOUT_MS: '8000' } });
  const { api, model } = stack;
  let refunds: Awaited<ReturnType<typeof startRefunds>>;

  before(async () => {
    model.defaultResponse = { text: 'Nothing more to do.' };
    refunds = await startRefunds();
  });
  after(() => refunds?.close());

  async function refundAgent(baseURL: string, approvalTimeoutMs?: number) {
    const { apiKey, workspace } = await api.newWorkspace({ credits: 100 });
    const ws = new Service({ apiKey, baseURL });
    const agent = await ws.agents.create({
      name: 'Refunds',
      httpTools: [refundTool(refunds.url)],
      ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
    });
    return { ws, agent, apiKey, workspaceId: workspace.id, conversation: await agent.start() };
  }

  /** Asks for a refund the model will try (then answers `reply`, when the turn gets there); resolves once the call waits. */
  async function askRefund(conversation: { ask(text: string): Turn }, reply?: string | ScriptedResponse) {
    const then = reply === undefined ? [] : [typeof reply === 'string' ? { text: reply } : reply];
    model.enqueue({ toolCalls: [{ name: 'refund', args: { orderId: 'A1', amount: 20 } }] }, ...then);
    const turn = conversation.ask('Refund order A1, 20 EUR');
    const events: TurnEvent[] = [];
    const ended = (async () => {
      for await (const e of turn) events.push(e);
    })();
    const [pending] = await waitFor('an approval event', () => approvalsOf(events), (a) => a.length > 0);
    return { turn, events, ended, pending: pending! };
  }

  it('waits across a worker SIGKILL and an API restart holding no activity, is approved, and ends with one done', async () => {
    const port = await freePort();
    const apiEnv = { ...stack.env, PORT: String(port) };
    let apiProc = await spawnApi(apiEnv);
    try {
      const { conversation } = await refundAgent(`http://127.0.0.1:${port}`);
      const refundsBefore = refunds.seen.length;
      const { turn, events, ended, pending } = await askRefund(conversation, 'Refunded order A1.');
      assert.deepEqual(
        { tool: pending.tool, arguments: pending.arguments, approver: pending.approver, status: pending.status },
        { tool: 'refund', arguments: { orderId: 'A1', amount: 20 }, approver: 'workspace', status: 'pending' },
      );
      // Waiting durably: no activity runs (no worker slot is held) while the turn waits.
      const described = await api.temporal.workflow.getHandle(`turn-${turn.id}`).describe();
      assert.equal(described.raw.pendingActivities?.length ?? 0, 0);
      assert.equal((await api.db('turns').where({ id: turn.id }).first()).status, 'running');

      await stack.killWorkers();
      await stack.startWorker();
      await kill(apiProc);
      apiProc = await spawnApi(apiEnv);
      // Past the 8 s turn deadline: the wait does not count against it.
      await new Promise((r) => setTimeout(r, 9000));
      assert.equal(refunds.seen.length, refundsBefore, 'nothing ran before the decision');

      const decided = await turn.approve('ok by ops');
      assert.equal(decided.status, 'approved');
      await ended;
      assert.deepEqual(terminalsOf(events), [{ type: 'done', reply: 'Refunded order A1.' }]);
      assert.deepEqual(
        approvalsOf(events).map((a) => [a.approvalId, a.status, a.note]),
        [
          [pending.approvalId, 'pending', undefined],
          [pending.approvalId, 'approved', 'ok by ops'],
        ],
      );
      assert.equal(refunds.seen.length, refundsBefore + 1, 'the refund ran once');
      assert.ok(toolResultsSent(model).some((c) => c.includes('R-1001')), 'the model saw the tool result');
      assert.equal((await api.db('messages').where({ turn_id: turn.id, role: 'assistant' })).length, 1);
      assert.equal((await api.db('credit_debits').where({ turn_id: turn.id })).length, 1);
    } finally {
      await kill(apiProc);
    }
  });

  it('a denial is the tool result the model sees, with the note; the tool never runs', async () => {
    const { conversation, ws } = await refundAgent(api.baseURL);
    const refundsBefore = refunds.seen.length;
    const { turn, events, ended, pending } = await askRefund(conversation, 'I could not refund it.');
    const denied = await ws.approval(pending.approvalId).deny('over the limit for chat refunds');
    assert.equal(denied.status, 'denied');
    await ended;
    assert.equal(terminalsOf(events).length, 1);
    assert.equal(terminalsOf(events)[0]!.type, 'done');
    assert.deepEqual(approvalsOf(events).map((a) => a.status), ['pending', 'denied']);
    assert.equal(refunds.seen.length, refundsBefore);
    const sent = toolResultsSent(model).at(-1) ?? '';
    assert.match(sent, /not run: a person denied this call/);
    assert.match(sent, /over the limit for chat refunds/);
    // The first decision stands: a second one is refused, naming it.
    const again = await ws.approval(pending.approvalId).approve().catch((e: unknown) => e);
    assert.ok(again instanceof ServiceError && again.status === 409 && again.code === 'approval_decided' && /denied/.test(again.message), String(again));
    assert.equal((await ws.approval(pending.approvalId).get()).status, 'denied');
    assert.equal(turn.id, (await ws.approval(pending.approvalId).get()).turnId);
  });

  it('no decision within the approval timeout denies the call (longer than the turn deadline)', async () => {
    const { conversation, ws } = await refundAgent(api.baseURL, 10_000);
    const started = Date.now();
    const { events, ended, pending } = await askRefund(conversation, 'The refund was not approved in time.');
    await ended;
    assert.ok(Date.now() - started >= 10_000, 'it waited the whole approval timeout');
    assert.deepEqual(terminalsOf(events).map((e) => e.type), ['done']);
    assert.deepEqual(approvalsOf(events).map((a) => a.status), ['pending', 'expired']);
    assert.match(toolResultsSent(model).at(-1) ?? '', /no decision within 10 s, so the call was denied/);
    const late = await ws.approval(pending.approvalId).approve().catch((e: unknown) => e);
    assert.ok(late instanceof ServiceError && late.code === 'approval_decided', String(late));
  });

  it('after a wait longer than the deadline, the deadline still ends the turn: it counts working time only', async () => {
    const { conversation } = await refundAgent(api.baseURL);
    const slow = { text: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' '), chunkDelayMs: 400 }; // about 16 s
    const { turn, events, ended } = await askRefund(conversation, slow);
    await new Promise((r) => setTimeout(r, 10_000)); // the 8 s deadline passes while the call waits
    const approvedAt = Date.now();
    await turn.approve();
    await ended;
    const [end] = terminalsOf(events);
    assert.ok(end?.type === 'error' && /time limit of 8 s/.test(end.message), JSON.stringify(end));
    // Under a second of work before the wait: the rest of the 8 s after it, not the whole wait again.
    const after = Date.now() - approvedAt;
    assert.ok(after > 4000 && after < 9500, `ended ${after} ms after the approval`);
  });

  it('a cancel while it waits ends the turn once and closes the approval', async () => {
    const { conversation, ws } = await refundAgent(api.baseURL);
    const { turn, events, ended, pending } = await askRefund(conversation);
    assert.deepEqual(await turn.cancel(), { turnId: turn.id, status: 'cancelled' });
    await ended;
    assert.equal(terminalsOf(events).length, 1);
    const [end] = terminalsOf(events);
    assert.ok(end?.type === 'error' && /cancelled/.test(end.message), JSON.stringify(end));
    const closed: Approval = await ws.approval(pending.approvalId).get();
    assert.equal(closed.status, 'cancelled');
    const late = await ws.approval(pending.approvalId).approve().catch((e: unknown) => e);
    assert.ok(late instanceof ServiceError && late.code === 'approval_decided', String(late));
  });

  it("another workspace's approval, or an unknown id, is 404; a bad decision is 400 naming the field", async () => {
    const { conversation, ws, apiKey } = await refundAgent(api.baseURL);
    const { ended, pending } = await askRefund(conversation, 'Refunded.');
    const { apiKey: otherKey } = await api.newWorkspace();
    const other = new Service({ apiKey: otherKey, baseURL: api.baseURL });
    // What waits is listed for its workspace alone (a scheduled turn's wait has nobody on its stream).
    assert.deepEqual((await ws.approvals.list({ status: 'pending' })).map((a) => a.id), [pending.approvalId]);
    assert.deepEqual(await other.approvals.list(), []);
    for (const attempt of [() => other.approval(pending.approvalId).get(), () => other.approval(pending.approvalId).approve(), () => ws.approval('apr_unknown').get()]) {
      const e = await attempt().catch((err: unknown) => err);
      assert.ok(e instanceof ServiceError && e.status === 404 && e.code === 'approval_not_found', String(e));
    }
    const bad = await fetch(`${api.baseURL}/v1/approvals/${pending.approvalId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'maybe' }),
    });
    assert.equal(bad.status, 400);
    const body = (await bad.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'invalid_request');
    assert.match(body.error.message, /^body\.decision/);
    await ws.approval(pending.approvalId).approve();
    await ended;
  });
});
