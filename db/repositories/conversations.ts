import type { Knex } from 'knex';
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
    input: { workspaceId: string; agentId: string; version: number; parameters: Record<string, string> },
    trx?: Knex.Transaction,
  ): Promise<ConversationRow> {
    const [row] = await (trx ?? this.db)('conversations')
      .insert({
        id: newId('conversation'),
        workspace_id: input.workspaceId,
        agent_id: input.agentId,
        version: input.version,
        parameters: JSON.stringify(input.parameters),
      })
      .returning('*');
    return row as ConversationRow;
  }

  async get({ workspaceId, conversationId }: { workspaceId: string; conversationId: string }, trx?: Knex.Transaction): Promise<ConversationRow | undefined> {
    return (trx ?? this.db)<ConversationRow>('conversations').where({ id: conversationId, workspace_id: workspaceId }).first();
  }

  /** By id alone: for activities, which act on a turn the API already authorised. */
  async byId({ conversationId }: { conversationId: string }): Promise<ConversationRow | undefined> {
    return this.db<ConversationRow>('conversations').where({ id: conversationId }).first();
  }

  async lock({ workspaceId, conversationId }: { workspaceId: string; conversationId: string }, trx: Knex.Transaction): Promise<ConversationRow | undefined> {
    return trx<ConversationRow>('conversations').where({ id: conversationId, workspace_id: workspaceId }).forUpdate().first();
  }

  async listForAgent({ workspaceId, agentId }: { workspaceId: string; agentId: string }): Promise<ConversationRow[]> {
    return this.db<ConversationRow>('conversations')
      .where({ workspace_id: workspaceId, agent_id: agentId })
      .orderBy([{ column: 'started_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
  }

  /** Ends the conversation; ending twice keeps the first time. */
  async end({ conversationId }: { conversationId: string }): Promise<void> {
    await this.db('conversations').where({ id: conversationId }).update({ ended_at: this.db.raw('coalesce(ended_at, now())') });
  }

  async setTitleIfMissing({ conversationId, title }: { conversationId: string; title: string }, trx: Knex.Transaction): Promise<void> {
    await trx('conversations').where({ id: conversationId }).whereNull('title').update({ title });
  }

  async addUserMessage(
    input: { conversationId: string; turnId: string; content: string; attachments: AttachmentRef[] },
    trx: Knex.Transaction,
  ): Promise<void> {
    await trx('messages').insert({
      conversation_id: input.conversationId,
      turn_id: input.turnId,
      role: 'user',
      content: input.content,
      attachments: input.attachments.length ? JSON.stringify(input.attachments) : null,
    });
  }

  /** The assistant's reply to a turn; a second write for the same turn is ignored. */
  async addAssistantMessage(input: { conversationId: string; turnId: string; content: string }, trx: Knex.Transaction): Promise<boolean> {
    const rows = await trx('messages')
      .insert({ conversation_id: input.conversationId, turn_id: input.turnId, role: 'assistant', content: input.content })
      .onConflict(['turn_id', 'role'])
      .ignore()
      .returning('seq');
    return rows.length > 0;
  }

  async messageRows({ conversationId }: { conversationId: string }): Promise<MessageRow[]> {
    return (await this.db('messages').where({ conversation_id: conversationId }).orderBy('seq', 'asc')) as MessageRow[];
  }

  async messages({ conversationId }: { conversationId: string }): Promise<Message[]> {
    const rows = await this.messageRows({ conversationId });
    return rows.map((r) => ({ role: r.role, content: r.content, at: iso(r.at) }));
  }
}
