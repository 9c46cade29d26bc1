import type { Knex } from 'knex';
import type { Client } from '@temporalio/client';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { AttachmentRef, ConversationRow } from '../db/repositories/conversations';
import { conversationDrive } from '../db/repositories/files';
import type { KnowledgeIndexer } from '../infra/knowledge-indexer';
import { iso } from '../db/rows';
import type { AgentConfig } from '../domain/agent';
import { missingRequirements, type SuppliedView } from '../domain/credentials';
import { type AgentConversation, type AskInput, resolveParameters } from '../domain/conversation';
import { AppError, RateLimitRefusal } from '../domain/errors';
import { MAX_FILE_BYTES, normalisePath } from '../domain/file-path';
import { detectMimeType } from '../domain/mime';
import type { EndUser } from '../domain/publishing';
import type { ProjectConversation } from '../domain/project-conversation';
import { REQUEST_ID_KEY } from '../domain/request-id';
import { type TurnInput, type TurnLimits, turnWorkflowId } from '../domain/runs/turn';
import { AgentIdKey, ConversationIdKey, ProjectIdKey, WorkspaceIdKey } from '../domain/runs/search-attributes';
import { endUserView } from '../db/repositories/credentials';
import { readSupplied, suppliedView } from '../db/supplied';
import type { TurnAdmission } from '../turns/admission';
import { notReady, openTurn } from '../turns/open';
import { storageQuotaError } from './file-space';
import { managerRun, projectConversationView, type TurnRun } from './project-conversations';
import type { TurnCancellation } from './turn-cancel';

const notFound = () => new AppError('conversation_not_found', 'no such conversation');

interface ConversationsDeps {
  db: Db;
  repos: Repositories;
  temporal: Client;
  turnsQueue: string;
  limits: TurnLimits;
  cancellation: TurnCancellation;
  /** WORKSPACE_RUNNING_TURNS_MAX: an ask while the workspace has this many turns running is refused with 429. */
  maxRunningTurns: number;
  /** WORKSPACE_STORAGE_BYTES: attachments count against the workspace's storage quota. */
  storageQuotaBytes: number;
  /** Told when attachments land in an indexed space (a project's files), so they are indexed. */
  indexer?: KnowledgeIndexer;
}

/** When a running turn of the workspace ends is unknown: the refusal says to come back after a few seconds. */
const RUNNING_TURNS_RETRY_AFTER_SECONDS = 5;

/** A refused admission as the API answers it: 429 at the workspace's running-turns limit (with the other limits), else 409. */
function askRefusal(refusal: Extract<TurnAdmission, { refused: unknown }>): AppError {
  return refusal.refused === 'running_turns_limit'
    ? new RateLimitRefusal('workspace-running-turns', refusal.message, RUNNING_TURNS_RETRY_AFTER_SECONDS)
    : new AppError(refusal.refused, refusal.message);
}

/**
 * Conversations and the start of a turn. Rules: a conversation is pinned to a version; `ask` on
 * an ended, not-ready or out-of-credit conversation is refused before anything is written; one
 * turn runs at a time per conversation (a second `ask` gets 409 `turn_in_progress`).
 */
export class ConversationsService {
  constructor(private readonly deps: ConversationsDeps) {}

  private async view(row: ConversationRow, config?: AgentConfig, supplied?: SuppliedView): Promise<AgentConversation> {
    const agentConfig = config ?? (await this.pinnedConfig(row));
    const requires = missingRequirements(agentConfig, supplied ?? (await this.supplied(row)));
    return {
      id: row.id,
      agentId: row.agent_id!,
      version: row.version!,
      startedAt: iso(row.started_at),
      ...(row.title ? { title: row.title } : {}),
      ready: requires.length === 0,
      requires,
      ...(row.ended_at ? { endedAt: iso(row.ended_at) } : {}),
      ...(row.channel ? { channel: row.channel } : {}),
      ...(row.trigger ? { trigger: { kind: row.trigger.kind, index: row.trigger.index } } : {}),
      ...(row.end_user_id ? { endUser: endUserView(row) } : {}),
    };
  }

  /** What the conversation and its agent have stored (names only). */
  private async supplied(row: ConversationRow, trx?: Knex.Transaction): Promise<SuppliedView> {
    return suppliedView(await readSupplied(this.deps.repos, row.agent_id!, [row], trx), row);
  }

