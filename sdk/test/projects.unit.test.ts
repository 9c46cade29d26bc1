import assert from 'node:assert/strict';
import { type Project, ProjectHandle, type ProjectRecord, Service } from '../src';
import { failure, json, type TestServer, useSdkServer } from './support/test-server';

const record: ProjectRecord = {
  id: 'prj_1',
  name: 'Launch',
  goal: 'Ship the launch',
  managerInstructions: null,
  grade: 'standard',
  status: 'active',
  agents: [{ agentId: 'agt_1', name: 'Support', addedAt: '2025-01-01T00:00:00.000Z' }],
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

const archived: ProjectRecord = { ...record, status: 'archived', updatedAt: '2025-01-02T00:00:00.000Z' };

function calls(server: TestServer): string[] {
  return server.received.map((r) => `${r.method} ${r.url}`);
}

/** JSON bodies of the requests, `undefined` for none. */
function bodies(server: TestServer): unknown[] {
  return server.received.map((r) => (r.body === '' ? undefined : JSON.parse(r.body)));
}

function assertProject(project: Project, expected: ProjectRecord): void {
  assert.ok(project instanceof ProjectHandle);
  for (const method of ['update', 'get', 'addAgent', 'removeAgent', 'archive', 'delete'] as const) {
    assert.equal(typeof project[method], 'function', method);
  }
  assert.deepEqual(JSON.parse(JSON.stringify(project)), expected);
  assert.deepEqual({ ...project }, expected);
}

describe('SDK projects: ws.projects, ws.project(id) and returned projects', () => {
  let server: TestServer;
  let ws: Service;
  useSdkServer((_req, res) => json(res, 200, record), (srv, client) => {
    server = srv;
    ws = client;
  });

  it('create() sends POST /v1/projects with the fields and resolves to a Project', async () => {
    server.respond((_req, res) => json(res, 201, record));
    const project: Project = await ws.projects.create({ name: 'Launch', goal: 'Ship the launch', managerInstructions: null, agents: ['agt_1'] });
    assert.deepEqual(calls(server), ['POST /v1/projects']);
    assert.deepEqual(bodies(server), [{ name: 'Launch', goal: 'Ship the launch', managerInstructions: null, agents: ['agt_1'] }]);
    assert.equal(server.received[0]?.headers['content-type'], 'application/json');
    assertProject(project, record);
  });

  it('list() sends GET /v1/projects and unwraps { data } into Projects', async () => {
    server.respond((_req, res) => json(res, 200, { data: [archived, record] }));
    const projects = await ws.projects.list();
    assert.deepEqual(calls(server), ['GET /v1/projects']);
    assertProject(projects[0]!, archived);
    assertProject(projects[1]!, record);
  });

  it('ws.project(id) sends no request; its calls hit /v1/projects/:projectId', async () => {
    const handle = ws.project('prj_1');
    assert.equal(handle.id, 'prj_1');
    assert.deepEqual(JSON.parse(JSON.stringify(handle)), { id: 'prj_1' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(server.received.length, 0);
    assertProject(await handle.get(), record);
    assertProject(await handle.update({ name: 'Relaunch', goal: null, grade: 'premium' }), record);
    assert.deepEqual(calls(server), ['GET /v1/projects/prj_1', 'PATCH /v1/projects/prj_1']);
    assert.deepEqual(bodies(server), [undefined, { name: 'Relaunch', goal: null, grade: 'premium' }]);
  });

  it('addAgent, removeAgent and archive send their requests and resolve to the new project', async () => {
    const project = ws.project('prj_1');
    assertProject(await project.addAgent('agt_2'), record);
    assertProject(await project.removeAgent('agt_2'), record);
    server.respond((_req, res) => json(res, 200, archived));
    const archivedNow = await project.archive();
    assert.equal(archivedNow.status, 'archived');
    assert.deepEqual(calls(server), ['POST /v1/projects/prj_1/agents', 'DELETE /v1/projects/prj_1/agents/agt_2', 'POST /v1/projects/prj_1/archive']);
    assert.deepEqual(bodies(server), [{ agentId: 'agt_2' }, undefined, undefined]);
  });

  it('returned projects carry methods and are not changed by them', async () => {
    const project = await ws.projects.create({ name: 'Launch' });
    server.respond((_req, res) => json(res, 200, archived));
    const archivedNow = await project.archive();
    assert.deepEqual(calls(server), ['POST /v1/projects', 'POST /v1/projects/prj_1/archive']);
    assert.equal(project.status, 'active');
    assertProject(archivedNow, archived);
  });

  it('delete() sends DELETE /v1/projects/:projectId and resolves to undefined on 204', async () => {
    server.respond((_req, res) => res.writeHead(204).end());
    assert.equal(await ws.project('prj_1').delete(), undefined);
    assert.deepEqual(calls(server), ['DELETE /v1/projects/prj_1']);
  });

  it('failures reject with a ServiceError; unusable ids are refused without a request', async () => {
    server.respond((_req, res) => json(res, 404, { error: { code: 'project_not_found', message: 'gone', retryable: false } }));
    const err = await failure(ws.project('prj_x').archive());
    assert.deepEqual([err.code, err.status], ['project_not_found', 404]);
    server.received.length = 0;
    for (const call of [ws.project('').get(), ws.project('..').delete(), ws.project('prj_1').removeAgent('..')]) {
      assert.equal((await failure(call)).code, 'invalid_request');
    }
    assert.equal(server.received.length, 0);
    server.respond((_req, res) => json(res, 200, { items: [] }));
    assert.equal((await failure(ws.projects.list())).code, 'invalid_response');
  });
});
