import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fieldPath } from '../../domain/field-path';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { call, type ErrorJson } from '../../harness/http';
import { freelancer } from '../support/publishing';

/**
 * Text PostgreSQL cannot store, or that is not Unicode — a NUL, a lone UTF-16 surrogate — sent to
 * every documented route (from the OpenAPI document, so a new route is covered the day it is
 * added): in a path parameter, a query parameter, or anywhere in a JSON body, including keys.
 * Every such request is a 400 `invalid_request` naming the field, never a 500 (a review once
 * found 91 of 2,500 such requests answered 500).
 */

interface Operation {
  method: string;
  path: string;
  parameters?: Array<{ name: string; in: 'path' | 'query' | 'header' }>;
  requestBody?: { content: Record<string, unknown> };
}
interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);
const RUNS = 12;

/** A string with exactly one NUL or lone surrogate in it, between printable ASCII (which cannot pair with it). */
const badText = fc
  .tuple(fc.string({ maxLength: 6 }), fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff'), fc.string({ maxLength: 6 }))
  .map(([a, bad, b]) => a + bad + b);

/** Percent-encodes a string as the bytes a client would send: UTF-8, with a lone surrogate as its 3 WTF-8 bytes. */
function encodeSegment(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}

/** A JSON value with one bad string at `at` (keys and indexes), and the field path to expect. */
const badBody = fc
  .tuple(
    fc.array(fc.oneof(fc.stringMatching(/^[a-z][a-zA-Z]{0,8}$/), fc.nat({ max: 2 })), { minLength: 1, maxLength: 3 }),
    badText,
    fc.boolean(),
  )
  .map(([at, bad, inKey]) => {
    // Objects at the top (every JSON body is one); arrays where an index is asked for.
    const path: Array<string | number> = typeof at[0] === 'number' ? ['items', ...at] : at;
    const leafKey = inKey ? bad : undefined;
    let value: unknown = inKey ? { [bad]: 'x' } : bad;
    for (let i = path.length - 1; i >= 0; i--) {
      const key = path[i]!;
      if (typeof key === 'number') {
        const arr: unknown[] = Array.from({ length: key }, () => 'fine');
        arr.push(value);
        value = arr;
      } else {
        value = { [key]: value };
      }
    }
    return { body: value, field: fieldPath('body', leafKey === undefined ? path : [...path, leafKey]) };
  });

function operations(doc: OpenApiDoc): Array<Operation & { method: string; path: string }> {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([m]) => METHODS.has(m))
      .map(([method, op]) => ({ ...op, method: method.toUpperCase(), path })),
  );
}

