import { z } from 'zod';
import { pingDb } from '../../db/connect';
import { pingTemporal } from '../../infra/temporal-connection';
import type { ApiDeps } from '../context';
import type { ApiRouter } from '../routing';

const healthSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });
const readinessSchema = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.object({ postgres: z.enum(['ok', 'down']), temporal: z.enum(['ok', 'down']) }),
  })
  .meta({ id: 'Readiness' });

/**
 * `GET /healthz`: the process is up (liveness; touches nothing).
 * `GET /readyz`: PostgreSQL and Temporal both answer (readiness; 503 with the failing check).
 */
export function healthRoutes(r: ApiRouter, { db, temporal }: Pick<ApiDeps, 'db' | 'temporal'>): void {
  r.add(
    {
      method: 'get', path: '/healthz', operationId: 'health', tag: 'Operations', auth: 'none',
      summary: 'Liveness: the process is up',
      response: { status: 200, description: 'Up', schema: healthSchema },
    },
    () => ({ status: 'ok' }),
  );
  r.add(
    {
      method: 'get', path: '/readyz', operationId: 'readiness', tag: 'Operations', auth: 'none',
      summary: 'Readiness: PostgreSQL and Temporal answer (503 otherwise, same body)',
      response: { status: 200, description: 'Ready', schema: readinessSchema },
    },
    async (ctx) => {
      const [postgres, temporalUp] = await Promise.all([pingDb(db), pingTemporal(temporal)]);
      const ready = postgres && temporalUp;
      const body = {
        status: ready ? 'ready' : 'not_ready',
        checks: { postgres: postgres ? 'ok' : 'down', temporal: temporalUp ? 'ok' : 'down' },
      };
      if (ready) return body;
      ctx.status = 503;
      ctx.body = body;
      return undefined;
    },
  );
}
