import pg from 'pg';
import type { Logger } from '../../infra/logger';

/** What one channel's subscriber is told. */
export interface ChannelHandler {
  /** A notification on the channel, with its payload. */
  notify(payload: string): void;
  /** LISTEN is in place, at start and after each reconnect: notifications arrive from now on. */
  listening?(): void;
  /** The connection is lost: notifications sent from now until the next `listening` are missed. */
  lost?(): void;
}

/** Visible in `pg_stat_activity`, so an operator (or a test) can find the connection. */
export const LISTENER_APPLICATION_NAME = 'hosted-agents listener';

/** Channel names go into `LISTEN` unquoted: our own constants, checked. */
const CHANNEL = /^[a-z_]+$/;

/**
 * The one `LISTEN` connection of an API process, shared by every channel it follows (turn events,
 * API key revocations): one session per process, however many subscribers. Handlers are added
 * before `start`. When the connection drops it reconnects with backoff (250 ms doubling to 5 s),
 * telling each handler `lost` and then `listening`, since notifications sent in between are gone.
 */
export class PgListener {
  private readonly handlers = new Map<string, ChannelHandler>();
  private client: pg.Client | undefined;
  private started = false;
  private closed = false;
  private retryMs = 250;

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {}

  /** Routes `channel`'s notifications to `handler`; one handler per channel, before `start`. */
  on(channel: string, handler: ChannelHandler): void {
    if (this.started) throw new Error(`PgListener.on(${channel}) after start`);
    if (!CHANNEL.test(channel)) throw new Error(`not a channel name: ${channel}`);
    if (this.handlers.has(channel)) throw new Error(`channel ${channel} has a handler already`);
    this.handlers.set(channel, handler);
  }

  async start(): Promise<void> {
    this.started = true;
    await this.connect();
  }

  /** Whether LISTEN is in place now. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  /**
   * A query on the LISTEN connection: it takes no pool slot, and fails and recovers with the
   * listener. Fails when the connection is down.
   */
  async query<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    if (!this.client) throw new Error('the LISTEN connection is down');
    return (await this.client.query<R>(sql, params)).rows;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl, keepAlive: true, application_name: LISTENER_APPLICATION_NAME });
    client.on('notification', (msg) => {
      if (msg.payload !== undefined) this.handlers.get(msg.channel)?.notify(msg.payload);
    });
    // A server shutdown can come as 'error', as 'end', or both: reconnect once per client.
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost || this.closed) return;
      lost = true;
      this.logger.warn({ err }, 'the LISTEN connection was lost; reconnecting');
      void client.end().catch(() => undefined);
      this.client = undefined;
      for (const handler of this.handlers.values()) handler.lost?.();
      this.reconnect();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      lost = true; // the caller retries; this client is done
      void client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = 250;
    for (const handler of this.handlers.values()) handler.listening?.();
  }

  private reconnect(): void {
    if (this.closed) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 5000);
    setTimeout(() => {
      if (this.closed) return;
      this.connect().catch((err: unknown) => {
        this.logger.warn({ err }, 'the LISTEN connection could not reconnect');
        this.reconnect();
      });
    }, delay).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    for (const handler of this.handlers.values()) handler.lost?.();
    await client?.end().catch(() => undefined);
  }
}
