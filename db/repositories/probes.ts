import type { Db } from '../connect';

/** Round-trip probes: rows written by a worker activity to prove the whole chain works. */
export class ProbesRepository {
  constructor(private readonly db: Db) {}

  /** Idempotent on the probe id, so a retried activity writes once. */
  async record(input: { id: string; workspaceId: string; taskQueue: string; workerIdentity: string }): Promise<void> {
    await this.db('probes')
      .insert({
        id: input.id,
        workspace_id: input.workspaceId,
        task_queue: input.taskQueue,
        worker_identity: input.workerIdentity,
      })
      .onConflict('id')
      .ignore();
  }

  async find({ id }: { id: string }): Promise<{ id: string; workspaceId: string; taskQueue: string } | undefined> {
    const row = await this.db<{ id: string; workspace_id: string; task_queue: string }>('probes').where({ id }).first();
    return row ? { id: row.id, workspaceId: row.workspace_id, taskQueue: row.task_queue } : undefined;
  }

  /** Deletes probe rows older than `maxAgeSeconds`; returns how many went. */
  async prune({ maxAgeSeconds }: { maxAgeSeconds: number }): Promise<number> {
    return this.db('probes').where('created_at', '<', this.db.raw('now() - make_interval(secs => ?)', [maxAgeSeconds])).delete();
  }
}
