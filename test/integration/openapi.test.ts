import assert from 'node:assert/strict';
import { compileErrors, validate } from '@readme/openapi-parser';
import { createRoutes } from '../../api/app';
import { openApiPath } from '../../api/openapi';
import { TurnEventHub } from '../../api/sse/event-hub';
import { createLogger } from '../../infra/logger';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';

interface OpenApiDoc {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
}

describe('OpenAPI document', () => {
  const api = useTestApi();
  let doc: OpenApiDoc;
  before(async () => {
    const res = await fetch(`${api.baseURL}/v1/openapi.json`);
    assert.equal(res.status, 200);
    doc = (await res.json()) as OpenApiDoc;
  });

  it('is served without a key and validates as OpenAPI 3.1', async () => {
    assert.equal(doc.openapi, '3.1.0');
    // validate() dereferences in place: hand it a copy.
    const result = await validate(structuredClone(doc) as never);
    assert.ok(result.valid, result.valid ? '' : compileErrors(result));
  });

  it('lists every route the router serves, with the same methods, and nothing it does not serve', () => {
    const routes = createRoutes({
      config: fixture().config,
      db: api.db,
      repos: api.repos,
      temporal: api.temporal,
      logger: createLogger('silent'),
      hub: new TurnEventHub(fixture().databaseUrl, createLogger('silent')),
    });
    const served = new Set<string>();
    for (const layer of routes.router.stack) {
      for (const method of layer.methods) {
        if (method === 'HEAD') continue; // Koa answers HEAD for every GET
        served.add(`${method.toLowerCase()} ${openApiPath(String(layer.path))}`);
      }
    }
    const documented = new Set(Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`)));
    assert.ok(served.size >= 25, `only ${served.size} routes found`);
    assert.deepEqual([...served].filter((r) => !documented.has(r)), [], 'served but not documented');
    assert.deepEqual([...documented].filter((r) => !served.has(r)), [], 'documented but not served');
  });

  it('documents the error answers of a route: agent_not_found is a 404 of GET /v1/agents/{agentId}', () => {
    const op = doc.paths['/v1/agents/{agentId}']?.get;
    assert.ok(op);
    assert.match(JSON.stringify(op.responses['404']), /agent_not_found/);
    assert.match(JSON.stringify(op.responses['401']), /invalid_api_key/);
    assert.ok(op.responses['200']);
  });

  it('operation ids are unique', () => {
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    assert.equal(new Set(ids).size, ids.length);
  });
});
