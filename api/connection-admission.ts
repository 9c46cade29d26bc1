import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { handleAfter, type RequestListener } from './connection-holds';

/**
 * New connections' first requests started per turn of the event loop while others wait (README:
 * Limits). One costs the API about 0.2–0.3 ms before its first await, so a turn spends at most a
 * few milliseconds on them before it reads its sockets again.
 */
const NEW_CONNECTIONS_PER_TURN = 8;

/**
 * Under a storm of new connections, their first requests are started a few per event-loop turn, in
 * the order they came, and a connection already served is never made to wait for them.
 *
 * A flood's clients connect together: 200 connections and their first requests arrived in one
 * instant of bench:limits, and the API ran all 200 into its middleware before reading any other
 * socket again (the event loop stalled 30–90 ms; a well-behaved keep-alive client's answer then took
 * 30–155 ms). Started NEW_CONNECTIONS_PER_TURN a turn, the rest wait between turns, during which the
 * API reads its sockets (an established connection's request is started when read) and its database
 * answers. When no storm is under way a new connection's request starts at once, as before.
 *
 * A request pipelined behind a waiting one waits behind it; a request whose client has gone while it
 * waited is dropped. Per process: the state is keyed by socket and goes with it.
 */
export class ConnectionAdmission {
  /** Connections whose first request has been started (or is waiting to be). */
  private readonly seen = new WeakSet<Socket>();
  /** A connection's requests still waiting to be started: the last one's turn (never rejects). */
  private readonly waiting = new WeakMap<Socket, Promise<unknown>>();
  private readonly queue: Array<() => void> = [];
  private startedThisTurn = 0;
  private turnScheduled = false;

  constructor(private readonly perTurn = NEW_CONNECTIONS_PER_TURN) {}

  gate(handler: RequestListener): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      const socket = req.socket;
      const behind = this.waiting.get(socket);
      if (behind) {
        this.waiting.set(socket, handleAfter(this.waiting, behind, req, res, handler));
        return;
      }
      if (this.seen.has(socket)) {
        handler(req, res);
        return;
      }
      this.seen.add(socket);
      if (this.queue.length === 0 && this.startedThisTurn < this.perTurn) {
        this.startedThisTurn++;
        this.scheduleTurn();
        handler(req, res);
        return;
      }
      const admitted = new Promise<void>((resolve) => this.queue.push(resolve));
      this.waiting.set(socket, handleAfter(this.waiting, admitted, req, res, handler));
      this.scheduleTurn();
    };
  }

  /** The next turn starts the next few waiting requests, and counts afresh. */
  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    setImmediate(() => {
      this.turnScheduled = false;
      this.startedThisTurn = 0;
      while (this.queue.length > 0 && this.startedThisTurn < this.perTurn) {
        this.startedThisTurn++;
        this.queue.shift()!();
      }
      if (this.startedThisTurn > 0) this.scheduleTurn();
    });
  }
}
