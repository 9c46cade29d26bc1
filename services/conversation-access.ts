import type { Db } from '../db/connect';
import { type ConversationUse, mayUseAnyConversation, mayUseConversation } from '../domain/conversation-access';
import { AppError } from '../domain/errors';
import type { Actor } from '../domain/roles';

/** How many delegations up a conversation's starter is looked for (a project's delegation depth is far below it). */
const MAX_DELEGATION_DEPTH = 8;

interface Lineage {
  in_project: boolean;
  started_by_caller: boolean;
}

/**
 * Applies domain/conversation-access.ts to a conversation or a turn named in a route. A caller the
 * rule refuses gets the same 404 as for a conversation that does not exist: a viewer learns
 * nothing about conversations that are not theirs. Callers whose role reads or changes every
 * conversation cost no query.
 */
export class ConversationAccess {
  constructor(private readonly db: Db) {}

  async conversation(actor: Actor, conversationId: string, use: ConversationUse): Promise<void> {
    if (mayUseAnyConversation(actor, use)) return;
    const lineage = await this.lineage(actor, 'select id from conversations where id = ? and workspace_id = ?', [conversationId, actor.workspaceId]);
    if (!lineage || !mayUseConversation(actor, use, { inProject: lineage.in_project, startedByCaller: lineage.started_by_caller })) {
      throw new AppError('conversation_not_found', `no conversation ${conversationId} in this workspace`);
    }
  }

  async turn(actor: Actor, turnId: string, use: ConversationUse): Promise<void> {
    if (mayUseAnyConversation(actor, use)) return;
    const lineage = await this.lineage(actor, 'select conversation_id as id from turns where id = ? and workspace_id = ?', [turnId, actor.workspaceId]);
    if (!lineage || !mayUseConversation(actor, use, { inProject: lineage.in_project, startedByCaller: lineage.started_by_caller })) {
      throw new AppError('turn_not_found', `no turn ${turnId} in this workspace`);
    }
  }

  /**
   * The same rule as a condition on the conversations a list reads (`column`: the list's
   * conversation id, e.g. `conv.id` — not an alias `c`, which the lineage query uses), or
   * undefined when the caller reads every conversation. A row passes when `mayUseConversation`
   * would pass it: a project's lineage that the caller started. The first test is only a quick
   * necessary condition (started by the caller, or delegated), so most rows skip the lineage.
   */
  readableFilter(actor: Actor, column: { id: string; startedBy: string; parentTurnId: string }): { sql: string; bindings: Array<string | number> } | undefined {
    if (mayUseAnyConversation(actor, 'read')) return undefined;
    return {
      sql: `(${column.startedBy} = ? or ${column.parentTurnId} is not null)
        and exists (select 1 from (${lineageSql(`select ${column.id}`)}) l where l.in_project and l.started_by_caller)`,
      bindings: [actor.id, MAX_DELEGATION_DEPTH, actor.id],
    };
  }

  /** Whether the conversation is a project's, and whether it or a conversation that delegated to it was started by the caller. */
  private async lineage(actor: Actor, start: string, bindings: string[]): Promise<Lineage | undefined> {
    const result = await this.db.raw<{ rows: Lineage[] }>(lineageSql(start), [...bindings, MAX_DELEGATION_DEPTH, actor.id]);
    return result.rows[0];
  }
}

/**
 * One row (`in_project`, `started_by_caller`) for the conversation `start` selects, walking up its
 * delegations; no row when there is no such conversation. Bindings after `start`'s own: the
 * depth limit, then the caller's id.
 */
function lineageSql(start: string): string {
  return `with recursive up(id, project_id, started_by, parent_turn_id, depth) as (
         select c.id, c.project_id, c.started_by, c.parent_turn_id, 0 from conversations c where c.id = (${start})
         union all
         select p.id, p.project_id, p.started_by, p.parent_turn_id, up.depth + 1
           from up join turns t on t.id = up.parent_turn_id join conversations p on p.id = t.conversation_id
          where up.depth < ?
       )
       select bool_or(project_id is not null) as in_project, coalesce(bool_or(started_by = ?), false) as started_by_caller
         from up having count(*) > 0`;
}
