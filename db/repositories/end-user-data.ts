import type { TurnEvent } from '../../domain/turn-events';
import type { Db } from '../connect';
import type { ApprovalRow } from './approvals';
import type { ConversationRow, MessageRow } from './conversations';
import { conversationDrive } from './files';
import type { TurnStatus } from '../turns/rows';

interface ExportTurnRow {
  id: string;
  conversation_id: string;
  status: TurnStatus;
  started_at: Date;
  finished_at: Date | null;
}

interface ExportEventRow {
  turn_id: string;
  seq: number;
  data: TurnEvent;
  at: Date;
}

interface ExportFileRow {
  space: string;
  path: string;
  mime_type: string;
  size: number;
  modified_at: Date;
}

export interface ExportValueRow {
  owner_kind: 'end_user' | 'conversation';
  owner_id: string;
  name: string;
  account_label?: string | null;
  updated_at: Date;
}

/** Every row an end user's export is made of, read in a handful of statements. */
export interface EndUserRows {
  conversations: ConversationRow[];
  messages: Array<MessageRow & { conversation_id: string }>;
  turns: ExportTurnRow[];
  events: ExportEventRow[];
  files: ExportFileRow[];
  secrets: ExportValueRow[];
  connections: ExportValueRow[];
  approvals: ApprovalRow[];
}

/**
 * Reads for `GET /v1/end-users/:id/export`: everything stored that carries the end user's id or
 * belongs to a conversation that does (the same rows an erasure deletes). Sealed values are
 * never read, only their names.
 */
export class EndUserDataRepository {
  constructor(private readonly db: Db) {}

  async rows({ workspaceId, endUserId }: { workspaceId: string; endUserId: string }): Promise<EndUserRows> {
    const db = this.db;
    const conversations: ConversationRow[] = await db('conversations')
      .where({ workspace_id: workspaceId, end_user_id: endUserId })
      .orderBy([{ column: 'started_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
    const ids = conversations.map((c) => c.id);
    const drives = conversations.filter((c) => c.project_id === null).map(conversationDrive);
    const turns: ExportTurnRow[] = await db('turns').whereIn('conversation_id', ids).orderBy('started_at').select('id', 'conversation_id', 'status', 'started_at', 'finished_at');
    const owners = (q: ReturnType<Db>) =>
      q
        .where({ workspace_id: workspaceId })
        .where((w) => w.where({ owner_kind: 'end_user', owner_id: `${workspaceId}:${endUserId}` }).orWhere((c) => c.where({ owner_kind: 'conversation' }).whereIn('owner_id', ids)));
    const [messages, events, files, secrets, connections, approvals] = await Promise.all([
      db('messages').whereIn('conversation_id', ids).orderBy('seq'),
      db('turn_events').whereIn('turn_id', turns.map((t) => t.id)).orderBy([{ column: 'turn_id' }, { column: 'seq' }]).select('turn_id', 'seq', 'data', 'at'),
      db('files').whereIn('space', drives).orderBy([{ column: 'space' }, { column: 'path' }]).select('space', 'path', 'mime_type', 'size', 'modified_at'),
      owners(db('secret_values')).orderBy('name').select('owner_kind', 'owner_id', 'name', 'updated_at'),
      owners(db('connection_values')).orderBy('provider').select('owner_kind', 'owner_id', 'provider as name', 'account_label', 'updated_at'),
      db('tool_approvals').whereIn('conversation_id', ids).orderBy('created_at'),
    ]);
    return {
      conversations,
      messages: messages as EndUserRows['messages'],
      turns,
      events: events as ExportEventRow[],
      files: files as ExportFileRow[],
      secrets: secrets as ExportValueRow[],
      connections: connections as ExportValueRow[],
      approvals: approvals as ApprovalRow[],
    };
  }
}
