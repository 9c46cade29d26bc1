import assert from 'node:assert/strict';
import { agentSchema } from '../../domain/agent';
import { fileEntrySchema } from '../../domain/file-path';
import { randomToken } from '../../domain/ids';
import { projectSchema } from '../../domain/project';
import type { AgentHandle, ProjectHandle, ServiceError, WorkspaceClient } from '../../sdk/src';
import { type RunningApi, useTestApi } from '../support/api';
import { call, type ErrorJson } from '../../harness/http';
import { failureOf, newSdkWorkspace } from '../support/sdk';

/** What a caller can tell from a failure. */
const visible = (e: ServiceError) => ({ status: e.status, code: e.code, message: e.message, retryable: e.retryable });

/**
 * Workspace A with an agent (a workflow, a knowledge file, two versions) and a project that has
 * it as a member; workspace B with its own agent and project. Each test builds its own.
 */
async function twoWorkspaces(api: RunningApi) {
  const a = await newSdkWorkspace(api, 'A');
  const b = await newSdkWorkspace(api, 'B');
  const agentA = await a.ws.agents.create({
    name: 'A agent',
    workflows: [{ name: 'Refunds', when: 'refund asked', content: 'refund' }],
  });
  await agentA.update({ instructions: 'A only' });
  await agentA.knowledge.put('docs/secret.md', 'A secret');
  const projectA = await a.ws.projects.create({ name: 'A project', agents: [agentA.id] });
  const agentB = await b.ws.agents.create({ name: 'B agent' });
  const projectB = await b.ws.projects.create({ name: 'B project' });

  const snapshot = async () => ({
    agent: agentSchema.parse(await a.ws.agent(agentA.id).get()),
    versions: (await a.ws.agents.versions(agentA.id)).length,
    // The index state is left out: the indexing workflow moves it on its own time, whatever B does.
    files: (await a.ws.agent(agentA.id).knowledge.list('docs')).map((e) => fileEntrySchema.parse(e)).map(({ index: _index, ...entry }) => entry),
    secret: new TextDecoder().decode(await a.ws.agent(agentA.id).knowledge.read('docs/secret.md')),
    project: projectSchema.parse(await a.ws.project(projectA.id).get()),
  });
  return { a, b, agentA, projectA, agentB, projectB, before: await snapshot(), snapshot };
}

/** Every agent operation the SDK has, run on `agent` through `ws`. */
function agentCalls(ws: WorkspaceClient, agent: AgentHandle): Array<[string, () => Promise<unknown>]> {
  return [
    ['get', () => agent.get()],
    ['get({ version: 1 })', () => agent.get({ version: 1 })],
    ['update', () => agent.update({ name: 'taken over' })],
    ['versions', () => agent.versions()],
    ['ws.agents.versions', () => ws.agents.versions(agent.id)],
    ['setWorkflow', () => agent.setWorkflow({ name: 'Evil', when: 'always', content: 'leak' })],
    ['removeWorkflow', () => agent.removeWorkflow('Refunds')],
    ['setTriggers', () => agent.setTriggers([{ kind: 'chat' }])],
    ['knowledge.put', () => agent.knowledge.put('docs/planted.md', 'planted')],
    ['knowledge.list', () => agent.knowledge.list('docs')],
    ['knowledge.read', () => agent.knowledge.read('docs/secret.md')],
    ['knowledge.remove', () => agent.knowledge.remove('docs')],
    ['delete', () => agent.delete()],
  ];
}

/** Every project operation the SDK has, run on `project`; `agentId` is an agent the caller owns. */
function projectCalls(project: ProjectHandle, agentId: string, memberId: string): Array<[string, () => Promise<unknown>]> {
  return [
    ['get', () => project.get()],
    ['update', () => project.update({ name: 'taken over', goal: null })],
    ['addAgent', () => project.addAgent(agentId)],
    ['removeAgent', () => project.removeAgent(memberId)],
    ['archive', () => project.archive()],
    ['delete', () => project.delete()],
  ];
}

