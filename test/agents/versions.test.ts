import assert from 'node:assert/strict';
import { type Agent as AgentRecord, agentSchema, type VersionItem, versionItemSchema } from '../../domain/agent';
import type { Agent, WorkspaceClient } from '../../sdk/src';
import { useTestApi } from '../support/api';
import { expectFailure, newSdkWorkspace } from '../support/sdk';

/** The deployment list of an agent, each item checked against the server schema. */
async function deploymentList(ws: WorkspaceClient, agentId: string): Promise<VersionItem[]> {
  return (await ws.agents.versions(agentId)).map((item) => versionItemSchema.parse(item));
}

/** Asserts the deployment list is exactly `count` versions, newest first, each with its own ver_ id, none in prod. */
function assertDeploymentList(items: VersionItem[], count: number): void {
  assert.deepEqual(
    items.map((i) => i.number),
    Array.from({ length: count }, (_, i) => count - i),
    'one item a version, newest first',
  );
  assert.equal(new Set(items.map((i) => i.id)).size, count, 'every version has its own id');
  for (const item of items) {
    assert.match(item.id, /^ver_[0-9a-z]{20}$/);
    assert.equal(item.isProd, false, 'nothing is deployed yet');
  }
}

const record = (agent: Agent): AgentRecord => agentSchema.parse(agent);

