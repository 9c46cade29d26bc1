import type { Knex } from 'knex';
import { endUserDigest } from '../../domain/audit';
import type { Erasure } from '../../domain/end-user-erasure';
import { addCounts, type ErasureCounts, zeroCounts } from '../../domain/runs/end-user-erasure';
import { newId } from '../../domain/ids';
import { turnWorkflowId } from '../../domain/runs/turn';
import type { Db } from '../connect';
import { iso } from '../rows';
import { conversationDrive } from './files';

export interface ErasureRow {
  id: string;
  workspace_id: string;
  /** Null once done: the id is then stored nowhere. */
  end_user_id: string | null;
  end_user_digest: string;
  status: 'running' | 'done';
  counts: Partial<ErasureCounts>;
  created_at: Date;
  finished_at: Date | null;
}

export function toErasure(row: ErasureRow): Erasure {
  return {
    id: row.id,
    status: row.status,
    counts: addCounts(zeroCounts(), row.counts),
    createdAt: iso(row.created_at),
    ...(row.finished_at ? { finishedAt: iso(row.finished_at) } : {}),
  };
}

/** The end user's conversations: every one of the workspace that carries the id (any channel, verified or not). */
const conversationsOf = (q: Knex | Knex.Transaction, row: ErasureRow) =>
  q('conversations').where({ workspace_id: row.workspace_id, end_user_id: row.end_user_id! });

const deleted = (n: number | unknown) => (typeof n === 'number' ? n : 0);

/**
 * Erasures of end users (migration 032) and the deletes they are made of. Each delete is counted
 * and its count added to the row in the same transaction, so a batch redone after a worker died
 * counts only what it removes then.
 */
export class EndUserErasuresRepository {
  constructor(private readonly db: Db) {}

  /** A new running erasure, or the one already running for this end user (`created` false). */
  async start({ workspaceId, endUserId }: { workspaceId: string; endUserId: string }): Promise<{ row: ErasureRow; created: boolean }> {
    const digest = endUserDigest(endUserId);
    const [inserted] = (await this.db.raw(
      `insert into end_user_erasures (id, workspace_id, end_user_id, end_user_digest) values (?, ?, ?, ?)
       on conflict (workspace_id, end_user_digest) where status = 'running' do nothing returning *`,
      [newId('erasure'), workspaceId, endUserId, digest],
    )).rows as ErasureRow[];
    if (inserted) return { row: inserted, created: true };
    const running = await this.db<ErasureRow>('end_user_erasures').where({ workspace_id: workspaceId, end_user_digest: digest, status: 'running' }).first();
    // Finished between the insert and this read: start anew.
    return running ? { row: running, created: false } : this.start({ workspaceId, endUserId });
  }

  async get({ workspaceId, erasureId }: { workspaceId: string; erasureId: string }): Promise<ErasureRow | undefined> {
    return this.db<ErasureRow>('end_user_erasures').where({ id: erasureId, workspace_id: workspaceId }).first();
  }

  /** By id alone: for the erasure's activities. */
  async byId({ erasureId }: { erasureId: string }): Promise<ErasureRow | undefined> {
    return this.db<ErasureRow>('end_user_erasures').where({ id: erasureId }).first();
  }

  /** Up to `limit` turns of the end user's conversations still stored (for a running erasure). */
  async turnIds({ row, limit }: { row: ErasureRow; limit: number }): Promise<string[]> {
    if (row.status !== 'running') return [];
    const rows = await this.db('turns')
      .whereIn('conversation_id', conversationsOf(this.db, row).select('id'))
      .orderBy('id')
      .limit(limit)
      .select('id');
    return rows.map((r: { id: string }) => r.id);
  }

