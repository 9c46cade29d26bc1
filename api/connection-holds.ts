import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { RateLimitRefusal } from '../domain/errors';

/** Node's request listener (what Koa's `app.callback()` is, and what it is wrapped into). */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => unknown;

/** How a refusal is answered: this refusal, sent once `after` settles (none: at once). */
export interface RefusalAnswer {
  refusal: RateLimitRefusal;
  after?: Promise<unknown>;
}

/**
 * Where a request-rate refusal waits out its hold (README: Limits): in its answer, or in its
 * connection.
 *
 * The first refusal on a connection is answered when its hold is over. A flood's connections open
 * together, and their first refusals, answered over a whole hold instead of in one instant, come
 * back spread out (answered at once, they came back at once: bench:limits).
 *
 * A connection refused before has its next refusals answered at once, and reads nothing more until
 * that refusal's hold is over: the request it sends next stays unread in the socket (or, read
 * before, waits here before any middleware) and is handled then. A client that asks again the
 * instant it is answered still gets one answer per hold. But while it waits, the API keeps only a
 * paused socket and a timer, not a request in the middle of its middleware chain (about 9 KB,
 * bench:limits): a flood's few hundred held refusals were most of what every young-generation GC
 * of the API copied, and the calls of other clients waited out those pauses. The `retryAfter` of a refusal answered at once covers the hold,
 * so a client that honours it is never made to wait here.
 *
 * Per process and per connection: the state is keyed by socket and goes with it.
 */
export class ConnectionHolds {
  private readonly refused = new WeakSet<Socket>();
  /** A connection's next request is handled once this settles (it never rejects). */
  private readonly waits = new WeakMap<Socket, Promise<unknown>>();

  /** How `refusal`, decided for `req`, is answered (in `res`). */
  answer(req: IncomingMessage, res: ServerResponse, refusal: RateLimitRefusal): RefusalAnswer {
    const hold = refusal.hold;
    if (!hold) return { refusal };
    const socket = req.socket;
    if (!this.refused.has(socket)) {
      this.refused.add(socket);
      return { refusal, after: hold.over };
    }
    this.waits.set(socket, hold.over);
    this.stopReadingUntil(req, res, hold.over);
    return { refusal: hold.atOnce() };
  }

  /**
   * Stops reading `req`'s connection once `res` is sent and `req` read to its end, until `over`
   * settles: the client's next request stays in the kernel's socket buffer instead of being parsed
   * into a request that waits in the API (3.7 KB in 64 objects, heap snapshots; a flood's
   * connections spend most of their time waiting, and every young-generation GC copied their
   * requests). Not sooner: once the answer is sent, Node resumes the socket to read what is left of
   * the request's body. A request read before the pause (pipelined behind this one) waits in `gate`.
   */
  private stopReadingUntil(req: IncomingMessage, res: ServerResponse, over: Promise<unknown>): void {
    const socket = req.socket;
    const resume = () => {
      if (socket.destroyed) return;
      // What was left unread is read now, and after it the end of the connection if the client
      // has gone meanwhile (libuv sees that end on the poll after the read that drained the
      // socket): a request read now is handled two turns later, so that a departed client's
      // request is dropped, as one that waited in `gate` is.
      const before = this.waits.get(socket) ?? over;
      this.waits.set(socket, before.then(afterTwoTurns));
      socket.resume();
    };
    const pause = () => {
      if (socket.destroyed) return;
      socket.pause();
      over.then(resume, resume);
    };
    res.once('finish', () => (req.complete ? pause() : req.once('end', pause)));
  }

  /**
   * `handler`, except that a request on a connection waiting out a hold is handled once the hold is
   * over (or never, if the client has gone meanwhile). Requests pipelined behind it are handled
   * after it, in order.
   */
  gate(handler: RequestListener): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      const socket = req.socket;
      const wait = this.waits.get(socket);
      if (!wait) {
        handler(req, res);
        return;
      }
      this.waits.set(socket, handleAfter(this.waits, wait, req, res, handler));
    };
  }
}

/** Resolves once the event loop has polled its sockets twice more. */
const afterTwoTurns = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * `handler(req, res)` once `before` settles, unless the client has gone by then. The promise it
 * returns is the request's turn on its connection: `waiting` holds it for the socket until then
 * (a request sent behind it waits for it), and forgets it then unless a later one took its place.
 */
export function handleAfter(
  waiting: WeakMap<Socket, Promise<unknown>>,
  before: Promise<unknown>,
  req: IncomingMessage,
  res: ServerResponse,
  handler: RequestListener,
): Promise<void> {
  const socket = req.socket;
  const turn: Promise<void> = before
    .then(() => {
      if (waiting.get(socket) === turn) waiting.delete(socket);
      if (!socket.destroyed) handler(req, res);
    })
    // Koa's listener does not throw; should one, the connection goes rather than a promise unhandled.
    .catch((err: unknown) => {
      socket.destroy(err instanceof Error ? err : new Error(String(err)));
    });
  return turn;
}