  /** The configuration of the version the conversation is pinned to (one query). */
  private async pinnedConfig(row: ConversationRow, trx?: Knex.Transaction): Promise<AgentConfig> {
    const config = await this.deps.repos.agents.versionConfig({ agentId: row.agent_id!, number: row.version! }, trx);
    if (!config) throw notFound();
    return config;
  }

  async start(
    workspaceId: string,
    agentId: string,
    input: { version?: number; parameters?: Record<string, string | number>; endUser?: EndUser },
    /** The key or member starting it through the workspace API. */
    startedBy?: string,
  ): Promise<AgentConversation> {
    const found = await this.deps.repos.agents.get({ workspaceId, agentId, version: input.version });
    if (!('agent' in found)) {
      if (found.missing === 'agent') throw new AppError('agent_not_found', 'no such agent');
      throw new AppError('version_not_found', `agent ${agentId} has no version ${input.version}`);
    }
    const { id: _i, role: _r, version, versionId: _v, createdAt: _c, updatedAt: _u, ...config } = found.agent;
    const params = resolveParameters(config.parameters, input.parameters ?? {});
    if (!params.ok) throw new AppError('invalid_parameters', `body.parameters.${params.name}: ${params.problem}`);
    const row = await this.deps.repos.conversations.create({
      workspaceId,
      agentId,
      version,
      parameters: params.values,
      ...(input.endUser ? { endUser: input.endUser } : {}),
      ...(startedBy ? { startedBy } : {}),
    });
    return this.view(row, config);
  }

  /** Either kind: a conversation of an agent, or of a project (with its manager). */
  async get(workspaceId: string, conversationId: string): Promise<AgentConversation | ProjectConversation> {
    const row = await this.deps.repos.conversations.get({ workspaceId, conversationId });
    if (!row) throw notFound();
    return row.agent_id ? this.view(row) : projectConversationView(row);
  }

  async listForAgent(workspaceId: string, agentId: string): Promise<AgentConversation[]> {
    if (!(await this.deps.repos.agents.find({ workspaceId, agentId }))) throw new AppError('agent_not_found', 'no such agent');
    const rows = await this.deps.repos.conversations.listForAgent({ workspaceId, agentId });
    const configs = new Map<number, AgentConfig>();
    const stored = await readSupplied(this.deps.repos, agentId, rows);
    const out: AgentConversation[] = [];
    for (const row of rows) {
      let config = configs.get(row.version!);
      if (!config) configs.set(row.version!, (config = await this.pinnedConfig(row)));
      out.push(await this.view(row, config, suppliedView(stored, row)));
    }
    return out;
  }

  /** `endUser.conversations()`: the end user's conversations on every agent of the workspace, newest first. */
  async listForEndUser(workspaceId: string, endUserId: string): Promise<AgentConversation[]> {
    const rows = await this.deps.repos.conversations.listForEndUser({ workspaceId, endUserId });
    return Promise.all(rows.map((row) => this.view(row)));
  }

  async messages(workspaceId: string, conversationId: string) {
    const row = await this.deps.repos.conversations.get({ workspaceId, conversationId });
    if (!row) throw notFound();
    return this.deps.repos.conversations.messages({ conversationId });
  }

  /** Ends the conversation and cancels its running turn, if any (that turn ends with its `error` event). */
  async end(workspaceId: string, conversationId: string): Promise<void> {
    const row = await this.deps.repos.conversations.get({ workspaceId, conversationId });
    if (!row) throw notFound();
    await this.deps.repos.conversations.end({ conversationId });
    const running = await this.deps.repos.turns.running({ conversationId });
    if (running) await this.deps.cancellation.request(running.id);
  }

