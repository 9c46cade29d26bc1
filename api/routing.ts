import Router from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import type { ErrorCode } from '../domain/errors';
import { roleAllows, type Role } from '../domain/roles';
import type { ApiContext, ApiState } from './context';
import type { RouteLimit } from './limits';
import { jsonBody } from './middleware/json-body';
import { AppError } from '../domain/errors';
import { undecodablePathParam, undecodableQueryParam } from './body/undecodable';
import { parseInput } from './body/validate';

type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a route answers on success. */
interface RouteResponse {
  status: number;
  description: string;
  /** JSON body schema; absent for 204 and for non-JSON bodies. */
  schema?: z.ZodType;
  /** `text/event-stream` only: the schema of each event's `data` (api/openapi/openapi.ts documents the wire format). */
  events?: z.ZodType;
  /** `application/x-ndjson`: JSON lines, each one `schema` (an export). */
  contentType?: 'application/json' | 'application/octet-stream' | 'text/event-stream' | 'text/html' | 'application/x-ndjson';
}

/**
 * One route: its contract (used for validation here and for the OpenAPI document) and its
 * handler. Declaring both together is what keeps the document and the router the same list.
 */
interface RouteDef<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: HttpMethod;
  /** Koa path, e.g. `/v1/agents/:agentId`; a trailing `*path` segment matches a file path. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** `apiKey` (default): `Authorization: Bearer <key>`; `none`: public. */
  auth?: 'apiKey' | 'none';
  /**
   * The least role that may call it (`auth: 'apiKey'` routes: required; docs/security.md, Roles):
   * a key's or member's role must be this one or above, or the answer is 403 `forbidden`.
   */
  role?: Role;
  /**
   * Whether a call is written to the audit log (api/audit.ts): by default every call of a
   * mutating authenticated route (any method but GET) is; `self` routes write their own rows
   * (sign-in, sign-out), `none` ones write none.
   */
  audit?: 'self' | 'none';
  /** A credential of the route's own (with `auth: 'none'`), checked before the body is read: throws to refuse. */
  authorize?: (ctx: ApiContext) => void;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * The handler reads the body itself: raw bytes (`true`: file uploads), or JSON it parses under
   * its own rules (an inbound webhook: its own size limit and 413), documented as given here.
   */
  rawBody?: true | { contentType: 'application/json'; description: string };
  response: RouteResponse;
  /** Error codes this route can answer besides the ones every route can (400/401/5xx). */
  errors?: ErrorCode[];
  /**
   * What the route is limited by besides its API key's request rate (docs/limits.md), checked
   * before its handler: a slot of its API key held until the response closes (`streams`,
   * `uploads`; needs `auth: 'apiKey'`), or the public reads of the client's address.
   */
  limit?: RouteLimit;
}

export type AnyRouteDef = RouteDef<z.ZodType, z.ZodType, z.ZodType>;

interface RouteInput<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
}

type Handler<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> = (
  ctx: ApiContext,
  input: RouteInput<P, Q, B>,
) => Promise<unknown> | unknown;

/** What a route's call came to, for its audit row. */
export interface RouteOutcome {
  status: number;
  /** The error code of a refused or failed call. */
  error?: string;
}

interface ApiRouterOptions {
  /** Runs before routes whose `auth` is `apiKey`. */
  authenticate: Middleware<ApiState>;
  /** Writes the audit row of an audited route's call once it is answered (api/audit.ts). */
  audit?: (ctx: ApiContext, def: AnyRouteDef, outcome: RouteOutcome) => Promise<void>;
  /** Runs after `authenticate` on routes that declare a `limit`. */
  limit: (name: RouteLimit) => Middleware<ApiState>;
  bodyLimitBytes: number;
}

/**
 * A router that records every route's contract. Per route it adds authentication, JSON body
 * parsing (only where a body is declared, so raw uploads reach their handler untouched) and
 * validation: handlers receive parsed input and return the answer.
 */
export class ApiRouter {
  readonly router = new Router<ApiState>();
  readonly defs: AnyRouteDef[] = [];
  private readonly json: Middleware<ApiState>;

  constructor(private readonly options: ApiRouterOptions) {
    this.json = jsonBody(options.bodyLimitBytes);
  }

