import assert from 'node:assert/strict';
import { Service, type TurnEvent } from '../../sdk/src';
import { type RunningApi, startTestApi, type TestApi } from '../support/api';
import { call, type ErrorJson } from '../../harness/http';
import { collectTurn } from '../support/sse';
import { useIsolatedStack } from '../support/isolated-stack';
import { isolatedConfig } from '../support/workers';

const LONG = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
const WRITE = '/tool files_write {"path":"notes.md","content":"hello"}';

/**
 * Turns that can be cancelled and cannot run forever, and credits that are reserved before a turn
 * starts and debited for whatever a turn consumed — ended, failed or cancelled.
 */
describe('cancellable, bounded turns and honest billing', function () {
  this.timeout(60_000);
  const stack = useIsolatedStack({ worker: 'inline', env: { LOCAL_MODEL_DELAY_MS: '150' } });
  const { api } = stack;
  /** Same worker, shorter limits: a 1.5 s deadline and one model step per turn. */
  let tight: TestApi;

  before(async () => {
    tight = await startTestApi({ config: isolatedConfig({ ...stack.env, TURN_TIMEOUT_MS: '1500', TURN_MAX_STEPS: '1' }) });
  });
  after(async () => {
    await tight?.stop();
  });

  async function setup(on: RunningApi = api, credits = 100) {
    const { apiKey, workspace } = await on.newWorkspace({ credits });
    const ws = new Service({ apiKey, baseURL: on.baseURL });
    const agent = await ws.agents.create({ name: 'Writer', filesystem: 'drive', tools: ['files.write'] });
    return { apiKey, workspaceId: workspace.id, ws, agent, conv: await agent.start() };
  }

  const turnIdOf = (events: TurnEvent[]) => (events[0]?.type === 'start' ? events[0].turnId : '');
  const terminals = (events: TurnEvent[]) => events.filter((e) => e.type === 'done' || e.type === 'error');
  const debits = async (turnId: string) => (await api.db('credit_debits').where({ turn_id: turnId })).map((d: { amount: number }) => Number(d.amount));

  it('cancel mid-stream: one terminal error event, the stream ends, the conversation is askable, the finished step is debited', async () => {
    const { conv, workspaceId } = await setup();
    const turn = conv.ask(WRITE);
    const events: TurnEvent[] = [];
    let state: unknown;
    for await (const e of turn) {
      events.push(e);
      // The tool ran (model step 1 is over) and step 2 is streaming its reply.
      if (e.type === 'text' && state === undefined) state = await turn.cancel();
    }
    assert.deepEqual(state, { turnId: turn.id, status: 'cancelled' });
    const [end] = terminals(events);
    assert.equal(terminals(events).length, 1);
    assert.ok(end?.type === 'error' && /cancelled/.test(end.message) && end.retryable === false, JSON.stringify(end));
    assert.ok(events.some((e) => e.type === 'tool' && e.state === 'end'), 'the tool call had finished');
    const turnId = turnIdOf(events);
    const row = await api.db('turns').where({ id: turnId }).first();
    assert.equal(row.status, 'cancelled');
    const [amount] = await debits(turnId);
    assert.ok(amount !== undefined && amount > 0, 'the completed model step is debited');
    const ws = await api.repos.workspaces.get({ id: workspaceId });
    assert.equal(Math.round((100 - ws!.credits) * 1e6), Math.round(amount * 1e6));
    assert.match(await conv.ask('/tool files_write {"path":"b.md","content":"x"}'), /Tool results/, 'the conversation takes the next ask');
  });

  it('cancelling a finished turn changes nothing and answers its final state; another workspace gets 404', async () => {
    const { apiKey, conv } = await setup();
    const turn = conv.ask('hi');
    await turn;
    const before = await api.db('turns').where({ id: turn.id }).first();
    assert.deepEqual(await turn.cancel(), { turnId: turn.id, status: 'done' });
    const again = await call(api.baseURL, 'POST', `/v1/turns/${turn.id}/cancel`, { apiKey });
    assert.deepEqual(again.body, { turnId: turn.id, status: 'done' });
    const after = await api.db('turns').where({ id: turn.id }).first();
    assert.equal(after.last_seq, before.last_seq, 'no event was added');
    assert.equal((await debits(turn.id!)).length, 1);
    const other = await api.newWorkspace();
    const res = await call<ErrorJson>(api.baseURL, 'POST', `/v1/turns/${turn.id}/cancel`, { apiKey: other.apiKey });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'turn_not_found');
  });

  it('conversation.end() cancels its running turn', async () => {
    const { conv } = await setup();
    const events: TurnEvent[] = [];
    for await (const e of conv.ask(LONG)) {
      events.push(e);
      if (e.type === 'text' && events.filter((x) => x.type === 'text').length === 1) await conv.end();
    }
    const [end] = terminals(events);
    assert.ok(end?.type === 'error' && /cancelled/.test(end.message), JSON.stringify(end));
    assert.equal((await api.db('turns').where({ id: turnIdOf(events) }).first()).status, 'cancelled');
  });

  it('a turn past its deadline ends with one error event, and the conversation is askable again', async () => {
    const { apiKey, conv } = await setup(tight);
    const started = Date.now();
    const res = await collectTurn(`${tight.baseURL}/v1/conversations/${conv.id}/turns`, { method: 'POST', apiKey, body: { text: LONG } });
    const events = res.events.map((e) => e.event);
    const [end] = terminals(events);
    assert.equal(terminals(events).length, 1);
    assert.ok(end?.type === 'error' && /time limit/.test(end.message), JSON.stringify(end));
    assert.ok(Date.now() - started < 8000, 'ended by the deadline, not by the reply (9 s of words)');
    const [cut] = await debits(turnIdOf(events));
    assert.ok(cut !== undefined && cut > 0, 'the cut-short step is billed for its prompt and the text it streamed');
    const next = await collectTurn(`${tight.baseURL}/v1/conversations/${conv.id}/turns`, { method: 'POST', apiKey, body: { text: 'hi' } });
    assert.equal(next.status, 200);
    assert.equal(next.events[0]?.event.type, 'start');
  });

  it('a failed turn debits the usage of the model steps it completed', async () => {
    const { apiKey, conv, workspaceId } = await setup(tight);
    // One step allowed: the model's tool call uses it, and the turn fails before a second.
    const res = await collectTurn(`${tight.baseURL}/v1/conversations/${conv.id}/turns`, { method: 'POST', apiKey, body: { text: WRITE } });
    const events = res.events.map((e) => e.event);
    const end = events.at(-1);
    assert.ok(end?.type === 'error' && /within 1 steps/.test(end.message), JSON.stringify(end));
    const [amount] = await debits(turnIdOf(events));
    assert.ok(amount !== undefined && amount > 0);
    const ws = await api.repos.workspaces.get({ id: workspaceId });
    assert.equal(Math.round((100 - ws!.credits) * 1e6), Math.round(amount * 1e6));
  });

  it('parallel asks cannot overspend: a balance that covers two reservations admits two turns', async () => {
    // TURN_RESERVE_CREDITS is 5 by default: 10 credits cover two turns.
    const { apiKey, agent } = await setup(api, 10);
    const convs = await Promise.all(Array.from({ length: 10 }, () => agent.start()));
    const results = await Promise.all(
      convs.map((c) => collectTurn(`${api.baseURL}/v1/conversations/${c.id}/turns`, { method: 'POST', apiKey, body: { text: 'hi' } })),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 2);
    const refused = results.filter((r) => r.status !== 200);
    assert.equal(refused.length, 8);
    for (const r of refused) assert.equal((r.errorBody as ErrorJson).error.code, 'insufficient_credits');
  });

  it("an agent's credit cap refuses its turns once reached, and lifting it lets them run", async () => {
    const { conv, agent } = await setup();
    assert.deepEqual(await agent.creditCap(), { agentId: agent.id, credits: null, spent: 0 });
    // Room for one 5-credit reservation, not for what that turn then cost plus another one.
    await agent.setCreditCap(5.005);
    await conv.ask('hi');
    const { spent } = await agent.creditCap();
    assert.ok(spent > 0.005 && spent < 1, String(spent));
    await assert.rejects(conv.ask('again'), (e: { code?: string; message?: string }) => e.code === 'insufficient_credits' && /credit cap/.test(e.message ?? ''));
    assert.deepEqual(await agent.setCreditCap(null), { agentId: agent.id, credits: null, spent });
    assert.match(await conv.ask('again'), /You said: again/);
    const other = await api.newWorkspace();
    const res = await call<ErrorJson>(api.baseURL, 'PUT', `/v1/agents/${agent.id}/credit-cap`, { apiKey: other.apiKey, body: { credits: 1 } });
    assert.equal(res.status, 404);
  });
});
