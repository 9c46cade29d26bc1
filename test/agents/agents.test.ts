import assert from 'node:assert/strict';
import { agentSchema } from '../../domain/agent';
import { randomToken } from '../../domain/ids';
import { AgentHandle, type CreateAgentFields } from '../../sdk/src';
import { useTestApi } from '../support/api';
import { expectFailure, failureOf, newSdkWorkspace } from '../support/sdk';

/** A full configuration: every field set, so that storing and returning it is checked field by field. */
const fullConfig = {
  name: 'Support',
  instructions: 'Answer customers politely.',
  greeting: 'Hi! How can I help?',
  grade: 'premium',
  filesystem: 'drive',
  tools: ['files.read', 'knowledge.search', 'plan'],
  workflows: [{ name: 'Refund request', when: 'the customer asks for a refund', content: '1. Check the order.\n2. Refund.' }],
  connections: [{ provider: 'gmail', scope: 'conversation', required: true }],
  secrets: [{ name: 'CRM_KEY', scope: 'fixed' }],
  parameters: [{ name: 'plan', type: 'choice', choices: ['free', 'pro'], default: 'free' }],
  triggers: [{ kind: 'chat' }, { kind: 'schedule', cron: '0 9 * * 1', timezone: 'Europe/Paris', message: 'Weekly report' }],
  mcpServers: [{ name: 'docs', url: 'https://mcp.example.com/v1', transport: 'http', timeoutMs: 5000 }],
  httpTools: [
    {
      name: 'lookup',
      description: 'Find an order',
      method: 'GET',
      url: 'https://api.example.com/orders/{id}',
      params: { id: { type: 'string', in: 'path' } },
      secrets: ['CRM_KEY'],
    },
  ],
} satisfies CreateAgentFields;

const chosenId = () => `agt_${randomToken(12)}`;

