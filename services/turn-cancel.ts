import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { TurnState } from '../domain/conversation';
import { AppError } from '../domain/errors';
import { TURN_CANCELLED_MESSAGE, turnWorkflowId } from '../domain/runs/turn';

interface TurnCancelDeps {
  db: Db;
  repos: Repositories;
  temporal: Client;
  /** How long `cancelAndWait` waits for the workflow to end the turn before answering `running`. */
  waitMs: number;
}

/**
 * Cancelling a turn is cancelling its workflow (Temporal cancellation): the workflow cancels the
 * in-flight model or tool call (and a manager's running delegation) and ends the turn itself with
 * one `error` event, debiting what it consumed (workflows/turn.ts). A workflow that is gone while
 * its turn still reads `running` (terminated by an operator) is ended here instead.
 */
export class TurnCancellation {
  constructor(private readonly deps: TurnCancelDeps) {}

  /** Asks the turn's workflow to cancel; a turn that already ended is left as it is. */
  async request(turnId: string): Promise<void> {
    try {
      await this.deps.temporal.workflow.getHandle(turnWorkflowId(turnId)).cancel();
    } catch (e) {
      if (!(e instanceof WorkflowNotFoundError)) throw new AppError('temporal_unavailable', 'the turn could not be cancelled; try again');
      // No workflow to do it (or it has just closed, having ended the turn: then this writes nothing).
      await this.deps.db.transaction((trx) =>
        this.deps.repos.turns.finish({ turnId, status: 'cancelled', terminal: { type: 'error', message: TURN_CANCELLED_MESSAGE, retryable: false } }, trx),
      );
    }
  }

  /**
   * `POST /v1/turns/:turnId/cancel`: cancels a running turn of the workspace and answers its
   * state once it has ended (or, after `waitMs`, `running`). Idempotent: a turn that had already
   * ended answers its final state and nothing changes.
   */
  async cancelAndWait(workspaceId: string, turnId: string): Promise<TurnState> {
    const turn = await this.deps.repos.turns.get({ turnId, workspaceId });
    if (!turn) throw new AppError('turn_not_found', 'no such turn');
    if (turn.status !== 'running') return { turnId, status: turn.status };
    await this.request(turnId);
    const deadline = Date.now() + this.deps.waitMs;
    for (;;) {
      const now = await this.deps.repos.turns.get({ turnId });
      if (!now || now.status !== 'running' || Date.now() >= deadline) return { turnId, status: now?.status ?? 'cancelled' };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
