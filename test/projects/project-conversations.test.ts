import assert from 'node:assert/strict';
import type { Step, TurnEvent } from '../../sdk/src';
import { ProjectIdKey } from '../../domain/runs/search-attributes';
import { useTestApi } from '../support/api';
import { call } from '../../harness/http';
import { expectFailure, newSdkWorkspace, type SdkWorkspace } from '../support/sdk';

/** A line the offline model turns into a delegation (docs/tools.md: Models). */
const delegate = (agentId: string, task: string) => `/tool delegate ${JSON.stringify({ agentId, task })}`;

/** Project conversations: the manager (offline model) delegates to member agents as child workflows. */
describe('project conversations', () => {
  const api = useTestApi();
  let sdk: SdkWorkspace;
  before(async () => {
    sdk = await newSdkWorkspace(api);
  });

  const collect = async (turn: AsyncIterable<TurnEvent>) => {
    const events: TurnEvent[] = [];
    for await (const e of turn) events.push(e);
    return events;
  };
  /** The last state of each step the stream showed, by id. */
  const lastSteps = (events: TurnEvent[]) => {
    const steps = new Map<string, Step>();
    for (const e of events) if (e.type === 'progress') for (const s of e.steps) steps.set(s.id, s);
    return [...steps.values()];
  };
  /** Members' conversations a manager's turn started, with their turns. */
  const delegatedTurns = async (turnId: string) =>
    (await api
      .db('conversations as c')
      .join('turns as t', 't.conversation_id', 'c.id')
      .where('c.parent_turn_id', turnId)
      .orderBy('c.started_at')
      .select('c.agent_id', 't.id as turn_id')) as Array<{ agent_id: string; turn_id: string }>;

  it('delegates to two members as child workflows; the caller streams their task steps, a file and the final reply', async () => {
    const writer = await sdk.ws.agents.create({ name: 'Writer', filesystem: 'drive', tools: ['files.write'] });
    const reviewer = await sdk.ws.agents.create({ name: 'Reviewer' });
    const project = await sdk.ws.projects.create({ name: 'Launch', goal: 'Ship the report', agents: [writer.id, reviewer.id] });
    const conversation = await project.start({ parameters: { audience: 'board' } });
    assert.equal(conversation.projectId, project.id);
    assert.equal(conversation.ready, true);
    assert.deepEqual(conversation.requires, []);

    const text = [
      delegate(writer.id, '/tool files_write {"path":"report.md","content":"# Report"}'),
      delegate(reviewer.id, 'Review report.md please'),
    ].join('\n');
    const turn = conversation.ask(text);
    const events = await collect(turn);
    const done = events.at(-1);
    assert.ok(done?.type === 'done', JSON.stringify(done));

    // Two task steps, each shown active and then done, and the delegate tool events around them.
    const steps = lastSteps(events);
    assert.deepEqual(steps.map((s) => [s.kind, s.status]), [['task', 'done'], ['task', 'done']]);
    assert.match(steps[0]!.label, /^Delegating to Writer: /);
    assert.match(steps[1]!.label, /^Delegating to Reviewer: Review report\.md please$/);
    const active = events.flatMap((e) => (e.type === 'progress' ? e.steps.filter((s) => s.status === 'active').map((s) => s.id) : []));
    assert.deepEqual([...new Set(active)], steps.map((s) => s.id), 'each step was shown active before done');
    const tools = events.filter((e) => e.type === 'tool');
    assert.deepEqual(tools, [
      { type: 'tool', name: 'delegate', state: 'start' },
      { type: 'tool', name: 'delegate', state: 'end', ok: true },
      { type: 'tool', name: 'delegate', state: 'start' },
      { type: 'tool', name: 'delegate', state: 'end', ok: true },
    ]);
    assert.deepEqual(events.filter((e) => e.type === 'file'), [{ type: 'file', path: 'report.md' }]);
    // The manager's final reply is made of its members' answers.
    assert.match(done.reply, /^\(offline model\) Tool results: delegate: \(offline model\) Tool results: files_write/);
    assert.match(done.reply, /delegate: \(offline model\) You said: Review report\.md please/);
    assert.equal(await turn, done.reply);

    // The children are the ordinary turn workflow, under the manager's turn, searchable by ProjectId.
    const children = await delegatedTurns(turn.id!);
    assert.deepEqual(children.map((c) => c.agent_id), [writer.id, reviewer.id]);
    for (const child of children) {
      const described = await api.temporal.workflow.getHandle(`turn-${child.turn_id}`).describe();
      assert.equal(described.type, 'turnWorkflow');
      assert.equal(described.parentExecution?.workflowId, `turn-${turn.id}`);
      assert.equal(described.typedSearchAttributes.get(ProjectIdKey), project.id);
    }
    const parent = await api.temporal.workflow.getHandle(`turn-${turn.id}`).describe();
    assert.equal(parent.type, 'projectTurnWorkflow');
    assert.equal(parent.typedSearchAttributes.get(ProjectIdKey), project.id);
    // Visibility lags a little: wait (bounded) until the three runs are listed by ProjectId.
    const deadline = Date.now() + 15_000;
    let listed: string[] = [];
    while (listed.length < 3 && Date.now() < deadline) {
      listed = [];
      for await (const w of api.temporal.workflow.list({ query: `ProjectId = "${project.id}"` })) listed.push(w.workflowId);
      if (listed.length < 3) await new Promise((r) => setTimeout(r, 250));
    }
    assert.deepEqual(listed.sort(), [`turn-${turn.id}`, ...children.map((c) => `turn-${c.turn_id}`)].sort());

    // The member's file landed in the project's file space.
    assert.deepEqual((await project.files()).map((f) => f.path), ['report.md']);
    assert.equal(await project.readFile('report.md'), '# Report');
    assert.equal(await conversation.readFile('report.md'), '# Report', "the conversation's drive is the project's file space");
    const url = await project.fileUrl('report.md', { ttl: 60 });
    assert.equal(await (await fetch(url)).text(), '# Report');

    // Listed under the project (not the members' delegated conversations); messages as for agents.
    assert.deepEqual((await project.conversations()).map((c) => c.id), [conversation.id]);
    const messages = await conversation.messages();
    assert.deepEqual(messages.map((m) => [m.role, m.content]), [['user', text], ['assistant', done.reply]]);
    const got = await sdk.ws.conversation(conversation.id).get();
    assert.ok('projectId' in got && !('agentId' in got));
  });

  it('a removed member is no longer delegated to; a project without members still answers', async () => {
    const stays = await sdk.ws.agents.create({ name: 'Stays' });
    const leaves = await sdk.ws.agents.create({ name: 'Leaves' });
    const project = await sdk.ws.projects.create({ name: 'Shrinking', agents: [stays.id, leaves.id] });
    const conversation = await project.start();
    await project.removeAgent(leaves.id);

    const turn = conversation.ask(delegate(leaves.id, 'Do something'));
    const events = await collect(turn);
    const done = events.at(-1);
    assert.ok(done?.type === 'done', JSON.stringify(done));
    assert.deepEqual(lastSteps(events).map((s) => s.status), ['error']);
    assert.deepEqual(events.filter((e) => e.type === 'tool').at(-1), { type: 'tool', name: 'delegate', state: 'end', ok: false });
    assert.match(done.reply, new RegExp(`delegate \\(error\\): agent ${leaves.id} is not a member of this project; its members are Stays`));
    assert.deepEqual(await delegatedTurns(turn.id!), [], 'no turn of the removed member');

    // With no member left, the manager has no delegation tool and answers alone.
    await project.removeAgent(stays.id);
    const alone = await conversation.ask(delegate(stays.id, 'Anything'));
    assert.match(alone, /Unknown tool "delegate"\. Available tools: none\./);
    const empty = await sdk.ws.projects.create({ name: 'Solo' });
    assert.equal(await (await empty.start()).ask('hello manager'), '(offline model) You said: hello manager');
  });

  it('an archived project refuses new conversations and asks with 409 project_archived', async () => {
    const project = await sdk.ws.projects.create({ name: 'Done' });
    const conversation = await project.start();
    await project.archive();
    await expectFailure(project.start(), 409, 'project_archived');
    await expectFailure(conversation.ask('still there?'), 409, 'project_archived');
    assert.deepEqual(await conversation.messages(), [], 'nothing of the refused ask is written');
    assert.equal((await project.conversations()).length, 1);
  });

  it('bad inputs answer 400 naming the field, and write nothing', async () => {
    const project = await sdk.ws.projects.create({ name: 'Strict' });
    const post = (path: string, body: unknown) => call<{ error: { code: string; message: string } }>(api.baseURL, 'POST', path, { apiKey: sdk.apiKey, body });
    const cases: Array<[string, unknown, RegExp]> = [
      [`/v1/projects/${project.id}/conversations`, { parameters: { '1st': 'x' } }, /^body\.parameters/],
      [`/v1/projects/${project.id}/conversations`, { parameters: { tier: { nested: true } } }, /^body\.parameters\.tier/],
      [`/v1/projects/${project.id}/conversations`, { version: 2 }, /^body/],
      [`/v1/projects/${project.id}/file-urls`, { path: '../x', ttl: 60 }, /^body\.path/],
      [`/v1/projects/${project.id}/file-urls`, { path: 'x.md', ttl: 0 }, /^body\.ttl/],
    ];
    for (const [path, body, field] of cases) {
      const r = await post(path, body);
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}`);
      assert.equal(r.body.error.code, 'invalid_request');
      assert.match(r.body.error.message, field);
    }
    assert.deepEqual(await project.conversations(), []);
    const missing = await post('/v1/projects/prj_nope/conversations', {});
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'project_not_found');
  });
});
