import assert from 'node:assert/strict';
import { roleAllows, roles, type Role } from '../../domain/roles';
import { newId } from '../../domain/ids';
import { useTestApi } from '../support/api';

/**
 * The route table is the rule (issue 50, item 5): every authenticated route declares the least
 * role that may call it, the OpenAPI document (built from the same table) says it as
 * `x-required-role`, and here every route is called by every kind of caller — an API key of each
 * role, a signed-in member of each role, and nobody — and must answer exactly as declared:
 * 401 without credentials, 403 `forbidden` below the role, and neither (nor a 5xx) at or above it.
 * Every call of a mutating route by a known caller, refused or not, is one audit row.
 *
 * Path parameters name things that do not exist (the role is checked before anything is looked
 * up) and bodies are empty, so no call changes anything a later call depends on.
 */

interface Operation {
  method: string;
  path: string;
  operationId: string;
  role: Role | undefined;
  authenticated: boolean;
  rawBody: boolean;
}

const dummyParams: Record<string, string> = {
  agentId: 'agt_rolesnobody000000000',
  conversationId: 'cnv_rolesnobody000000000',
  turnId: 'trn_rolesnobody000000000',
  approvalId: 'apr_rolesnobody000000000',
  projectId: 'prj_rolesnobody000000000',
  keyId: 'key_rolesnobody000000000',
  memberId: 'mem_rolesnobody000000000',
  inviteId: 'lnk_rolesnobody000000000',
  erasureId: 'era_rolesnobody000000000',
  webhookId: 'whk_rolesnobody000000000',
  runId: 'run_rolesnobody000000000',
  endUserId: 'roles-nobody',
  provider: 'nobody',
  name: 'nobody',
  caseId: 'nobody',
  domain: 'nobody.example.test',
  path: 'nobody.txt',
};

function concretePath(path: string): string {
  return path.replace(/\{([A-Za-z]+)\}/g, (_m, name: string) => encodeURIComponent(dummyParams[name] ?? 'nobody'));
}

/** The `error.code` of an error answer, or undefined for any other body. */
function errorCode(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

type Caller = { label: string; role: Role | undefined; headers: () => Promise<Record<string, string>> };

describe('every route × every role (the route table)', function () {
  this.timeout(240_000);
  const api = useTestApi();
  const operations: Operation[] = [];
  const callers: Caller[] = [];
  let workspaceId = '';

  before(async () => {
    const doc = (await (await fetch(`${api.baseURL}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; security: unknown[]; 'x-required-role'?: Role; requestBody?: { content: Record<string, unknown> } }>>;
    };
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        operations.push({
          method: method.toUpperCase(),
          path: concretePath(path),
          operationId: op.operationId,
          role: op['x-required-role'],
          authenticated: op.security.length > 0,
          rawBody: Boolean(op.requestBody?.content['application/octet-stream']),
        });
      }
    }
    const { workspace } = await api.newWorkspace({ name: 'roles', credits: 0 });
    workspaceId = workspace.id;
    for (const role of roles) {
      const { apiKey } = await api.repos.apiKeys.create({ workspaceId, role, name: `${role} key` });
      callers.push({ label: `${role} key`, role, headers: async () => ({ authorization: `Bearer ${apiKey}` }) });
    }
    for (const role of roles) {
      const accountId = newId('account');
      const memberId = newId('member');
      await api.db('accounts').insert({ id: accountId, email: `${role}-${accountId}@example.test`, name: role });
      await api.db('members').insert({ id: memberId, workspace_id: workspaceId, account_id: accountId, role });
      // A session of its own for every call: a call may end sessions (sign out), never another call's.
      callers.push({
        label: `${role} member`,
        role,
        headers: async () => {
          const session = await api.repos.sessions.create({ memberId, workspaceId, absoluteMs: 3_600_000 });
          return { cookie: `ha_session=${session.token}`, 'x-csrf-token': session.csrfToken };
        },
      });
    }
    callers.push({ label: 'no credentials', role: undefined, headers: async () => ({}) });
  });

  it('the table declares a role for every authenticated route', () => {
    assert.ok(operations.length > 80, `the OpenAPI document lists ${operations.length} operations`);
    const undeclared = operations.filter((o) => o.authenticated && !o.role).map((o) => o.operationId);
    assert.deepEqual(undeclared, []);
  });

  it('each caller gets exactly the status the table declares, and each mutating call is one audit row', async () => {
    const wrong: string[] = [];
    for (const op of operations.filter((o) => o.authenticated)) {
      for (const caller of callers) {
        const headers: Record<string, string> = { ...(await caller.headers()) };
        let body: string | Uint8Array | undefined;
        if (op.method !== 'GET' && op.method !== 'DELETE') {
          if (op.rawBody) {
            headers['content-type'] = 'application/octet-stream';
            body = new TextEncoder().encode('x');
          } else {
            headers['content-type'] = 'application/json';
            body = '{}';
          }
        }
        const counts = async () => {
          // The service's own rows (an erasure's receipt, written when its workflow ends) are not calls.
          const rows = await api.db('audit_events').where({ workspace_id: workspaceId }).whereNot({ actor_kind: 'system' }).select('action');
          return { all: rows.length, ours: rows.filter((r: { action: string }) => r.action === op.operationId).length };
        };
        const before = caller.role && op.method !== 'GET' ? await counts() : undefined;
        const res = await fetch(`${api.baseURL}${op.path}`, { method: op.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(20_000) });
        const text = await res.text();
        const code = errorCode(text);
        const where = `${caller.label} ${op.method} ${op.path} (${op.operationId}, needs ${op.role}) → ${res.status} ${code ?? ''}`;
        if (!caller.role) {
          if (res.status !== 401) wrong.push(`${where}: expected 401`);
        } else if (!roleAllows(caller.role, op.role!)) {
          if (res.status !== 403 || code !== 'forbidden') wrong.push(`${where}: expected 403 forbidden`);
        } else if (res.status === 401 || res.status === 403 || res.status >= 500) {
          wrong.push(`${where}: expected the route to be allowed`);
        }
        if (before) {
          const after = await counts();
          if (after.all - before.all !== 1 || after.ours - before.ours !== 1) {
            wrong.push(`${where}: expected one audit row ${op.operationId}; ${after.all - before.all} rows were added`);
          }
        }
      }
    }
    assert.deepEqual(wrong, []);
  });
});
