import assert from 'node:assert/strict';
import { useTestApi } from '../support/api';
import { call, type ErrorJson } from '../../harness/http';

/**
 * Table-driven bad input: each case answers 400 `invalid_request` with a message that starts
 * with the field path, and nothing is written (the workspace's rows are the same before and after).
 */
interface Case {
  name: string;
  method: 'POST' | 'PATCH' | 'PUT' | 'GET' | 'DELETE';
  /** `{agent}` and `{project}` are replaced by the ids of an existing agent and project. */
  path: string;
  body?: unknown;
  field: string;
}

const agentPath = '/v1/agents';
const a = (extra: Record<string, unknown>) => ({ name: 'Support', ...extra });
const schedule = (extra: Record<string, unknown>) => ({ kind: 'schedule', cron: '0 9 * * 1', message: 'weekly report', ...extra });
const interval = (extra: Record<string, unknown>) => ({ kind: 'interval', seconds: 3600, message: 'check the queue', ...extra });
const httpTool = (extra: Record<string, unknown>) => ({
  name: 'lookup', description: 'Look up an order', method: 'GET', url: 'https://api.example.com/orders', ...extra,
});

const evalCase = (extra: Record<string, unknown>) => ({ messages: ['Where is my order?'], checks: [{ kind: 'contains', text: 'order' }], ...extra });

