import type { KnowledgeService } from '../../services/knowledge';
import type { ApiRouter } from '../routing';
import { agentIdParam } from './agents';
import { fileSpaceRoutes } from './file-space';

/** An agent's knowledge files (not versioned): list, write, read, remove. */
export function knowledgeRoutes(r: ApiRouter, knowledge: KnowledgeService): void {
  fileSpaceRoutes(r, {
    base: '/v1/agents/:agentId/knowledge',
    owner: agentIdParam,
    ownerId: (p) => p.agentId!,
    noun: 'Knowledge',
    readRole: 'viewer',
    writeRole: 'builder',
    tag: 'Knowledge',
    what: "the agent's knowledge",
    ownerNotFound: 'agent_not_found',
    ops: knowledge,
  });
}
