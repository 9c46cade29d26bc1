import assert from 'node:assert/strict';
import type { TurnEvent } from '../../sdk/src';
import { TokenCounter } from '../../activities/model/token-count';
import { call, type ErrorJson } from '../../harness/http';
import type { ScriptedResponse } from '../../harness/model-servers/scripted-server';
import { waitFor } from '../support/wait';
import { useIsolatedStack } from '../support/isolated-stack';

const WORDS = ['the', 'parcel', 'left', 'our', 'warehouse', 'on', 'monday', 'and', 'should', 'arrive', 'by', 'thursday', 'morning,', 'weather', 'permitting.'];
/** A 400-word reply to a one-line question: output dominates the bill, as in a long answer. */
const LONG_REPLY = Array.from({ length: 400 }, (_, i) => WORDS[i % WORDS.length]).join(' ');

/** Premium agents on the slow offline model; a turn reserves 1 credit; one running turn per workspace. */
const ENV = { MODEL_PREMIUM: 'local:offline', LOCAL_MODEL_DELAY_MS: '100', TURN_RESERVE_CREDITS: '1', WORKSPACE_RUNNING_TURNS_MAX: '1' };

/**
 * Credits that cannot be gamed (issue 32, item 4) and one admission for every turn (item 5):
 * a step cut short is billed for what it streamed, a cap or an empty balance stops a turn
 * before its next model step, and the workspace's running-turns limit holds for triggers too.
 * Standard-grade agents talk to an OpenAI-compatible server that reports usage counted with the
 * o200k_base tokenizer (as OpenAI's own models count); premium-grade agents use the slow offline model.
 */
