import type { Knex } from 'knex';
import type { AgentConfig } from '../../domain/agent';
import type { Message } from '../../domain/conversation';
import { newId } from '../../domain/ids';
import type { Db } from '../connect';
import { iso } from '../rows';

export interface ConversationRow {
  id: string;
  workspace_id: string;
  agent_id: string | null;
  project_id: string | null;
  version: number | null;
  parameters: Record<string, string>;
  title: string | null;
  started_at: Date;
  ended_at: Date | null;
  /** `public` (public chat on the prod version), `test` (a test URL), or null (the API). */
  channel: 'public' | 'test' | null;
  end_user_id: string | null;
  end_user_name: string | null;
  end_user_email: string | null;
  /** A visitor's conversation whose visitor proved `end_user_id` with a signed token (it then acts as that end user). */
  visitor_verified: boolean;
  test_deployment_id: string | null;
  /** The trigger that started it; `run` is the run's unique key (a trigger run's workflow id). */
  trigger: { kind: 'schedule' | 'interval' | 'webhook'; index: number; run: string } | null;
  /** A member's conversation started by a manager's delegation: that manager turn and its tool call. */
  parent_turn_id: string | null;
  parent_call_id: string | null;
  /** A case's conversation of an eval run: the run and the case. */
  eval_run_id: string | null;
  eval_case_id: string | null;
}

/** Where a visitor's session lives: the agent's public chat, or one test deployment. */
export type PublicSessionKey = { channel: 'public'; agentId: string } | { channel: 'test'; agentId: string; testDeploymentId: string };

/** A visitor as a session knows them: the id, and whether a signed token proved it (then a session of its own). */
export interface SessionVisitor {
  id: string;
  verified: boolean;
}

/** What a user message carries besides its text: references to files in the conversation drive. */
export interface AttachmentRef {
  kind: 'image' | 'file';
  path: string;
  mimeType: string;
}

export interface MessageRow {
  seq: number;
  turn_id: string | null;
  role: 'user' | 'assistant';
  content: string;
  attachments: AttachmentRef[] | null;
  at: Date;
}

/** Conversations and their messages; every read is scoped by workspace. */
export class ConversationsRepository {
  constructor(private readonly db: Db) {}

  async create(
    input: {
      workspaceId: string;
      agentId: string;
      version: number;
      parameters: Record<string, string>;
      trigger?: ConversationRow['trigger'];
      endUser?: { id: string; name?: string | undefined; email?: string | undefined };
      /** A delegation: the member's conversation belongs to the project and names the manager's turn and call. */
      delegation?: { projectId: string; parentTurnId: string; callId: string };
      /** An eval run's case: the conversation is the run's, kept out of the agent's list. */
      evalCase?: { runId: string; caseId: string };
      /** The key or member that started it through the workspace API. */
      startedBy?: string;
    },
    trx?: Knex.Transaction,
  ): Promise<ConversationRow> {
    const [row] = await (trx ?? this.db)('conversations')
      .insert({
        id: newId('conversation'),
        workspace_id: input.workspaceId,
        agent_id: input.agentId,
        version: input.version,
        parameters: JSON.stringify(input.parameters),
        ...(input.trigger ? { trigger: JSON.stringify(input.trigger) } : {}),
        ...(input.endUser
          ? { end_user_id: input.endUser.id, end_user_name: input.endUser.name ?? null, end_user_email: input.endUser.email ?? null }
          : {}),
        ...(input.delegation
          ? { project_id: input.delegation.projectId, parent_turn_id: input.delegation.parentTurnId, parent_call_id: input.delegation.callId }
          : {}),
        ...(input.evalCase ? { eval_run_id: input.evalCase.runId, eval_case_id: input.evalCase.caseId } : {}),
        ...(input.startedBy ? { started_by: input.startedBy } : {}),
      })
      .returning('*');
    return row as ConversationRow;
  }

  /** A conversation with the project's manager (no agent). */
  async createForProject(input: { workspaceId: string; projectId: string; parameters: Record<string, string>; startedBy?: string }): Promise<ConversationRow> {
    const [row] = await this.db('conversations')
      .insert({
        id: newId('conversation'),
        workspace_id: input.workspaceId,
        project_id: input.projectId,
        parameters: JSON.stringify(input.parameters),
        started_by: input.startedBy ?? null,
      })
      .returning('*');
    return row as ConversationRow;
  }

