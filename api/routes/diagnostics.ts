import { WorkflowFailedError } from '@temporalio/client';
import { z } from 'zod';
import { AppError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { roundTripProbe } from '../../workflows/probe';
import { WorkspaceIdKey } from '../../domain/runs/search-attributes';
import type { ApiDeps } from '../context';
import { workspaceOf } from '../context';
import type { Limits } from '../limits';
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
 * Temporal UI by `WorkspaceId`. Each probe starts a workflow and writes a row, so it is not for
 * every key (docs/limits.md): only a workspace an operator allowed (`hosted-agents workspace
 * diagnostics ID --allow`) may run it — to any other it is 404, like a route that does not exist
 * — at most `DIAGNOSTICS_PER_MINUTE` times a minute; rows older than `PROBE_RETENTION_DAYS` are
 * deleted as each probe starts.
 */
export function diagnosticsRoutes(r: ApiRouter, { temporal, config, repos }: Pick<ApiDeps, 'temporal' | 'config' | 'repos'>, limits: Pick<Limits, 'diagnostics'>): void {
  r.add(
    {
      method: 'post', path: '/v1/diagnostics/round-trip', operationId: 'roundTrip', tag: 'Operations', role: 'owner',
      summary: 'Run a probe workflow on a task queue and wait for its worker to write to PostgreSQL',
      body: roundTripBody,
      response: { status: 200, description: 'The probe ran', schema: roundTripAnswer },
      errors: ['not_found', 'worker_timeout'],
    },
    async (ctx, { body }) => {
      const workspaceId = workspaceOf(ctx);
      if (!(await repos.workspaces.diagnosticsAllowed({ id: workspaceId }))) throw new AppError('not_found', 'no such route');
      await limits.diagnostics(workspaceId);
      await repos.probes.prune({ before: new Date(Date.now() - config.PROBE_RETENTION_DAYS * 86_400_000) });
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