const cases: Case[] = [
  // create: types, required fields, unknown fields
  { name: 'missing name', method: 'POST', path: agentPath, body: {}, field: 'body.name' },
  { name: 'name of the wrong type', method: 'POST', path: agentPath, body: { name: 5 }, field: 'body.name' },
  { name: 'empty name', method: 'POST', path: agentPath, body: { name: '' }, field: 'body.name' },
  { name: 'name over 200 characters', method: 'POST', path: agentPath, body: { name: 'x'.repeat(201) }, field: 'body.name' },
  { name: 'instructions of the wrong type', method: 'POST', path: agentPath, body: a({ instructions: 42 }), field: 'body.instructions' },
  { name: 'an unknown field', method: 'POST', path: agentPath, body: a({ colour: 'red' }), field: 'body.colour' },
  { name: 'version chosen by the caller', method: 'POST', path: agentPath, body: a({ version: 7 }), field: 'body.version' },
  { name: 'unknown grade', method: 'POST', path: agentPath, body: a({ grade: 'gold' }), field: 'body.grade' },
  { name: 'unknown filesystem', method: 'POST', path: agentPath, body: a({ filesystem: 'disk' }), field: 'body.filesystem' },
  { name: 'unknown role', method: 'POST', path: agentPath, body: a({ role: 'boss' }), field: 'body.role' },
  { name: 'file tools without a drive', method: 'POST', path: agentPath, body: a({ tools: ['plan', 'files.write'] }), field: 'body.filesystem' },
  { name: 'id without the agt_ prefix', method: 'POST', path: agentPath, body: a({ id: 'support-bot' }), field: 'body.id' },
  { name: 'id with upper case', method: 'POST', path: agentPath, body: a({ id: 'agt_Support' }), field: 'body.id' },
  // tools
  { name: 'a tool not in the catalogue', method: 'POST', path: agentPath, body: a({ tools: ['hammer'] }), field: 'body.tools[0]' },
  { name: 'tools as a string', method: 'POST', path: agentPath, body: a({ tools: 'files.read' }), field: 'body.tools' },
  { name: 'a duplicate tool', method: 'POST', path: agentPath, body: a({ tools: ['plan', 'plan'] }), field: 'body.tools' },
  // workflows
  { name: 'workflow without content', method: 'POST', path: agentPath, body: a({ workflows: [{ name: 'refund', when: 'a refund is asked' }] }), field: 'body.workflows[0].content' },
  {
    name: 'duplicate workflow names', method: 'POST', path: agentPath,
    body: a({ workflows: [{ name: 'refund', when: 'x', content: 'y' }, { name: 'refund', when: 'z', content: 'w' }] }),
    field: 'body.workflows[1].name',
  },
  // triggers
  { name: 'cron minute out of range', method: 'POST', path: agentPath, body: a({ triggers: [schedule({ cron: '61 * * * *' })] }), field: 'body.triggers[0].cron' },
  { name: 'cron in words', method: 'POST', path: agentPath, body: a({ triggers: [schedule({ cron: 'every monday' })] }), field: 'body.triggers[0].cron' },
  { name: 'cron with six fields', method: 'POST', path: agentPath, body: a({ triggers: [schedule({ cron: '0 0 9 * * 1' })] }), field: 'body.triggers[0].cron' },
  { name: 'a cron Temporal cannot run (L, last day)', method: 'POST', path: agentPath, body: a({ triggers: [schedule({ cron: '0 9 L * *' })] }), field: 'body.triggers[0].cron' },
  { name: 'a cron with a nth-weekday #', method: 'POST', path: agentPath, body: a({ triggers: [schedule({ cron: '0 9 * * 1#2' })] }), field: 'body.triggers[0].cron' },
  { name: 'a time zone that does not exist', method: 'POST', path: agentPath, body: a({ triggers: [schedule({ timezone: 'Mars/Olympus_Mons' })] }), field: 'body.triggers[0].timezone' },
  { name: 'schedule without a message', method: 'POST', path: agentPath, body: a({ triggers: [{ kind: 'schedule', cron: '0 9 * * 1' }] }), field: 'body.triggers[0].message' },
  { name: 'interval under the minimum', method: 'POST', path: agentPath, body: a({ triggers: [interval({ seconds: 0 })] }), field: 'body.triggers[0].seconds' },
  { name: 'interval of a fraction of a second', method: 'POST', path: agentPath, body: a({ triggers: [interval({ seconds: 90.5 })] }), field: 'body.triggers[0].seconds' },
  { name: 'maxRuns of zero', method: 'POST', path: agentPath, body: a({ triggers: [interval({ maxRuns: 0 })] }), field: 'body.triggers[0].maxRuns' },
  { name: 'an unknown trigger kind', method: 'POST', path: agentPath, body: a({ triggers: [{ kind: 'email', message: 'x' }] }), field: 'body.triggers[0].kind' },
  { name: 'webhook url that is not http', method: 'POST', path: agentPath, body: a({ triggers: [{ kind: 'webhook', url: 'ftp://example.com' }] }), field: 'body.triggers[0].url' },
  { name: 'chat trigger with a cron', method: 'POST', path: agentPath, body: a({ triggers: [{ kind: 'chat', cron: '* * * * *' }] }), field: 'body.triggers[0].cron' },
  // secrets, connections, parameters
  { name: 'duplicate secret names', method: 'POST', path: agentPath, body: a({ secrets: [{ name: 'TOKEN', scope: 'fixed' }, { name: 'TOKEN', scope: 'conversation' }] }), field: 'body.secrets[1].name' },
  { name: 'unknown secret scope', method: 'POST', path: agentPath, body: a({ secrets: [{ name: 'TOKEN', scope: 'global' }] }), field: 'body.secrets[0].scope' },
  { name: 'connection required as text', method: 'POST', path: agentPath, body: a({ connections: [{ provider: 'github', scope: 'fixed', required: 'yes' }] }), field: 'body.connections[0].required' },
  { name: 'unknown parameter type', method: 'POST', path: agentPath, body: a({ parameters: [{ name: 'colour', type: 'color' }] }), field: 'body.parameters[0].type' },
  { name: 'choice parameter without choices', method: 'POST', path: agentPath, body: a({ parameters: [{ name: 'tier', type: 'choice' }] }), field: 'body.parameters[0].choices' },
  { name: 'number parameter with a word as default', method: 'POST', path: agentPath, body: a({ parameters: [{ name: 'limit', type: 'number', default: 'ten' }] }), field: 'body.parameters[0].default' },
  { name: 'date parameter with a bad default', method: 'POST', path: agentPath, body: a({ parameters: [{ name: 'from', type: 'date', default: '2026-13-40' }] }), field: 'body.parameters[0].default' },
  { name: 'duplicate parameter names', method: 'POST', path: agentPath, body: a({ parameters: [{ name: 'p', type: 'string' }, { name: 'p', type: 'number' }] }), field: 'body.parameters[1].name' },
  // MCP servers and HTTP tools
  { name: 'MCP server url that is not a URL', method: 'POST', path: agentPath, body: a({ mcpServers: [{ name: 'docs', url: 'not a url' }] }), field: 'body.mcpServers[0].url' },
  { name: 'unknown MCP transport', method: 'POST', path: agentPath, body: a({ mcpServers: [{ name: 'docs', url: 'https://mcp.example.com', transport: 'ws' }] }), field: 'body.mcpServers[0].transport' },
  { name: 'MCP timeout below 100 ms', method: 'POST', path: agentPath, body: a({ mcpServers: [{ name: 'docs', url: 'https://mcp.example.com', timeoutMs: 10 }] }), field: 'body.mcpServers[0].timeoutMs' },
  { name: 'unknown HTTP method', method: 'POST', path: agentPath, body: a({ httpTools: [httpTool({ method: 'FETCH' })] }), field: 'body.httpTools[0].method' },
  { name: 'URL placeholder without a param', method: 'POST', path: agentPath, body: a({ httpTools: [httpTool({ url: 'https://api.example.com/orders/{orderId}' })] }), field: 'body.httpTools[0].url' },
  {
    name: 'path param without a URL placeholder', method: 'POST', path: agentPath,
    body: a({ httpTools: [httpTool({ params: { q: { type: 'string', in: 'path' } } })] }),
    field: 'body.httpTools[0].params.q.in',
  },
  {
    name: 'placeholder param placed in the query', method: 'POST', path: agentPath,
    body: a({ httpTools: [httpTool({ url: 'https://api.example.com/orders/{id}', params: { id: { type: 'string', in: 'query' } } })] }),
    field: 'body.httpTools[0].params.id.in',
  },
  { name: 'HTTP tool param of unknown type', method: 'POST', path: agentPath, body: a({ httpTools: [httpTool({ params: { x: { type: 'date' } } })] }), field: 'body.httpTools[0].params.x.type' },
  { name: 'HTTP tool naming an undeclared secret', method: 'POST', path: agentPath, body: a({ httpTools: [httpTool({ secrets: ['API_KEY'] })] }), field: 'body.httpTools[0].secrets[0]' },
  { name: 'duplicate HTTP tool names', method: 'POST', path: agentPath, body: a({ httpTools: [httpTool({}), httpTool({})] }), field: 'body.httpTools[1].name' },
  // update, setWorkflow, setTriggers, reads
  { name: 'update with an unknown grade', method: 'PATCH', path: '/v1/agents/{agent}', body: { grade: 'gold' }, field: 'body.grade' },
  { name: 'update to an unknown role', method: 'PATCH', path: '/v1/agents/{agent}', body: { role: 'boss' }, field: 'body.role' },
  { name: 'update giving file tools without a drive', method: 'PATCH', path: '/v1/agents/{agent}', body: { tools: ['files.read'] }, field: 'body.filesystem' },
  { name: 'update with a too-short interval', method: 'PATCH', path: '/v1/agents/{agent}', body: { triggers: [interval({ seconds: 0 })] }, field: 'body.triggers[0].seconds' },
  { name: 'update whose HTTP tool names an undeclared secret', method: 'PATCH', path: '/v1/agents/{agent}', body: { httpTools: [httpTool({ secrets: ['X'] })] }, field: 'body.httpTools[0].secrets[0]' },
  { name: 'setWorkflow without content', method: 'PUT', path: '/v1/agents/{agent}/workflows', body: { name: 'w', when: 'always' }, field: 'body.content' },
  { name: 'setWorkflow with an empty name', method: 'PUT', path: '/v1/agents/{agent}/workflows', body: { name: '', when: 'always', content: 'x' }, field: 'body.name' },
  { name: 'setTriggers with a string', method: 'PUT', path: '/v1/agents/{agent}/triggers', body: { triggers: 'none' }, field: 'body.triggers' },
  { name: 'setTriggers without triggers', method: 'PUT', path: '/v1/agents/{agent}/triggers', body: {}, field: 'body.triggers' },
  { name: 'get with version 0', method: 'GET', path: '/v1/agents/{agent}?version=0', field: 'query.version' },
  { name: 'get with a non-numeric version', method: 'GET', path: '/v1/agents/{agent}?version=latest', field: 'query.version' },
  { name: 'knowledge listing outside the space', method: 'GET', path: '/v1/agents/{agent}/knowledge?dir=../other', field: 'query.dir' },
  // evaluation cases
  { name: 'eval case with a regex that does not compile', method: 'PUT', path: '/v1/agents/{agent}/evals/c1', body: evalCase({ checks: [{ kind: 'matches', pattern: '[a-' }] }), field: 'body.checks[0].pattern' },
  { name: 'eval case with an unknown check kind', method: 'PUT', path: '/v1/agents/{agent}/evals/c1', body: evalCase({ checks: [{ kind: 'vibes' }] }), field: 'body.checks[0].kind' },
  { name: 'eval case with 21 messages', method: 'PUT', path: '/v1/agents/{agent}/evals/c1', body: evalCase({ messages: Array(21).fill('hi') }), field: 'body.messages' },
  { name: 'eval case with an unknown field', method: 'PUT', path: '/v1/agents/{agent}/evals/c1', body: evalCase({ expected: 'x' }), field: 'body.expected' },
  { name: 'eval case id with upper case', method: 'PUT', path: '/v1/agents/{agent}/evals/Case1', body: evalCase({}), field: 'path.caseId' },
  { name: 'deleting an eval case by an over-long id', method: 'DELETE', path: `/v1/agents/{agent}/evals/${'c'.repeat(65)}`, field: 'path.caseId' },
  // tool calls a person approves
  { name: 'HTTP tool with an unknown approval', method: 'POST', path: agentPath, body: a({ httpTools: [httpTool({ approval: 'sometimes' })] }), field: 'body.httpTools[0].approval' },
  {
    name: 'MCP server approving an empty tool list',
    method: 'POST',
    path: agentPath,
    body: a({ mcpServers: [{ name: 'crm', url: 'https://mcp.example.com', approval: { tools: [] } }] }),
    field: 'body.mcpServers[0].approval.tools',
  },
  { name: 'approvals by an unknown approver', method: 'PATCH', path: '/v1/agents/{agent}', body: { approvals: 'everyone' }, field: 'body.approvals' },
  { name: 'approval timeout under 10 s', method: 'PATCH', path: '/v1/agents/{agent}', body: { approvalTimeoutMs: 5000 }, field: 'body.approvalTimeoutMs' },
  { name: 'approval timeout over 7 days', method: 'POST', path: agentPath, body: a({ approvalTimeoutMs: 8 * 86_400_000 }), field: 'body.approvalTimeoutMs' },
  { name: 'a decision that is neither approve nor deny', method: 'POST', path: '/v1/approvals/apr_x', body: { decision: 'maybe' }, field: 'body.decision' },
  { name: 'a decision without a decision', method: 'POST', path: '/v1/approvals/apr_x', body: { note: 'fine' }, field: 'body.decision' },
  { name: 'a decision note with a control character', method: 'POST', path: '/v1/approvals/apr_x', body: { decision: 'deny', note: 'no\u0007' }, field: 'body.note' },
  { name: 'listing approvals of an unknown status', method: 'GET', path: '/v1/approvals?status=waiting', field: 'query.status' },
  { name: 'reading an approval by an over-long id', method: 'GET', path: `/v1/approvals/${'a'.repeat(101)}`, field: 'path.approvalId' },
  // webhooks
  { name: 'rotating a webhook URL with an over-long webhook id', method: 'POST', path: `/v1/agents/{agent}/webhooks/${'w'.repeat(101)}/rotate-url`, field: 'path.webhookId' },
  { name: 'minting a signing secret with an over-long webhook id', method: 'POST', path: `/v1/agents/{agent}/webhooks/${'w'.repeat(101)}/signing-secret`, field: 'path.webhookId' },
  // projects
  { name: 'project without a name', method: 'POST', path: '/v1/projects', body: {}, field: 'body.name' },
  { name: 'project with an unknown grade', method: 'POST', path: '/v1/projects', body: { name: 'Launch', grade: 'x' }, field: 'body.grade' },
  { name: 'project with a member that is not an agent id', method: 'POST', path: '/v1/projects', body: { name: 'Launch', agents: ['bob'] }, field: 'body.agents[0]' },
  { name: 'project update setting the status', method: 'PATCH', path: '/v1/projects/{project}', body: { status: 'archived' }, field: 'body.status' },
  { name: 'project goal of the wrong type', method: 'PATCH', path: '/v1/projects/{project}', body: { goal: 12 }, field: 'body.goal' },
  { name: 'adding a member with a numeric id', method: 'POST', path: '/v1/projects/{project}/agents', body: { agentId: 5 }, field: 'body.agentId' },
];

