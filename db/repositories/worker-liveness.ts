import type { Db } from '../connect';

export interface OrphanedAttempt {
  taskToken: Uint8Array;
  worker: string;
  workflowId: string;
}

/** Worker liveness stamps and the running attempts they vouch for (migration 011). */
export class WorkerLivenessRepository {
  constructor(private readonly db: Db) {}

  async stamp(identity: string): Promise<void> {
    await this.db.raw(
      `insert into worker_liveness (identity, seen_at) values (?, now())
       on conflict (identity) do update set seen_at = excluded.seen_at`,
      [identity],
    );
  }

  /** A worker that stops cleanly has drained its attempts; its row goes with it. */
  async forget(identity: string): Promise<void> {
    await this.db('worker_liveness').where({ identity }).delete();
  }

  async attemptStarted(input: OrphanedAttempt): Promise<void> {
    await this.db('activity_attempts')
      .insert({ task_token: Buffer.from(input.taskToken), worker: input.worker, workflow_id: input.workflowId })
      .onConflict('task_token')
      .ignore();
  }

  async attemptEnded(taskToken: Uint8Array): Promise<void> {
    await this.db('activity_attempts').where({ task_token: Buffer.from(taskToken) }).delete();
  }

  /**
   * Takes (deletes and returns) the attempts of every other worker whose last stamp is older than
   * `lapseMs`, or that never stamped. Deleting them in the same statement makes each orphan
   * belong to exactly one sweeping worker, however many sweep at once.
   */
  async takeOrphaned({ me, lapseMs }: { me: string; lapseMs: number }): Promise<OrphanedAttempt[]> {
    const result = await this.db.raw<{ rows: Array<{ task_token: Buffer; worker: string; workflow_id: string }> }>(
      `delete from activity_attempts a
        where a.worker <> ?
          and a.started_at < now() - make_interval(secs => ?)
          and not exists (select 1 from worker_liveness w
                           where w.identity = a.worker and w.seen_at > now() - make_interval(secs => ?))
        returning a.task_token, a.worker, a.workflow_id`,
      [me, lapseMs / 1000, lapseMs / 1000],
    );
    return result.rows.map((r) => ({ taskToken: new Uint8Array(r.task_token), worker: r.worker, workflowId: r.workflow_id }));
  }
}