describe('credits follow consumption, step by step', function () {
  this.timeout(120_000);
  const stack = useIsolatedStack({ model: 'openai', worker: 'inline', env: ENV });
  const { api, model: server, workspace } = stack;
  let tokens: TokenCounter;
  before(() => {
    tokens = new TokenCounter();
  });

  /** A reply as the provider streams and bills it: its text, and usage counted by the tokenizer. */
  const reply = (text: string, extra: Partial<ScriptedResponse> = {}): ScriptedResponse => ({
    text,
    usage: (body) => ({ inputTokens: tokens.count(JSON.stringify(body.messages)) + tokens.count(JSON.stringify(body.tools ?? [])), outputTokens: tokens.count(text) }),
    ...extra,
  });

  /** Each step says something and writes a file, and costs 1.5 credits (1000 + 500 tokens at 1 credit per 1000). */
  const STEP_COST = 1.5;
  /** The events of a turn whose model never stops calling tools (it would run TURN_MAX_STEPS = 12 steps). */
  async function endlessTurn(turn: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
    const original = server.defaultResponse;
    server.defaultResponse = {
      text: 'Writing another part. ',
      toolCalls: [{ name: 'files_write', args: { path: 'part.md', content: 'part' } }],
      usage: { inputTokens: 1000, outputTokens: 500 },
    };
    try {
      const events: TurnEvent[] = [];
      for await (const e of turn) events.push(e);
      return events;
    } finally {
      server.defaultResponse = original;
    }
  }
  const textOf = (events: TurnEvent[]) => events.map((e) => (e.type === 'text' ? e.text : '')).join('');
  const debit = async (turnId: string) => Number((await api.db('credit_debits').where({ turn_id: turnId }).first())?.amount ?? 0);
  const shownWords = (events: TurnEvent[]) => events.reduce((text, e) => (e.type === 'text' ? (e.reset ? e.text : text + e.text) : text), '').split(/\s+/).filter(Boolean).length;

  it('a turn cancelled at 90 % of a long reply is debited about 90 % of the whole turn', async () => {
    const { ws } = await workspace();
    const agent = await ws.agents.create({ name: 'Courier', instructions: 'Answer in detail.' });

    server.enqueue(reply(LONG_REPLY, { chunkDelayMs: 15 }));
    const whole = (await agent.start()).ask('Where is my parcel?');
    assert.equal(await whole, LONG_REPLY);
    const full = await debit(whole.id!);
    assert.ok(full > 0, 'the whole turn is debited');

    server.enqueue(reply(LONG_REPLY, { chunkDelayMs: 15 }));
    const cut = (await agent.start()).ask('Where is my parcel?');
    const events: TurnEvent[] = [];
    let cancelled = false;
    for await (const e of cut) {
      events.push(e);
      if (!cancelled && shownWords(events) >= 360) {
        cancelled = true;
        await cut.cancel();
      }
    }
    const end = events.at(-1);
    assert.ok(end?.type === 'error' && /cancelled/.test(end.message), JSON.stringify(end));
    const shown = shownWords(events);
    assert.ok(shown >= 360 && shown < 400, `cancelled mid-reply (${shown} words shown)`);
    const partial = await debit(cut.id!);
    const expected = 0.9 * full;
    assert.ok(Math.abs(partial - expected) <= 0.2 * expected, `debit ${partial} within ±20 % of 90 % of ${full}`);
  });

  it('a capped agent stops before the step that reaches its cap: spent ≤ cap + one step, one coded error, its text kept', async () => {
    const { ws } = await workspace();
    const agent = await ws.agents.create({ name: 'Looper', filesystem: 'drive', tools: ['files.write'] });
    const CAP = 4;
    await agent.setCreditCap(CAP);
    const conv = await agent.start();
    const turn = conv.ask('Write the report in parts.');
    const events = await endlessTurn(turn);
    await assert.rejects(turn, (e: { code?: string }) => e.code === 'credit_cap_reached');

    const terminals = events.filter((e) => e.type === 'done' || e.type === 'error');
    assert.equal(terminals.length, 1, JSON.stringify(terminals));
    const end = terminals[0];
    assert.ok(end?.type === 'error' && end.code === 'credit_cap_reached' && /credit cap/.test(end.message) && end.retryable === false, JSON.stringify(end));
    const { spent } = await agent.creditCap();
    assert.ok(spent <= CAP + STEP_COST, `spent ${spent} ≤ cap ${CAP} + one step ${STEP_COST}`);
    assert.ok(spent >= CAP, `it went on until the cap (${spent})`);
    // What it wrote before it stopped is kept: the streamed text and the assistant message.
    const messages = await conv.messages();
    const kept = messages.at(-1);
    assert.equal(kept?.role, 'assistant');
    assert.match(kept?.content ?? '', /^(Writing another part\. ){2,}$/);
    assert.equal(textOf(events), kept?.content);
    await assert.rejects(conv.ask('again?'), (e: { code?: string }) => e.code === 'insufficient_credits', 'the next ask is refused at admission');
  });

  it('a workspace whose balance runs out mid-turn stops with credits_exhausted and keeps its text', async () => {
    const { ws, workspaceId } = await workspace(3.5);
    const agent = await ws.agents.create({ name: 'Spender', filesystem: 'drive', tools: ['files.write'] });
    const conv = await agent.start();
    const events = await endlessTurn(conv.ask('Go.'));
    const end = events.at(-1);
    assert.ok(end?.type === 'error' && end.code === 'credits_exhausted', JSON.stringify(end));
    const left = (await api.repos.workspaces.get({ id: workspaceId }))!.credits;
    assert.ok(left > -STEP_COST && left <= 0.5, `overspent by less than one step (${left} left)`);
    assert.equal((await conv.messages()).at(-1)?.content, textOf(events));
    assert.match(textOf(events), /^(Writing another part\. ){2,}$/);
  });

  it('the running-turns limit holds for webhook and schedule runs: refused, nothing written', async () => {
    const { ws, apiKey } = await workspace();
    // The one running turn the workspace may have: a slow offline reply.
    const slow = await ws.agents.create({ name: 'Slow', grade: 'premium' });
    const running = (await slow.start()).ask(Array.from({ length: 80 }, (_, i) => `w${i}`).join(' '));
    const iterator = running[Symbol.asyncIterator]();
    for (let next = await iterator.next(); !next.done && next.value.type !== 'text'; next = await iterator.next());

    const hooked = await ws.agents.create({ name: 'Hooked', grade: 'premium', triggers: [{ kind: 'webhook', message: 'Go' }] });
    const [hook] = await hooked.webhooks();
    const refused = await call<ErrorJson>(api.baseURL, 'POST', new URL(hook!.url).pathname, { body: { order: 1 } });
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'rate_limited');
    assert.match(refused.body.error.message, /turns running/);
    assert.deepEqual(await hooked.conversations(), [], 'no run was started');

    const scheduled = await ws.agents.create({ name: 'Cron', grade: 'premium', triggers: [{ kind: 'schedule', cron: '0 9 * * 1', message: 'Sync' }] });
    await api.temporal.schedule.getHandle(`trigger-${scheduled.id}-0`).trigger();
    const results = await waitFor(
      'the run closed',
      async () => {
        const out: unknown[] = [];
        const query = `AgentId = "${scheduled.id}" AND WorkflowType = "triggerRunWorkflow"`;
        for await (const w of api.temporal.workflow.list({ query })) {
          if (w.status.name === 'COMPLETED') out.push(await api.temporal.workflow.getHandle(w.workflowId, w.runId).result());
        }
        return out;
      },
      (v) => v.length === 1,
    );
    assert.deepEqual(results, [{ skipped: 'running_turns_limit', detail: 'the workspace has 1 turns running, the most it may at once; try again when one has ended' }]);
    assert.deepEqual(await scheduled.conversations(), [], 'the skipped run wrote nothing');
    const list = await call<{ data: unknown[] }>(api.baseURL, 'GET', `/v1/agents/${scheduled.id}/conversations`, { apiKey });
    assert.deepEqual(list.body.data, []);

    await running.cancel();
    await iterator.return?.();
  });
});
