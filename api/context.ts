import type { Client } from '@temporalio/client';
import type Koa from 'koa';
import type { Config } from '../config/env';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { ServedAgent } from '../db/repositories/deployments';
import type { Logger } from '../infra/logger';
import type { ApiKeyCache } from './key-cache';
import type { ApiMetrics } from './metrics';
import type { TurnEventHub } from './sse/event-hub';
import type { AuditNote } from '../domain/audit';
import type { Actor } from '../domain/roles';

/** Everything the API needs, passed in explicitly (no module-level singletons). */
export interface ApiDeps {
  config: Config;
  db: Db;
  repos: Repositories;
  temporal: Client;
  logger: Logger;
  /** Turn events, from the process's one LISTEN connection (pg-listener.ts). */
  hub: TurnEventHub;
  /** Live API keys this process has resolved, evicted by revocations on the same LISTEN connection. */
  keyCache: ApiKeyCache;
  /** This process's instruments, on the registry its `/metrics` serves. */
  metrics: ApiMetrics;
  /** A server span around each request (api/middleware/request-span.ts), when tracing is on. */
  requestSpan?: Koa.Middleware<ApiState>;
  /**
   * Set only by `start` with the embedded Temporal dev server: that UI's origin, whose calls to the
   * codec endpoint from a loopback peer need no CODEC_TOKEN (api/routes/codec.ts).
   */
  codecLocalUIOrigin?: string;
}

export interface ApiState {
  requestId: string;
  /** Set by the auth middleware on authenticated routes. */
  workspaceId?: string;
  /**
   * The id its limits are counted by: the API key that authenticated the request, or the member
   * signed in by session.
   */
  keyId?: string;
  /** Who is calling (api/middleware/auth.ts): a key or a member, with the role that applies. */
  actor?: Actor;
  /**
   * What a mutating route adds to its audit row (api/audit.ts): the versions before and after
   * where one applies, target ids not in the path, and `detail` (names and counts, never values).
   */
  audit?: AuditNote;
  /** Set on a deployed agent's host (prod or test): the agent and version that host serves. */
  site?: ServedAgent;
  /** Set by the error handler for a held refusal: its answer is sent this many ms later (limits/refusal-holds.ts). */
  holdMs?: number;
}

export type ApiContext = Koa.ParameterizedContext<ApiState>;

/** The workspace of an authenticated request; routes behind `requireApiKey` always have one. */
export function workspaceOf(ctx: ApiContext): string {
  const id = ctx.state.workspaceId;
  if (!id) throw new Error('workspaceOf() on a route without requireApiKey');
  return id;
}

/** The caller of an authenticated route; routes behind `requireApiKey` always have one. */
export function actorOf(ctx: ApiContext): Actor {
  const actor = ctx.state.actor;
  if (!actor) throw new Error('actorOf() on a route without requireApiKey');
  return actor;
}
