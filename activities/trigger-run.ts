import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { TriggerRunInput, TriggerRunResult } from '../domain/runs/trigger-run';
import { startTriggerConversation } from '../turns/trigger-start';

interface TriggerRunDeps {
  db: Db;
  repos: Repositories;
  /** `WORKSPACE_RUNNING_TURNS_MAX`, this worker's: a run over it is skipped. */
  maxRunningTurns: number;
}

/** Activities of the `ops` queue for schedule and interval triggers. */
export function createTriggerRunActivities(deps: TriggerRunDeps) {
  return {
    /**
     * Starts the run's conversation and its turn (see `startTriggerConversation`). Idempotent per
     * run (the run's workflow id is stored on the conversation), so a retried attempt returns the
     * turn it already started.
     */
    async startTriggerRun({ run, ...input }: TriggerRunInput & { run: string }): Promise<TriggerRunResult> {
      const started = await deps.db.transaction((trx) => startTriggerConversation(deps.repos, trx, { ...input, run, reserve: input.limits.reserveCredits ?? 0, maxRunningTurns: deps.maxRunningTurns }));
      return 'skipped' in started ? started : { turnId: started.turnId, conversationId: started.conversationId };
    },
  };
}
export type TriggerRunActivities = ReturnType<typeof createTriggerRunActivities>;