  /**
   * Deletes the turns (whose workflow executions are gone) with their messages, events, step
   * usage and approvals, and adds the counts to the erasure; turns already gone count nothing.
   * Debits are keyed by turn and carry no end user: they stay, amounts and times intact.
   */
  async eraseTurns({ erasureId, turnIds }: { erasureId: string; turnIds: string[] }): Promise<void> {
    await this.db.transaction(async (trx) => {
      const row = await trx<ErasureRow>('end_user_erasures').where({ id: erasureId }).forUpdate().first();
      if (row?.status !== 'running') return;
      const mine = trx('turns').whereIn('id', turnIds).whereIn('conversation_id', conversationsOf(trx, row).select('id')).select('id');
      const ids = (await mine).map((r: { id: string }) => r.id);
      if (ids.length === 0) return;
      const batch: Partial<ErasureCounts> = {
        turnEvents: deleted(await trx('turn_events').whereIn('turn_id', ids).delete()),
        messages: deleted(await trx('messages').whereIn('turn_id', ids).delete()),
        approvals: deleted(await trx('tool_approvals').whereIn('turn_id', ids).delete()),
      };
      await trx('turn_step_usage').whereIn('turn_id', ids).delete();
      batch.turns = deleted(await trx('turns').whereIn('id', ids).delete());
      batch.turnWorkflows = batch.turns;
      // Temporal accepted their deletion; the erasure is done once it has seen each of them gone.
      await trx('end_user_erasure_workflows').insert(ids.map((id) => ({ erasure_id: erasureId, workflow_id: turnWorkflowId(id) }))).onConflict().ignore();
      await trx('end_user_erasures').where({ id: erasureId }).update({ counts: JSON.stringify(addCounts(row.counts, batch)) });
    });
  }

  /** Up to `limit` turn workflow executions whose deletion the erasure has yet to see complete. */
  async pendingWorkflows({ erasureId, limit }: { erasureId: string; limit: number }): Promise<string[]> {
    const rows = await this.db('end_user_erasure_workflows').where({ erasure_id: erasureId }).orderBy('workflow_id').limit(limit).select('workflow_id');
    return rows.map((r: { workflow_id: string }) => r.workflow_id);
  }

  /** The executions are gone from Temporal. */
  async workflowsGone({ erasureId, workflowIds }: { erasureId: string; workflowIds: string[] }): Promise<void> {
    await this.db('end_user_erasure_workflows').where({ erasure_id: erasureId }).whereIn('workflow_id', workflowIds).delete();
  }

  /**
   * The last step, in one transaction: with the end user's conversations locked (a turn is only
   * opened under its conversation's lock), and none of them with a turn left, deletes the
   * conversations, their files and stored values, the end user's own values and consent links;
   * then `receipt` (the audit row) is written and the row marked done without the id.
   * Returns false, deleting nothing, when a turn appeared since the last batch or an execution
   * has yet to be seen gone.
   */
  async finish(
    { erasureId, receipt }: { erasureId: string; receipt: (row: ErasureRow, counts: ErasureCounts, trx: Knex.Transaction) => Promise<void> },
  ): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const row = await trx<ErasureRow>('end_user_erasures').where({ id: erasureId }).forUpdate().first();
      if (!row) throw new Error(`erasure ${erasureId} is gone`);
      if (row.status === 'done') return true;
      const locked: Array<{ id: string; project_id: string | null }> = await conversationsOf(trx, row).forUpdate().select('id', 'project_id');
      const ids = locked.map((c) => c.id);
      // A project's space outlives its conversations: only the conversations' own drives go.
      const drives = locked.filter((c) => c.project_id === null).map(conversationDrive);
      if (await trx('turns').whereIn('conversation_id', ids).first('id')) return false;
      if (await trx('end_user_erasure_workflows').where({ erasure_id: erasureId }).first('workflow_id')) return false;
      const owner = `${row.workspace_id}:${row.end_user_id}`;
      const ownedBy = (q: Knex.QueryBuilder) =>
        q.where((w) => w.where({ owner_kind: 'end_user', owner_id: owner }).orWhere((c) => c.where({ owner_kind: 'conversation' }).whereIn('owner_id', ids)));
      const batch: Partial<ErasureCounts> = {
        files: deleted(await trx('files').whereIn('space', drives).delete()),
        secrets: deleted(await ownedBy(trx('secret_values')).delete()),
        connections: deleted(await ownedBy(trx('connection_values')).delete()),
        oauthStates: deleted(
          await trx('oauth_states')
            .where({ workspace_id: row.workspace_id })
            .where((w) => w.where({ end_user_id: row.end_user_id }).orWhere({ owner_kind: 'end_user', owner_id: owner }).orWhere((c) => c.where({ owner_kind: 'conversation' }).whereIn('owner_id', ids)))
            .delete(),
        ),
        approvals: deleted(await trx('tool_approvals').whereIn('conversation_id', ids).delete()),
        messages: deleted(await trx('messages').whereIn('conversation_id', ids).delete()),
        conversations: deleted(await trx('conversations').whereIn('id', ids).delete()),
      };
      const counts = addCounts(row.counts, batch);
      await receipt(row, counts, trx);
      await trx('end_user_erasures')
        .where({ id: erasureId })
        .update({ status: 'done', end_user_id: null, counts: JSON.stringify(counts), finished_at: trx.fn.now() });
      return true;
    });
  }
}