describe('Agent versions through the SDK', () => {
  const api = useTestApi();

  it('create publishes version 1, the only item of the deployment list', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = record(await ws.agents.create({ name: 'Fresh' }));
    assert.equal(agent.version, 1);
    const items = await deploymentList(ws, agent.id);
    assertDeploymentList(items, 1);
    assert.equal(items[0]!.deployedAt, agent.updatedAt, 'an undeployed version shows when it was published');
  });

  it('update, setWorkflow, removeWorkflow and setTriggers each publish exactly one new version', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Publisher' });
    const steps: Array<[string, () => Promise<Agent>]> = [
      ['update', () => agent.update({ instructions: 'v2' })],
      ['setWorkflow', () => agent.setWorkflow({ name: 'W', when: 'always', content: 'do it' })],
      ['setWorkflow (replace)', () => agent.setWorkflow({ name: 'W', when: 'always', content: 'do it better' })],
      ['removeWorkflow', () => agent.removeWorkflow('W')],
      ['setTriggers', () => agent.setTriggers([{ kind: 'chat' }])],
      ['setTriggers (same triggers again)', () => agent.setTriggers([{ kind: 'chat' }])],
      ['update (same value again)', () => agent.update({ instructions: 'v2' })],
    ];
    let expected = 1;
    let previous = record(agent);
    for (const [name, publish] of steps) {
      expected += 1;
      const published = record(await publish());
      assert.equal(published.version, expected, `${name} adds one to version`);
      assert.equal(published.id, agent.id);
      assert.equal(published.createdAt, previous.createdAt, `${name} keeps createdAt`);
      assert.ok(published.updatedAt >= previous.updatedAt, `${name}: updatedAt is when the version was published`);
      assert.equal((await agent.get()).version, expected, `${name}: get() reads the new version`);
      const items = await deploymentList(ws, agent.id);
      assertDeploymentList(items, expected);
      assert.equal(items[0]!.deployedAt, published.updatedAt);
      previous = published;
    }
  });

  it('reading, listing and changing knowledge publish no version', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Reader' });
    await agent.get();
    await agent.get({ version: 1 });
    await agent.versions();
    await ws.agents.list();
    await ws.agents.versions(agent.id);
    await agent.knowledge.put('docs/a.md', '# a');
    await agent.knowledge.put('docs/a.md', '# a, replaced');
    await agent.knowledge.list();
    await agent.knowledge.list('docs');
    await agent.knowledge.read('docs/a.md');
    await agent.knowledge.remove('docs/a.md');
    assert.equal((await agent.get()).version, 1);
    assert.equal((await agent.versions()).length, 1);
    assertDeploymentList(await deploymentList(ws, agent.id), 1);
    assert.deepEqual(record(await agent.get()), record(agent), 'the agent is exactly as created');
  });

  it('a change that fails publishes no version', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Steady' });
    await expectFailure(agent.update({ name: '   ' }), 400, 'invalid_request');
    await expectFailure(agent.setTriggers([{ kind: 'schedule', cron: 'not a cron', message: 'x' }]), 400, 'invalid_request');
    await expectFailure(agent.setWorkflow({ name: 'W', when: 'always', content: '' }), 400, 'invalid_request');
    await expectFailure(agent.removeWorkflow('missing'), 404, 'workflow_not_found');
    assert.equal((await agent.get()).version, 1);
    assertDeploymentList(await deploymentList(ws, agent.id), 1);
  });

  it('get({ version }) returns an old snapshot exactly as it was published, after later changes', async () => {
    const { ws } = await newSdkWorkspace(api);
    const v1 = record(await ws.agents.create({ name: 'Original', instructions: 'first', tools: ['plan'] }));
    const v2 = record(await ws.agent(v1.id).update({ name: 'Renamed', tools: ['web.fetch'] }));
    const v3 = record(await ws.agent(v1.id).setWorkflow({ name: 'W', when: 'always', content: 'do it' }));
    const v4 = record(await ws.agent(v1.id).setTriggers([{ kind: 'webhook' }]));
    await ws.agent(v1.id).update({ instructions: 'latest' });
    const handle = ws.agent(v1.id);
    for (const snapshot of [v1, v2, v3, v4]) {
      assert.deepEqual(record(await handle.get({ version: snapshot.version })), snapshot, `version ${snapshot.version}`);
    }
    assert.equal((await handle.get({ version: 1 })).name, 'Original');
    assert.deepEqual((await handle.get({ version: 1 })).tools, ['plan']);
    assert.equal((await handle.get()).instructions, 'latest');
  });

  it('get of a version the agent does not have answers 404 version_not_found', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Short history' });
    await agent.update({ instructions: 'v2' });
    await expectFailure(agent.get({ version: 3 }), 404, 'version_not_found');
    await expectFailure(agent.get({ version: 0 }), 400, 'invalid_request');
  });

  it('versions() returns every snapshot newest first, each as its publishing call returned it', async () => {
    const { ws } = await newSdkWorkspace(api);
    const created = await ws.agents.create({ name: 'History' });
    const published = [record(created)];
    published.push(record(await created.update({ greeting: 'Hello' })));
    published.push(record(await created.setWorkflow({ name: 'W', when: 'always', content: 'do it' })));
    published.push(record(await created.setTriggers([{ kind: 'interval', seconds: 60, message: 'tick' }])));
    published.push(record(await created.removeWorkflow('W')));
    const snapshots = (await created.versions()).map(record);
    assert.deepEqual(snapshots, [...published].reverse());

    const items = await deploymentList(ws, created.id);
    assertDeploymentList(items, published.length);
    assert.deepEqual(
      items.map((i) => i.deployedAt),
      snapshots.map((s) => s.updatedAt),
      'the deployment list and the snapshots describe the same versions',
    );
    // The two lists name a version differently: a snapshot's id is the agent's, its versionId the item's id.
    assert.deepEqual(
      snapshots.map((s) => [s.id, s.versionId, s.version]),
      items.map((i) => [created.id, i.id, i.number]),
    );
    assert.deepEqual(
      published.map((p) => p.versionId),
      [...items].reverse().map((i) => i.id),
      'each publishing call answers with the id of the version it published',
    );
  });

  it('two concurrent updates of different fields publish two consecutive versions, and the latest has both changes', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Contended' });
    for (let round = 1; round <= 5; round++) {
      const base = (await agent.get()).version;
      const [a, b] = await Promise.all([
        agent.update({ instructions: `instructions of round ${round}` }),
        agent.update({ tools: round % 2 ? ['plan'] : ['web.fetch'] }),
      ]);
      assert.deepEqual(
        [a.version, b.version].sort((x, y) => x - y),
        [base + 1, base + 2],
        `round ${round}: two distinct consecutive versions`,
      );
      const latest = record(await agent.get());
      assert.equal(latest.version, base + 2);
      assert.equal(latest.instructions, `instructions of round ${round}`, `round ${round}: the instructions change is kept`);
      assert.deepEqual(latest.tools, round % 2 ? ['plan'] : ['web.fetch'], `round ${round}: the tools change is kept`);
      // The later of the two was built on the earlier: it shows both changes too.
      const later = record(a.version > b.version ? a : b);
      assert.deepEqual(later, latest);
    }
    assertDeploymentList(await deploymentList(ws, agent.id), 11);
  });

  it('many concurrent publishing calls each get their own version and none of their changes is lost', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Busy' });
    const names = Array.from({ length: 8 }, (_, i) => `Playbook ${i}`);
    const results = await Promise.all([
      ...names.map((name) => agent.setWorkflow({ name, when: `case ${name}`, content: `handle ${name}` })),
      agent.update({ greeting: 'Welcome' }),
      agent.setTriggers([{ kind: 'chat' }]),
    ]);
    const total = names.length + 2;
    assert.deepEqual(
      results.map((r) => r.version).sort((x, y) => x - y),
      Array.from({ length: total }, (_, i) => i + 2),
    );
    const latest = record(await agent.get());
    assert.equal(latest.version, total + 1);
    assert.deepEqual(latest.workflows.map((w) => w.name).sort(), [...names].sort());
    assert.equal(latest.greeting, 'Welcome');
    assert.deepEqual(latest.triggers, [{ kind: 'chat' }]);
    assertDeploymentList(await deploymentList(ws, agent.id), total + 1);
  });
});