describe('bad input: 400 invalid_request naming the field, and nothing written', () => {
  const api = useTestApi();
  let apiKey: string;
  let workspaceId: string;
  let agentId: string;
  let projectId: string;

  /** Everything the workspace owns, as rows; compared before and after each bad request. */
  async function snapshot(): Promise<string> {
    const db = api.db;
    const agents = await db('agents').where({ workspace_id: workspaceId }).orderBy('id');
    const versions = await db('agent_versions').whereIn('agent_id', agents.map((r) => r.id)).orderBy('id');
    const projects = await db('projects').where({ workspace_id: workspaceId }).orderBy('id');
    const members = await db('project_members').whereIn('project_id', projects.map((r) => r.id)).orderBy(['project_id', 'agent_id']);
    const files = await db('files').where({ workspace_id: workspaceId }).orderBy(['space', 'path']).select('space', 'path', 'size');
    const evalCases = await db('agent_eval_cases').whereIn('agent_id', agents.map((r) => r.id)).orderBy(['agent_id', 'case_id']);
    return JSON.stringify({ agents, versions, projects, members, files, evalCases });
  }

  before(async () => {
    ({ apiKey, workspace: { id: workspaceId } } = await api.newWorkspace());
    const agent = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', { apiKey, body: { name: 'Existing' } });
    agentId = agent.body.id;
    // An existing case, so the eval-case rows above are replaces that must leave it as it was.
    const stored = await call(api.baseURL, 'PUT', `/v1/agents/${agentId}/evals/c1`, { apiKey, body: evalCase({}) });
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    const project = await call<{ id: string }>(api.baseURL, 'POST', '/v1/projects', { apiKey, body: { name: 'Existing' } });
    projectId = project.body.id;
  });

  it(`has at least 40 cases (${cases.length})`, () => {
    assert.ok(cases.length >= 40);
    assert.equal(new Set(cases.map((c) => c.name)).size, cases.length, 'case names are unique');
  });

  for (const c of cases) {
    it(`${c.method} ${c.path.replace(/\?.*/, '')}: ${c.name} → 400 naming ${c.field}`, async () => {
      const before = await snapshot();
      const path = c.path.replace('{agent}', agentId).replace('{project}', projectId);
      const res = await call<ErrorJson>(api.baseURL, c.method, path, { apiKey, body: c.body });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'invalid_request');
      assert.equal(res.body.error.retryable, false);
      assert.ok(
        res.body.error.message.startsWith(`${c.field}: `),
        `message should name ${c.field}: ${res.body.error.message}`,
      );
      assert.equal(await snapshot(), before, 'a rejected request wrote something');
    });
  }
});
