import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import Koa from 'koa';
import { ConnectionHolds } from '../../api/connection-holds';
import type { ApiState } from '../../api/context';
import { errorHandler } from '../../api/middleware/errors';
import { answerAfterHold } from '../../api/middleware/held-answers';
import { RateLimitRefusal } from '../../domain/errors';
import { createLogger } from '../../infra/logger';

const HOLD_MS = 300;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  retryAfter: string | undefined;
  /** ms from sending the request to its whole answer. */
  ms: number;
}

/** A keep-alive connection written to by hand, so that every request of a test shares it (a pool would not promise that). */
class Connection {
  private buffer = '';
  private readonly waiting: Array<{ sent: number; resolve: (a: Answer) => void }> = [];

  private constructor(readonly socket: net.Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.drain();
    });
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends requests for `paths` in one write (more than one: pipelined); resolves each one's answer. */
  send(...paths: string[]): Array<Promise<Answer>> {
    const sent = performance.now();
    const answers = paths.map(() => new Promise<Answer>((resolve) => this.waiting.push({ sent, resolve })));
    this.socket.write(paths.map((p) => `GET ${p} HTTP/1.1\r\nhost: test\r\nconnection: keep-alive\r\n\r\n`).join(''));
    return answers;
  }

  /** Writes `head` (a request's head) now and `body` `bodyAfterMs` later; resolves the answer. */
  sendSlowBody(head: string, body: string, bodyAfterMs: number): Promise<Answer> {
    const answer = new Promise<Answer>((resolve) => this.waiting.push({ sent: performance.now(), resolve }));
    this.socket.write(head);
    setTimeout(() => this.socket.write(body), bodyAfterMs);
    return answer;
  }

  async ask(path: string): Promise<Answer> {
    return this.send(path)[0]!;
  }

  private drain(): void {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buffer.slice(0, end);
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (this.buffer.length < end + 4 + length) return;
      this.buffer = this.buffer.slice(end + 4 + length);
      const next = this.waiting.shift();
      if (!next) throw new Error(`an answer nobody asked for: ${head}`);
      next.resolve({
        status: Number(head.split(' ')[1]),
        retryAfter: /\r\nretry-after: (\S+)/i.exec(head)?.[1],
        ms: performance.now() - next.sent,
      });
    }
  }
}

