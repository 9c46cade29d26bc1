import assert from 'node:assert/strict';
import pg from 'pg';
import { newId } from '../../domain/ids';
import { CARRY_EVENTS_MAX_BYTES, decodeTurnNotification, TURN_EVENTS_CHANNEL, type TurnNotification } from '../../db/turns/notification';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { endlessTurn, newConversation } from '../support/limits';
import { waitFor } from '../support/wait';

/**
 * The turn lifecycle's SQL functions (db/turns/sql/), called directly as the repository calls them:
 * what each writes, what a second call writes (nothing), and what the streams are told.
 */
describe('the turn lifecycle in SQL (db/turns/sql)', function () {
  this.timeout(60_000);
  const api = useTestApi();
  let apiKey: string;
  let workspaceId: string;
  let listener: pg.Client;
  let heard: TurnNotification[] = [];

  before(async () => {
    const ws = await api.newWorkspace({ name: 'lifecycle sql', credits: 100 });
    apiKey = ws.apiKey;
    workspaceId = ws.workspace.id;
    listener = new pg.Client({ connectionString: fixture().databaseUrl });
    await listener.connect();
    listener.on('notification', (n) => {
      const decoded = n.payload === undefined ? undefined : decodeTurnNotification(n.payload);
      if (decoded) heard.push(decoded);
    });
    await listener.query(`listen ${TURN_EVENTS_CHANNEL}`);
  });
  after(async () => {
    await listener?.end();
  });
  beforeEach(() => {
    heard = [];
  });

  const turnRow = async (turnId: string) =>
    api.db('turns').where({ id: turnId }).first<{ status: string; last_seq: number; usage: unknown; cost: string | null }>('status', 'last_seq', 'usage', 'cost');
  const events = async (turnId: string) => (await api.db('turn_events').where({ turn_id: turnId }).orderBy('seq').select<Array<{ seq: number; type: string }>>('seq', 'type'));
  const heardOf = (turnId: string) => heard.filter((n) => n.turnId === turnId);

  async function runningTurn(): Promise<{ turnId: string; conversationId: string }> {
    const { conversationId } = await newConversation(api, apiKey);
    return { turnId: await endlessTurn(api, workspaceId, conversationId), conversationId };
  }

  const endTurn = async (turnId: string, terminal: object, cost: number | null) =>
    (
      await api.db.raw<{ rows: Array<{ seq: number | null }> }>('select end_turn(?, ?, ?::jsonb, ?::jsonb, ?, ?, ?) as seq', [
        turnId,
        'cancelled',
        JSON.stringify(terminal),
        cost === null ? null : JSON.stringify({ inputTokens: 1, outputTokens: 2 }),
        cost,
        TURN_EVENTS_CHANNEL,
        CARRY_EVENTS_MAX_BYTES,
      ])
    ).rows[0]!.seq;

  it('end_turn ends a running turn once: its terminal event, its pending approvals closed, one notification carrying the event', async () => {
    const { turnId, conversationId } = await runningTurn();
    const agentId = (await api.db('conversations').where({ id: conversationId }).first<{ agent_id: string }>('agent_id'))!.agent_id;
    await api.db('tool_approvals').insert({
      id: newId('approval'),
      turn_id: turnId,
      tool_call_id: 'call-1',
      workspace_id: workspaceId,
      conversation_id: conversationId,
      agent_id: agentId,
      tool: 'refund',
      arguments: '{}',
      approver: 'builder',
      timeout_ms: 60_000,
      expires_at: new Date(Date.now() + 60_000),
    });
    const terminal = { type: 'error', message: 'stopped', retryable: false };
    const seq = await endTurn(turnId, terminal, 0.5);
    assert.equal(seq, 2, 'after the start event');
    const row = await turnRow(turnId);
    assert.equal(row?.status, 'cancelled');
    assert.equal(row?.last_seq, 2);
    assert.deepEqual(row?.usage, { inputTokens: 1, outputTokens: 2 });
    assert.equal(Number(row?.cost), 0.5);
    assert.deepEqual(await events(turnId), [
      { seq: 1, type: 'start' },
      { seq: 2, type: 'error' },
    ]);
    const approval = await api.db('tool_approvals').where({ turn_id: turnId }).first<{ status: string }>('status');
    assert.equal(approval?.status, 'cancelled');
    // The start event's append was announced too; the ending's notification is the one from seq 2.
    const ending = () => heardOf(turnId).filter((n) => (n.appended?.first ?? 0) >= 2);
    await waitFor('the notification', () => ending().length, (n) => n >= 1, 5000);
    const [note] = ending();
    assert.deepEqual(note?.appended?.events?.map((e) => [e.seq, e.type, JSON.parse(e.data)]), [[2, 'error', terminal]]);

    // Again: nothing more is written or announced.
    assert.equal(await endTurn(turnId, { type: 'error', message: 'again', retryable: false }, 9), null);
    assert.equal((await events(turnId)).length, 2);
    assert.equal(Number((await turnRow(turnId))?.cost), 0.5);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(ending().length, 1);
  });

  it('notify_turn_events carries the events up to the bound, and names only the range above it', async () => {
    const turnId = newId('turn');
    const small = [['text', JSON.stringify({ type: 'text', text: 'hi' })]];
    const large = [['text', JSON.stringify({ type: 'text', text: 'x'.repeat(CARRY_EVENTS_MAX_BYTES) })]];
    await api.db.raw('select notify_turn_events(?, ?, 3, 3, ?::json, ?)', [TURN_EVENTS_CHANNEL, turnId, JSON.stringify(small), CARRY_EVENTS_MAX_BYTES]);
    await api.db.raw('select notify_turn_events(?, ?, 4, 4, ?::json, ?)', [TURN_EVENTS_CHANNEL, turnId, JSON.stringify(large), CARRY_EVENTS_MAX_BYTES]);
    await waitFor('both notifications', () => heardOf(turnId).length, (n) => n === 2, 5000);
    const [first, second] = heardOf(turnId);
    assert.deepEqual(first?.appended, { first: 3, last: 3, events: [{ seq: 3, type: 'text', data: small[0]![1] }] });
    assert.deepEqual(second?.appended, { first: 4, last: 4 });
  });

  it('settle_turn bills what the steps recorded, adds the reply, debits once and ends through end_turn', async () => {
    const { turnId, conversationId } = await runningTurn();
    await api.db('turn_step_usage').insert({ turn_id: turnId, writer: 'a#1', step: 1, input_tokens: 1000, output_tokens: 500, credits_per_1k: 2, final: true });
    const before = Number((await api.db('workspaces').where({ id: workspaceId }).first<{ credits: string }>('credits'))!.credits);
    const settle = () =>
      api.db.raw<{ rows: Array<{ settled: boolean; cost: string; input_tokens: string }> }>('select * from settle_turn(?, ?, ?::jsonb, ?, 0, 0, ?::jsonb, ?, ?)', [
        turnId,
        'done',
        JSON.stringify({ type: 'done', reply: 'Hello.' }),
        'Hello.',
        JSON.stringify({ standard: 1 }),
        TURN_EVENTS_CHANNEL,
        CARRY_EVENTS_MAX_BYTES,
      ]);
    const { rows } = await settle();
    assert.equal(rows[0]?.settled, true);
    assert.equal(Number(rows[0]?.cost), 3, '1500 tokens at 2 per 1k');
    assert.equal((await turnRow(turnId))?.status, 'done');
    assert.deepEqual((await events(turnId)).map((e) => e.type), ['start', 'done']);
    const reply = await api.db('messages').where({ conversation_id: conversationId, role: 'assistant' }).select('content');
    assert.deepEqual(reply, [{ content: 'Hello.' }]);
    const after = Number((await api.db('workspaces').where({ id: workspaceId }).first<{ credits: string }>('credits'))!.credits);
    assert.equal(before - after, 3);

    const again = await settle();
    assert.equal(again.rows[0]?.settled, false);
    const afterAgain = Number((await api.db('workspaces').where({ id: workspaceId }).first<{ credits: string }>('credits'))!.credits);
    assert.equal(afterAgain, after, 'debited once');
    assert.equal((await events(turnId)).length, 2);
  });

  it('admit_turn inserts the running turn, and refuses a second one of the conversation and one past the running limit', async () => {
    const { conversationId } = await newConversation(api, apiKey);
    const admit = (conversation: string | null, maxRunning: number) =>
      api.db.transaction(async (trx) => {
        const { rows } = await trx.raw<{ rows: Array<{ refused: string | null; turn_id: string | null; running_id: string | null; running_count: string | null }> }>(
          'select * from admit_turn(?, null, ?, 0, ?, ?)',
          [workspaceId, conversation, maxRunning, newId('turn')],
        );
        return rows[0]!;
      });
    const running = Number((await api.db('turns').where({ workspace_id: workspaceId, status: 'running' }).count<Array<{ count: string }>>('* as count'))[0]!.count);
    const first = await admit(conversationId, running + 1);
    assert.equal(first.refused, null);
    assert.ok(first.turn_id);
    assert.equal((await turnRow(first.turn_id))?.status, 'running');

    const second = await admit(conversationId, running + 10);
    assert.equal(second.refused, 'turn_in_progress');
    assert.equal(second.running_id, first.turn_id);

    const other = await newConversation(api, apiKey);
    const full = await admit(other.conversationId, running + 1);
    assert.equal(full.refused, 'running_turns_limit');
    assert.equal(Number(full.running_count), running + 1);
    assert.equal(await api.db('turns').where({ conversation_id: other.conversationId }).first(), undefined, 'nothing inserted');
  });
});
