import type { Client } from '@temporalio/client';
import { FILES_CHANGED_SIGNAL, isIndexedSpace, knowledgeIndexWorkflowId, type KnowledgeIndexInput } from '../domain/runs/knowledge-index';
import { AgentIdKey, WorkspaceIdKey } from '../domain/runs/search-attributes';

/**
 * Tells a space's indexing workflow that its files changed (docs/knowledge.md): sent by the API's
 * services, the worker's tools and the worker's start. An adapter to Temporal, like the rest of
 * infra/: it knows the workflow by its contract (domain/runs/knowledge-index.ts), not its code.
 */
export interface KnowledgeIndexer {
  /**
   * Signals (or starts) the space's workflow; a space that is not indexed is ignored. Never
   * rejects: the write it follows stands, and if Temporal cannot be told, the files stay
   * `pending` (search reads them whole meanwhile) until the space's next write or worker start.
   */
  changed(workspaceId: string, space: string): Promise<void>;
}

/** The workflow as its starters see it: its input (its result is the workflow's own business). */
type KnowledgeIndexWorkflow = (input: KnowledgeIndexInput) => Promise<unknown>;

/**
 * Signal-with-start of `knowledgeIndexWorkflow` on the ops queue: one workflow per space, started
 * by the first write and signalled by the others while it runs. `client` is read at each call
 * (an activity's client exists only inside the activity).
 */
export function temporalKnowledgeIndexer(client: () => Client, opsQueue: string, onError: (err: unknown) => void = () => undefined): KnowledgeIndexer {
  return {
    async changed(workspaceId, space) {
      if (!isIndexedSpace(space)) return;
      const agentId = space.startsWith('knowledge:') ? space.slice('knowledge:'.length) : undefined;
      const signalled = Promise.resolve().then(() =>
        client().workflow.signalWithStart<KnowledgeIndexWorkflow, []>('knowledgeIndexWorkflow', {
          workflowId: knowledgeIndexWorkflowId(space),
          taskQueue: opsQueue,
          args: [{ workspaceId, space }],
          signal: FILES_CHANGED_SIGNAL,
          signalArgs: [],
          typedSearchAttributes: [{ key: WorkspaceIdKey, value: workspaceId }, ...(agentId ? [{ key: AgentIdKey, value: agentId }] : [])],
        }),
      );
      await signalled.then(() => undefined, onError);
    },
  };
}
