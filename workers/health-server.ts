import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { Registry } from 'prom-client';
import { type Db, pingDb } from '../db/connect';
import type { Logger } from '../infra/logger';
import { mayReadMetrics } from '../infra/metrics-access';
import { pingTemporal } from '../infra/temporal-connection';

interface HealthDeps {
  port: number;
  host: string;
  db: Db;
  temporal: Client;
  /** Whether every worker of the process is still polling its task queue. */
  polling: () => boolean;
  logger: Logger;
  /** The worker's registry, served at `/metrics` to callers `mayReadMetrics` lets in (METRICS_TOKEN). */
  metrics: { registry: Registry; token: string | undefined };
}

/**
 * The worker's own HTTP port, for an orchestrator and a scraper (the worker serves no other HTTP):
 * `GET /healthz` — the process answers (liveness); `GET /readyz` — it polls, and PostgreSQL and
 * Temporal answer (readiness; 503 with the failing check), the same body as the API's `/readyz`
 * plus `polling`; `GET /metrics` — the worker's metrics (docs/operations.md: Metrics).
 */
export async function startWorkerHealthServer(deps: HealthDeps): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
    const path = (req.url ?? '').split('?')[0];
    const notFound = () => send(404, { error: { code: 'not_found', message: 'no such route', retryable: false } });
    if (req.method === 'GET' && path === '/metrics') {
      // A refused caller gets the 404 of any unknown path, as on the API.
      if (!mayReadMetrics(req, deps.metrics.token)) return notFound();
      const { registry } = deps.metrics;
      return void registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(text),
        (err: unknown) => {
          deps.logger.warn({ err }, 'worker metrics could not be collected');
          send(503, { error: { code: 'internal_error', message: 'metrics could not be collected', retryable: true } });
        },
      );
    }
    if (req.method !== 'GET' || (path !== '/healthz' && path !== '/readyz')) return notFound();
    if (path === '/healthz') return send(200, { status: 'ok' });
    void Promise.all([pingDb(deps.db), pingTemporal(deps.temporal)]).then(
      ([postgres, temporal]) => {
        const polling = deps.polling();
        const ready = postgres && temporal && polling;
        send(ready ? 200 : 503, {
          status: ready ? 'ready' : 'not_ready',
          checks: { postgres: postgres ? 'ok' : 'down', temporal: temporal ? 'ok' : 'down', polling: polling ? 'ok' : 'down' },
        });
      },
      (err: unknown) => {
        deps.logger.warn({ err }, 'worker readiness check failed');
        send(503, { status: 'not_ready' });
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.port, deps.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
