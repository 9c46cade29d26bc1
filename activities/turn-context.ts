import { ApplicationFailure } from '@temporalio/common';
import type { Repositories } from '../db/repositories';
import type { ConversationRow } from '../db/repositories/conversations';
import type { TurnRow } from '../db/repositories/turns';
import type { AgentConfig } from '../domain/agent';
import { TurnFailure } from '../domain/turn-run';

interface TurnContext {
  turn: TurnRow;
  conversation: ConversationRow;
  agentId: string;
  /** The configuration of the version the conversation is pinned to. */
  config: AgentConfig;
}

/**
 * Loads a turn's conversation and pinned agent version by reference: activities receive only
 * the turn id, so nothing large (or secret) travels through workflow history.
 */
export async function loadTurnContext(repos: Repositories, turnId: string): Promise<TurnContext> {
  // One round trip: the turn, its conversation and the pinned version.
  const found = await repos.turns.withContext({ turnId });
  if (!found) throw ApplicationFailure.nonRetryable(`turn ${turnId} does not exist`, TurnFailure.turnMissing);
  const { turn, conversation, version } = found;
  if (!conversation.agent_id || conversation.version === null) {
    throw ApplicationFailure.nonRetryable(`conversation of turn ${turnId} has no agent`, TurnFailure.turnMissing);
  }
  if (!version) throw ApplicationFailure.nonRetryable(`the agent of turn ${turnId} is gone`, TurnFailure.agentGone);
  return { turn, conversation, agentId: conversation.agent_id, config: version };
}
