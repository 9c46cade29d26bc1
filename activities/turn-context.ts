import { ApplicationFailure } from '@temporalio/common';
import type { Repositories } from '../db/repositories';
import type { ConversationRow } from '../db/repositories/conversations';
import type { TurnRow } from '../db/repositories/turns';
import type { AgentConfig } from '../domain/agent';

export interface TurnContext {
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
  const turn = await repos.turns.get({ turnId });
  if (!turn) throw ApplicationFailure.nonRetryable(`turn ${turnId} does not exist`, 'turn_missing');
  const conversation = await repos.conversations.byId({ conversationId: turn.conversation_id });
  if (!conversation?.agent_id || conversation.version === null) {
    throw ApplicationFailure.nonRetryable(`conversation of turn ${turnId} has no agent`, 'turn_missing');
  }
  const found = await repos.agents.get({ workspaceId: turn.workspace_id, agentId: conversation.agent_id, version: conversation.version });
  if (!('agent' in found)) throw ApplicationFailure.nonRetryable(`the agent of turn ${turnId} is gone`, 'agent_gone');
  const { id, role: _role, version: _version, createdAt: _created, updatedAt: _updated, ...config } = found.agent;
  return { turn, conversation, agentId: id, config };
}
