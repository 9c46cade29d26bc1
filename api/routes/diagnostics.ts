import Router from '@koa/router';
import { WorkflowFailedError } from '@temporalio/client';
import { z } from 'zod';
import { AppError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { WorkspaceIdKey } from '../../workflows/search-attributes';
import type { roundTripProbe } from '../../workflows/probe';
import type { ApiDeps, ApiState } from '../context';
import { workspaceOf } from '../context';
import { parseInput } from '../validate';

const roundTripBody = z
  .object({ queue: z.enum(['turns', 'ops']).default('ops') })
  .strict()
  .default({ queue: 'ops' });

const WAIT_MS = 15_000;

/**
 * `POST /v1/diagnostics/round-trip`: runs a probe workflow on a task queue and waits for it.
 * Proves API → Temporal → worker → Postgres for an operator (`hosted-agents doctor` calls it);
 * the run is findable in the Temporal UI by `WorkspaceId`.
 */
export function diagnosticsRouter({ temporal, config }: Pick<ApiDeps, 'temporal' | 'config'>): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/v1/diagnostics' });
  router.post('/round-trip', async (ctx) => {
    const { queue } = parseInput(roundTripBody, ctx.request.body, 'body');
    const workspaceId = workspaceOf(ctx);
    const probeId = newId('probe');
    const started = performance.now();
    const handle = await temporal.workflow.start<typeof roundTripProbe>('roundTripProbe', {
      workflowId: `probe-${probeId}`,
      taskQueue: config.taskQueues[queue],
      args: [{ probeId, workspaceId }],
      workflowExecutionTimeout: '1 minute',
      typedSearchAttributes: [{ key: WorkspaceIdKey, value: workspaceId }],
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new AppError('worker_timeout', `no worker finished the probe on queue "${queue}" within ${WAIT_MS / 1000} s`)),
        WAIT_MS,
      );
    });
    try {
      const result = await Promise.race([handle.result(), timeout]);
      ctx.body = { ...result, workflowId: handle.workflowId, ms: Math.round(performance.now() - started) };
    } catch (e) {
      if (e instanceof WorkflowFailedError) throw new Error(`probe workflow failed: ${e.cause?.message ?? e.message}`);
      throw e;
    } finally {
      clearTimeout(timer);
    }
  });
  return router;
}