  add<P extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(
    def: RouteDef<P, Q, B>,
    handler: Handler<P, Q, B>,
  ): this {
    const authenticated = (def.auth ?? 'apiKey') === 'apiKey';
    const { role } = def;
    if (authenticated && !role) throw new Error(`${def.method.toUpperCase()} ${def.path} declares no role: every authenticated route says which role may call it`);
    this.defs.push(def);
    const before: Middleware<ApiState>[] = [];
    const { audit } = this.options;
    if (audit && isAudited(def)) before.push(auditCall(def, audit));
    if (authenticated) before.push(this.options.authenticate);
    if (authenticated && role) before.push(requireRole(role));
    if (def.limit) before.push(this.options.limit(def.limit));
    const { authorize } = def;
    if (authorize) {
      before.push(async (ctx, next) => {
        authorize(ctx as ApiContext);
        await next();
      });
    }
    if (def.body) before.push(this.json);
    this.router[def.method](def.path, ...before, async (ctx) => {
      refuseUndecodable(def, ctx.path, ctx.querystring);
      const input = {
        params: def.params ? parseInput(def.params, ctx.params, 'path') : undefined,
        query: def.query ? parseInput(def.query, ctx.query, 'query') : undefined,
        body: def.body ? parseInput(def.body, ctx.request.body, 'body') : undefined,
      } as RouteInput<P, Q, B>;
      const result = await handler(ctx as ApiContext, input);
      if (result !== undefined) {
        ctx.status = def.response.status;
        ctx.body = result;
      } else if (def.response.status === 204) {
        ctx.status = 204;
      } // else the handler answered itself (raw bytes, or another status)
    });
    return this;
  }
}

/** Whether calls of a route are written to the audit log by the router (see `RouteDef.audit`). */
function isAudited(def: AnyRouteDef): boolean {
  return (def.auth ?? 'apiKey') === 'apiKey' && def.method !== 'get' && def.audit === undefined;
}

/**
 * Writes the call's audit row once it is answered, refused or failed alike — but only once the
 * caller is known: a call that failed authentication has no actor, and failed sign-ins are
 * recorded by the sign-in routes themselves.
 */
function auditCall(def: AnyRouteDef, audit: NonNullable<ApiRouterOptions['audit']>): Middleware<ApiState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (ctx.state.actor) await audit(ctx as ApiContext, def, { status: err instanceof AppError ? err.status : 500, error: err instanceof AppError ? err.code : 'internal_error' });
      throw err;
    }
    if (ctx.state.actor) await audit(ctx as ApiContext, def, { status: ctx.status });
  };
}

/** 403 `forbidden` unless the caller's role is `need` or above. */
function requireRole(need: Role): Middleware<ApiState> {
  return async (ctx, next) => {
    const actor = ctx.state.actor;
    if (!actor) throw new Error('requireRole() before authentication');
    if (!roleAllows(actor.role, need)) {
      const who = actor.kind === 'key' ? 'this API key' : 'your membership';
      throw new AppError('forbidden', `this needs the ${need} role or above; ${who} has ${actor.role}`);
    }
    await next();
  };
}

/** Percent-encoding that is not UTF-8, in a declared path or query parameter: 400 naming it. */
function refuseUndecodable(def: AnyRouteDef, rawPath: string, rawQuery: string): void {
  const param = def.params ? undecodablePathParam(def.path, rawPath) : undefined;
  if (param !== undefined) throw new AppError('invalid_request', `path.${param}: not valid UTF-8 percent-encoding`);
  const name = def.query && rawQuery ? undecodableQueryParam(rawQuery) : undefined;
  if (name !== undefined) throw new AppError('invalid_request', `query.${name}: not valid UTF-8 percent-encoding`);
}

/** Lists are wrapped so that pagination can be added without breaking clients. */
export function listOf<T>(data: T[]): { data: T[] } {
  return { data };
}

/**
 * The schema of what `listOf` answers, named in the OpenAPI document by `meta.id`; `more` adds
 * fields beside `data` (the public history's running turn).
 */
export function listSchema<T extends z.ZodType, M extends z.ZodRawShape = Record<never, never>>(
  item: T,
  meta: { id: string; description?: string },
  more?: M,
) {
  return z.object({ data: z.array(item), ...(more as M) }).meta(meta);
}
