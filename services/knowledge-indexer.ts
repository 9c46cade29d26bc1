import type { Client } from '@temporalio/client';
import { FILES_CHANGED_SIGNAL, knowledgeIndexWorkflowId } from '../domain/knowledge-index';
import type { KnowledgeIndexer } from '../turns/knowledge-indexer';
import { isIndexedSpace } from '../db/repositories/files';
import type { knowledgeIndexWorkflow } from '../workflows/knowledge-index';
import { AgentIdKey, WorkspaceIdKey } from '../workflows/search-attributes';

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
      await Promise.resolve()
        .then(() => client().workflow.signalWithStart<typeof knowledgeIndexWorkflow, []>('knowledgeIndexWorkflow', {
        workflowId: knowledgeIndexWorkflowId(space),
        taskQueue: opsQueue,
        args: [{ workspaceId, space }],
        signal: FILES_CHANGED_SIGNAL,
        signalArgs: [],
        typedSearchAttributes: [{ key: WorkspaceIdKey, value: workspaceId }, ...(agentId ? [{ key: AgentIdKey, value: agentId }] : [])],
      }))
        .then(() => undefined, onError);
    },
  };
}
