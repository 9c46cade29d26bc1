import { ApplicationFailure } from '@temporalio/common';
import type { Repositories } from '../db/repositories';
import type { ConversationRow } from '../db/repositories/conversations';
import type { TurnRow, TurnWithContext } from '../db/turns/rows';
import type { ToolContext } from './tools/types';
import type { AgentConfig } from '../domain/agent';
import { conversationDrive } from '../db/repositories/files';
import type { Project } from '../domain/project';
import { TurnFailure } from '../domain/runs/turn';

export interface AgentTurnContext {
  kind: 'agent';
  turn: TurnRow;
  conversation: ConversationRow;
  agentId: string;
  /** The configuration of the version the conversation is pinned to. */
  config: AgentConfig;
}

/** A turn of a project conversation: the project's manager answers it, with its members as they are now. */
interface ManagerTurnContext {
  kind: 'manager';
  turn: TurnRow;
  conversation: ConversationRow;
  project: Project;
}

export type TurnContext = AgentTurnContext | ManagerTurnContext;

/**
 * Loads a turn's conversation and pinned agent version by reference: activities receive only
 * the turn id, so nothing large (or secret) travels through workflow history. A turn of a
 * project conversation loads the project instead (its manager's fields and current members).
 */
export async function loadTurnContext(repos: Repositories, turnId: string): Promise<TurnContext> {
  // One round trip: the turn, its conversation and the pinned version.
  const found = await repos.turns.withContext({ turnId });
  if (!found) throw ApplicationFailure.nonRetryable(`turn ${turnId} does not exist`, TurnFailure.turnMissing);
  return turnContextOf(repos, found);
}

/** The context of a turn already read with its conversation and version (a project's turn reads its project). */
export async function turnContextOf(repos: Repositories, found: TurnWithContext): Promise<TurnContext> {
  const { turn, conversation, version } = found;
  if (!conversation.agent_id && conversation.project_id) {
    const project = await repos.projects.get({ workspaceId: conversation.workspace_id, projectId: conversation.project_id });
    if (!project) throw ApplicationFailure.nonRetryable(`the project of turn ${turn.id} is gone`, TurnFailure.turnMissing);
    return { kind: 'manager', turn, conversation, project };
  }
  if (!conversation.agent_id || conversation.version === null) {
    throw ApplicationFailure.nonRetryable(`conversation of turn ${turn.id} has no agent`, TurnFailure.turnMissing);
  }
  if (!version) throw ApplicationFailure.nonRetryable(`the agent of turn ${turn.id} is gone`, TurnFailure.agentGone);
  return { kind: 'agent', turn, conversation, agentId: conversation.agent_id, config: version };
}

/** An agent turn's context; a manager's turn here is a bug of the caller (its tools are delegations). */
export async function loadAgentTurnContext(repos: Repositories, turnId: string): Promise<AgentTurnContext> {
  const ctx = await loadTurnContext(repos, turnId);
  if (ctx.kind !== 'agent') throw ApplicationFailure.nonRetryable(`turn ${turnId} is a manager's turn`, TurnFailure.turnMissing);
  return ctx;
}

/** What an agent turn's tools act on, by reference. */
export function toolContext({ turn, conversation, agentId, config }: AgentTurnContext): ToolContext {
  return { workspaceId: turn.workspace_id, agentId, conversationId: conversation.id, drive: conversationDrive(conversation), turnId: turn.id, agent: config };
}

/** The grade a turn's model runs at (and is debited at): the agent's, or the project's for its manager. */
export function turnGrade(context: TurnContext): AgentConfig['grade'] {
  return context.kind === 'agent' ? context.config.grade : context.project.grade;
}
