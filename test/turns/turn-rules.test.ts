import assert from 'node:assert/strict';
import { agentConversationSchema } from '../../domain/conversation';
import { useTestApi } from '../support/api';
import { call, type ErrorJson } from '../../harness/http';
import { collectTurn } from '../support/sse';

describe('conversation rules: readiness, ending, credits, one turn at a time', () => {
  const api = useTestApi();

  async function newAgent(agentBody: Record<string, unknown> = {}, credits = 100) {
    const { apiKey, workspace } = await api.newWorkspace({ credits });
    const agent = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', { apiKey, body: { name: 'Helper', ...agentBody } });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    return { apiKey, workspace, agent };
  }

  async function setup(agentBody: Record<string, unknown> = {}, credits = 100) {
    const { apiKey, workspace, agent } = await newAgent(agentBody, credits);
    const conv = await call(api.baseURL, 'POST', `/v1/agents/${agent.body.id}/conversations`, { apiKey, body: {} });
    return { apiKey, workspaceId: workspace.id, agentId: agent.body.id, conversation: agentConversationSchema.parse(conv.body) };
  }

  const ask = (apiKey: string, conversationId: string, text: string) =>
    collectTurn(`${api.baseURL}/v1/conversations/${conversationId}/turns`, { method: 'POST', apiKey, body: { text } });

  it('a required secret that nothing supplies makes the conversation not ready, and ask answers 409', async () => {
    const { apiKey, conversation } = await setup({ secrets: [{ name: 'CRM_TOKEN', scope: 'fixed', required: true }] });
    assert.equal(conversation.ready, false);
    assert.deepEqual(conversation.requires, [{ kind: 'secret', name: 'CRM_TOKEN', required: true }]);
    const res = await ask(apiKey, conversation.id, 'hi');
    assert.equal(res.status, 409);
    assert.equal((res.errorBody as ErrorJson).error.code, 'conversation_not_ready');
    const messages = await call<{ data: unknown[] }>(api.baseURL, 'GET', `/v1/conversations/${conversation.id}/messages`, { apiKey });
    assert.deepEqual(messages.body.data, [], 'nothing was written');
  });

  it('an ended conversation refuses ask with 409 conversation_ended', async () => {
    const { apiKey, conversation } = await setup();
    assert.equal((await call(api.baseURL, 'POST', `/v1/conversations/${conversation.id}/end`, { apiKey })).status, 204);
    const res = await ask(apiKey, conversation.id, 'still there?');
    assert.equal(res.status, 409);
    assert.equal((res.errorBody as ErrorJson).error.code, 'conversation_ended');
    const got = await call(api.baseURL, 'GET', `/v1/conversations/${conversation.id}`, { apiKey });
    assert.ok(agentConversationSchema.parse(got.body).endedAt);
  });

  it('a workspace without credits is refused before the turn starts; a turn debits once', async () => {
    const broke = await setup({}, 0);
    const refused = await ask(broke.apiKey, broke.conversation.id, 'hello');
    assert.equal(refused.status, 409);
    assert.equal((refused.errorBody as ErrorJson).error.code, 'insufficient_credits');

    const { apiKey, conversation, workspaceId } = await setup({}, 100);
    const res = await ask(apiKey, conversation.id, 'count my tokens please');
    assert.equal(res.events.at(-1)?.event.type, 'done');
    const turnId = res.events[0]?.event.type === 'start' ? res.events[0].event.turnId : '';
    const debits = await api.db('credit_debits').where({ turn_id: turnId });
    assert.equal(debits.length, 1);
    assert.ok(Number(debits[0].amount) > 0);
    const ws = await api.repos.workspaces.get({ id: workspaceId });
    assert.equal(Math.round((100 - ws!.credits) * 1e6), Math.round(Number(debits[0].amount) * 1e6));
  });

  it('a second ask while a turn runs gets 409 turn_in_progress naming the running turn; after it ends, ask works', async () => {
    const { apiKey, conversation } = await setup();
    const long = 'please repeat all of these words back to me slowly one by one so that it takes a while';
    const first = ask(apiKey, conversation.id, long);
    // Wait until the first turn is running.
    const deadline = Date.now() + 10_000;
    let running: { id: string } | undefined;
    while (!running && Date.now() < deadline) {
      running = await api.db('turns').where({ conversation_id: conversation.id, status: 'running' }).first('id');
      if (!running) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(running, 'the first turn started');
    const second = await ask(apiKey, conversation.id, 'me too');
    assert.equal(second.status, 409);
    const body = second.errorBody as ErrorJson;
    assert.equal(body.error.code, 'turn_in_progress');
    assert.match(body.error.message, new RegExp(running.id));
    assert.equal((await first).events.at(-1)?.event.type, 'done');
    const third = await ask(apiKey, conversation.id, 'now?');
    assert.equal(third.events.at(-1)?.event.type, 'done');
    const messages = await call<{ data: Array<{ role: string }> }>(api.baseURL, 'GET', `/v1/conversations/${conversation.id}/messages`, { apiKey });
    assert.deepEqual(messages.body.data.map((m) => m.role), ['user', 'assistant', 'user', 'assistant'], 'the refused ask wrote nothing');
  });

  it('parameters are checked against the version: missing, undeclared, wrong type, outside choices', async () => {
    const { apiKey, agent: { body: { id: agentId } } } = await newAgent({
      parameters: [
        { name: 'customer', type: 'string', required: true },
        { name: 'limit', type: 'number', default: '5' },
        { name: 'tier', type: 'choice', choices: ['free', 'pro'] },
      ],
    });
    const start = (parameters: Record<string, unknown>) =>
      call<ErrorJson>(api.baseURL, 'POST', `/v1/agents/${agentId}/conversations`, { apiKey, body: { parameters } });
    for (const [parameters, name] of [
      [{}, 'customer'],
      [{ customer: 'Ada', colour: 'red' }, 'colour'],
      [{ customer: 'Ada', limit: 'many' }, 'limit'],
      [{ customer: 'Ada', tier: 'gold' }, 'tier'],
    ] as const) {
      const res = await start(parameters);
      assert.equal(res.status, 400, JSON.stringify(parameters));
      assert.equal(res.body.error.code, 'invalid_parameters');
      assert.match(res.body.error.message, new RegExp(`^body\\.parameters\\.${name}: `));
    }
    const ok = await start({ customer: 'Ada', tier: 'pro' });
    assert.equal(ok.status, 201);
    const row = await api.db('conversations').where({ id: (ok.body as unknown as { id: string }).id }).first();
    assert.deepEqual(row.parameters, { customer: 'Ada', limit: '5', tier: 'pro' }, 'defaults fill the rest');
  });

  it('each turn is findable in Temporal by its ConversationId', async () => {
    const { apiKey, conversation } = await setup();
    const res = await ask(apiKey, conversation.id, 'find me');
    const turnId = res.events[0]?.event.type === 'start' ? res.events[0].event.turnId : '';
    const deadline = Date.now() + 10_000;
    let ids: string[] = [];
    while (Date.now() < deadline) {
      ids = [];
      for await (const wf of api.temporal.workflow.list({ query: `ConversationId = "${conversation.id}"` })) ids.push(wf.workflowId);
      if (ids.length) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(ids, [`turn-${turnId}`]);
  });
});