describe('connection holds: a connection refused before waits out its holds in the connection', () => {
  let server: Server;
  let port: number;
  /** When the app's handlers first saw each request, by path (ms, `performance.now()`). */
  const seen = new Map<string, number>();
  /** When the server parsed each request (its `request` event), by path. */
  const parsed = new Map<string, number>();

  before(async () => {
    const holds = new ConnectionHolds();
    const app = new Koa<ApiState>();
    app.silent = true;
    app.use(answerAfterHold);
    app.use(errorHandler(createLogger('silent'), holds));
    app.use((ctx) => {
      seen.set(ctx.url, performance.now());
      if (ctx.path === '/refuse') {
        throw new RateLimitRefusal('test', 'too many tests; try again in 1 s', 1, {
          over: sleep(HOLD_MS),
          atOnce: () => new RateLimitRefusal('test', 'too many tests; try again in 3 s', 3),
        });
      }
      ctx.body = 'ok';
    });
    server = createServer(holds.gate(app.callback()));
    server.on('request', (req: IncomingMessage) => parsed.set(req.url ?? '', performance.now()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("the first refusal is answered after its hold; the next at once, and the connection's next request waits for its hold before any handler sees it", async () => {
    const conn = await Connection.open(port);
    try {
      const first = await conn.ask('/refuse');
      assert.equal(first.status, 429);
      assert.ok(first.ms >= HOLD_MS - 10, `the first refusal answered after ${first.ms.toFixed(0)} ms`);
      assert.equal(first.retryAfter, '1', 'net of the hold it waited');

      const second = await conn.ask('/refuse');
      assert.equal(second.status, 429);
      assert.ok(second.ms < HOLD_MS / 2, `a second refusal on the connection answered after ${second.ms.toFixed(0)} ms, not at once`);
      assert.equal(second.retryAfter, '3', 'answered at once, it names the wait that covers the hold');

      // Meanwhile another connection is not held back.
      const other = await Connection.open(port);
      const sent = performance.now();
      const [waited, elsewhere] = await Promise.all([conn.ask('/ok?after-refusal'), other.ask('/ok?elsewhere')]);
      other.socket.destroy();
      assert.equal(waited.status, 200, 'handled once the hold is over');
      assert.ok(waited.ms >= HOLD_MS - 10, `the request after an at-once refusal answered after ${waited.ms.toFixed(0)} ms`);
      assert.ok(seen.get('/ok?after-refusal')! - sent >= HOLD_MS - 10, 'no handler saw it before the hold was over');
      // It was not even read before: it waited unparsed in the socket, not as a request object in the API.
      assert.ok(parsed.get('/ok?after-refusal')! - sent >= HOLD_MS - 10, `parsed ${(parsed.get('/ok?after-refusal')! - sent).toFixed(0)} ms after it was sent`);
      assert.equal(elsewhere.status, 200);
      assert.ok(elsewhere.ms < HOLD_MS / 2, `another connection answered after ${elsewhere.ms.toFixed(0)} ms`);

      // Its hold over, the connection is served at once again, and a new connection's first refusal is held.
      const again = await conn.ask('/ok?again');
      assert.ok(again.ms < HOLD_MS / 2, `answered after ${again.ms.toFixed(0)} ms`);
      const fresh = await Connection.open(port);
      const freshRefusal = await fresh.ask('/refuse');
      fresh.socket.destroy();
      assert.ok(freshRefusal.ms >= HOLD_MS - 10, `a new connection's first refusal answered after ${freshRefusal.ms.toFixed(0)} ms`);
    } finally {
      conn.socket.destroy();
    }
  });

  it('requests pipelined behind a waiting one are handled after it, in order', async () => {
    const conn = await Connection.open(port);
    try {
      await conn.ask('/refuse');
      await conn.ask('/refuse');
      const sent = performance.now();
      const answers = await Promise.all(conn.send('/ok?p1', '/ok?p2', '/ok?p3'));
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200],
      );
      const handled = ['/ok?p1', '/ok?p2', '/ok?p3'].map((p) => seen.get(p)! - sent);
      assert.ok(handled[0]! >= HOLD_MS - 10, `the first handled after ${handled[0]!.toFixed(0)} ms`);
      assert.ok(handled[0]! <= handled[1]! && handled[1]! <= handled[2]!, `handled at ${handled.map((ms) => ms.toFixed(0)).join(', ')} ms`);
    } finally {
      conn.socket.destroy();
    }
  });

  it("a refused request's body is still read to its end; then the connection reads nothing until the hold is over", async () => {
    const conn = await Connection.open(port);
    try {
      await conn.ask('/refuse');
      const body = 'x'.repeat(1024);
      const head = `PUT /refuse?upload HTTP/1.1\r\nhost: test\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\n\r\n`;
      const refused = await conn.sendSlowBody(head, body, 30);
      assert.equal(refused.status, 429);
      assert.ok(refused.ms < HOLD_MS / 2, `answered after ${refused.ms.toFixed(0)} ms, not at once`);
      await sleep(60); // the body has been written by now
      const sent = performance.now();
      const next = await conn.ask('/ok?after-body');
      assert.equal(next.status, 200, 'the body was read as a body, not as the next request');
      const parsedAfter = parsed.get('/ok?after-body')! - sent;
      assert.ok(parsedAfter >= HOLD_MS - 100 - 10, `the request after it was parsed ${parsedAfter.toFixed(0)} ms after it was sent`);
    } finally {
      conn.socket.destroy();
    }
  });

  it('a request waiting on a connection its client has left is never handled', async () => {
    const conn = await Connection.open(port);
    await conn.ask('/refuse');
    await conn.ask('/refuse');
    void conn.send('/ok?left');
    await sleep(20);
    conn.socket.destroy();
    await sleep(HOLD_MS + 100);
    assert.equal(seen.has('/ok?left'), false, 'the handlers ran a request whose client had gone');
  });
});
