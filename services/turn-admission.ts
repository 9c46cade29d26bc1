import type { Knex } from 'knex';
import type { Repositories } from '../db/repositories';
import type { ConversationRow } from '../db/repositories/conversations';
import type { CreditRefusal } from '../db/repositories/credits';

/** A running turn was inserted, or why not (the caller turns it into its own kind of refusal). */
export type TurnAdmission = { turnId: string } | { refused: 'insufficient_credits' | 'turn_in_progress'; message: string };

/** What a refusal says: the workspace message stays as before reservations, so callers and docs still match it. */
function creditMessage(refusal: CreditRefusal, agentId: string | null): string {
  if (refusal.refused === 'workspace') {
    return refusal.available <= 0
      ? 'the workspace has no credits left'
      : `the workspace has no credits left to reserve for another turn (${round(refusal.available)} available while other turns run)`;
  }
  return `agent ${agentId ?? ''} reached its credit cap (${round(refusal.spent)} of ${round(refusal.cap)} credits spent or reserved)`;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** Why a turn of this agent may not start now, for a caller that checks before writing anything; undefined when it may. */
export async function creditRefusal(
  repos: Repositories,
  { workspaceId, agentId, reserve }: { workspaceId: string; agentId: string | null; reserve: number },
  trx: Knex.Transaction,
): Promise<string | undefined> {
  const refusal = await repos.credits.admit({ workspaceId, agentId, amount: reserve }, trx);
  return refusal && creditMessage(refusal, agentId);
}

/**
 * Every way a turn starts (ask, public chat, triggers, webhooks, delegations) goes through here:
 * the reservation is admitted under the workspace lock, then the running turn holding it is
 * inserted, in the caller's transaction.
 */
export async function admitTurn(
  repos: Repositories,
  { conversation, reserve }: { conversation: ConversationRow; reserve: number },
  trx: Knex.Transaction,
): Promise<TurnAdmission> {
  const agentId = conversation.agent_id;
  const inProgress = (id: string | undefined) => ({ refused: 'turn_in_progress' as const, message: `turn ${id ?? ''} of this conversation is still running`.replace('  ', ' ') });
  // The running turn's own reservation must not make this a credit refusal: it says what to wait for.
  const running = await repos.turns.running({ conversationId: conversation.id }, trx);
  if (running) return inProgress(running.id);
  const refusal = await creditRefusal(repos, { workspaceId: conversation.workspace_id, agentId, reserve }, trx);
  if (refusal) return { refused: 'insufficient_credits', message: refusal };
  const turn = await repos.turns.createRunning({ conversationId: conversation.id, workspaceId: conversation.workspace_id, agentId, reserved: reserve }, trx);
  // The partial unique index decides a race with another replica.
  return turn ? { turnId: turn.id } : inProgress((await repos.turns.running({ conversationId: conversation.id }, trx))?.id);
}
