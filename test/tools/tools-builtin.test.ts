import assert from 'node:assert/strict';
import type { AgentConversation, TurnEvent } from '../../sdk/src';
import { Service, ServiceError } from '../../sdk/src';
import { useTestApi } from '../support/api';

/** The offline model drives every built-in tool by its documented `/tool <name> <json>` syntax. */
describe('built-in tools, driven by the offline model', () => {
  const api = useTestApi();
  let conv: AgentConversation;
  let agentId: string;
  let ws: InstanceType<typeof Service>;

  before(async () => {
    const { apiKey } = await api.newWorkspace({ credits: 100 });
    ws = new Service({ apiKey, baseURL: api.baseURL });
    const agent = await ws.agents.create({
      name: 'Worker',
      filesystem: 'drive',
      tools: ['files.read', 'files.write', 'files.edit', 'files.list', 'files.search', 'knowledge.search', 'plan'],
    });
    agentId = agent.id;
    await agent.knowledge.put('policies/returns.md', '# Returns\nCustomers may return items within 30 days with a receipt.');
    await agent.knowledge.put('policies/shipping.md', '# Shipping\nOrders ship within two business days.');
    conv = await agent.start();
  });

  async function turn(text: string): Promise<TurnEvent[]> {
    const events: TurnEvent[] = [];
    for await (const e of conv.ask(text)) events.push(e);
    assert.equal(events.at(-1)?.type, 'done', JSON.stringify(events.at(-1)));
    return events;
  }

  const kinds = (events: TurnEvent[]) =>
    events.filter((e) => e.type !== 'text').map((e) => (e.type === 'tool' ? `tool:${e.name}:${e.state}${e.state === 'end' ? `:${e.ok}` : ''}` : e.type === 'file' ? `file:${e.path}` : e.type));

  it('files.write: tool start, an active step, the file event, the step done, tool end — then the model sees the result', async () => {
    const events = await turn('/tool files_write {"path":"notes/todo.md","content":"buy milk\\ncall Ada"}');
    assert.deepEqual(kinds(events), ['start', 'tool:files.write:start', 'progress', 'file:notes/todo.md', 'progress', 'tool:files.write:end:true', 'done']);
    const progress = events.filter((e) => e.type === 'progress');
    assert.deepEqual(progress.map((p) => p.type === 'progress' && p.steps.map((s) => [s.label, s.kind, s.status])), [
      [['Writing notes/todo.md', 'write', 'active']],
      [['Writing notes/todo.md', 'write', 'done']],
    ]);
    const done = events.at(-1);
    assert.match(done?.type === 'done' ? done.reply : '', /Tool results: files_write: wrote 17 bytes to notes\/todo\.md/);
    assert.equal(await conv.readFile('notes/todo.md'), 'buy milk\ncall Ada');
  });

  it('files.read, files.edit, files.list and files.search act on the drive', async () => {
    const read = await turn('/tool files_read {"path":"notes/todo.md"}');
    assert.match(read.at(-1)?.type === 'done' ? read.at(-1)!.type : '', /done/);
    assert.match(JSON.stringify(read.at(-1)), /buy milk/);
    const edit = await turn('/tool files_edit {"path":"notes/todo.md","old_text":"call Ada","new_text":"call Grace"}');
    assert.ok(kinds(edit).includes('file:notes/todo.md'));
    assert.equal(await conv.readFile('notes/todo.md'), 'buy milk\ncall Grace');
    const list = await turn('/tool files_list {}');
    assert.match(JSON.stringify(list.at(-1)), /notes\//);
    const search = await turn('/tool files_search {"query":"GRACE"}');
    assert.match(JSON.stringify(search.at(-1)), /notes\/todo\.md:2: call Grace/);
  });

  it('a failing tool is a result the model sees: step error, tool end ok false, the turn finishes', async () => {
    const events = await turn('/tool files_read {"path":"missing.md"}');
    assert.ok(kinds(events).includes('tool:files.read:end:false'));
    const last = events.filter((e) => e.type === 'progress').at(-1);
    assert.equal(last?.type === 'progress' && last.steps.at(-1)?.status, 'error');
    assert.match(JSON.stringify(events.at(-1)), /no file missing\.md/);
  });

  it('knowledge.search ranks the agent\'s knowledge files by full-text search', async () => {
    const events = await turn('/tool knowledge_search {"query":"return receipt"}');
    assert.match(JSON.stringify(events.at(-1)), /policies\/returns\.md/);
    assert.doesNotMatch(JSON.stringify(events.at(-1)), /shipping\.md/);
  });

  it('plan: the agent\'s step list shows in progress events before the tool steps', async () => {
    const events = await turn('/tool plan {"steps":[{"label":"Check the order","status":"done"},{"label":"Write the reply","status":"active"}]}');
    const last = events.filter((e) => e.type === 'progress').at(-1);
    assert.ok(last?.type === 'progress');
    assert.deepEqual(last.steps.map((s) => [s.id, s.label, s.kind, s.status]), [
      ['plan-1', 'Check the order', 'task', 'done'],
      ['plan-2', 'Write the reply', 'task', 'active'],
      [last.steps[2]!.id, 'Updating the plan', 'plan', 'done'],
    ]);
  });

  it('a /tool line may name the tool as events show it: /tool files.write calls files_write', async () => {
    const events = await turn('/tool files.write {"path":"dotted.md","content":"by the dotted name"}');
    assert.deepEqual(
      events.filter((e) => e.type === 'tool').map((e) => [e.name, e.state]),
      [['files.write', 'start'], ['files.write', 'end']],
      'events show the catalogue name',
    );
    assert.equal(await conv.readFile('dotted.md'), 'by the dotted name');
  });

  it('file tools without filesystem "drive" are refused with a 400 naming filesystem, and no version is published', async () => {
    const before = await ws.agent(agentId).get();
    const err = await ws
      .agent(agentId)
      .update({ filesystem: 'none' })
      .then(
        () => assert.fail('the update should be refused'),
        (e: unknown) => e as ServiceError,
      );
    assert.deepEqual([err.code, err.status], ['invalid_request', 400]);
    assert.match(err.message, /^body\.filesystem: is "none", but tools has files\.read, files\.write, files\.edit, files\.list, files\.search, .*set filesystem: "drive"/);
    assert.equal((await ws.agent(agentId).get()).version, before.version);
    const created = await ws.agents.create({ name: 'No drive', tools: ['files.write'] }).catch((e: unknown) => e as ServiceError);
    assert.ok(created instanceof ServiceError);
    assert.match(created.message, /^body\.filesystem: .*files\.write.*set filesystem: "drive"/);
  });
});
