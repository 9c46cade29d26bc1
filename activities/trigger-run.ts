import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import { resolveParameters } from '../domain/conversation';
import type { TriggerRunInput, TriggerRunResult } from '../domain/trigger-runs';
import { missingOnAgent, openTurn, versionInForce } from './agent-turn-start';

interface TriggerRunDeps {
  db: Db;
  repos: Repositories;
}

/** Activities of the `ops` queue for schedule and interval triggers. */
export function createTriggerRunActivities(deps: TriggerRunDeps) {
  return {
    /**
     * Starts the run's conversation and its turn, as `ask` does through the API: a conversation
     * pinned to the version in force (production for a deployed freelancer, the latest otherwise),
     * marked with its trigger; then the user message, a running turn and its `start` event in one
     * transaction. Idempotent per run (the run's workflow id is stored on the conversation), so a
     * retried attempt returns the turn it already started. A workspace without credits, a deleted
     * agent or a trigger that no longer stands at that index is a skip, not a failure.
     */
    async startTriggerRun({ run, ...input }: TriggerRunInput & { run: string }): Promise<TriggerRunResult> {
      const { repos, db } = deps;
      return db.transaction(async (trx) => {
        const again = await repos.conversations.ofTriggerRun({ run }, trx);
        const already = again && (await repos.turns.firstOf({ conversationId: again.id }, trx));
        if (again && already) return { turnId: already, conversationId: again.id };
        const inForce = await versionInForce(repos, input, trx);
        if (!inForce) return { skipped: 'agent_gone' };
        const { version, current, config } = inForce;
        // The Schedules follow the latest version (reconciled after each publish); a run fired in
        // between checks that its trigger still stands there.
        const latest = version === current ? config : await repos.agents.versionConfig({ agentId: input.agentId, number: current }, trx);
        if (latest?.triggers[input.trigger.index]?.kind !== input.trigger.kind) return { skipped: 'trigger_changed' };
        const workspace = await repos.workspaces.get({ id: input.workspaceId }, trx);
        if (!workspace || workspace.credits <= 0) return { skipped: 'insufficient_credits', detail: 'the workspace has no credits left' };
        const missing = await missingOnAgent(repos, input.agentId, config, trx);
        if (missing) return { skipped: 'conversation_not_ready', detail: missing };
        const params = resolveParameters(config.parameters, {});
        if (!params.ok) return { skipped: 'conversation_not_ready', detail: `parameter ${params.name}: ${params.problem}` };
        const conversation = again ?? (await repos.conversations.create(
          { workspaceId: input.workspaceId, agentId: input.agentId, version, parameters: params.values, trigger: { ...input.trigger, run } },
          trx,
        ));
        const turnId = await openTurn(repos, { conversation, message: input.message }, trx);
        return { turnId, conversationId: conversation.id };
      });
    },
  };
}
export type TriggerRunActivities = ReturnType<typeof createTriggerRunActivities>;
