import assert from 'node:assert/strict';
import { Service, type TurnEvent } from '../../sdk/src';
import { type FaultStack, kill, startFaultStack } from '../../harness/fault-stack';
import { type OpenAIServer, startOpenAIServer } from '../../harness/model-servers/openai-server';
import { fixture } from '../support/fixture';

/** The words the offline model repeats: long enough that every fault lands mid-stream. */
const MESSAGE = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
const TURNS = 4;
/** What the scripted provider streams to premium agents: a word every 120 ms, about 10 s in all. */
const PROVIDER_TEXT = Array.from({ length: 80 }, (_, i) => `p${i}`).join(' ');

interface Streamed {
  turnId: string;
  events: TurnEvent[];
}

/**
 * The faults an operator lives with, each on real processes while turns stream to SDK clients:
 * every turn ends with exactly one terminal event (a `done`), one stored reply and one debit.
 * Standard agents talk to the offline model in the worker; premium ones to an OpenAI-wire test
 * server in this process, which counts the model calls a fault costs.
 */
describe('faults while turns stream (real processes)', function () {
  this.timeout(240_000);
  let stack: FaultStack;
  let provider: OpenAIServer;
  let apiKey: string;
  let workspaceId: string;

  before(async () => {
    provider = await startOpenAIServer();
    provider.defaultResponse = { text: PROVIDER_TEXT, chunkDelayMs: 120 };
    stack = await startFaultStack({
      temporalCliPath: fixture().temporalCliPath,
      extraEnv: {
        LOCAL_MODEL_DELAY_MS: '120',
        MODEL_HEARTBEAT_TIMEOUT_MS: '60000',
        MODEL_RETRY_INITIAL_MS: '200',
        MODEL_PREMIUM: 'openai:gpt-test',
        OPENAI_BASE_URL: `${provider.url}/v1`,
        OPENAI_API_KEY: 'sk-test',
      },
    });
    const workspace = await stack.repos.workspaces.create({ name: 'faults', credits: 1000 });
    workspaceId = workspace.id;
    apiKey = (await stack.repos.apiKeys.create({ workspaceId })).apiKey;
  });
  after(async () => {
    await stack?.close();
    await provider?.close();
  });

  /** Starts `count` turns on their own conversations; resolves `streaming` once each has shown text. */
  async function streamTurns(count = TURNS, grade: 'standard' | 'premium' = 'standard'): Promise<{ streaming: Promise<void>; finished: Promise<Streamed[]> }> {
    const ws = new Service({ apiKey, baseURL: stack.apiURL });
    const agent = await ws.agents.create({ name: 'Steady', grade });
    const conversations = await Promise.all(Array.from({ length: count }, () => agent.start()));
    const started: Array<() => void> = [];
    const streaming = Promise.all(conversations.map(() => new Promise<void>((resolve) => started.push(resolve)))).then(() => undefined);
    const finished = Promise.all(
      conversations.map(async (conversation, i) => {
        const events: TurnEvent[] = [];
        for await (const e of conversation.ask(MESSAGE)) {
          events.push(e);
          if (e.type === 'text') started[i]!();
        }
        started[i]!();
        const start = events.find((e) => e.type === 'start');
        return { turnId: start?.type === 'start' ? start.turnId : '', events };
      }),
    );
    return { streaming, finished };
  }

  async function assertEachTurnOnce(turns: Streamed[]): Promise<void> {
    for (const { turnId, events } of turns) {
      const terminal = events.filter((e) => e.type === 'done' || e.type === 'error');
      assert.equal(terminal.length, 1, `one terminal event for ${turnId}`);
      assert.equal(terminal[0]!.type, 'done', JSON.stringify(terminal[0]));
      const replies = await stack.db('messages').where({ turn_id: turnId, role: 'assistant' });
      assert.equal(replies.length, 1, `one stored reply for ${turnId}`);
      assert.equal(replies[0].content, (terminal[0] as { reply: string }).reply);
      const debits = await stack.db('credit_debits').where({ turn_id: turnId });
      assert.equal(debits.length, 1, `one debit for ${turnId}`);
    }
    const debited = await stack.db('credit_debits').where({ workspace_id: workspaceId }).sum<{ sum: number }[]>('amount as sum');
    const workspace = await stack.repos.workspaces.get({ id: workspaceId });
    assert.equal(Math.round((1000 - workspace!.credits) * 1e6), Math.round(Number(debited[0]!.sum) * 1e6), 'the balance moved by the debits alone');
  }

  it('SIGKILL of the worker: a new worker finishes every turn', async () => {
    const { streaming, finished } = await streamTurns();
    await streaming;
    await kill(stack.worker);
    await stack.startWorker();
    const back = Date.now();
    const turns = await finished;
    // The killed attempts are failed by the new worker once the dead one's liveness lapses (2 s),
    // not at their heartbeat timeout (60 s in this stack): a user waits seconds, not a minute.
    const waited = Date.now() - back;
    assert.ok(waited < 20_000, `the turns resumed ${waited} ms after the new worker was up (heartbeat timeout 60 s)`);
    await assertEachTurnOnce(turns);
  });

  it('SIGKILL of the API: clients resume on the restarted API', async () => {
    const { streaming, finished } = await streamTurns();
    await streaming;
    await kill(stack.api);
    // Down longer than a quick restart: a slow start, a rolling deploy, a node being replaced.
    await new Promise((r) => setTimeout(r, 9000));
    await stack.startApi();
    await assertEachTurnOnce(await finished);
  });

  it('a restart of the Temporal server: workers and the API reconnect, turns finish', async () => {
    const { streaming, finished } = await streamTurns();
    await streaming;
    await stack.stopTemporal();
    await stack.startTemporal();
    await assertEachTurnOnce(await finished);
  });

  it('a stop and start of PostgreSQL: the worker survives as the same process, turns finish', async () => {
    const workerPid = stack.worker.pid;
    const apiPid = stack.api.pid;
    const { streaming, finished } = await streamTurns();
    await streaming;
    await stack.stopPostgres();
    // While it is down the API says so with a retryable 503, not a 500.
    const during = await fetch(`${stack.apiURL}/v1/workspace`, { headers: { authorization: `Bearer ${apiKey}` } });
    assert.equal(during.status, 503);
    assert.equal(((await during.json()) as { error: { code: string } }).error.code, 'database_unavailable');
    assert.ok(Number(during.headers.get('retry-after')) >= 1);
    await new Promise((r) => setTimeout(r, 1500));
    await stack.startPostgres();
    // Nothing supervises these processes: a worker that died would leave the turns hanging.
    const worker = stack.worker;
    const died = new Promise<never>((_, reject) =>
      worker.once('exit', (code, signal) => reject(new Error(`the worker exited (${code ?? signal}):\n${worker.output().slice(-3000)}`))),
    );
    await assertEachTurnOnce(await Promise.race([finished, died]));
    assert.equal(stack.worker.exitCode, null, `the worker is still running:\n${stack.worker.output().slice(-2000)}`);
    assert.equal(stack.worker.pid, workerPid);
    assert.equal(stack.api.exitCode, null, 'the API is still running');
    assert.equal(stack.api.pid, apiPid);
  });

  it('a 2 s PostgreSQL restart with ten turns streaming: ten model calls, each text whole and in order', async () => {
    const calls = () => provider.requests.filter((r) => r.path.endsWith('/chat/completions')).length;
    const callsBefore = calls();
    const abortsBefore = provider.clientAborts;
    const { streaming, finished } = await streamTurns(10, 'premium');
    await streaming;
    await stack.stopPostgres();
    await new Promise((r) => setTimeout(r, 2000));
    await stack.startPostgres();
    const turns = await finished;
    await assertEachTurnOnce(turns);
    // Every model call rode the outage out: none was aborted, none was made again.
    assert.equal(calls() - callsBefore, 10, 'one model call per turn');
    assert.equal(provider.clientAborts - abortsBefore, 0, 'no model call cut off');
    for (const { turnId, events } of turns) {
      const texts = events.filter((e) => e.type === 'text');
      assert.ok(texts.every((e) => !e.reset), `no text of ${turnId} shown twice`);
      assert.equal(texts.map((e) => e.text).join(''), PROVIDER_TEXT, `the streamed text of ${turnId}, whole and in order`);
      const logged = await stack.db('turn_events').where({ turn_id: turnId, type: 'text' }).orderBy('seq').select('data');
      assert.equal(logged.map((r: { data: { text: string } }) => r.data.text).join(''), PROVIDER_TEXT, `the logged text of ${turnId}, in seq order`);
    }
  });
});
