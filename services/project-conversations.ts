import type { SearchAttributePair } from '@temporalio/common';
import type { Knex } from 'knex';
import type { Repositories } from '../db/repositories';
import type { ConversationRow } from '../db/repositories/conversations';
import { projectSpace } from '../db/repositories/files';
import { iso } from '../db/rows';
import { AppError } from '../domain/errors';
import type { ProjectConversation, StartProjectConversationInput } from '../domain/project-conversation';
import type { ProjectTurnInput } from '../domain/runs/project-turn';
import type { UrlSigningKeys } from '../domain/signed-url';
import { ProjectIdKey } from '../domain/runs/search-attributes';
import type { KnowledgeIndexer } from '../infra/knowledge-indexer';
import { OwnedFiles } from './owned-files';

const projectNotFound = () => new AppError('project_not_found', 'no such project');
const archived = (projectId: string) =>
  new AppError('project_archived', `project ${projectId} is archived: it takes no new conversations or messages`);

/** How `ask` starts a turn: which workflow, what it takes beyond the turn, and its search attributes beyond WorkspaceId and ConversationId. */
export interface TurnRun {
  workflowType: 'turnWorkflow' | 'projectTurnWorkflow';
  input: Partial<Omit<ProjectTurnInput, 'turnId' | 'limits'>>;
  searchAttributes: SearchAttributePair[];
}

/** A conversation with a project's manager, as the API answers it (it requires nothing of its own). */
export function projectConversationView(row: ConversationRow): ProjectConversation {
  return {
    id: row.id,
    projectId: row.project_id!,
    startedAt: iso(row.started_at),
    ...(row.title ? { title: row.title } : {}),
    ready: true,
    requires: [],
    ...(row.ended_at ? { endedAt: iso(row.ended_at) } : {}),
  };
}

/** A manager's turn: refused while the project is archived (held for share, so archiving waits for the turn to be written). */
export async function managerRun(repos: Repositories, row: ConversationRow, trx: Knex.Transaction): Promise<TurnRun> {
  const projectId = row.project_id!;
  const project = await trx('projects').where({ id: projectId }).forShare().first<{ status: string } | undefined>('status');
  if (!project) throw new AppError('conversation_not_found', 'no such conversation');
  if (project.status === 'archived') throw archived(projectId);
  return {
    workflowType: 'projectTurnWorkflow',
    input: { workspaceId: row.workspace_id, projectId },
    searchAttributes: [{ key: ProjectIdKey, value: projectId }],
  };
}

/**
 * Conversations of a project with its manager, and the project's file space. Asking, messages
 * and ending go through the ordinary conversation routes (one conversation id space). Rules: an
 * archived project takes no new conversation (409 `project_archived`).
 */
export class ProjectConversationsService {
  /** The project's files: what its conversations' drives and its members' delegated turns write. */
  readonly files: OwnedFiles;

  constructor(private readonly deps: { repos: Repositories; signingKey: UrlSigningKeys; storageQuotaBytes?: number; indexer?: KnowledgeIndexer }) {
    this.files = new OwnedFiles(deps, async (workspaceId, projectId) => {
      if (!(await deps.repos.projects.get({ workspaceId, projectId }))) throw projectNotFound();
      return projectSpace(projectId);
    });
  }

  /** `startedBy`: the key or member starting it (a viewer later sees only the ones they started). */
  async start(workspaceId: string, projectId: string, input: StartProjectConversationInput, startedBy?: string): Promise<ProjectConversation> {
    const project = await this.deps.repos.projects.get({ workspaceId, projectId });
    if (!project) throw projectNotFound();
    if (project.status === 'archived') throw archived(projectId);
    // Values are kept as strings, as the model (and the members' declared parameters) see them.
    const parameters = Object.fromEntries(Object.entries(input.parameters ?? {}).map(([k, v]) => [k, String(v)]));
    return projectConversationView(await this.deps.repos.conversations.createForProject({ workspaceId, projectId, parameters, startedBy }));
  }

  /** With `startedBy`, only the conversations that key or member started. */
  async list(workspaceId: string, projectId: string, startedBy?: string): Promise<ProjectConversation[]> {
    if (!(await this.deps.repos.projects.get({ workspaceId, projectId }))) throw projectNotFound();
    return (await this.deps.repos.conversations.listForProject({ workspaceId, projectId, ...(startedBy ? { startedBy } : {}) })).map(projectConversationView);
  }
}
