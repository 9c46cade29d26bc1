import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Node's request listener (what Koa's `app.callback()` is, and what it is wrapped into). */
export type RequestListener = (req: IncomingMessage, res: ServerResponse) => unknown;

/** New connections' first requests started per event-loop turn while others wait: a turn spends a few ms on them at most. */
const NEW_CONNECTIONS_PER_TURN = 8;

/**
 * Under a storm of new connections (a flood's clients connect together), their first requests
 * start a few per event-loop turn, in arrival order, and a connection served before never waits
 * for them: otherwise the API runs the whole storm into its middleware before it reads any other
 * socket or database answer again. With no storm under way a request starts at once. Nothing is
 * refused or counted. A request pipelined behind a waiting one waits behind it; one whose client
 * has gone meanwhile is dropped. Per process: the state is keyed by socket and goes with it.
 */
export function admitNewConnections(handler: RequestListener, perTurn = NEW_CONNECTIONS_PER_TURN): RequestListener {
  const seen = new WeakSet<Socket>();
  /** A connection's requests still waiting: the last one's turn (never rejects). */
  const waiting = new WeakMap<Socket, Promise<void>>();
  const queue: Array<() => void> = [];
  let startedThisTurn = 0;
  let turnScheduled = false;

  const scheduleTurn = () => {
    if (turnScheduled) return;
    turnScheduled = true;
    setImmediate(() => {
      turnScheduled = false;
      startedThisTurn = 0;
      for (; queue.length > 0 && startedThisTurn < perTurn; startedThisTurn++) queue.shift()!();
      if (startedThisTurn > 0) scheduleTurn();
    });
  };
  const after = (before: Promise<void>, req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    const turn: Promise<void> = before.then(() => {
      if (waiting.get(socket) === turn) waiting.delete(socket);
      if (!socket.destroyed) handler(req, res);
    });
    waiting.set(socket, turn);
  };

  return (req, res) => {
    const socket = req.socket;
    const behind = waiting.get(socket);
    if (behind) return after(behind, req, res);
    if (seen.has(socket)) return handler(req, res);
    seen.add(socket);
    if (queue.length === 0 && startedThisTurn < perTurn) {
      startedThisTurn++;
      scheduleTurn();
      return handler(req, res);
    }
    after(new Promise<void>((resolve) => queue.push(resolve)), req, res);
    scheduleTurn();
    return undefined;
  };
}
