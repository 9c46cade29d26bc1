import assert from 'node:assert/strict';
import { compileErrors, validate } from '@readme/openapi-parser';
import { useTestApi } from '../support/api';
import type { ErrorJson } from '../../harness/http';

interface ObjectSchema {
  properties: Record<string, { pattern?: string; enum?: string[] }>;
  required?: string[];
}

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, ObjectSchema> };
}

const methods = new Set(['get', 'post', 'put', 'patch', 'delete']);

function operations(doc: OpenApiDoc): Array<{ method: string; path: string }> {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => methods.has(m)).map((method) => ({ method, path })));
}

/** A URL for a documented path: `{path}` (a file path) becomes two segments, any other parameter an id nothing has. */
function concrete(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'path' ? 'probe/file.txt' : `probe_${name}`));
}

/** The URLs a documented path matches, the way the router matches them (`{path}` spans segments). */
function template(path: string): RegExp {
  const pattern = path
    .split(/(\{\w+\})/)
    .map((part) => (part === '{path}' ? '.+' : part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`);
}

interface Answer {
  status: number;
  code?: string;
  message?: string;
}

/** What the app's catch-all answers for a method and path no route serves. */
const isNoSuchRoute = (a: Answer) => a.status === 404 && a.code === 'not_found' && a.message === 'no such route';

describe('OpenAPI document', () => {
  const api = useTestApi();
  let doc: OpenApiDoc;
  before(async () => {
    const res = await fetch(`${api.baseURL}/v1/openapi.json`);
    assert.equal(res.status, 200);
    doc = (await res.json()) as OpenApiDoc;
  });

  /** Asks the running API, without a key or a body; a stream is not read. */
  async function probe(method: string, url: string): Promise<Answer> {
    const res = await fetch(`${api.baseURL}${url}`, { method: method.toUpperCase(), redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    if (!res.headers.get('content-type')?.includes('application/json')) {
      await res.body?.cancel();
      return { status: res.status };
    }
    const body = (await res.json()) as Partial<ErrorJson>;
    return { status: res.status, code: body.error?.code, message: body.error?.message };
  }

  it('is served without a key and validates as OpenAPI 3.1', async () => {
    assert.equal(doc.openapi, '3.1.0');
    // validate() dereferences in place: hand it a copy.
    const result = await validate(structuredClone(doc) as never);
    assert.ok(result.valid, result.valid ? '' : compileErrors(result));
  });

  it('every documented path and method is served: none answers the 404 of a route that does not exist', async () => {
    const documented = operations(doc);
    assert.ok(documented.length >= 25, `only ${documented.length} operations documented`);
    const unserved: string[] = [];
    for (const { method, path } of documented) {
      const answer = await probe(method, concrete(path));
      if (isNoSuchRoute(answer)) unserved.push(`${method} ${path}`);
    }
    assert.deepEqual(unserved, [], 'documented but answering "no such route"');
  });

  it('what is not documented is not served: other methods on documented paths, their parent paths and paths one segment longer answer 404 not_found', async () => {
    const documented = operations(doc);
    const isDocumented = (method: string, url: string) => documented.some((op) => op.method === method && template(op.path).test(url));
    const urls = new Set<string>();
    for (const { path } of documented) {
      const url = concrete(path);
      urls.add(url);
      if (!path.endsWith('{path}')) urls.add(`${url}/undocumented`);
      for (let cut = url.lastIndexOf('/'); cut > 0; cut = url.lastIndexOf('/', cut - 1)) urls.add(url.slice(0, cut));
    }
    const samples = [...urls].flatMap((url) => [...methods].filter((m) => !isDocumented(m, url)).map((method) => ({ method, url })));
    assert.ok(samples.length >= 100, `only ${samples.length} samples`);
    const served: string[] = [];
    for (const { method, url } of samples) {
      const answer = await probe(method, url);
      if (!isNoSuchRoute(answer)) served.push(`${method} ${url} → ${answer.status} ${answer.code ?? ''}`);
    }
    assert.deepEqual(served, [], 'served but not documented');
  });

  it('documents the error answers of a route: agent_not_found is a 404 of GET /v1/agents/{agentId}', () => {
    const op = doc.paths['/v1/agents/{agentId}']?.get;
    assert.ok(op);
    assert.match(JSON.stringify(op.responses['404']), /agent_not_found/);
    assert.match(JSON.stringify(op.responses['401']), /invalid_api_key/);
    assert.ok(op.responses['200']);
  });

  it('an Agent has its versionId (ver_…), and an update may change the role', () => {
    const { Agent: agent, UpdateAgent: update } = doc.components.schemas;
    assert.ok(agent?.required?.includes('versionId'), 'every Agent carries its version id');
    assert.match(agent?.properties.versionId?.pattern ?? '', /ver_/);
    assert.ok(update?.properties.role, 'PATCH /v1/agents/{agentId} takes role');
  });

  it('operation ids are unique', () => {
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    assert.equal(new Set(ids).size, ids.length);
  });
});
