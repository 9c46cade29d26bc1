import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomToken } from '../../domain/ids';
import { type Project as ProjectRecord, projectSchema } from '../../domain/project';
import { type Project, ProjectHandle } from '../../sdk/src';
import { useTestApi } from '../support/api';
import { call, type ErrorJson } from '../../harness/http';
import { expectFailure, failureOf, newSdkWorkspace } from '../support/sdk';

const record = (project: Project): ProjectRecord => projectSchema.parse(project);
const neverId = (prefix: 'agt' | 'prj') => `${prefix}_${randomToken(20)}`;

describe('Projects through the SDK', () => {
  const api = useTestApi();

  it('create with only a name makes an active project with no members and null goal and instructions', async () => {
    const { ws } = await newSdkWorkspace(api);
    const project = record(await ws.projects.create({ name: 'Launch' }));
    assert.match(project.id, /^prj_[0-9a-z]{20}$/);
    assert.deepEqual(
      { ...project, id: undefined, createdAt: undefined, updatedAt: undefined },
      { id: undefined, name: 'Launch', goal: null, managerInstructions: null, grade: 'standard', status: 'active', agents: [], createdAt: undefined, updatedAt: undefined },
    );
    assert.equal(project.updatedAt, project.createdAt);
  });

  it('create with fields and agents lists each agent once as a member, with its name and addedAt', async () => {
    const { ws } = await newSdkWorkspace(api);
    const writer = await ws.agents.create({ name: 'Writer' });
    const editor = await ws.agents.create({ name: 'Editor' });
    const project = record(
      await ws.projects.create({
        name: 'Newsletter',
        goal: 'Ship the weekly newsletter',
        managerInstructions: 'Writer drafts, Editor reviews.',
        grade: 'premium',
        agents: [writer.id, editor.id, writer.id],
      }),
    );
    assert.equal(project.goal, 'Ship the weekly newsletter');
    assert.equal(project.managerInstructions, 'Writer drafts, Editor reviews.');
    assert.equal(project.grade, 'premium');
    assert.deepEqual(
      project.agents.map((m) => [m.agentId, m.name]).sort(),
      [
        [writer.id, 'Writer'],
        [editor.id, 'Editor'],
      ].sort(),
    );
    for (const member of project.agents) assert.equal(member.addedAt, project.createdAt, 'members join when the project is created');
    assert.deepEqual(record(await ws.project(project.id).get()), project);
  });

  it('create naming an agent that does not exist answers 404 agent_not_found and creates nothing', async () => {
    const { ws } = await newSdkWorkspace(api);
    const real = await ws.agents.create({ name: 'Real' });
    await expectFailure(ws.projects.create({ name: 'Broken', agents: [real.id, neverId('agt')] }), 404, 'agent_not_found');
    assert.deepEqual(await ws.projects.list(), []);
  });

  it('list() returns every project of the workspace, newest first', async () => {
    const { ws } = await newSdkWorkspace(api);
    assert.deepEqual(await ws.projects.list(), []);
    const first = await ws.projects.create({ name: 'First' });
    const second = await ws.projects.create({ name: 'Second' });
    const firstRenamed = await first.update({ name: 'First, renamed' });
    assert.deepEqual((await ws.projects.list()).map(record), [record(second), record(firstRenamed)]);
  });

  it('ws.project(id) sends no request, then reads and changes the project like the returned one', async () => {
    const { ws, requests } = await newSdkWorkspace(api);
    const created = await ws.projects.create({ name: 'Stored' });
    assert.ok(created instanceof ProjectHandle);
    const before = requests.length;
    const handle = ws.project(created.id);
    assert.equal(requests.length, before, 'building a handle sends nothing');
    assert.equal(handle.id, created.id);
    assert.deepEqual(record(await handle.get()), record(created));
    await handle.update({ goal: 'Set through the handle' });
    assert.equal((await created.get()).goal, 'Set through the handle');
    assert.equal(created.goal, null, 'the object a method is called on is not changed');
  });

  it('projects returned by create, list and changes carry methods', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Member' });
    const created = await ws.projects.create({ name: 'Chained' });
    const withMember = await created.addAgent(agent.id);
    const renamed = await withMember.update({ name: 'Chained, renamed' });
    const [listed] = await ws.projects.list();
    assert.ok(listed);
    const archived = await listed.archive();
    assert.equal(archived.status, 'archived');
    assert.equal(renamed.name, 'Chained, renamed');
    assert.deepEqual(archived.agents.map((m) => m.agentId), [agent.id]);
    assert.deepEqual(JSON.parse(JSON.stringify(archived)), record(archived), 'serializes to exactly the record');
    await archived.delete();
    await expectFailure(created.get(), 404, 'project_not_found');
  });

  it('update changes the fields given; null clears goal and manager instructions', async () => {
    const { ws } = await newSdkWorkspace(api);
    const created = record(await ws.projects.create({ name: 'Plan', goal: 'Goal', managerInstructions: 'Manage', grade: 'standard' }));
    const p = ws.project(created.id);
    const renamed = record(await p.update({ name: 'Plan B', grade: 'premium' }));
    assert.deepEqual(
      { ...renamed, updatedAt: undefined },
      { ...created, name: 'Plan B', grade: 'premium', updatedAt: undefined },
    );
    assert.ok(renamed.updatedAt >= created.updatedAt);
    const cleared = record(await p.update({ goal: null, managerInstructions: null }));
    assert.equal(cleared.goal, null);
    assert.equal(cleared.managerInstructions, null);
    assert.equal(cleared.name, 'Plan B');
    assert.deepEqual(record(await p.get()), cleared);
  });

  it('addAgent adds a member; adding it again changes nothing and keeps its addedAt', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Analyst' });
    const project = await ws.projects.create({ name: 'Research' });
    const added = record(await project.addAgent(agent.id));
    assert.equal(added.agents.length, 1);
    const member = added.agents[0]!;
    assert.equal(member.agentId, agent.id);
    assert.equal(member.name, 'Analyst');
    assert.ok(member.addedAt >= added.createdAt);
    await sleep(20); // so a second insert would carry a visibly later addedAt
    const again = record(await project.addAgent(agent.id));
    assert.deepEqual(again.agents, [member]);
    assert.equal(again.updatedAt, added.updatedAt, 'a no-op does not move updatedAt');
    assert.deepEqual(record(await project.get()).agents, [member]);
  });

  it("a member's name is its agent's current name", async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Old name' });
    const project = await ws.projects.create({ name: 'Team', agents: [agent.id] });
    await agent.update({ name: 'New name' });
    assert.deepEqual((await project.get()).agents.map((m) => m.name), ['New name']);
    assert.deepEqual((await ws.projects.list())[0]!.agents.map((m) => m.name), ['New name']);
  });

  it('removeAgent removes the member and keeps the agent; removing an agent that is not a member is a no-op', async () => {
    const { ws } = await newSdkWorkspace(api);
    const a = await ws.agents.create({ name: 'A' });
    const b = await ws.agents.create({ name: 'B' });
    const project = await ws.projects.create({ name: 'Pair', agents: [a.id, b.id] });
    const after = record(await project.removeAgent(a.id));
    assert.deepEqual(after.agents.map((m) => m.agentId), [b.id]);
    assert.equal((await a.get()).name, 'A', 'the agent itself stays');
    await sleep(20); // so a wrongly moved updatedAt would show
    const noop = record(await project.removeAgent(a.id));
    assert.deepEqual(noop.agents, after.agents);
    assert.equal(noop.updatedAt, after.updatedAt, 'removing a non-member does not move updatedAt');
  });

  it('removeAgent of an id that is no agent of the workspace: 404 agent_not_found; of what is no agent id: 400 naming path.agentId; never a 200', async () => {
    const { ws, apiKey } = await newSdkWorkspace(api);
    const theirs = await newSdkWorkspace(api, 'theirs');
    const foreign = await theirs.ws.agents.create({ name: 'Not yours' });
    const member = await ws.agents.create({ name: 'Member' });
    const project = await ws.projects.create({ name: 'Kept whole', agents: [member.id] });
    const before = record(await project.get());
    const never = await expectFailure(project.removeAgent(neverId('agt')), 404, 'agent_not_found');
    const other = await expectFailure(project.removeAgent(foreign.id), 404, 'agent_not_found');
    assert.equal(other.message.replaceAll(foreign.id, '<id>'), never.message.replace(/agt_[0-9a-z]+/, '<id>'), "another workspace's agent answers like one that never existed");
    for (const garbage of ['0', 'null', 'undefined', 'nobody', 'AGT_X', `agt_${'x'.repeat(61)}`]) {
      const r = await call<ErrorJson>(api.baseURL, 'DELETE', `/v1/projects/${project.id}/agents/${garbage}`, { apiKey });
      assert.deepEqual([r.status, r.body.error.code], [400, 'invalid_request'], garbage);
      assert.match(r.body.error.message, /^path\.agentId: /, garbage);
    }
    assert.deepEqual(record(await project.get()), before, 'nothing changed, not even updatedAt');
  });

  it('addAgent of an id that never existed answers 404 agent_not_found', async () => {
    const { ws } = await newSdkWorkspace(api);
    const project = await ws.projects.create({ name: 'Lonely' });
    await expectFailure(project.addAgent(neverId('agt')), 404, 'agent_not_found');
    assert.deepEqual((await project.get()).agents, []);
  });

  it("adding another workspace's agent answers 404 agent_not_found, exactly like an id that never existed", async () => {
    const mine = await newSdkWorkspace(api, 'mine');
    const theirs = await newSdkWorkspace(api, 'theirs');
    const foreign = await theirs.ws.agents.create({ name: 'Not yours' });
    const project = await mine.ws.projects.create({ name: 'Mine' });
    const unknown = neverId('agt');
    const viaAdd = await failureOf(project.addAgent(foreign.id));
    const viaAddUnknown = await failureOf(project.addAgent(unknown));
    const viaCreate = await failureOf(mine.ws.projects.create({ name: 'Also mine', agents: [foreign.id] }));
    const viaCreateUnknown = await failureOf(mine.ws.projects.create({ name: 'Also mine', agents: [unknown] }));
    const shape = (e: { status: number; code: string; message: string; retryable: boolean }, id: string) => ({
      status: e.status,
      code: e.code,
      message: e.message.replaceAll(id, '<id>'),
      retryable: e.retryable,
    });
    assert.equal(viaAdd.code, 'agent_not_found');
    assert.equal(viaAdd.status, 404);
    assert.deepEqual(shape(viaAdd, foreign.id), shape(viaAddUnknown, unknown));
    assert.deepEqual(shape(viaCreate, foreign.id), shape(viaCreateUnknown, unknown));
    assert.deepEqual((await project.get()).agents, []);
    assert.equal((await mine.ws.projects.list()).length, 1);
  });

  it('an archived project can be read and deleted, but update, addAgent and removeAgent answer 409 project_archived', async () => {
    const { ws } = await newSdkWorkspace(api);
    const member = await ws.agents.create({ name: 'Member' });
    const outsider = await ws.agents.create({ name: 'Outsider' });
    const project = await ws.projects.create({ name: 'Done', goal: 'Finished', agents: [member.id] });
    const archived = record(await project.archive());
    assert.equal(archived.status, 'archived');
    assert.deepEqual({ ...archived, status: 'active', updatedAt: undefined }, { ...record(project), updatedAt: undefined });

    await expectFailure(project.update({ name: 'Reopened?' }), 409, 'project_archived');
    await expectFailure(project.addAgent(outsider.id), 409, 'project_archived');
    await expectFailure(project.removeAgent(member.id), 409, 'project_archived');
    assert.deepEqual(record(await project.get()), archived, 'nothing changed');
    assert.deepEqual(record(await project.archive()), archived, 'archiving again is a no-op');
    assert.deepEqual((await ws.projects.list()).map(record), [archived]);

    await project.delete();
    await expectFailure(project.get(), 404, 'project_not_found');
    assert.equal((await member.get()).name, 'Member', 'member agents stay');
  });

  it('deleting an agent removes it from every project it was in', async () => {
    const { ws } = await newSdkWorkspace(api);
    const leaving = await ws.agents.create({ name: 'Leaving' });
    const staying = await ws.agents.create({ name: 'Staying' });
    const p1 = await ws.projects.create({ name: 'One', agents: [leaving.id, staying.id] });
    const p2 = await ws.projects.create({ name: 'Two', agents: [leaving.id] });
    const p3 = await ws.projects.create({ name: 'Three', agents: [leaving.id] });
    await p3.archive();
    await leaving.delete();
    assert.deepEqual((await p1.get()).agents.map((m) => m.agentId), [staying.id]);
    assert.deepEqual((await p2.get()).agents, []);
    assert.deepEqual((await p3.get()).agents, [], 'archived projects lose the member too');
  });

  it('adding an agent while it is being deleted either adds it or answers 404, and never leaves a deleted member', async () => {
    const { ws } = await newSdkWorkspace(api);
    const project = await ws.projects.create({ name: 'Racing' });
    for (let round = 0; round < 15; round++) {
      const agent = await ws.agents.create({ name: `racer ${round}` });
      const [added, created, deleted] = await Promise.allSettled([
        project.addAgent(agent.id),
        ws.projects.create({ name: `created with racer ${round}`, agents: [agent.id] }),
        agent.delete(),
      ]);
      assert.equal(deleted.status, 'fulfilled', `round ${round}: delete succeeds`);
      for (const outcome of [added, created]) {
        if (outcome.status === 'rejected') await expectFailure(Promise.reject(outcome.reason), 404, 'agent_not_found');
      }
    }
    for (const p of await ws.projects.list()) assert.deepEqual(p.agents, [], `${p.name} has no deleted member`);
  });

  it('delete removes the project: every call on it then answers 404 project_not_found, and its agents stay', async () => {
    const { ws } = await newSdkWorkspace(api);
    const agent = await ws.agents.create({ name: 'Survivor' });
    const kept = await ws.projects.create({ name: 'Kept' });
    const project = await ws.projects.create({ name: 'Doomed', agents: [agent.id] });
    assert.equal(await project.delete(), undefined);
    assert.deepEqual((await ws.projects.list()).map((p) => p.id), [kept.id]);
    const never = await failureOf(ws.project(neverId('prj')).get());
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['get', () => project.get()],
      ['update', () => project.update({ name: 'Back' })],
      ['addAgent', () => project.addAgent(agent.id)],
      ['removeAgent', () => project.removeAgent(agent.id)],
      ['archive', () => project.archive()],
      ['delete', () => project.delete()],
    ];
    for (const [name, run] of calls) {
      const e = await expectFailure(run(), 404, 'project_not_found').catch((err: Error) => {
        throw new Error(`${name}: ${err.message}`);
      });
      assert.equal(e.message, never.message, `${name}: the same answer as for an id that never existed`);
    }
    assert.equal((await agent.get()).name, 'Survivor');
  });
});
