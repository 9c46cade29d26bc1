import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { type Client, isGrpcServiceError } from '@temporalio/client';
import type { Repositories } from '../db/repositories';
import { type ErasureBatch, type ErasureFinish, type ErasureInput, TURN_WORKFLOWS_STILL_DELETING } from '../domain/runs/end-user-erasure';
import { turnWorkflowId } from '../domain/runs/turn';

/** gRPC's NOT_FOUND (the status codes are a fixed part of the protocol; @grpc/grpc-js is not a dependency of ours). */
const GRPC_NOT_FOUND = 5;

/** Executions looked at per page of the confirmation step. */
const CONFIRM_PAGE = 200;

interface ErasureDeps {
  repos: Repositories;
  /** Turns per batch (`END_USER_ERASURE_BATCH`): each batch's rows go in one transaction. */
  batchSize: number;
  /** The Temporal client and namespace the running activity belongs to. */
  temporal: () => { client: Client; namespace: string };
}

/**
 * The steps of `eraseEndUserWorkflow` (docs/security.md, "End users' data: export and erasure").
 * Each reads what is left from PostgreSQL, so an attempt redone after a worker died does only what
 * the dead one had not committed.
 */
export function createEndUserErasureActivities(deps: ErasureDeps) {
  const { repos } = deps;

  /** Deletes one execution: a running turn is terminated by the deletion itself; one already gone is done. */
  async function deleteExecution(workflowId: string): Promise<void> {
    const { client, namespace } = deps.temporal();
    try {
      await client.workflowService.deleteWorkflowExecution({ namespace, workflowExecution: { workflowId } });
    } catch (err) {
      if (!(isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND)) throw err;
    }
  }

  /** Whether Temporal still has the execution (one whose deletion is under way answers as there). */
  async function exists(workflowId: string): Promise<boolean> {
    const { client, namespace } = deps.temporal();
    try {
      await client.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId } });
      return true;
    } catch (err) {
      if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) return false;
      throw err;
    }
  }

  return {
    /**
     * One batch of the end user's turns: their workflow executions deleted (history and all), then
     * their rows in one transaction. `more` while turns were found (the next batch looks again).
     */
    async eraseEndUserTurns({ erasureId }: ErasureInput): Promise<ErasureBatch> {
      const row = await repos.endUserErasures.byId({ erasureId });
      if (!row) throw new Error(`erasure ${erasureId} is gone`);
      const turnIds = await repos.endUserErasures.turnIds({ row, limit: deps.batchSize });
      if (turnIds.length === 0) return { more: false };
      for (const [i, turnId] of turnIds.entries()) {
        await deleteExecution(turnWorkflowId(turnId));
        Context.current().heartbeat(i + 1);
      }
      await repos.endUserErasures.eraseTurns({ erasureId, turnIds });
      return { more: true };
    },

    /**
     * Temporal deletes an execution asynchronously (a closed one after a delay): this step looks at
     * each execution whose deletion was accepted, forgets the ones gone, asks again for the others
     * (harmless), and fails — to be retried with backoff — while any is left, so the receipt is
     * written only once every history is gone.
     */
    async confirmTurnWorkflowsGone({ erasureId }: ErasureInput): Promise<void> {
      for (let page = 0; ; page++) {
        const pending = await repos.endUserErasures.pendingWorkflows({ erasureId, limit: CONFIRM_PAGE });
        const gone: string[] = [];
        const left: string[] = [];
        for (const workflowId of pending) {
          if (await exists(workflowId)) {
            await deleteExecution(workflowId);
            left.push(workflowId);
          } else gone.push(workflowId);
          Context.current().heartbeat(page);
        }
        await repos.endUserErasures.workflowsGone({ erasureId, workflowIds: gone });
        if (left.length > 0) {
          // Expected, not a fault: BENIGN keeps it out of the error logs and failure metrics.
          throw ApplicationFailure.create({
            message: `${left.length} turn workflow executions are still being deleted by Temporal`,
            type: TURN_WORKFLOWS_STILL_DELETING,
            category: ApplicationFailureCategory.BENIGN,
          });
        }
        if (pending.length < CONFIRM_PAGE) return;
      }
    },

    /** Everything else, the receipt and the row marked done, in one transaction; `finished` false when a turn appeared meanwhile. */
    async finishEndUserErasure({ erasureId }: ErasureInput): Promise<ErasureFinish> {
      const finished = await repos.endUserErasures.finish({
        erasureId,
        receipt: (row, counts, trx) =>
          repos.audit
            .append(
              { workspaceId: row.workspace_id, actor: { kind: 'system' }, action: 'endUserErased', targets: { erasureId, endUserDigest: row.end_user_digest }, outcome: 'ok', detail: { counts } },
              trx,
            )
            .then(() => undefined),
      });
      return { finished };
    },
  };
}

export type EndUserErasureActivities = ReturnType<typeof createEndUserErasureActivities>;
