import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { type ErrorCode, errorCodes } from '../../domain/errors';
import { API_INTRODUCTION, errorCodeDescriptions, errorExample, referenceSections, TAG_DESCRIPTIONS } from './openapi-text';
import type { AnyRouteDef } from '../routing';

type JsonSchema = Record<string, unknown>;

/**
 * Builds the OpenAPI 3.1 document from the routes' zod schemas (never by hand): OpenAPI 3.1
 * speaks JSON Schema 2020-12, which is what `z.toJSONSchema` emits. Schemas named with
 * `.meta({ id })` become components; a request form that differs from the response form of the
 * same name (defaults make fields optional on input) is named `<id>Input`.
 */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};

  /** Converts a schema, moving its named parts into components; returns the inline root. */
  add(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
    const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
    const renames = new Map<string, string>(Object.keys(defs).map((name) => [name, name]));
    // A schema is the same as the component of its name when it is equal once its refs point
    // into the components (as the stored one's do); else it gets a name of its own. Renaming a
    // part changes the refs of what holds it (a union whose members differ only in a default),
    // so this repeats until no more names change.
    for (let changed = true; changed; ) {
      changed = false;
      for (const [name, def] of Object.entries(defs)) {
        const existing = this.schemas[name];
        if (renames.get(name) !== name || existing === undefined || isDeepStrictEqual(existing, rewrite(def))) continue;
        renames.set(name, `${name}${io === 'input' ? 'Input' : 'Output'}`);
        changed = true;
      }
    }
    function rewrite(value: unknown): unknown {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value && typeof value === 'object') {
        const out: JsonSchema = {};
        for (const [k, v] of Object.entries(value)) {
          if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) {
            const name = v.slice('#/$defs/'.length);
            out[k] = `#/components/schemas/${renames.get(name) ?? name}`;
          } else out[k] = rewrite(v);
        }
        return out;
      }
      return value;
    }
    for (const [name, def] of Object.entries(defs)) this.schemas[renames.get(name)!] = rewrite(def) as JsonSchema;
    const { $defs: _defs, $schema: _schema, ...root } = json;
    return rewrite(root) as JsonSchema;
  }
}

/** What a text/event-stream answer's schema says besides the event types. */
const EVENT_STREAM =
  'Server-Sent Events: each `data:` is one event below, as JSON; the stream ends after `done` or `error` ([Turn events](#tag/Turn-events)).';

