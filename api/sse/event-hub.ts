import { decodeTurnNotification, TURN_EVENTS_CHANNEL, type Appended } from '../../db/turns/notification';
import type { Logger } from '../../infra/logger';
import type { PgListener } from '../server/pg-listener';

/** One open stream as the hub sees it. */
export interface TurnWatcher {
  /**
   * The turn may have events after `seen()`. `appended`, when the notification said, names the
   * seqs appended and may carry the events; without it (the sweep, an older worker), read.
   */
  wake(appended?: Appended): void;
  /** The last sequence number this stream has sent. */
  seen(): number;
}

/**
 * How often the hub checks, in one query for every watched turn, that no stream is behind its
 * turn's log. Notifications are delivered while the LISTEN connection is up, so this only guards
 * against a notification lost some other way (a half-open connection that has not yet failed).
 */
const SWEEP_EVERY_MS = 10_000;

/**
 * `turn_events` on the API process's one LISTEN connection (pg-listener.ts), fanned out to the
 * streams it serves: turn id → its streams, so a notification wakes exactly the streams of that
 * turn. Its payload (db/turns/notification.ts, decoded once here for all of them) names the seqs
 * appended and, when small, carries the events: a stream that has sent everything before them
 * writes them with no query; any other reads from its last sequence number, as for an older
 * worker's payload (the turn id alone: during a rolling deploy both run side by side). Streams never poll, so
 * an idle stream costs no query. After the connection drops and comes back, and every
 * SWEEP_EVERY_MS while streams are open, one query reads every watched turn's `last_seq` and wakes
 * the streams that are behind it — nothing missed, nothing read twice.
 */
export class TurnEventHub {
  private readonly watchers = new Map<string, Set<TurnWatcher>>();
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;
  /** A sweep was asked for while one ran (e.g. a reconnect during a sweep): run another after it. */
  private sweepAgain = false;

  constructor(
    private readonly listener: PgListener,
    private readonly logger: Logger,
    private readonly sweepEveryMs = SWEEP_EVERY_MS,
  ) {
    listener.on(TURN_EVENTS_CHANNEL, {
      notify: (payload) => {
        const notification = decodeTurnNotification(payload);
        if (notification) this.wake(notification.turnId, notification.appended);
        else this.logger.warn({ payload: payload.slice(0, 200) }, 'turn event notification without a turn id; the sweep catches up');
      },
      // Whatever was appended while nobody listened: streams behind their turn's log catch up.
      listening: () => void this.sweep(),
    });
  }

  /** Wakes `watcher` whenever its turn may have new events; returns the unsubscribe function. */
  subscribe(turnId: string, watcher: TurnWatcher): () => void {
    let set = this.watchers.get(turnId);
    if (!set) this.watchers.set(turnId, (set = new Set()));
    set.add(watcher);
    this.sweeper ??= setInterval(() => void this.sweep(), this.sweepEveryMs).unref();
    return () => {
      set.delete(watcher);
      if (set.size === 0 && this.watchers.get(turnId) === set) this.watchers.delete(turnId);
      if (this.watchers.size === 0) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    };
  }

  private wake(turnId: string, appended: Appended | undefined): void {
    for (const watcher of this.watchers.get(turnId) ?? []) watcher.wake(appended);
  }

  private wakeAll(): void {
    for (const set of this.watchers.values()) for (const watcher of set) watcher.wake();
  }

  /**
   * One query on the LISTEN connection (no pool slot, and it fails and recovers with the
   * listener) for the `last_seq` of every watched turn; wakes the streams that have not sent it.
   * When the query fails, every stream reads for itself: a stream lost nothing by reading once more.
   */
  private async sweep(): Promise<void> {
    if (!this.listener.listening || this.watchers.size === 0) return;
    if (this.sweeping) {
      this.sweepAgain = true;
      return;
    }
    this.sweeping = true;
    this.sweepAgain = false;
    try {
      const rows = await this.listener.query<{ id: string; last_seq: number }>('select id, last_seq from turns where id = any($1::text[])', [
        [...this.watchers.keys()],
      ]);
      for (const { id, last_seq } of rows) {
        for (const watcher of this.watchers.get(id) ?? []) if (watcher.seen() < last_seq) watcher.wake();
      }
    } catch (err) {
      this.logger.debug({ err }, 'turn event sweep failed; every stream reads once');
      this.wakeAll();
    } finally {
      this.sweeping = false;
    }
    if (this.sweepAgain) await this.sweep();
  }

  get streams(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  /** Stops the periodic sweep (the listener is closed by its owner). */
  close(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