  /**
   * The project's conversations with its manager, newest first (members' delegated conversations
   * are not among them); with `startedBy`, only those that key or member started.
   */
  async listForProject({ workspaceId, projectId, startedBy }: { workspaceId: string; projectId: string; startedBy?: string }): Promise<ConversationRow[]> {
    return this.db<ConversationRow>('conversations')
      .where({ workspace_id: workspaceId, project_id: projectId })
      .whereNull('agent_id')
      .modify((q) => {
        if (startedBy !== undefined) q.where('started_by', startedBy);
      })
      .orderBy([{ column: 'started_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  }

  /** The member's conversation a delegation (the manager's turn and tool call) started, if it started one. */
  async ofDelegation({ parentTurnId, callId }: { parentTurnId: string; callId: string }, trx: Knex.Transaction): Promise<ConversationRow | undefined> {
    return trx<ConversationRow>('conversations').where({ parent_turn_id: parentTurnId, parent_call_id: callId }).first();
  }

  async get({ workspaceId, conversationId }: { workspaceId: string; conversationId: string }, trx?: Knex.Transaction): Promise<ConversationRow | undefined> {
    return (trx ?? this.db)<ConversationRow>('conversations').where({ id: conversationId, workspace_id: workspaceId }).first();
  }

  /** By id alone: for activities, which act on a turn the API already authorised. */
  async byId({ conversationId }: { conversationId: string }): Promise<ConversationRow | undefined> {
    return this.db<ConversationRow>('conversations').where({ id: conversationId }).first();
  }

  /** The conversation a trigger run (its workflow id) started, if it started one. */
  async ofTriggerRun({ run }: { run: string }, trx: Knex.Transaction): Promise<ConversationRow | undefined> {
    return trx<ConversationRow>('conversations').whereRaw(`trigger->>'run' = ?`, [run]).first();
  }

  /**
   * The conversation, locked to the end of the transaction, with the configuration of the agent
   * version it is pinned to (none for a project's conversation, or when that version is gone), in
   * one statement: what an ask reads first.
   */
  async lockWithConfig(
    { workspaceId, conversationId }: { workspaceId: string; conversationId: string },
    trx: Knex.Transaction,
  ): Promise<{ row: ConversationRow; config: AgentConfig | undefined } | undefined> {
    const found = await trx('conversations as c')
      .leftJoin('agent_versions as v', (j) => j.on('v.agent_id', 'c.agent_id').andOn('v.number', 'c.version'))
      .where({ 'c.id': conversationId, 'c.workspace_id': workspaceId })
      .forUpdate('c')
      .first<(ConversationRow & { pinned_config: AgentConfig | null }) | undefined>('c.*', 'v.config as pinned_config');
    if (!found) return undefined;
    const { pinned_config: config, ...row } = found;
    return { row, config: config ?? undefined };
  }

  /** The agent's conversations, newest first; an eval run's are the run's (`GET …/eval-runs/:runId` names them). */
  async listForAgent({ workspaceId, agentId }: { workspaceId: string; agentId: string }): Promise<ConversationRow[]> {
    return this.db<ConversationRow>('conversations')
      .where({ workspace_id: workspaceId, agent_id: agentId })
      .whereNull('eval_run_id')
      .orderBy([{ column: 'started_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  }

  /**
   * The conversations that act as an end user of the workspace (`agent.start({ endUser })`, or
   * public chat with a verified visitor), newest first; anonymous visitors who typed the id are not theirs.
   */
  async listForEndUser({ workspaceId, endUserId }: { workspaceId: string; endUserId: string }): Promise<ConversationRow[]> {
    return this.db<ConversationRow>('conversations')
      .where({ workspace_id: workspaceId, end_user_id: endUserId })
      .whereNotNull('agent_id')
      .where((w) => w.whereNull('channel').orWhere({ visitor_verified: true }))
      .orderBy([{ column: 'started_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  }

  /**
   * The visitor's open conversation in that session, or a new one on `version`; the visitor's
   * name and email are refreshed. A racing first message is settled by the session's unique index.
   */
  async openSession(
    input: { workspaceId: string; key: PublicSessionKey; version: number; user: SessionVisitor & { name?: string | undefined; email?: string | undefined } },
  ): Promise<ConversationRow> {
    const { key, user } = input;
    const identity = { end_user_name: user.name ?? null, end_user_email: user.email ?? null };
    const find = () => this.findSession({ key, visitor: user });
    const found = await find();
    if (found) {
      if (found.end_user_name !== identity.end_user_name || found.end_user_email !== identity.end_user_email) {
        await this.db('conversations').where({ id: found.id }).update(identity);
      }
      return { ...found, ...identity };
    }
    const inserted = await this.db('conversations')
      .insert({
        id: newId('conversation'),
        workspace_id: input.workspaceId,
        agent_id: key.agentId,
        version: input.version,
        parameters: '{}',
        channel: key.channel,
        end_user_id: user.id,
        visitor_verified: user.verified,
        ...identity,
        test_deployment_id: key.channel === 'test' ? key.testDeploymentId : null,
      })
      // The only unique index such an insert can hit is the session's (the id is new).
      .onConflict()
      .ignore()
      .returning('*');
    return (inserted[0] as ConversationRow | undefined) ?? (await find())!;
  }

  /** The visitor's open conversation in that session (verified and anonymous visitors of one id have separate ones), if any. */
  async findSession({ key, visitor }: { key: PublicSessionKey; visitor: SessionVisitor }): Promise<ConversationRow | undefined> {
    return this.db<ConversationRow>('conversations')
      .where({ agent_id: key.agentId, channel: key.channel, end_user_id: visitor.id, visitor_verified: visitor.verified })
      .where(key.channel === 'test' ? { test_deployment_id: key.testDeploymentId } : {})
      .whereNull('ended_at')
      .first();
  }

  /** Moves a public conversation to the version production serves now (it follows promotions and rollbacks). */
  async repin({ conversationId, version }: { conversationId: string; version: number }): Promise<void> {
    await this.db('conversations').where({ id: conversationId }).whereNot({ version }).update({ version });
  }

  /** Ends the conversation; ending twice keeps the first time. */
  async end({ conversationId }: { conversationId: string }): Promise<void> {
    await this.db('conversations').where({ id: conversationId }).update({ ended_at: this.db.raw('coalesce(ended_at, now())') });
  }

  async messageRows({ conversationId }: { conversationId: string }): Promise<MessageRow[]> {
    return (await this.db('messages').where({ conversation_id: conversationId }).orderBy('seq', 'asc')) as MessageRow[];
  }

  async messages({ conversationId }: { conversationId: string }): Promise<Message[]> {
    const rows = await this.messageRows({ conversationId });
    return rows.map((r) => ({ role: r.role, content: r.content, at: iso(r.at) }));
  }
}
