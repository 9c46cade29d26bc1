import pg from 'pg';
import { TURN_EVENTS_CHANNEL } from '../../db/repositories/turns';
import type { Logger } from '../../infra/logger';

type Listener = () => void;

/**
 * One `LISTEN turn_events` connection per API process, fanned out to the streams it serves.
 * A notification carries only a turn id; each stream then reads its new rows. If the connection
 * drops, it reconnects with backoff and wakes every stream (which re-reads, losing nothing).
 */
export class TurnEventHub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = 250;

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl, keepAlive: true });
    client.on('notification', (msg) => {
      if (msg.payload) this.wake(msg.payload);
    });
    // A server shutdown can come as 'error', as 'end', or both: reconnect once per client.
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost || this.closed) return;
      lost = true;
      this.logger.warn({ err }, 'turn event listener lost its connection; reconnecting');
      void client.end().catch(() => undefined);
      this.reconnect();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    try {
      await client.connect();
      await client.query(`LISTEN ${TURN_EVENTS_CHANNEL}`);
    } catch (err) {
      lost = true; // the caller retries; this client is done
      void client.end().catch(() => undefined);
      throw err;
    }
    this.client = client;
    this.retryMs = 250;
    this.wakeAll();
  }

  private reconnect(): void {
    this.client = undefined;
    if (this.closed) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 5000);
    setTimeout(() => {
      if (this.closed) return;
      this.connect().catch((err: unknown) => {
        this.logger.warn({ err }, 'turn event listener could not reconnect');
        this.reconnect();
      });
    }, delay).unref();
  }

  /** Calls `listener` whenever the turn may have new events; returns the unsubscribe function. */
  subscribe(turnId: string, listener: Listener): () => void {
    let set = this.listeners.get(turnId);
    if (!set) this.listeners.set(turnId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(turnId);
    };
  }

  private wake(turnId: string): void {
    for (const listener of this.listeners.get(turnId) ?? []) listener();
  }

  private wakeAll(): void {
    for (const set of this.listeners.values()) for (const listener of set) listener();
  }

  get streams(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
  }
}
