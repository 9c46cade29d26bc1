import Router from '@koa/router';
import { pingDb } from '../../db/connect';
import { pingTemporal } from '../../infra/temporal-connection';
import type { ApiDeps, ApiState } from '../context';

/**
 * `GET /healthz`: the process is up (for liveness probes; touches nothing).
 * `GET /readyz`: PostgreSQL and Temporal both answer (for readiness probes and load balancers).
 */
export function healthRouter({ db, temporal }: Pick<ApiDeps, 'db' | 'temporal'>): Router<ApiState> {
  const router = new Router<ApiState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const [postgres, temporalUp] = await Promise.all([pingDb(db), pingTemporal(temporal)]);
    const ready = postgres && temporalUp;
    ctx.status = ready ? 200 : 503;
    ctx.body = {
      status: ready ? 'ready' : 'not_ready',
      checks: { postgres: postgres ? 'ok' : 'down', temporal: temporalUp ? 'ok' : 'down' },
    };
  });
  return router;
}
