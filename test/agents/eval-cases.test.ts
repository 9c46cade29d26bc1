import assert from 'node:assert/strict';
import type { EvalCaseDefinition } from '../../sdk/src';
import { useTestApi } from '../support/api';
import { expectFailure, newSdkWorkspace } from '../support/sdk';

/** A small valid case; `extra` replaces or adds top-level fields. */
const definition = (extra: Record<string, unknown> = {}): EvalCaseDefinition =>
  ({ messages: ['Can I return shoes after 40 days?'], checks: [{ kind: 'contains', text: '30 days' }], ...extra }) as EvalCaseDefinition;

describe('Agent evaluation cases through the SDK', () => {
  const api = useTestApi();

  async function newAgent() {
    const sdk = await newSdkWorkspace(api);
    const agent = await sdk.ws.agents.create({ name: 'Support' });
    return { ...sdk, agent };
  }

  /** The agent's stored rows, as the database has them: what "nothing written" compares. */
  async function rows(agentId: string): Promise<string> {
    return JSON.stringify(await api.db('agent_eval_cases').where({ agent_id: agentId }).orderBy('case_id'));
  }

  it('put creates a case with its defaults filled in, list orders by id, a replace keeps createdAt, remove deletes', async () => {
    const { agent } = await newAgent();
    assert.deepEqual(await agent.evals.list(), [], 'a new agent has no cases');

    const every: EvalCaseDefinition = {
      messages: ['I want a refund for order 42', 'It arrived broken'],
      parameters: { plan: 'pro', seats: 3 },
      checks: [
        { kind: 'contains', text: 'refund' },
        { kind: 'not_contains', text: 'sorry', caseSensitive: true },
        { kind: 'matches', pattern: '\\border\\s+42\\b', flags: 'iu' },
        { kind: 'json_schema', schema: { type: 'object', required: ['status'] } },
        { kind: 'called_tool', tool: 'lookup', arguments: { id: '42' } },
        { kind: 'not_called_tool', tool: 'web.fetch' },
        { kind: 'max_credits', credits: 2.5 },
        { kind: 'judge', rubric: 'Polite, and offers the refund', threshold: 0.9 },
        { kind: 'judge', rubric: 'Short' },
      ],
    };
    const b = await agent.evals.put('refund-broken', every);
    assert.equal(b.id, 'refund-broken');
    assert.deepEqual(b.messages, every.messages);
    assert.deepEqual(b.parameters, { plan: 'pro', seats: 3 });
    assert.deepEqual(b.checks, [
      { kind: 'contains', text: 'refund', caseSensitive: false },
      { kind: 'not_contains', text: 'sorry', caseSensitive: true },
      { kind: 'matches', pattern: '\\border\\s+42\\b', flags: 'iu' },
      { kind: 'json_schema', schema: { type: 'object', required: ['status'] } },
      { kind: 'called_tool', tool: 'lookup', arguments: { id: '42' } },
      { kind: 'not_called_tool', tool: 'web.fetch' },
      { kind: 'max_credits', credits: 2.5 },
      { kind: 'judge', rubric: 'Polite, and offers the refund', threshold: 0.9 },
      { kind: 'judge', rubric: 'Short', threshold: 0.7 },
    ]);
    assert.equal(b.createdAt, b.updatedAt);

    const a = await agent.evals.put('a-first', definition());
    assert.deepEqual(a.parameters, {}, 'parameters default to none');
    assert.deepEqual(a.checks, [{ kind: 'contains', text: '30 days', caseSensitive: false }]);
    assert.deepEqual(await agent.evals.list(), [a, b], 'ordered by id, each as put answered it');

    await new Promise((resolve) => setTimeout(resolve, 5));
    const replaced = await agent.evals.put('a-first', definition({ messages: ['Where is my order?'], checks: [{ kind: 'max_credits', credits: 1 }] }));
    assert.equal(replaced.createdAt, a.createdAt, 'createdAt is kept on a replace');
    assert.ok(Date.parse(replaced.updatedAt) > Date.parse(a.updatedAt), 'updatedAt moves on a replace');
    assert.deepEqual(replaced.messages, ['Where is my order?']);
    assert.deepEqual(replaced.checks, [{ kind: 'max_credits', credits: 1 }], 'a put replaces the case whole');
    assert.deepEqual(await agent.evals.list(), [replaced, b]);

    assert.equal(await agent.evals.remove('a-first'), undefined);
    assert.deepEqual(await agent.evals.list(), [b]);
    const gone = await expectFailure(agent.evals.remove('a-first'), 404, 'eval_case_not_found');
    assert.match(gone.message, /a-first/);
  });

  it('a case is stored beside the versions: putting, replacing and removing publishes none', async () => {
    const { ws, agent } = await newAgent();
    const before = await agent.get();
    await agent.evals.put('one', definition());
    await agent.evals.put('one', definition({ messages: ['Again'] }));
    await agent.evals.put('two', definition());
    await agent.evals.remove('two');
    const after = await agent.get();
    assert.equal(after.version, before.version);
    assert.equal(after.versionId, before.versionId);
    assert.equal((await agent.versions()).length, 1);
    assert.equal((await ws.agents.versions(agent.id)).length, 1);
    // And a version published afterwards leaves the cases as they are.
    await agent.update({ instructions: 'Be brief.' });
    assert.deepEqual((await agent.evals.list()).map((c) => c.id), ['one']);
  });

  describe('bad input: 400 invalid_request naming the field, and nothing written', () => {
    const bad: Array<{ name: string; caseId?: string; body: Record<string, unknown>; field: string }> = [
      { name: 'a regular expression that does not compile', body: { checks: [{ kind: 'matches', pattern: '(unclosed' }] }, field: 'body.checks[0].pattern' },
      { name: 'a JSON Schema that does not compile', body: { checks: [{ kind: 'json_schema', schema: { type: 'nope' } }] }, field: 'body.checks[0].schema' },
      { name: 'a regular expression flag outside imsu', body: { checks: [{ kind: 'matches', pattern: 'x', flags: 'g' }] }, field: 'body.checks[0].flags' },
      { name: 'a pattern over 500 characters', body: { checks: [{ kind: 'matches', pattern: 'a'.repeat(501) }] }, field: 'body.checks[0].pattern' },
      { name: 'an unknown check kind', body: { checks: [{ kind: 'contains', text: 'x' }, { kind: 'telepathy' }] }, field: 'body.checks[1].kind' },
      { name: 'a check without a kind', body: { checks: [{ text: 'x' }] }, field: 'body.checks[0].kind' },
      { name: 'too many messages', body: { messages: Array.from({ length: 21 }, (_, i) => `message ${i}`) }, field: 'body.messages' },
      { name: 'no messages', body: { messages: [] }, field: 'body.messages' },
      { name: 'a message over 8000 characters', body: { messages: ['ok', 'x'.repeat(8001)] }, field: 'body.messages[1]' },
      { name: 'an extra property', body: { colour: 'red' }, field: 'body.colour' },
      { name: 'an extra property in a check', body: { checks: [{ kind: 'contains', text: 'x', exact: true }] }, field: 'body.checks[0].exact' },
      { name: 'no checks', body: { checks: [] }, field: 'body.checks' },
      { name: 'more than 20 checks', body: { checks: Array.from({ length: 21 }, () => ({ kind: 'contains', text: 'x' })) }, field: 'body.checks' },
      { name: 'a json_schema that is not an object', body: { checks: [{ kind: 'json_schema', schema: ['type', 'object'] }] }, field: 'body.checks[0].schema' },
      { name: 'tool arguments that are not an object', body: { checks: [{ kind: 'called_tool', tool: 'lookup', arguments: 'id=42' }] }, field: 'body.checks[0].arguments' },
      { name: 'max_credits of 0', body: { checks: [{ kind: 'max_credits', credits: 0 }] }, field: 'body.checks[0].credits' },
      { name: 'a judge threshold above 1', body: { checks: [{ kind: 'judge', rubric: 'Polite', threshold: 1.5 }] }, field: 'body.checks[0].threshold' },
      { name: 'a rubric over 4000 characters', body: { checks: [{ kind: 'judge', rubric: 'x'.repeat(4001) }] }, field: 'body.checks[0].rubric' },
      { name: 'a parameter that is neither a string nor a number', body: { parameters: { vip: { yes: true } } }, field: 'body.parameters.vip' },
      { name: 'a case id with upper case', caseId: 'Refund', body: {}, field: 'path.caseId' },
      { name: 'a case id over 64 characters', caseId: 'c'.repeat(65), body: {}, field: 'path.caseId' },
      { name: 'a case id of digits only (an index)', caseId: '0', body: {}, field: 'path.caseId' },
      { name: 'a case id that is a missing value as text (null)', caseId: 'null', body: {}, field: 'path.caseId' },
      { name: 'a case id that is a missing value as text (undefined)', caseId: 'undefined', body: {}, field: 'path.caseId' },
    ];

    for (const c of bad) {
      it(`${c.name} → 400 naming ${c.field}`, async () => {
        const { agent } = await newAgent();
        await agent.evals.put('existing', definition());
        const before = await rows(agent.id);
        // A new case and a replace of an existing one alike: refused, nothing written.
        for (const caseId of c.caseId ? [c.caseId] : ['fresh', 'existing']) {
          const e = await expectFailure(agent.evals.put(caseId, definition(c.body)), 400, 'invalid_request');
          assert.ok(e.message.startsWith(`${c.field}: `), `message should name ${c.field}: ${e.message}`);
        }
        assert.equal(await rows(agent.id), before, 'a refused put wrote something');
      });
    }
  });

  it('remove refers to what is stored: a case put before ids were checked is removed; an id of no case is 404, never a 204', async () => {
    const { agent } = await newAgent();
    await agent.evals.put('kept', definition());
    const [stored] = await api.db('agent_eval_cases').where({ agent_id: agent.id, case_id: 'kept' });
    await api.db('agent_eval_cases').insert({ agent_id: agent.id, case_id: '0', definition: stored.definition });
    assert.deepEqual((await agent.evals.list()).map((c) => c.id), ['0', 'kept']);
    await agent.evals.remove('0');
    for (const caseId of ['0', 'null', 'undefined']) {
      const e = await expectFailure(agent.evals.remove(caseId), 404, 'eval_case_not_found');
      assert.match(e.message, new RegExp(`no evaluation case ${caseId}$`));
    }
    assert.deepEqual((await agent.evals.list()).map((c) => c.id), ['kept']);
  });

  it("another workspace's agent answers 404 agent_not_found exactly like a missing one, and nothing is written", async () => {
    const { agent } = await newAgent();
    await agent.evals.put('mine', definition());
    const before = await rows(agent.id);
    const other = await newSdkWorkspace(api, 'other');
    const theirs = other.ws.agent(agent.id);
    const missing = other.ws.agent('agt_doesnotexist');
    for (const handle of [theirs, missing]) {
      const answers = [
        await expectFailure(handle.evals.list(), 404, 'agent_not_found'),
        await expectFailure(handle.evals.put('mine', definition({ messages: ['overwritten?'] })), 404, 'agent_not_found'),
        await expectFailure(handle.evals.put('new', definition()), 404, 'agent_not_found'),
        await expectFailure(handle.evals.remove('mine'), 404, 'agent_not_found'),
      ];
      assert.deepEqual(answers.map((e) => e.message), answers.map(() => 'no such agent'), 'the same words for both');
    }
    assert.equal(await rows(agent.id), before);
  });

  it('an agent has at most 200 cases: the 201st is refused with 409 eval_case_limit; replacing one still works', async () => {
    const { agent } = await newAgent();
    // One through the API, 199 more copied in the database: 200 puts at once would meet the per-key rate limit.
    await agent.evals.put('case-000', definition());
    const [stored] = await api.db('agent_eval_cases').where({ agent_id: agent.id, case_id: 'case-000' });
    await api.db('agent_eval_cases').insert(
      Array.from({ length: 199 }, (_, i) => ({ agent_id: agent.id, case_id: `case-${String(i + 1).padStart(3, '0')}`, definition: stored.definition })),
    );
    assert.equal((await agent.evals.list()).length, 200);
    const before = await rows(agent.id);

    const e = await expectFailure(agent.evals.put('one-too-many', definition()), 409, 'eval_case_limit');
    assert.match(e.message, /200/);
    assert.equal(await rows(agent.id), before, 'nothing written');

    const replaced = await agent.evals.put('case-007', definition({ messages: ['Still allowed'] }));
    assert.deepEqual(replaced.messages, ['Still allowed']);

    // One removed: of five new ones put at once, exactly one gets the free place.
    await agent.evals.remove('case-000');
    const outcomes = await Promise.allSettled(['n1', 'n2', 'n3', 'n4', 'n5'].map((id) => agent.evals.put(id, definition())));
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, 'concurrent puts cannot pass the limit together');
    for (const o of outcomes) if (o.status === 'rejected') assert.equal((o.reason as { code?: string }).code, 'eval_case_limit');
    assert.equal((await agent.evals.list()).length, 200);
  });

  it('deleting the agent deletes its cases', async () => {
    const { ws, agent } = await newAgent();
    await agent.evals.put('one', definition());
    await agent.evals.put('two', definition());
    const keep = await ws.agents.create({ name: 'Kept' });
    await keep.evals.put('one', definition());
    assert.equal((await api.db('agent_eval_cases').where({ agent_id: agent.id })).length, 2);
    await agent.delete();
    assert.equal((await api.db('agent_eval_cases').where({ agent_id: agent.id })).length, 0);
    await expectFailure(agent.evals.list(), 404, 'agent_not_found');
    assert.deepEqual((await keep.evals.list()).map((c) => c.id), ['one'], "another agent's cases stay");
  });
});
