import type { Knex } from 'knex';
import type { Repositories } from '../db/repositories';
import type { ConversationRow } from '../db/repositories/conversations';
import type { CreditRefusal } from '../db/repositories/credits';

/**
 * Admitting a turn: the one function every way a turn starts goes through — the API's ask, public
 * chat (through ask), webhooks, schedules and intervals, and a manager's delegations — so each
 * gets the same checks. turns/open.ts wraps it with the writes every start makes.
 */

/** Why a turn may not start; each caller turns it into its own kind of refusal (409, 429, a skipped run, a failed tool call). */
type TurnRefusal = 'turn_in_progress' | 'running_turns_limit' | 'insufficient_credits';

/** Why a turn may not start, in words a caller can pass on. */
type Refused = { refused: TurnRefusal; message: string; credit?: CreditRefusal };

/** A running turn was inserted, or why not. */
export type TurnAdmission = { turnId: string; conversation: ConversationRow } | Refused;

export interface TurnAdmissionInput {
  workspaceId: string;
  /** The agent whose turn it is (its credit cap applies); null for a project manager's. */
  agentId: string | null;
  /** The conversation, or how to create a new one once the turn is admitted (nothing is written on a refusal). */
  conversation: ConversationRow | (() => Promise<ConversationRow>);
  /** Credits the turn holds back from the balance while it runs (`TURN_RESERVE_CREDITS`). */
  reserve: number;
  /** The most turns the workspace may run at once (`WORKSPACE_RUNNING_TURNS_MAX`). */
  maxRunningTurns: number;
}

/** What a credit refusal says: the workspace message stays as before reservations, so callers and docs still match it. */
function creditMessage(refusal: CreditRefusal, agentId: string | null): string {
  if (refusal.refused === 'workspace') {
    return refusal.available <= 0
      ? 'the workspace has no credits left'
      : `the workspace has no credits left to reserve for another turn (${round(refusal.available)} available while other turns run)`;
  }
  return `agent ${agentId ?? ''} reached its credit cap (${round(refusal.spent)} of ${round(refusal.cap)} credits spent or reserved)`;
}

const round = (n: number) => Math.round(n * 100) / 100;

/**
 * Checks, in the caller's transaction and in this order, that the conversation has no running
 * turn, that the workspace runs fewer than `maxRunningTurns` turns (counted under a per-workspace
 * lock held to commit, so racing starts of any replica or worker cannot both take the last place),
 * and that its credits cover the reservation and the agent's cap allows it (under the workspace
 * row's lock); then inserts the running turn holding the reservation. For a conversation that
 * exists this is one round trip (`turns.admit`); a new one is created once the checks pass, and
 * its turn inserted by a second call, so every running turn is inserted in one place.
 */
export async function admitTurn(repos: Repositories, input: TurnAdmissionInput, trx: Knex.Transaction): Promise<TurnAdmission> {
  const given = typeof input.conversation === 'function' ? undefined : input.conversation;
  const decided = await admit(repos, input, given?.id ?? null, trx);
  if ('refused' in decided) return decided;
  if (given) return { turnId: insertedTurn(decided), conversation: given };
  // A new conversation, written once the checks pass; its turn is inserted by the same function,
  // whose checks pass again under the locks the first call holds to commit.
  const conversation = await (input.conversation as () => Promise<ConversationRow>)();
  const inserted = await admit(repos, input, conversation.id, trx);
  if ('refused' in inserted) return inserted;
  return { turnId: insertedTurn(inserted), conversation };
}

/** Admitted with a conversation, `admit_turn` inserted the turn (or refused it as in progress). */
function insertedTurn({ turnId }: { turnId: string | undefined }): string {
  if (!turnId) throw new Error('admit_turn admitted a turn of a conversation without inserting it');
  return turnId;
}

/** One call of `admit_turn` (db/turns/sql/admit_turn.v1.sql), its refusal put in words. */
async function admit(repos: Repositories, input: TurnAdmissionInput, conversationId: string | null, trx: Knex.Transaction): Promise<{ turnId: string | undefined } | Refused> {
  const { workspaceId, agentId } = input;
  const decided = await repos.turns.admit({ workspaceId, agentId, conversationId, reserve: input.reserve, maxRunning: input.maxRunningTurns }, trx);
  if (decided.admitted) return { turnId: decided.turnId };
  switch (decided.refused) {
    case 'turn_in_progress':
      return inProgress(decided.runningId);
    case 'running_turns_limit':
      return { refused: 'running_turns_limit', message: `the workspace has ${decided.count} turns running, the most it may at once; try again when one has ended` };
    case 'credits':
      return { refused: 'insufficient_credits', message: creditMessage(decided.credit, agentId), credit: decided.credit };
  }
}

/** The running turn's own reservation must not make this a credit refusal: it says what to wait for. */
function inProgress(id: string | undefined): Refused {
  return { refused: 'turn_in_progress', message: `turn ${id ?? ''} of this conversation is still running`.replace('  ', ' ') };
}
