import assert from 'node:assert/strict';
import type { WorkspaceClient } from '../../sdk/src';
import type { TurnEvent } from '../../domain/turn-events';
import { VISITOR_UNAVAILABLE } from '../../domain/visitor-events';
import { call } from '../../harness/http';
import { publicChat, siteRequest } from '../support/publishing';
import { collectTurn } from '../support/sse';
import { useIsolatedStack } from '../support/isolated-stack';

type ErrorEvent = Extract<TurnEvent, { type: 'error' }>;

/** The last event of a stream, which must be an `error`. */
function terminalError(events: ReadonlyArray<{ event: TurnEvent }>): ErrorEvent {
  const end = events.at(-1)?.event;
  assert.ok(end?.type === 'error', `the stream ends with an error event: ${JSON.stringify(end)}`);
  return end;
}

/** The terminal `error` event of an SSE body read whole (a test URL's answer). */
function terminalErrorOf(text: string): ErrorEvent {
  const frames = text.split('\n\n').filter((f) => f.includes('data: '));
  const data = frames.at(-1)?.split('\n').find((l) => l.startsWith('data: '))?.slice('data: '.length);
  return terminalError([{ event: JSON.parse(data ?? 'null') as TurnEvent }]);
}

/** What a visitor must never read: a number (a cap, a spending, a balance, a limit) or an internal id. */
function assertVisitorSafe(event: ErrorEvent, what: string): void {
  assert.deepEqual(event, { type: 'error', message: VISITOR_UNAVAILABLE, retryable: true }, `${what}: the admission refusal's event, nothing more`);
  assert.doesNotMatch(JSON.stringify(event), /\d|agt_|ws_|credit/, what);
}

/**
 * Issue 49, item 6: a public turn that stops mid-way for its credits ends, for the visitor, with
 * the sentence an admission refusal gives; the agent id, the cap and the spending go only to
 * readers with the workspace's key. Real API, worker, PostgreSQL and Temporal; the agent talks to
 * a scripted OpenAI-compatible server whose model never stops calling tools.
 */
describe('visitor-safe messages: a credit stop mid-turn on public and test channels', function () {
  this.timeout(120_000);
  const stack = useIsolatedStack({ model: 'openai', worker: 'inline', env: { MODEL_PREMIUM: 'local:offline', TURN_RESERVE_CREDITS: '1' } });
  const { api, model: server } = stack;

  before(() => {
    // Each step says something and writes a file, and costs 1.5 credits (1000 + 500 tokens at 1 credit per 1000).
    server.defaultResponse = {
      text: 'Writing another part. ',
      toolCalls: [{ name: 'files_write', args: { path: 'part.md', content: 'part' } }],
      usage: { inputTokens: 1000, outputTokens: 500 },
    };
  });

  async function deployedAgent(credits: number): Promise<{ ws: WorkspaceClient; apiKey: string; agentId: string; versionId: string; token: string }> {
    const { ws, apiKey } = await stack.workspace(credits);
    const agent = await ws.agents.create({ name: 'Looper', role: 'freelancer', filesystem: 'drive', tools: ['files.write'] });
    const [v1] = await ws.agents.versions(agent.id);
    await ws.agents.deployToProd(v1!.id);
    const token = (await call<{ token: string }>(api.baseURL, 'GET', `/v1/agents/${agent.id}/public-token`, { apiKey })).body.token;
    return { ws, apiKey, agentId: agent.id, versionId: v1!.id, token };
  }

  /** The turn's terminal event as the workspace reads it, with its key. */
  async function keyedTerminal(apiKey: string, turnId: string): Promise<ErrorEvent> {
    return terminalError((await collectTurn(`${api.baseURL}/v1/turns/${turnId}/events`, { method: 'GET', apiKey, lastEventId: 0 })).events);
  }

  it("the agent's cap: the visitor reads the admission refusal's sentence, the key-authenticated reader the cap and the spending", async () => {
    const { ws, apiKey, agentId, versionId, token } = await deployedAgent(100);
    await ws.agent(agentId).setCreditCap(4);

    const streamed = await publicChat(api.baseURL, token, 'Write the report in parts.', { id: 'visitor-1' });
    assert.equal(streamed.status, 200);
    assert.ok(streamed.events.some((e) => e.event.type === 'text'), 'the turn ran some steps first');
    assertVisitorSafe(terminalError(streamed.events), 'the public chat stream');
    const turnId = streamed.headers.get('x-turn-id')!;
    const resumed = await collectTurn(`${api.baseURL}/v1/public/turns/${turnId}/events?userId=visitor-1`, { method: 'GET', apiKey: token, lastEventId: 0 });
    assertVisitorSafe(terminalError(resumed.events), 'the public resume route');

    const keyed = await keyedTerminal(apiKey, turnId);
    assert.equal(keyed.code, 'credit_cap_reached');
    assert.match(keyed.message, new RegExp(`^agent ${agentId} reached its credit cap \\(\\d+(\\.\\d+)? of 4 credits spent\\)`), 'the workspace reads the detail');

    // The next message is refused at admission: the visitor sees the very same event.
    const refused = await publicChat(api.baseURL, token, 'again?', { id: 'visitor-1' });
    assert.deepEqual(refused.events.map((e) => e.event), [terminalError(streamed.events)]);

    // A test URL is a visitor's channel too.
    await ws.agent(agentId).setCreditCap(8);
    const { url } = await ws.agents.deployToTest(versionId);
    const onTest = await siteRequest(api.baseURL, url, { method: 'POST', path: '/v1/public/chat', body: { content: 'Write it again.', user: { id: 'tester' } } });
    assert.equal(onTest.status, 200, onTest.text);
    assertVisitorSafe(terminalErrorOf(onTest.text), 'the test URL');
    const testTurn = String(onTest.headers['x-turn-id']);
    assert.equal((await keyedTerminal(apiKey, testTurn)).code, 'credit_cap_reached');
  });

  it("the workspace's balance: the visitor reads the same sentence, the key-authenticated reader credits_exhausted", async () => {
    const { apiKey, token } = await deployedAgent(3.5);
    const streamed = await publicChat(api.baseURL, token, 'Go.', { id: 'visitor-2' });
    assertVisitorSafe(terminalError(streamed.events), 'the public chat stream');
    const keyed = await keyedTerminal(apiKey, streamed.headers.get('x-turn-id')!);
    assert.equal(keyed.code, 'credits_exhausted');
    assert.match(keyed.message, /workspace has no credits left/);
  });
});
