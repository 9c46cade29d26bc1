import { toApproval } from '../db/repositories/approvals';
import type { EndUserRows, ExportValueRow } from '../db/repositories/end-user-data';
import { conversationDrive } from '../db/repositories/files';
import { iso } from '../db/rows';
import type { EndUserExport } from '../domain/end-user-erasure';
import { DEFAULT_URL_TTL_SECONDS, signFileGrant, type UrlSigningKeys } from '../domain/signed-url';

const groupBy = <T, K>(items: T[], key: (item: T) => K): Map<K, T[]> => {
  const groups = new Map<K, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
};

/** A stored value's name and whose it is: the end user's own, or one conversation's. */
function valueView(row: ExportValueRow) {
  return {
    scope: row.owner_kind === 'end_user' ? ('endUser' as const) : ('conversation' as const),
    ...(row.owner_kind === 'conversation' ? { conversationId: row.owner_id } : {}),
    updatedAt: iso(row.updated_at),
  };
}

/**
 * The export document of an end user's rows (`GET /v1/end-users/:id/export`): conversations with
 * their messages, turns with their events and files as signed links (valid an hour, like any
 * file URL by default); secret and connection names, never values.
 */
export function exportDocument(input: { workspaceId: string; endUserId: string; rows: EndUserRows; signingKey: UrlSigningKeys; origin: string }): EndUserExport {
  const { rows } = input;
  const messages = groupBy(rows.messages, (m) => m.conversation_id);
  const turns = groupBy(rows.turns, (t) => t.conversation_id);
  const events = groupBy(rows.events, (e) => e.turn_id);
  const files = groupBy(rows.files, (f) => f.space);
  const exp = Math.floor(Date.now() / 1000) + DEFAULT_URL_TTL_SECONDS;
  const link = (space: string, path: string) =>
    `${input.origin}/v1/files/${signFileGrant(input.signingKey, { workspaceId: input.workspaceId, space, path, download: true, exp })}`;
  return {
    endUserId: input.endUserId,
    exportedAt: new Date().toISOString(),
    conversations: rows.conversations.map((c) => ({
      id: c.id,
      agentId: c.agent_id ?? '',
      version: c.version ?? 0,
      ...(c.channel ? { channel: c.channel } : {}),
      endUser: {
        id: input.endUserId,
        ...(c.end_user_name !== null ? { name: c.end_user_name } : {}),
        ...(c.end_user_email !== null ? { email: c.end_user_email } : {}),
        verified: c.channel === null || c.visitor_verified,
      },
      ...(c.title !== null ? { title: c.title } : {}),
      parameters: c.parameters,
      startedAt: iso(c.started_at),
      ...(c.ended_at ? { endedAt: iso(c.ended_at) } : {}),
      messages: (messages.get(c.id) ?? []).map((m) => ({ role: m.role, content: m.content, at: iso(m.at) })),
      turns: (turns.get(c.id) ?? []).map((t) => ({
        id: t.id,
        status: t.status,
        startedAt: iso(t.started_at),
        ...(t.finished_at ? { finishedAt: iso(t.finished_at) } : {}),
        events: (events.get(t.id) ?? []).map((e) => ({ seq: e.seq, at: iso(e.at), event: e.data })),
      })),
      files: (files.get(conversationDrive(c)) ?? []).map((f) => ({
        path: f.path,
        mimeType: f.mime_type,
        size: f.size,
        modifiedAt: iso(f.modified_at),
        url: link(f.space, f.path),
      })),
    })),
    secrets: rows.secrets.map((s) => ({ name: s.name, ...valueView(s) })),
    connections: rows.connections.map((s) => ({ provider: s.name, ...valueView(s), ...(s.account_label ? { accountLabel: s.account_label } : {}) })),
    approvals: rows.approvals.map(toApproval),
    feedback: [],
  };
}
