import { WorkflowFailedError } from '@temporalio/client';
import { z } from 'zod';
import { AppError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { roundTripProbe } from '../../workflows/probe';
import { WorkspaceIdKey } from '../../workflows/search-attributes';
import type { ApiDeps } from '../context';
import { workspaceOf } from '../context';
import type { ApiRouter } from '../routing';

const roundTripBody = z
  .object({ queue: z.enum(['turns', 'ops']).default('ops') })
  .strict()
  .meta({ id: 'RoundTripRequest' });

const roundTripAnswer = z
  .object({
    probeId: z.string(),
    workflowId: z.string(),
    taskQueue: z.string(),
    workerIdentity: z.string(),
    ms: z.number(),
  })
  .meta({ id: 'RoundTrip' });

const WAIT_MS = 15_000;

/**
 * `POST /v1/diagnostics/round-trip`: runs a probe workflow on a task queue and waits for it.
 * Proves API → Temporal → worker → Postgres for an operator; the run is findable in the
 * Temporal UI by `WorkspaceId`.
 */
export function diagnosticsRoutes(r: ApiRouter, { temporal, config }: Pick<ApiDeps, 'temporal' | 'config'>): void {
  r.add(
    {
      method: 'post', path: '/v1/diagnostics/round-trip', operationId: 'roundTrip', tag: 'Operations',
      summary: 'Run a probe workflow on a task queue and wait for its worker to write to PostgreSQL',
      body: roundTripBody,
      response: { status: 200, description: 'The probe ran', schema: roundTripAnswer },
      errors: ['worker_timeout'],
    },
    async (ctx, { body }) => {
      const workspaceId = workspaceOf(ctx);
      const probeId = newId('probe');
      const started = performance.now();
      const handle = await temporal.workflow.start<typeof roundTripProbe>('roundTripProbe', {
        workflowId: `probe-${probeId}`,
        taskQueue: config.taskQueues[body.queue],
        args: [{ probeId, workspaceId }],
        workflowExecutionTimeout: '1 minute',
        typedSearchAttributes: [{ key: WorkspaceIdKey, value: workspaceId }],
      });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new AppError('worker_timeout', `no worker finished the probe on queue "${body.queue}" within ${WAIT_MS / 1000} s`)),
          WAIT_MS,
        );
      });
      try {
        const result = await Promise.race([handle.result(), timeout]);
        return { ...result, workflowId: handle.workflowId, ms: Math.round(performance.now() - started) };
      } catch (e) {
        if (e instanceof WorkflowFailedError) throw new Error(`probe workflow failed: ${e.cause?.message ?? e.message}`);
        throw e;
      } finally {
        clearTimeout(timer);
      }
    },
  );
}