describe('bad text on every route (property-based, fast-check)', function () {
  this.timeout(180_000);
  // Hundreds of requests a second with one key: the limits are not what this checks (limits-*.test.ts do).
  // The codec routes check CODEC_TOKEN before they read a body: with it set and sent, their bodies are tested too.
  const codecToken = 'c'.repeat(40);
  const api = useTestApi(() => ({
    config: { ...fixture().config, KEY_BURST_PER_SECOND: 100_000, KEY_REQUESTS_PER_MINUTE: 1_000_000, CODEC_TOKEN: codecToken },
  }));
  let doc: OpenApiDoc;
  let apiKey: string;
  let publicToken: string;
  /** A real id for each path parameter, so only the parameter under test is bad. */
  const ids: Record<string, string> = {};

  before(async () => {
    doc = (await (await fetch(`${api.baseURL}/v1/openapi.json`)).json()) as OpenApiDoc;
    ({ apiKey } = await api.newWorkspace({ credits: 100 }));
    const { agentId, versionIds } = await freelancer(api.baseURL, apiKey, { name: 'Property' });
    const [v1] = await versionIds();
    await call(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: v1!.id } });
    publicToken = (await call<{ token: string }>(api.baseURL, 'GET', `/v1/agents/${agentId}/public-token`, { apiKey })).body.token;
    ids.agentId = agentId;
    const started = await call<{ id: string }>(api.baseURL, 'POST', `/v1/agents/${agentId}/conversations`, { apiKey, body: {} });
    ids.conversationId = started.body.id;
    const project = await call<{ id: string }>(api.baseURL, 'POST', '/v1/projects', { apiKey, body: { name: 'P' } });
    ids.projectId = project.body.id;
    // A live inbound webhook URL: its route looks the token up before it reads the payload.
    const hooked = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', { apiKey, body: { name: 'Hooked', triggers: [{ kind: 'webhook' }] } });
    const hooks = await call<{ data: Array<{ id: string; url: string }> }>(api.baseURL, 'GET', `/v1/agents/${hooked.body.id}/webhooks`, { apiKey });
    ids.token = hooks.body.data[0]!.url.split('/').pop()!;
    // An eval case id is chosen by the caller: any well-formed one reaches body validation.
    ids.caseId = 'smoke';
    // A well-formed eval run id: the path passes validation, so a bad query or body is what answers.
    ids.runId = 'evr_smoke';
    // A well-formed member id: its path passes validation, so a bad body is what answers.
    ids.memberId = 'mem_smoke';
  });

  /** Headers that get a request past authentication, so validation is what answers. */
  function auth(path: string): Record<string, string> {
    const token = path.startsWith('/v1/public/') ? publicToken : path.startsWith('/v1/codec/') ? codecToken : apiKey;
    return { authorization: `Bearer ${token}` };
  }

  function concrete(path: string, bad?: { name: string; encoded: string }): string {
    return path.replace(/\{(\w+)\}/g, (_, name: string) => (bad?.name === name ? bad.encoded : (ids[name] ?? (name === 'path' ? 'a/b.txt' : `x_${name}`))));
  }

  async function expectNamed(res: { status: number; body: unknown }, field: string, what: string): Promise<void> {
    assert.equal(res.status, 400, `${what}: ${res.status} ${JSON.stringify(res.body)}`);
    const { error } = res.body as ErrorJson;
    assert.equal(error.code, 'invalid_request', what);
    assert.ok(error.message.startsWith(`${field}:`), `${what}: "${error.message}" should name ${field}`);
  }

  it('covers the documented routes (path, query and JSON body inputs)', () => {
    const ops = operations(doc);
    assert.ok(ops.length >= 50, `${ops.length} operations`);
    assert.ok(ops.some((o) => o.requestBody?.content['application/json']));
  });

  it('a bad path parameter answers 400 naming it, on every route that has one', async () => {
    for (const op of operations(doc)) {
      for (const param of (op.parameters ?? []).filter((p) => p.in === 'path')) {
        await fc.assert(
          fc.asyncProperty(badText, async (text) => {
            // `{path}` spans segments; encode each so the bad character stays inside one.
            const encoded = param.name === 'path' ? `dir/${encodeSegment(text)}` : encodeSegment(text);
            const url = concrete(op.path, { name: param.name, encoded });
            const res = await call(api.baseURL, op.method, url, { headers: auth(op.path), ...(op.requestBody ? { body: {} } : {}) });
            await expectNamed(res, `path.${param.name}`, `${op.method} ${url}`);
          }),
          { numRuns: RUNS },
        );
      }
    }
  });

  it('a bad query parameter answers 400 naming it', async () => {
    const withQuery = operations(doc).filter((op) => op.parameters?.some((p) => p.in === 'query'));
    assert.ok(withQuery.length > 0, 'some routes take query parameters');
    for (const op of withQuery) {
      for (const param of op.parameters!.filter((p) => p.in === 'query')) {
        await fc.assert(
          fc.asyncProperty(badText, async (text) => {
            const url = `${concrete(op.path)}?${param.name}=${encodeSegment(text)}`;
            const res = await call(api.baseURL, op.method, url, { headers: auth(op.path), ...(op.requestBody ? { body: {} } : {}) });
            await expectNamed(res, `query.${param.name}`, `${op.method} ${url}`);
          }),
          { numRuns: RUNS },
        );
      }
    }
  });

  it('a bad string anywhere in a JSON body (value or key) answers 400 naming its field', async () => {
    const withBody = operations(doc).filter((op) => op.requestBody?.content['application/json']);
    for (const op of withBody) {
      await fc.assert(
        fc.asyncProperty(badBody, async ({ body, field }) => {
          const res = await call(api.baseURL, op.method, concrete(op.path), { headers: auth(op.path), body });
          await expectNamed(res, field, `${op.method} ${op.path} ${JSON.stringify(body)}`);
        }),
        { numRuns: RUNS },
      );
    }
  });
});
