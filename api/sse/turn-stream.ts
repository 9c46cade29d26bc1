import { EVENTS_PAGE_SIZE, type TurnsRepository } from '../../db/turns/repository';
import type { Appended, EventText } from '../../db/turns/notification';
import { isTerminal, type TurnEvent, turnEventSchema } from '../../domain/turn-events';
import { visitorRefusal, visitorTerminal } from '../../domain/visitor-events';
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
 * idle stream costs no query; a notification that carries the very next events is written with
 * no read at all. Wire format (docs/http-api.md: SSE wire format):
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

/**
 * Who reads a stream: `key`, the workspace with its API key, reads every event as written; a
 * `visitor` (the public routes: public chat, test URLs, the embed, the hosted page) reads the
 * terminal `error` event as domain/visitor-events.ts rewrites it, never the workspace's message.
 */
export type StreamReader = 'key' | 'visitor';

/** A terminal `error` event's JSON as a visitor reads it; what does not parse is hidden as well. */
function visitorErrorData(data: string): string {
  let event: TurnEvent | undefined;
  try {
    const parsed = turnEventSchema.safeParse(JSON.parse(data));
    if (parsed.success) event = parsed.data;
  } catch {
    // Our own row; should it ever not parse, the visitor still gets the fixed sentence below.
  }
  return JSON.stringify(event?.type === 'error' ? visitorTerminal(event) : visitorRefusal(false));
}

export function streamTurn(
  ctx: ApiContext,
  deps: { turns: TurnsRepository; hub: TurnEventHub },
  turnId: string,
  afterSeq: number,
  opts: TurnStreamOptions,
  reader: StreamReader = 'key',
): void {
  startEventStream(ctx);
  ctx.req.socket.setNoDelay(true);
  // Written straight to the response rather than through a stream body Koa pipes: a PassThrough
  // and a pipe per open stream cost ~10 KB each. Every middleware sets its headers before `next()`,
  // so nothing touches the response after this; the first write sends the headers.
  ctx.respond = false;
  const out = ctx.res;

  let lastSeq = afterSeq;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  let reading = false;
  /** The highest seq a wake during a read asked for (Infinity: unknown); read again while it is not sent. */
  let wanted = 0;
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

  /**
   * Writes the events after `lastSeq`, in order, in one write; the terminal event ends the stream
   * (true). Events already sent are skipped: carried events may be written while a read that
   * also returns them is under way.
   */
  const write = (events: readonly EventText[]): boolean => {
    let chunk = '';
    for (const { seq, type, data } of events) {
      if (seq <= lastSeq) continue;
      const shown = reader === 'visitor' && type === 'error' ? visitorErrorData(data) : data;
      chunk += `id: ${seq}\nevent: ${type}\ndata: ${shown}\n\n`;
      lastSeq = seq;
      if (isTerminal({ type })) {
        out.write(chunk);
        finish();
        return true;
      }
    }
    if (chunk) out.write(chunk);
    return false;
  };

  const read = async (upTo = Infinity): Promise<void> => {
    if (finished) return;
    wanted = Math.max(wanted, upTo);
    if (reading) return;
    reading = true;
    try {
      while (wanted > lastSeq && !finished) {
        wanted = 0;
        const events = await deps.turns.eventTextsAfter({ turnId, seq: lastSeq });
        if (write(events)) return;
        if (events.length === EVENTS_PAGE_SIZE) wanted = Infinity; // a long backlog: keep reading
      }
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

  const wake = (appended?: Appended): void => {
    if (finished) return;
    if (!appended) return void read();
    if (appended.last <= lastSeq) return; // sent already: a read got there first
    // Exactly the next events: written as they came. A stream behind them reads from its last seq.
    if (appended.events && appended.first === lastSeq + 1) write(appended.events);
    else void read(appended.last);
  };

  // Subscribed before the first read: a notification during it is written (or skipped) by seq, or
  // makes the read go round again.
  const unsubscribe = deps.hub.subscribe(turnId, { wake, seen: () => lastSeq });
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
