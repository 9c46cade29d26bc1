// Koa's own context, not ApiContext: these read no state of ours, and api/context.ts imports this module.
import type { Context, Next } from 'koa';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { RateLimitRefusal } from '../domain/errors';
import { mayReadMetrics } from '../infra/metrics-access';
import { collectProcessMetrics } from '../infra/process-metrics';
import { recordSafely } from '../infra/record-safely';

/**
 * What the API records (docs/operations.md: Metrics). Turns themselves are counted by the worker, which runs
 * them whatever started them (ask, public chat, trigger, webhook, delegation); the API counts
 * what only it sees: requests, open event streams and refusals.
 */
export interface ApiMetrics {
  registry: Registry;
  http: Histogram<'method' | 'route' | 'status'>;
  refusals: Counter<'limit'>;
  /** Called when an event stream opens; the function it returns, when it closes. */
  streamOpened(): () => void;
}

/** Methods Node's parser accepts are a fixed list, but only these are worth a series of their own. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** A request no route matched (404s of any path) is one series, never its path. */
const UNMATCHED = 'unmatched';

/** The API's instruments on `registry` (one per process, made at start-up, shared with the worker's under `start`), with Node's process metrics. */
export function createApiMetrics(registry: Registry): ApiMetrics {
  collectProcessMetrics(registry);
  const registers = [registry];
  const streams = new Gauge({ name: 'hosted_agents_sse_streams_open', help: 'Turn event streams open on this process.', registers });
  return {
    registry,
    http: new Histogram({
      name: 'hosted_agents_http_request_duration_seconds',
      help: 'Time from a request until its response head and body were handed over (an event stream: until it opened), by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    refusals: new Counter({
      name: 'hosted_agents_rate_limit_refusals_total',
      help: 'Requests refused with 429 rate_limited, by the limit that refused them.',
      labelNames: ['limit'],
      registers,
    }),
    streamOpened() {
      recordSafely(() => streams.inc());
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        recordSafely(() => streams.dec());
      };
    },
  };
}

/**
 * Outside the error handler, so it sees the status the client gets. The route is the template the
 * router matched (`/v1/conversations/:conversationId/turns`), never the path: ids stay out of labels.
 */
export function httpMetrics(metrics: ApiMetrics) {
  const { http } = metrics;
  return async function recordRequest(ctx: Context, next: Next): Promise<void> {
    const end = http.startTimer();
    try {
      await next();
    } finally {
      recordSafely(() => {
        const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
        end({ method: METHODS.has(ctx.method) ? ctx.method : 'other', route: typeof route === 'string' ? route : UNMATCHED, status: String(ctx.status) });
      });
    }
  };
}

/** Inside the error handler: counts each refusal by the limit it names, then lets it be rendered. */
export function refusalMetrics(metrics: ApiMetrics) {
  const { refusals } = metrics;
  return async function countRefusals(_ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (e) {
      if (e instanceof RateLimitRefusal) recordSafely(() => refusals.inc({ limit: e.limit }));
      throw e;
    }
  };
}

/**
 * `GET /metrics` in Prometheus text format, for callers `mayReadMetrics` lets in, on the API's
 * hosts only (`onAgentHost`: never on an agent's or a custom domain's); anyone else gets the 404
 * of any unknown path (nothing says the metrics exist). First in the chain: a scrape is neither a
 * request of the API's own metrics nor subject to its limits.
 */
export function metricsEndpoint(metrics: ApiMetrics, token: string | undefined, onAgentHost: (hostname: string) => Promise<boolean>) {
  return async function serveMetrics(ctx: Context, next: Next): Promise<void> {
    if (ctx.path !== '/metrics' || ctx.method !== 'GET' || !mayReadMetrics(ctx.req, token) || (await onAgentHost(ctx.hostname))) return next();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  };
}
