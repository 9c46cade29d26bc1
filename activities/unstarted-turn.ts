import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import { TURN_CANCELLED_MESSAGE } from '../domain/runs/turn';

/** What starts a turn as a child workflow needs when that start is cancelled (workflows/child-turn.ts). */
export function createUnstartedTurnActivities({ db, repos }: { db: Db; repos: Repositories }) {
  return {
    /**
     * Ends, as cancelled, a turn whose workflow never started: its parent (an eval run, a manager's
     * turn, a trigger or webhook run) was cancelled between opening the turn and starting its child
     * workflow, which Temporal then drops. Only a turn no attempt ever claimed (no writer: nothing
     * consumed, nothing to debit); a turn whose workflow runs ends itself.
     */
    async endUnstartedTurn({ turnId }: { turnId: string }): Promise<void> {
      await db.transaction(async (trx) => {
        const turn = await trx('turns').where({ id: turnId }).forUpdate().first<{ status: string; writer: string | null } | undefined>('status', 'writer');
        if (turn?.status !== 'running' || turn.writer !== null) return;
        await repos.turns.finish({ turnId, status: 'cancelled', terminal: { type: 'error', message: TURN_CANCELLED_MESSAGE, retryable: false }, cost: 0 }, trx);
      });
    },
  };
}
export type UnstartedTurnActivities = ReturnType<typeof createUnstartedTurnActivities>;