  /**
   * Writes the user message and a running turn (with its `start` event) in one transaction,
   * then starts the turn workflow (id derived from the turn id). Returns the turn id.
   * `requestId` (the API request's) goes into the workflow's memo: the worker's log lines of the
   * turn carry it (workflows/request-id-interceptors.ts).
   */
  async ask(workspaceId: string, conversationId: string, input: AskInput, requestId?: string): Promise<string> {
    const { repos, db } = this.deps;
    const { turnId, run, attachedTo } = await db.transaction(async (trx) => {
      // One statement: the conversation, locked, with its pinned version's configuration.
      const locked = await repos.conversations.lockWithConfig({ workspaceId, conversationId }, trx);
      if (!locked) throw notFound();
      const { row } = locked;
      if (row.ended_at) throw new AppError('conversation_ended', 'the conversation has ended; start a new one');
      const run = row.agent_id ? await this.agentRun(row, trx, locked.config) : await managerRun(repos, row, trx);
      const opened = await openTurn(
        repos,
        {
          workspaceId,
          agentId: row.agent_id,
          conversation: row,
          reserve: this.deps.limits.reserveCredits ?? 0,
          maxRunningTurns: this.deps.maxRunningTurns,
          message: input.text,
          attachments: (turnId) => this.storeAttachments(row, turnId, input, trx),
        },
        trx,
      );
      if ('refused' in opened) throw askRefusal(opened);
      return { turnId: opened.turnId, run, attachedTo: input.attachments?.length ? conversationDrive(row) : undefined };
    });
    try {
      const args: TurnInput = { turnId, limits: this.deps.limits, ...run.input };
      await this.deps.temporal.workflow.start(run.workflowType, {
        workflowId: turnWorkflowId(turnId),
        taskQueue: this.deps.turnsQueue,
        args: [args],
        ...(requestId ? { memo: { [REQUEST_ID_KEY]: requestId } } : {}),
        typedSearchAttributes: [{ key: WorkspaceIdKey, value: workspaceId }, { key: ConversationIdKey, value: conversationId }, ...run.searchAttributes],
      });
    } catch (e) {
      // The turn must not stay "running" forever: end it and tell the caller.
      await db.transaction((trx) =>
        repos.turns.finish({ turnId, status: 'error', terminal: { type: 'error', message: 'the turn could not be started', retryable: true } }, trx),
      );
      throw new AppError('temporal_unavailable', 'the turn could not be started; try again shortly', undefined, { cause: e });
    }
    // Not awaited: the turn has started, and the signal never rejects (a project's attachments only; drives are not indexed).
    if (attachedTo) void this.deps.indexer?.changed(workspaceId, attachedTo);
    return turnId;
  }

  /** An agent's turn: refused while the conversation is not ready. */
  private async agentRun(row: ConversationRow, trx: Knex.Transaction, pinned?: AgentConfig): Promise<TurnRun> {
    const config = pinned ?? (await this.pinnedConfig(row, trx));
    const missing = await notReady(this.deps.repos, { agentId: row.agent_id!, config, conversation: row }, trx);
    if (missing) throw new AppError('conversation_not_ready', missing);
    return {
      workflowType: 'turnWorkflow',
      input: {},
      searchAttributes: [
        { key: AgentIdKey, value: row.agent_id! },
        // A member's conversation started by a delegation belongs to the project too.
        ...(row.project_id ? [{ key: ProjectIdKey, value: row.project_id }] : []),
      ],
    };
  }

  /** A turn of this workspace, for resuming its stream; anything else is turn_not_found. */
  async workspaceTurn(workspaceId: string, turnId: string): Promise<string> {
    const turn = await this.deps.repos.turns.get({ turnId, workspaceId });
    if (!turn) throw new AppError('turn_not_found', 'no such turn');
    return turn.id;
  }

  /** Attachments land in the conversation drive under `attachments/`; the message keeps references. */
  private async storeAttachments(
    row: ConversationRow,
    turnId: string,
    input: AskInput,
    trx: Knex.Transaction,
  ): Promise<AttachmentRef[]> {
    const refs: AttachmentRef[] = [];
    for (const [i, a] of (input.attachments ?? []).entries()) {
      const bytes = Buffer.from(a.data, 'base64');
      if (bytes.byteLength > MAX_FILE_BYTES) throw new AppError('file_too_large', `body.attachments[${i}].data: too large`);
      const ext = a.mimeType.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin';
      const name = a.name ?? `${a.kind}-${i + 1}.${ext}`;
      const normal = normalisePath(`attachments/${turnId}/${name}`);
      if (!normal.ok) throw new AppError('invalid_request', `body.attachments[${i}].name: ${normal.problem}`);
      const put = await this.deps.repos.files.put(
        {
          workspaceId: row.workspace_id,
          space: conversationDrive(row),
          path: normal.path,
          content: bytes,
          mimeType: detectMimeType(normal.path, bytes, a.mimeType),
          quotaBytes: this.deps.storageQuotaBytes,
        },
        trx,
      );
      if ('conflict' in put) throw new AppError('path_conflict', put.conflict);
      if ('overQuota' in put) throw storageQuotaError(put.overQuota);
      refs.push({ kind: a.kind, path: normal.path, mimeType: a.mimeType });
    }
    return refs;
  }
}