describe('Agents through the SDK: create, list, get, update, delete and ids', () => {
  const api = useTestApi();

  it('create with only a name publishes version 1 with every other field at its default', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Helper' });
    const record = agentSchema.parse(agent);
    assert.match(record.id, /^agt_[0-9a-z]{20}$/);
    assert.deepEqual(
      { ...record, id: undefined, versionId: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        role: 'teammate',
        name: 'Helper',
        instructions: '',
        grade: 'standard',
        filesystem: 'none',
        tools: [],
        workflows: [],
        connections: [],
        secrets: [],
        parameters: [],
        triggers: [],
        mcpServers: [],
        httpTools: [],
        version: 1,
        versionId: undefined,
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    const [item] = await ws.agents.versions(record.id);
    assert.equal(record.versionId, item?.id, "versionId is the version's id in the deployment list");
    assert.equal('greeting' in record, false, 'no greeting was given');
    assert.match(record.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(record.updatedAt, record.createdAt, 'version 1 is published when the agent is created');
  });

  it('create stores every configurable field as given, and get() returns the same agent', async () => {
    const { ws } = await newSdkWorkspace(api);
    const created = agentSchema.parse(await ws.agents.create({ ...fullConfig, role: 'freelancer' }));
    const { id, createdAt, updatedAt, version, versionId, role, ...config } = created;
    assert.deepEqual(config, fullConfig);
    assert.equal(role, 'freelancer');
    assert.equal(version, 1);
    assert.deepEqual(agentSchema.parse(await ws.agent(id).get()), { id, role, ...fullConfig, version: 1, versionId, createdAt, updatedAt });
  });

  it('list() returns every agent of the workspace at its latest version, newest agent first', async () => {
    const { ws } = await newSdkWorkspace(api);
    assert.deepEqual(await ws.agents.list(), [], 'a new workspace has no agents');
    const first = await ws.agents.create({ name: 'First' });
    const second = await ws.agents.create({ name: 'Second' });
    const firstV2 = await first.update({ name: 'First, renamed' });
    const listed = (await ws.agents.list()).map((a) => agentSchema.parse(a));
    assert.deepEqual(listed, [agentSchema.parse(second), agentSchema.parse(firstV2)]);
  });

  it('update replaces only the fields given (lists whole), and greeting: null removes the greeting', async () => {
    const { ws } = await newSdkWorkspace(api);
    const v1 = agentSchema.parse(await ws.agents.create(fullConfig));
    const v2 = agentSchema.parse(await ws.agent(v1.id).update({ instructions: 'Be brief.', tools: ['web.fetch'] }));
    assert.deepEqual(v2, { ...v1, instructions: 'Be brief.', tools: ['web.fetch'], version: 2, versionId: v2.versionId, updatedAt: v2.updatedAt });
    assert.notEqual(v2.versionId, v1.versionId, 'each version has its own id');
    const v3 = agentSchema.parse(await ws.agent(v1.id).update({ greeting: null }));
    assert.equal('greeting' in v3, false);
    const { greeting: _removed, ...withoutGreeting } = v2;
    assert.deepEqual(v3, { ...withoutGreeting, version: 3, versionId: v3.versionId, updatedAt: v3.updatedAt });
    assert.deepEqual(agentSchema.parse(await ws.agent(v1.id).get()), v3);
  });

  it("update({ role }) changes the role: a new version like any other change, each snapshot keeping the role it was published with", async () => {
    const { ws } = await newSdkWorkspace(api);
    const teammate = agentSchema.parse(await ws.agents.create({ name: 'Switcher', instructions: 'Be brief.' }));
    assert.equal(teammate.role, 'teammate');
    const freelancer = agentSchema.parse(await ws.agent(teammate.id).update({ role: 'freelancer' }));
    assert.deepEqual(freelancer, { ...teammate, role: 'freelancer', version: 2, versionId: freelancer.versionId, updatedAt: freelancer.updatedAt });
    assert.deepEqual((await ws.agents.versions(teammate.id)).map((i) => i.id), [freelancer.versionId, teammate.versionId]);
    // Other fields keep the role; the history keeps each version's.
    const renamed = await ws.agent(teammate.id).update({ name: 'Switcher 2' });
    assert.equal(renamed.role, 'freelancer');
    assert.deepEqual((await ws.agent(teammate.id).versions()).map((a) => [a.version, a.role]), [[3, 'freelancer'], [2, 'freelancer'], [1, 'teammate']]);
    assert.equal((await ws.agent(teammate.id).get({ version: 1 })).role, 'teammate');
    assert.equal((await ws.agents.list())[0]?.role, 'freelancer');
    const back = await ws.agent(teammate.id).update({ role: 'teammate' });
    assert.deepEqual([back.role, back.version], ['teammate', 4]);
    const bad = await failureOf(ws.agent(teammate.id).update({ role: 'boss' as 'teammate' }));
    assert.deepEqual([bad.status, bad.code], [400, 'invalid_request']);
    assert.match(bad.message, /^body\.role: /);
    assert.equal((await ws.agent(teammate.id).get()).version, 4, 'a refused update publishes nothing');
  });

  it('an unknown tool is a 400 listing the valid names; a model name (files_write) points at its catalogue name', async () => {
    const { ws } = await newSdkWorkspace(api);
    const unknown = await failureOf(ws.agents.create({ name: 'T', tools: ['plan', 'browse' as 'plan'] }));
    assert.deepEqual([unknown.status, unknown.code], [400, 'invalid_request']);
    assert.equal(
      unknown.message,
      'body.tools[1]: unknown tool "browse"; the built-in tools are files.read, files.write, files.edit, files.list, files.search, data.run, knowledge.search, web.fetch, plan (HTTP and MCP tools go in httpTools and mcpServers)',
    );
    const agent = await ws.agents.create({ name: 'T', filesystem: 'drive' });
    const modelName = await failureOf(agent.update({ tools: ['files_write' as 'files.write'] }));
    assert.match(modelName.message, /^body\.tools\[0\]: unknown tool "files_write"; "files\.write" is its name in tools/);
  });

  it('an Agent returned by create can be changed directly, and so can each Agent a change returns', async () => {
    const { ws } = await newSdkWorkspace(api);
    const created = await ws.agents.create({ name: 'Chained' });
    assert.ok(created instanceof AgentHandle);
    const v2 = await created.update({ instructions: 'step 2' });
    const v3 = await v2.setWorkflow({ name: 'Greet', when: 'someone says hello', content: 'Say hello back.' });
    const v4 = await v3.setTriggers([{ kind: 'interval', seconds: 3600, message: 'Hourly check' }]);
    const v5 = await v4.removeWorkflow('Greet');
    assert.deepEqual([created, v2, v3, v4, v5].map((a) => a.version), [1, 2, 3, 4, 5]);
    assert.equal(created.version, 1, 'the object a method is called on is not changed');
    assert.equal(created.instructions, '');
    const latest = agentSchema.parse(await created.get());
    assert.deepEqual(latest, agentSchema.parse(v5));
    assert.equal(latest.instructions, 'step 2');
    assert.deepEqual(latest.workflows, []);
    assert.deepEqual(latest.triggers, [{ kind: 'interval', seconds: 3600, message: 'Hourly check' }]);
    // Knowledge of a returned agent works too.
    await v5.knowledge.put('notes.md', '# notes');
    assert.deepEqual((await created.knowledge.list()).map((e) => e.path), ['notes.md']);
  });

  it('a returned Agent serializes to exactly the record the service answered', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create(fullConfig);
    const wire = JSON.parse(JSON.stringify(agent)) as unknown;
    assert.deepEqual(agentSchema.parse(wire), wire, 'no field beyond the Agent schema');
    assert.deepEqual({ ...agent }, wire);
  });

  it('ws.agent(storedId) sends no request, and the handle then works like the returned agent', async () => {
    const { ws, requests } = await newSdkWorkspace(api);
    const created = await ws.agents.create({ name: 'Stored' });
    const storedId = JSON.parse(JSON.stringify(created)).id as string;
    const before = requests.length;
    const handle = ws.agent(storedId);
    const knowledge = handle.knowledge;
    assert.equal(requests.length, before, 'building a handle sends nothing');
    assert.equal(handle.id, storedId);
    assert.ok(knowledge);

    assert.deepEqual(agentSchema.parse(await handle.get()), agentSchema.parse(created));
    const updated = await handle.update({ name: 'Stored, renamed' });
    assert.equal(updated.version, 2);
    assert.equal((await created.get()).name, 'Stored, renamed', 'both reach the same agent');
    assert.deepEqual((await handle.versions()).map((a) => a.version), [2, 1]);
    await handle.knowledge.put('a.txt', 'alpha');
    assert.equal(new TextDecoder().decode(await created.knowledge.read('a.txt')), 'alpha');
    await handle.delete();
    await expectFailure(created.get(), 404, 'agent_not_found');
  });

  it('agents from list() and snapshots from versions() carry methods that act on the agent', async () => {
    const { ws } = await newSdkWorkspace(api);
    const created = await ws.agents.create({ name: 'Listed' });
    const [listed] = await ws.agents.list();
    assert.ok(listed);
    const v2 = await listed.update({ name: 'Listed, renamed' });
    assert.equal(v2.version, 2);
    const snapshots = await v2.versions();
    const oldest = snapshots.at(-1)!;
    assert.equal(oldest.version, 1);
    assert.equal(oldest.name, 'Listed');
    const latest = await oldest.get();
    assert.equal(latest.version, 2, "a snapshot's get() reads the agent's latest version");
    assert.equal(latest.id, created.id);
  });

  it('setWorkflow adds a workflow, or replaces the one of the same name where it stands', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Playbooks' });
    const a = { name: 'A', when: 'case a', content: 'do a' };
    const b = { name: 'B', when: 'case b', content: 'do b' };
    await agent.setWorkflow(a);
    const withBoth = await agent.setWorkflow(b);
    assert.deepEqual(withBoth.workflows, [a, b]);
    const replaced = await agent.setWorkflow({ ...a, content: 'do a, better' });
    assert.deepEqual(replaced.workflows, [{ ...a, content: 'do a, better' }, b]);
  });

  it('removeWorkflow removes the named workflow; an unknown name answers 404 workflow_not_found', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Playbooks', workflows: fullConfig.workflows });
    await expectFailure(agent.removeWorkflow('No such workflow'), 404, 'workflow_not_found');
    const removed = await agent.removeWorkflow('Refund request');
    assert.deepEqual(removed.workflows, []);
    await expectFailure(agent.removeWorkflow('Refund request'), 404, 'workflow_not_found');
  });

  it('setTriggers replaces every trigger, and an empty list removes them all', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Triggered', triggers: fullConfig.triggers });
    const webhook = { kind: 'webhook', message: 'New order', url: 'https://example.com/hook' } as const;
    assert.deepEqual((await agent.setTriggers([webhook])).triggers, [webhook]);
    assert.deepEqual((await agent.setTriggers([])).triggers, []);
    assert.deepEqual((await agent.get()).triggers, []);
  });

  it('create with a caller-chosen id uses that id', async () => {
    const { ws } = await newSdkWorkspace(api);
    const id = chosenId();
    const agent = agentSchema.parse(await ws.agents.create({ id, name: 'Chosen' }));
    assert.equal(agent.id, id);
    assert.equal(agent.version, 1);
    assert.equal((await ws.agent(id).get()).name, 'Chosen');
  });

  it('creating with an id that exists answers 409 agent_exists and leaves the agent as it was', async () => {
    const { ws } = await newSdkWorkspace(api);
    const id = chosenId();
    const original = agentSchema.parse(await ws.agents.create({ id, name: 'Original' }));
    await expectFailure(ws.agents.create({ id, name: 'Impostor' }), 409, 'agent_exists');
    assert.deepEqual(agentSchema.parse(await ws.agent(id).get()), original);
    assert.equal((await ws.agents.list()).length, 1);
  });

  it('creating with the id of a deleted agent answers 409 agent_exists: ids are never reused', async () => {
    const { ws } = await newSdkWorkspace(api);
    const id = chosenId();
    await (await ws.agents.create({ id, name: 'Short-lived' })).delete();
    await expectFailure(ws.agents.create({ id, name: 'Second life' }), 409, 'agent_exists');
    await expectFailure(ws.agent(id).get(), 404, 'agent_not_found');
  });

  it('two concurrent creates with the same chosen id: one agent is created, the other call answers 409', async () => {
    const { ws } = await newSdkWorkspace(api);
    for (let round = 0; round < 5; round++) {
      const id = chosenId();
      const results = await Promise.allSettled([ws.agents.create({ id, name: 'one' }), ws.agents.create({ id, name: 'two' })]);
      const created = results.filter((r) => r.status === 'fulfilled');
      const refused = results.filter((r) => r.status === 'rejected');
      assert.equal(created.length, 1, `round ${round}: exactly one create succeeds`);
      assert.equal(refused.length, 1);
      await expectFailure(Promise.reject((refused[0] as PromiseRejectedResult).reason), 409, 'agent_exists');
      assert.equal((await ws.agent(id).get()).name, (created[0] as PromiseFulfilledResult<{ name: string }>).value.name);
    }
  });

  it('delete removes the agent: it leaves the list and every call on it answers 404 agent_not_found', async () => {
    const { ws } = await newSdkWorkspace(api);
    const kept = await ws.agents.create({ name: 'Kept' });
    const doomed = await ws.agents.create({ name: 'Doomed', workflows: fullConfig.workflows });
    await doomed.knowledge.put('guide.md', '# guide');
    assert.equal(await doomed.delete(), undefined);

    assert.deepEqual((await ws.agents.list()).map((a) => a.id), [kept.id]);
    const handle = ws.agent(doomed.id);
    const never = await failureOf(ws.agent(chosenId()).get());
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['get', () => handle.get()],
      ['get({ version: 1 })', () => handle.get({ version: 1 })],
      ['update', () => handle.update({ name: 'Back' })],
      ['versions', () => handle.versions()],
      ['ws.agents.versions', () => ws.agents.versions(doomed.id)],
      ['setWorkflow', () => handle.setWorkflow({ name: 'W', when: 'w', content: 'w' })],
      ['removeWorkflow', () => handle.removeWorkflow('Refund request')],
      ['setTriggers', () => handle.setTriggers([{ kind: 'chat' }])],
      ['knowledge.put', () => handle.knowledge.put('new.md', 'x')],
      ['knowledge.list', () => handle.knowledge.list()],
      ['knowledge.read', () => handle.knowledge.read('guide.md')],
      ['knowledge.remove', () => handle.knowledge.remove('guide.md')],
      ['delete', () => handle.delete()],
    ];
    for (const [name, run] of calls) {
      const e = await expectFailure(run(), 404, 'agent_not_found').catch((err: Error) => {
        throw new Error(`${name}: ${err.message}`);
      });
      assert.equal(e.message, never.message, `${name}: the same answer as for an id that never existed`);
    }
    assert.equal((await kept.get()).version, 1, 'the other agent is untouched');
  });
});
