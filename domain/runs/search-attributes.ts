import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes that make runs findable in the Temporal UI, e.g.
 * `ConversationId = "cnv_…"`. The dev server registers them at start; `hosted-agents migrate`
 * registers them on a remote cluster.
 */
export const WorkspaceIdKey = defineSearchAttributeKey('WorkspaceId', SearchAttributeType.KEYWORD);
export const AgentIdKey = defineSearchAttributeKey('AgentId', SearchAttributeType.KEYWORD);
export const ConversationIdKey = defineSearchAttributeKey('ConversationId', SearchAttributeType.KEYWORD);

/** On every turn of a project conversation: the manager's and each delegated member's. */
export const ProjectIdKey = defineSearchAttributeKey('ProjectId', SearchAttributeType.KEYWORD);

/** On an eval run and on each of its cases' turns. */
export const EvalRunIdKey = defineSearchAttributeKey('EvalRunId', SearchAttributeType.KEYWORD);

export const customSearchAttributes = [WorkspaceIdKey, AgentIdKey, ConversationIdKey, ProjectIdKey, EvalRunIdKey] as const;