describe("Workspace isolation: another workspace's agents and projects do not exist for a key", () => {
  const api = useTestApi();

  it("every agent call with workspace B's key on A's agent answers exactly what an id that never existed answers", async () => {
    const { a, b, agentA, before, snapshot } = await twoWorkspaces(api);
    const foreign = agentCalls(b.ws, b.ws.agent(agentA.id));
    const never = agentCalls(b.ws, b.ws.agent(`agt_${randomToken(20)}`));
    for (const [i, [name, run]] of foreign.entries()) {
      const e = await failureOf(run());
      assert.equal(e.status, 404, name);
      assert.equal(e.code, 'agent_not_found', name);
      assert.deepEqual(visible(e), visible(await failureOf(never[i]![1]())), `${name}: indistinguishable from a missing agent`);
    }
    assert.deepEqual(await snapshot(), before, "nothing B tried changed A's agent");
    assert.equal((await a.ws.agent(agentA.id).knowledge.list()).length, 1);
  });

  it("every project call with workspace B's key on A's project answers exactly what an id that never existed answers", async () => {
    const { b, agentA, projectA, agentB, before, snapshot } = await twoWorkspaces(api);
    const foreign = projectCalls(b.ws.project(projectA.id), agentB.id, agentA.id);
    const never = projectCalls(b.ws.project(`prj_${randomToken(20)}`), agentB.id, agentA.id);
    for (const [i, [name, run]] of foreign.entries()) {
      const e = await failureOf(run());
      assert.equal(e.status, 404, name);
      assert.equal(e.code, 'project_not_found', name);
      assert.deepEqual(visible(e), visible(await failureOf(never[i]![1]())), `${name}: indistinguishable from a missing project`);
    }
    assert.deepEqual(await snapshot(), before, "nothing B tried changed A's project");
  });

  it('the error bodies on the wire are identical for a foreign id and an id that never existed', async () => {
    const { b, agentA, projectA } = await twoWorkspaces(api);
    const paths: Array<[string, string, string]> = [
      ['GET', `/v1/agents/${agentA.id}`, `/v1/agents/agt_${randomToken(20)}`],
      ['GET', `/v1/agents/${agentA.id}/versions`, `/v1/agents/agt_${randomToken(20)}/versions`],
      ['GET', `/v1/agents/${agentA.id}/knowledge/docs/secret.md`, `/v1/agents/agt_${randomToken(20)}/knowledge/docs/secret.md`],
      ['DELETE', `/v1/agents/${agentA.id}`, `/v1/agents/agt_${randomToken(20)}`],
      ['GET', `/v1/projects/${projectA.id}`, `/v1/projects/prj_${randomToken(20)}`],
      ['POST', `/v1/projects/${projectA.id}/archive`, `/v1/projects/prj_${randomToken(20)}/archive`],
    ];
    for (const [method, foreignPath, neverPath] of paths) {
      const foreign = await call<ErrorJson>(api.baseURL, method, foreignPath, { apiKey: b.apiKey });
      const never = await call<ErrorJson>(api.baseURL, method, neverPath, { apiKey: b.apiKey });
      assert.equal(foreign.status, 404, `${method} ${foreignPath}`);
      assert.equal(never.status, 404);
      assert.deepEqual(foreign.body, never.body, `${method}: the same body`);
    }
  });

  it("a workspace's lists hold only its own agents and projects", async () => {
    const { a, b, agentA, projectA, agentB, projectB } = await twoWorkspaces(api);
    assert.deepEqual((await a.ws.agents.list()).map((x) => x.id), [agentA.id]);
    assert.deepEqual((await b.ws.agents.list()).map((x) => x.id), [agentB.id]);
    assert.deepEqual((await a.ws.projects.list()).map((x) => x.id), [projectA.id]);
    assert.deepEqual((await b.ws.projects.list()).map((x) => x.id), [projectB.id]);
  });

  it("B cannot make A's agent a member of B's project, at creation or later", async () => {
    const { b, agentA, projectB, before, snapshot } = await twoWorkspaces(api);
    const unknown = `agt_${randomToken(20)}`;
    const masked = (e: ServiceError, id: string) => ({ ...visible(e), message: e.message.replaceAll(id, '<id>') });
    const viaAdd = await failureOf(projectB.addAgent(agentA.id));
    assert.equal(viaAdd.code, 'agent_not_found');
    assert.deepEqual(masked(viaAdd, agentA.id), masked(await failureOf(projectB.addAgent(unknown)), unknown));
    const viaCreate = await failureOf(b.ws.projects.create({ name: 'Stolen', agents: [agentA.id] }));
    assert.deepEqual(masked(viaCreate, agentA.id), masked(await failureOf(b.ws.projects.create({ name: 'x', agents: [unknown] })), unknown));
    assert.deepEqual((await projectB.get()).agents, []);
    assert.equal((await b.ws.projects.list()).length, 1);
    assert.deepEqual(await snapshot(), before);
  });

  it("B's key reaches B's own resources while A's stay out of reach", async () => {
    const { b, agentA, agentB, projectB } = await twoWorkspaces(api);
    const updated = await b.ws.agent(agentB.id).update({ name: 'B agent, renamed' });
    assert.equal(updated.version, 2);
    assert.deepEqual((await b.ws.project(projectB.id).addAgent(agentB.id)).agents.map((m) => m.name), ['B agent, renamed']);
    const e = await failureOf(b.ws.agent(agentA.id).get());
    assert.equal(e.code, 'agent_not_found');
  });
});
