import { EVENTS_PAGE_SIZE, type TurnsRepository } from '../../db/repositories/turns';
import { isTerminal, type TurnEvent } from '../../domain/turn-events';
import type { ApiContext } from '../context';
import type { TurnEventHub } from './event-hub';
import type { Keepalives } from './keepalives';

export interface TurnStreamOptions {
  /** The process's shared keepalive timer. */
  keepalives: Keepalives;
  /** Told of each failed read (the stream retries it); for logging. */
  onReadError?: (err: unknown) => void;
  /** Told when a stream opens; what it returns is called once when that stream closes (the open-streams gauge). */
  opened?: () => () => void;
}

/**
 * Answers with the turn's events after `afterSeq` as Server-Sent Events, then follows the log
 * live until the terminal event, which ends the stream. It reads only when the hub wakes it (a
 * notification for its turn, or the hub finding it behind), never on a timer of its own, so an
 * idle stream costs no query. Wire format (README: SSE wire format):
 * `id: <seq>`, `event: <type>`, `data: <TurnEvent JSON>`, blank line; `: keepalive` every 15 s.
 */
function startEventStream(ctx: ApiContext): void {
  ctx.status = 200;
  ctx.set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    // Proxies must neither buffer nor compress a stream.
    'Cache-Control': 'no-cache, no-transform',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
}

/** A stream that is only its terminal event: a refusal a browser shows like any failed turn. */
export function streamOnly(ctx: ApiContext, event: TurnEvent & { type: 'error' }): void {
  startEventStream(ctx);
  ctx.body = `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function streamTurn(
  ctx: ApiContext,
  deps: { turns: TurnsRepository; hub: TurnEventHub },
  turnId: string,
  afterSeq: number,
  opts: TurnStreamOptions,
): void {
  startEventStream(ctx);
  ctx.req.socket.setNoDelay(true);
  // Written straight to the response rather than through a stream body Koa pipes: no PassThrough
  // and pipe per open stream (bench:streams). Every middleware sets its headers before `next()`,
  // so nothing touches the response after this; the first write sends the headers.
  ctx.respond = false;
  const out = ctx.res;

  let lastSeq = afterSeq;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  let reading = false;
  let again = false;
  let finished = false;
  const closed = opts.opened?.();

  const finish = () => {
    if (finished) return;
    finished = true;
    closed?.();
    unsubscribe();
    stopKeepalive();
    clearTimeout(retry);
    out.end();
  };

  const read = async (): Promise<void> => {
    if (finished) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const events = await deps.turns.eventsAfter({ turnId, seq: lastSeq });
        let chunk = '';
        for (const { seq, event } of events) {
          chunk += `id: ${seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
          lastSeq = seq;
          if (isTerminal(event)) {
            out.write(chunk);
            finish();
            return;
          }
        }
        if (chunk) out.write(chunk);
        if (events.length === EVENTS_PAGE_SIZE) again = true; // a long backlog: keep reading
      } while (again && !finished);
      failures = 0;
    } catch (err) {
      // A failed read (the database restarting, a failover) keeps the stream open: keepalives go
      // on and the read is tried again with backoff from `lastSeq`, so nothing is lost or repeated.
      failures++;
      opts.onReadError?.(err);
      if (!finished && !retry) {
        retry = setTimeout(() => {
          retry = undefined;
          void read();
        }, Math.min(250 * 2 ** Math.min(failures - 1, 5), 5000));
      }
    } finally {
      reading = false;
    }
  };

  // Subscribed before the first read: a notification during it makes the read go round again.
  const unsubscribe = deps.hub.subscribe(turnId, { wake: () => void read(), seen: () => lastSeq });
  const stopKeepalive = opts.keepalives.add(() => out.write(': keepalive\n\n'));
  out.on('close', finish);
  void read();
}

/** `Last-Event-ID` (or `?lastEventId=`) as a sequence number; 0 replays from the start. */
export function lastEventId(ctx: ApiContext): number | undefined {
  const raw = ctx.get('last-event-id') || (typeof ctx.query.lastEventId === 'string' ? ctx.query.lastEventId : '');
  if (raw === '') return 0;
  return /^\d{1,9}$/.test(raw) ? Number(raw) : undefined;
}
