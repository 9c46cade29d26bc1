import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { compileErrors, validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020';
import { errorCodes, isRetryableStatus } from '../../domain/errors';
import { turnEventSchema } from '../../domain/turn-events';
import { useTestApi } from '../support/api';
import type { ErrorJson } from '../../harness/http';

interface ObjectSchema {
  properties: Record<string, { pattern?: string; enum?: string[] }>;
  required?: string[];
}

type Json = Record<string, unknown>;

interface OpenApiDoc {
  openapi: string;
  tags: Array<{ name: string; description?: string; 'x-traitTag'?: boolean }>;
  paths: Record<string, Record<string, { operationId: string; tags: string[]; responses: Record<string, { content?: Record<string, { schema: Json; examples?: Record<string, { value: unknown }> }> }> }>>;
  components: { schemas: Record<string, Json> };
}

/** A JSON pointer segment (RFC 6901). */
const pointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Every example in the document, with the pointer to the schema it illustrates: a media type's
 * `example` and `examples[*].value` (its sibling `schema`), and a schema's own `examples`.
 */
function examplesOf(node: unknown, at: string, out: Array<{ where: string; schema: string; value: unknown }> = []) {
  if (Array.isArray(node)) node.forEach((item, i) => examplesOf(item, `${at}/${i}`, out));
  if (!node || typeof node !== 'object' || Array.isArray(node)) return out;
  const o = node as Json;
  if (o.schema && typeof o.schema === 'object') {
    if ('example' in o) out.push({ where: `${at}/example`, schema: `${at}/schema`, value: o.example });
    for (const [name, ex] of Object.entries((o.examples ?? {}) as Record<string, { value?: unknown }>)) {
      out.push({ where: `${at}/examples/${pointer(name)}`, schema: `${at}/schema`, value: ex.value });
    }
  }
  if (('type' in o || '$ref' in o || 'oneOf' in o) && Array.isArray(o.examples)) {
    o.examples.forEach((value, i) => out.push({ where: `${at}/examples/${i}`, schema: at, value }));
  }
  for (const [k, v] of Object.entries(o)) if (k !== 'examples' && k !== 'example') examplesOf(v, `${at}/${pointer(k)}`, out);
  return out;
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
    const agent = doc.components.schemas.Agent as unknown as ObjectSchema | undefined;
    const update = doc.components.schemas.UpdateAgent as unknown as ObjectSchema | undefined;
    assert.ok(agent?.required?.includes('versionId'), 'every Agent carries its version id');
    assert.match(agent?.properties.versionId?.pattern ?? '', /ver_/);
    assert.ok(update?.properties.role, 'PATCH /v1/agents/{agentId} takes role');
  });

  it('an EvalCase answers its checks as stored (defaults filled in); a put takes them with the defaults optional', () => {
    const schemas = doc.components.schemas as unknown as Record<string, { oneOf?: Array<{ $ref: string }>; required?: string[]; properties?: Record<string, Json> }>;
    const refs = (name: string) => (schemas[name]?.oneOf ?? []).map((m) => m.$ref.split('/').at(-1));
    const itemsOf = (name: string) => JSON.stringify(schemas[name]?.properties?.checks);
    assert.match(itemsOf('EvalCase'), /schemas\/EvalCheck"/);
    assert.match(itemsOf('EvalCaseDefinition'), /schemas\/EvalCheckInput"/);
    assert.ok(refs('EvalCheck').includes('JudgeCheck') && !refs('EvalCheck').some((n) => n?.endsWith('Input')), refs('EvalCheck').join());
    assert.ok(refs('EvalCheckInput').includes('JudgeCheckInput'), refs('EvalCheckInput').join());
    assert.ok(schemas.JudgeCheck?.required?.includes('threshold'));
    assert.ok(!schemas.JudgeCheckInput?.required?.includes('threshold'));
  });

  it('every example validates against the schema it illustrates', () => {
    // The document itself is the schema store: refs (`#/components/schemas/…`) resolve inside it.
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(doc as unknown as Json, 'openapi.json');
    const examples = examplesOf(doc, '');
    assert.ok(examples.length >= 100, `only ${examples.length} examples`);
    const wrong: string[] = [];
    for (const { where, schema, value } of examples) {
      const check = ajv.compile({ $ref: `openapi.json#${schema}` });
      if (!check(value)) wrong.push(`${where}: ${ajv.errorsText(check.errors)}`);
    }
    assert.deepEqual(wrong, []);
  });

  it('error examples are what the service sends: the code answers that status, retryable only for 5xx and 429', () => {
    const wrong: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [status, response] of Object.entries(op.responses)) {
          for (const [name, ex] of Object.entries(response.content?.['application/json']?.examples ?? {})) {
            const { error } = ex.value as ErrorJson;
            const expected = { status: Number(status), retryable: isRetryableStatus(Number(status)) };
            const actual = { status: errorCodes[error.code as keyof typeof errorCodes]?.status, retryable: error.retryable };
            if (!isDeepStrictEqual(actual, expected)) wrong.push(`${method} ${path} ${status} ${name}: ${JSON.stringify(actual)}`);
          }
        }
      }
    }
    assert.deepEqual(wrong, []);
    const badRequest = doc.paths['/v1/agents']?.post?.responses['400']?.content?.['application/json']?.examples?.invalid_request?.value as ErrorJson;
    assert.equal(badRequest.error.retryable, false, 'a 400 is not retryable');
  });

  it("the Error schema gives each code's meaning; the Errors section tables them", () => {
    const code = ((doc.components.schemas.Error!.properties as Json).error as { properties: { code: Json } }).properties.code;
    const meanings = code['x-enumDescriptions'] as Record<string, string>;
    assert.deepEqual(Object.keys(meanings), code.enum);
    for (const [name, { status, doc: meaning }] of Object.entries(errorCodes)) assert.equal(meanings[name], `${status}: ${meaning}`);
    const section = doc.tags.find((t) => t.name === 'Errors');
    assert.equal(section?.['x-traitTag'], true);
    assert.ok(section.description?.includes(`| \`agent_not_found\` | 404 | ${errorCodes.agent_not_found.doc} |`));
  });

  it('turn streams document their events: one schema per event type, discriminated by `type`', () => {
    const streams = Object.values(doc.paths).flatMap((ops) => Object.values(ops)).filter((op) => op.responses['200']?.content?.['text/event-stream']);
    assert.deepEqual(streams.map((op) => op.operationId).sort(), ['ask', 'publicChat', 'publicTurnEvents', 'turnEvents']);
    for (const op of streams) assert.equal(op.responses['200']!.content!['text/event-stream']!.schema.$ref, '#/components/schemas/TurnEvent');
    const turnEvent = doc.components.schemas.TurnEvent!;
    const types = turnEventSchema.options.map((o) => o.shape.type.value);
    assert.deepEqual(Object.keys((turnEvent.discriminator as { mapping: Json }).mapping), types);
    for (const ref of (turnEvent.oneOf as Array<{ $ref: string }>).map((m) => m.$ref)) {
      const member = doc.components.schemas[ref.split('/').at(-1)!]!;
      assert.ok(typeof member.description === 'string' && member.description.length > 0, `${ref} says when it comes`);
    }
  });

  it('every tag has a description: no section of the page stands empty', () => {
    const used = new Set(Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags)));
    for (const name of used) assert.ok(doc.tags.find((t) => t.name === name)?.description, `tag ${name}`);
    for (const tag of doc.tags) assert.ok((tag.description ?? '').length > 20, `tag ${tag.name}`);
  });

  it('operation ids are unique', () => {
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    assert.equal(new Set(ids).size, ids.length);
  });
});