/** `/v1/agents/:agentId/knowledge/*path` → `/v1/agents/{agentId}/knowledge/{path}` */
function openApiPath(koaPath: string): string {
  return koaPath.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function objectFields(schema: z.ZodType | undefined): Array<[string, z.ZodType]> {
  if (!schema) return [];
  if (schema instanceof z.ZodObject) return Object.entries(schema.shape as Record<string, z.ZodType>);
  throw new Error('path and query schemas must be zod objects');
}

/** The body of every non-2xx answer; the `code` enum carries each code's status and meaning. */
const errorBody = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'retryable'],
      properties: {
        code: {
          type: 'string',
          enum: Object.keys(errorCodes),
          description: 'Stable identifier; branch on it. Each code with the status it comes with and what it means:',
          'x-enumDescriptions': errorCodeDescriptions(),
        },
        message: { type: 'string', description: 'For people; may be reworded. A validation failure starts with the field path (`body.name: …`).' },
        retryable: { type: 'boolean', description: 'Whether the same request may succeed later: true for 5xx and 429 only.' },
        retryAfter: { type: 'number', description: 'Seconds to wait before trying again (429 and 503); also the `Retry-After` header.' },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

/**
 * A `oneOf` of named object schemas that each fix `type` to a constant (TurnEvent's event types)
 * gets a discriminator, so Redoc offers the members by their `type` instead of as "variant 1, 2".
 */
function addDiscriminators(schemas: Record<string, JsonSchema>): void {
  for (const schema of Object.values(schemas)) {
    const members = schema.oneOf;
    if (!Array.isArray(members)) continue;
    const mapping: Record<string, string> = {};
    for (const member of members as JsonSchema[]) {
      const ref = typeof member.$ref === 'string' ? member.$ref : undefined;
      const target = ref ? schemas[ref.slice('#/components/schemas/'.length)] : undefined;
      const type = (target?.properties as Record<string, JsonSchema> | undefined)?.type?.const;
      if (!ref || typeof type !== 'string') break;
      mapping[type] = ref;
    }
    if (Object.keys(mapping).length === members.length) schema.discriminator = { propertyName: 'type', mapping };
  }
}

export function buildOpenApiDocument(defs: readonly AnyRouteDef[], info: { version: string; serverURL: string }): JsonSchema {
  const components = new Components();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const def of defs) {
    const parameters = [
      ...objectFields(def.params).map(([name, s]) => ({
        name, in: 'path', required: true,
        schema: components.add(s, 'input'),
        ...(def.path.includes(`*${name}`) ? { description: 'A file path; may contain `/`.' } : {}),
      })),
      ...objectFields(def.query).map(([name, s]) => ({
        name, in: 'query', required: !s.safeParse(undefined).success,
        schema: components.add(s, 'input'),
      })),
    ];
    const responses: Record<string, unknown> = {};
    const ok = def.response;
    const contentType = ok.contentType ?? 'application/json';
    if ((contentType === 'text/event-stream') !== Boolean(ok.events)) throw new Error(`${def.operationId}: a text/event-stream answer names its events, and only it`);
    responses[String(ok.status)] = {
      description: ok.description,
      ...(ok.events
        ? { content: { [contentType]: { schema: { ...components.add(ok.events, 'output'), description: EVENT_STREAM } } } }
        : ok.schema
          ? { content: { [contentType]: { schema: components.add(ok.schema, 'output') } } }
          : ok.status !== 204
            ? { content: { [contentType]: { schema: { type: 'string', contentMediaType: contentType } } } }
            : {}),
    };
    const codes = [...(def.errors ?? []), 'invalid_request', 'internal_error', ...(def.body ? (['invalid_json', 'body_too_large'] as const) : [])];
    // Every keyed request counts against the key's rate limits (docs/limits.md).
    if ((def.auth ?? 'apiKey') === 'apiKey') codes.push('missing_api_key', 'invalid_api_key', 'invalid_session', 'forbidden', 'rate_limited');
    if ((def.auth ?? 'apiKey') === 'apiKey' && def.method !== 'get') codes.push('csrf_token_invalid');
    const byStatus = new Map<number, string[]>();
    for (const code of codes) {
      const status = errorCodes[code as keyof typeof errorCodes].status;
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
      const listed = [...new Set(list)] as ErrorCode[];
      responses[String(status)] = {
        description: `Error: ${listed.join(', ')}`,
        content: {
          'application/json': {
            schema: { $ref: '#/components/schemas/Error' },
            examples: Object.fromEntries(listed.map((code) => [code, { summary: code, value: errorExample(code) }])),
          },
        },
      };
    }
    if (TAG_DESCRIPTIONS[def.tag] === undefined) throw new Error(`${def.operationId}: tag ${def.tag} has no description (api/openapi/openapi-text.ts)`);
    const operation: Record<string, unknown> = {
      operationId: def.operationId,
      summary: def.summary,
      ...(def.role ? { description: `Needs the \`${def.role}\` role or above (an API key's or a signed-in member's).`, 'x-required-role': def.role } : {}),
      tags: [def.tag],
      ...(parameters.length ? { parameters } : {}),
      ...(def.body ? { requestBody: { required: true, content: { 'application/json': { schema: components.add(def.body, 'input') } } } } : {}),
      ...(def.rawBody === true
        ? { requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } } }
        : def.rawBody
          ? { requestBody: { required: true, description: def.rawBody.description, content: { [def.rawBody.contentType]: { schema: { type: ['object', 'array'] } } } } }
          : {}),
      responses,
      security: (def.auth ?? 'apiKey') === 'apiKey' ? [{ apiKey: [] }, { session: [] }] : [],
    };
    const path = openApiPath(def.path);
    paths[path] = { ...(paths[path] ?? {}), [def.method]: operation };
  }
  addDiscriminators(components.schemas);
  const tags = [...referenceSections(), ...[...new Set(defs.map((d) => d.tag))].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] }))];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Hosted Agents API',
      version: info.version,
      description: API_INTRODUCTION,
    },
    servers: [{ url: info.serverURL }],
    tags,
    paths,
    components: {
      schemas: { Error: errorBody, ...components.schemas },
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: "An API key `sk_…`, which acts with its role: `npm start` prints its dev workspace's (owner), owners make more with `POST /v1/keys`, operators with `hosted-agents key create` (docs/operations.md: Admin CLI).",
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'ha_session',
          description: "A signed-in member's session (docs/security.md: Sessions), with their role. Any method but GET also needs the session's CSRF token in `X-CSRF-Token` (`csrfToken` of `GET /v1/session`).",
        },
      },
    },
  };
}
