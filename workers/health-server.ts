import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { type Db, pingDb } from '../db/connect';
import type { Logger } from '../infra/logger';
import { pingTemporal } from '../infra/temporal-connection';

interface HealthDeps {
  port: number;
  host: string;
  db: Db;
  temporal: Client;
  /** Whether every worker of the process is still polling its task queue. */
  polling: () => boolean;
  logger: Logger;
}

/**
 * The worker's own health endpoints, for an orchestrator (the worker serves no other HTTP):
 * `GET /healthz` — the process answers (liveness); `GET /readyz` — it polls, and PostgreSQL and
 * Temporal answer (readiness; 503 with the failing check), the same body as the API's `/readyz`
 * plus `polling`.
 */
export async function startWorkerHealthServer(deps: HealthDeps): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || (path !== '/healthz' && path !== '/readyz')) return send(404, { error: { code: 'not_found', message: 'no such route', retryable: false } });
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
