import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_RESUME_TIMEOUT_MS, Service, ServiceError, Turn, type TurnEvent } from '../src';
import { resolveOptions } from '../src/options';
import { resumePolicy } from '../src/turn-resume';
import { clientGone, collectEvents, failure, json, openEventStream, sseEvent, sseEvents, type Handler, type Received, within, writeThenDrop } from './support/test-server';

/**
 * Turns through outages, as an API restart (connections refused) or a database failover (503
 * with `Retry-After`) looks to the SDK, and `ws.turn(turnId)`, the way back to a turn the caller
 * lost track of. Waits are shortened through `resumePolicy` and the `resumeTimeout` option.
 */

/** A whole turn as the service streams it: seq n is events[n - 1]. */
const events: TurnEvent[] = [
  { type: 'start', turnId: 'trn_1' },
  { type: 'progress', steps: [{ id: 'stp_1', label: 'Reading', kind: 'read', status: 'active' }] },
  { type: 'text', text: 'Hello' },
  { type: 'tool', name: 'files.read', state: 'start' },
  { type: 'tool', name: 'files.read', state: 'end', ok: true },
  { type: 'text', text: ' world' },
  { type: 'file', path: 'out/report.md' },
  { type: 'done', reply: 'Hello world' },
];

const wire = (from: number, to = events.length): string => sseEvents(events, from, to);

const collect = (turn: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> => collectEvents(turn);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check()` holds, polling; fails after `ms`. */
async function until(check: () => boolean, what: string, ms = 3000): Promise<void> {
  const limit = Date.now() + ms;
  while (!check()) {
    if (Date.now() > limit) assert.fail(`${what}: not within ${ms} ms`);
    await sleep(5);
  }
}

/** A local service that can go away (connections refused, as while the API restarts) and come back on the same port. */
interface FlakyServer {
  baseURL: string;
  received: Received[];
  /** The time of each request, in the order of `received`. */
  times: number[];
  respond(handler: Handler): void;
  /** Stops listening and cuts every connection: from now on connections are refused. */
  down(): void;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

async function startFlakyServer(): Promise<FlakyServer> {
  const received: Received[] = [];
  const times: number[] = [];
  let handler: Handler = (_req, res) => json(res, 200, {});
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: bytes.toString('utf8'), bytes });
      times.push(Date.now());
      handler(req, res, received.at(-1)!);
    });
  };
  const listen = async (port: number): Promise<Server> => {
    const server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return server;
  };
  let server: Server | undefined = await listen(0);
  const { port } = server.address() as AddressInfo;
  const down = () => {
    server?.close();
    server?.closeAllConnections();
    server = undefined;
  };
  return {
    baseURL: `http://127.0.0.1:${port}`,
    received,
    times,
    respond: (next) => {
      handler = next;
    },
    down,
    up: async () => {
      server ??= await listen(port);
    },
    close: async () => down(),
  };
}

/** A fetch that records every attempt, refused ones included, and passes it on. */
function countingFetch(attempts: string[]): typeof fetch {
  return (input, init) => {
    attempts.push(`${init?.method ?? 'GET'} ${String(input)}`);
    return fetch(input, init);
  };
}

const unavailable = (code: string, retryAfter?: number) => ({
  error: { code, message: `${code === 'database_unavailable' ? 'PostgreSQL' : 'Temporal'} is not answering; try again shortly`, retryable: true, ...(retryAfter === undefined ? {} : { retryAfter }) },
});

const isPost = (r: Received) => r.method === 'POST';
const lastEventIds = (server: FlakyServer) => server.received.filter((r) => !isPost(r)).map((r) => r.headers['last-event-id']);

describe('SDK turns: resuming through outages, and ws.turn(turnId)', () => {
  let server: FlakyServer;
  const policy = { ...resumePolicy };
  before(async () => {
    server = await startFlakyServer();
    // Waits of 10-20 ms doubling to 50-100 ms: an outage's schedule, about 50 times faster.
    Object.assign(resumePolicy, { baseDelayMs: 20, maxDelayMs: 100 });
  });
  beforeEach(async () => {
    await server.up();
    server.received.length = 0;
    server.times.length = 0;
  });
  afterEach(() => Object.assign(resumePolicy, { baseDelayMs: 20, maxDelayMs: 100, connectMs: policy.connectMs }));
  after(async () => {
    Object.assign(resumePolicy, policy);
    await server.close();
  });

  const client = (options: { resumeTimeout?: number; attempts?: string[] } = {}) =>
    new Service({
      apiKey: 'k',
      baseURL: server.baseURL,
      ...(options.resumeTimeout === undefined ? {} : { resumeTimeout: options.resumeTimeout }),
      ...(options.attempts === undefined ? {} : { fetch: countingFetch(options.attempts) }),
    });

  describe('the resumeTimeout option', () => {
    it('defaults to 180000 ms (3 minutes), accepts 0, and must be a finite number of 0 or more', () => {
      assert.equal(DEFAULT_RESUME_TIMEOUT_MS, 180_000);
      assert.equal(resolveOptions({}).resumeTimeout, 180_000);
      assert.equal(resolveOptions({ resumeTimeout: 0 }).resumeTimeout, 0);
      assert.equal(resolveOptions({ resumeTimeout: 600_000 }).resumeTimeout, 600_000);
      for (const resumeTimeout of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
        assert.throws(() => new Service({ apiKey: 'k', resumeTimeout }), (e: unknown) => e instanceof RangeError && /resumeTimeout/.test(e.message));
      }
    });
  });

  describe('resuming', () => {
    it('goes on through an outage longer than the old 5 attempts: refused connections, 503s with Retry-After, a 408, a second drop', async () => {
      let gets = 0;
      server.respond((_req, res, received) => {
        if (isPost(received)) {
          openEventStream(res);
          res.write(wire(1, 3), () => {
            server.down(); // the API goes away mid-turn: the stream drops, connections are refused
            setTimeout(() => void server.up(), 600);
          });
          return;
        }
        gets++;
        if (gets === 1) json(res, 503, unavailable('database_unavailable', 0.05), { 'retry-after': '1' }); // the body's finer value wins
        else if (gets === 2) json(res, 503, unavailable('temporal_unavailable', 0.05));
        else if (gets === 3) json(res, 408, { error: { code: 'request_timeout', message: 'too slow', retryable: true } });
        else if (gets === 4) {
          openEventStream(res);
          writeThenDrop(res, wire(4, 6)); // progress, then a second drop
        } else if (gets === 5) writeThenDrop(res);
        else {
          openEventStream(res);
          res.end(wire(5)); // may resend events the client has: they are skipped
        }
      });
      const attempts: string[] = [];
      const turn = client({ resumeTimeout: 5000, attempts }).conversation('cnv_1').ask('Hi');
      assert.deepEqual(await within(5000, collect(turn), 'the turn'), events);
      assert.equal(await turn, 'Hello world');
      assert.deepEqual(lastEventIds(server), ['3', '3', '3', '3', '6', '6']);
      const refused = attempts.filter((a) => a.startsWith('GET')).length - lastEventIds(server).length;
      assert.ok(refused >= 6, `${refused} refused reconnections during the outage`);
      const [first, second, third] = server.times.slice(1);
      assert.ok(second! - first! >= 50 && third! - second! >= 50, 'the Retry-After of each 503 was waited');
    });

    it("honours Retry-After: a 429 body's retryAfter and a 503's Retry-After header are waited, though the backoff is shorter", async () => {
      let gets = 0;
      server.respond((_req, res, received) => {
        if (isPost(received)) {
          openEventStream(res);
          writeThenDrop(res, wire(1, 2));
          return;
        }
        gets++;
        if (gets === 1) json(res, 429, { error: { code: 'rate_limited', message: 'slow down', retryable: true, retryAfter: 0.3 } });
        else if (gets === 2) json(res, 503, { error: { code: 'database_unavailable', message: 'down', retryable: true } }, { 'retry-after': '1' });
        else {
          openEventStream(res);
          res.end(wire(3));
        }
      });
      assert.equal(await client().conversation('cnv_1').ask('Hi'), 'Hello world');
      const [, first, second, third] = server.times;
      const waits = [second! - first!, third! - second!];
      assert.ok(waits[0]! >= 300 && waits[0]! < 300 + 800, `waited ${waits[0]} ms after retryAfter 0.3`);
      assert.ok(waits[1]! >= 1000 && waits[1]! < 1000 + 800, `waited ${waits[1]} ms after Retry-After: 1`);
    });

    it('gives up when the budget is spent: connection_error naming the turn, saying it may still complete and how to get it', async () => {
      let dropped = 0;
      server.respond((_req, res, received) => {
        if (isPost(received)) {
          openEventStream(res);
          res.write(wire(1, 3), () => {
            dropped = Date.now();
            server.down(); // and stays down
          });
        }
      });
      const attempts: string[] = [];
      const turn = client({ resumeTimeout: 500, attempts }).conversation('cnv_1').ask('Hi');
      const seen = await within(5000, collect(turn), 'the turn');
      const elapsed = Date.now() - dropped;
      assert.ok(elapsed >= 500 && elapsed < 2500, `gave up ${elapsed} ms after the drop`);
      assert.deepEqual(seen.slice(0, 3), events.slice(0, 3));
      const last = seen.at(-1)!;
      assert.equal(seen.length, 4);
      assert.ok(last.type === 'error' && last.retryable, JSON.stringify(last));
      assert.match(
        last.message,
        /^lost the event stream of turn trn_1 and could not resume it within 0\.5 s \(the resumeTimeout option; last failure: could not reach .*ECONNREFUSED.*\)\. The turn may still complete on the service: get its outcome with ws\.turn\('trn_1'\), which replays its events and reply \(GET \/v1\/turns\/trn_1\/events\); asking again would start a new turn$/,
      );
      const error = await failure(turn);
      assert.deepEqual([error.code, error.status, error.retryable, error.turnId, error.message], ['connection_error', 0, true, 'trn_1', last.message]);
      assert.ok(attempts.length > 3, `only ${attempts.length - 1} reconnections`);

      // The documented way back: once the service is up again, ws.turn(turnId) gives the outcome.
      await server.up();
      server.respond((_req, res) => {
        openEventStream(res);
        res.end(wire(1));
      });
      assert.equal(await client().turn(error.turnId!), 'Hello world');
    });

    it('a Retry-After longer than the rest of the budget ends the turn at once, with the same error', async () => {
      server.respond((_req, res, received) => {
        if (isPost(received)) {
          openEventStream(res);
          writeThenDrop(res, wire(1, 1));
          return;
        }
        json(res, 503, unavailable('database_unavailable'), { 'retry-after': '30' });
      });
      const started = Date.now();
      const error = await within(4000, failure(client({ resumeTimeout: 3000 }).conversation('cnv_1').ask('Hi')), 'the turn');
      assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
      assert.deepEqual([error.code, error.turnId], ['connection_error', 'trn_1']);
      assert.match(error.message, /could not resume it within 3 s \(the resumeTimeout option; last failure: PostgreSQL is not answering; try again shortly\)\. The turn may still complete/);
      assert.deepEqual(lastEventIds(server), ['1']);
    });

    it('404 turn_not_found stops at once, even with the default 3-minute budget', async () => {
      server.respond((_req, res, received) => {
        if (isPost(received)) {
          openEventStream(res);
          writeThenDrop(res, wire(1, 2));
          return;
        }
        json(res, 404, { error: { code: 'turn_not_found', message: 'no such turn', retryable: false } });
      });
      const started = Date.now();
      const turn = client().conversation('cnv_1').ask('Hi');
      assert.deepEqual(await within(2000, collect(turn), 'the turn'), [...events.slice(0, 2), { type: 'error', message: 'no such turn', retryable: false }]);
      assert.ok(Date.now() - started < 1000, 'no waiting');
      const error = await failure(turn);
      assert.deepEqual([error.code, error.status, error.retryable, error.turnId], ['turn_not_found', 404, false, 'trn_1']);
      assert.equal(lastEventIds(server).length, 1);
    });

    it('a reconnection left without an answer fails after connectMs or the rest of the budget, whichever is longer', async () => {
      resumePolicy.connectMs = 100;
      server.respond((_req, res, received) => {
        if (isPost(received)) {
          openEventStream(res);
          writeThenDrop(res, wire(1, 1));
        } // the reconnection is never answered
      });
      const started = Date.now();
      const error = await within(3000, failure(client({ resumeTimeout: 400 }).conversation('cnv_1').ask('Hi')), 'the turn');
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 400 && elapsed < 2500, `gave up after ${elapsed} ms`);
      assert.equal(error.code, 'connection_error');
      assert.match(error.message, /last failure: no answer to the reconnection within 0\.\d+ s/);
      assert.equal(lastEventIds(server).length, 1, 'one reconnection, held until the budget ended');
    });

    it('resumeTimeout 0 disables resuming: the drop ends the turn at once, still naming the turn', async () => {
      server.respond((_req, res) => {
        openEventStream(res);
        writeThenDrop(res, wire(1, 2));
      });
      const error = await failure(client({ resumeTimeout: 0 }).conversation('cnv_1').ask('Hi'));
      assert.deepEqual([error.code, error.retryable, error.turnId], ['connection_error', true, 'trn_1']);
      assert.match(error.message, /^lost the event stream of turn trn_1 and did not resume it \(the resumeTimeout option is 0; last failure: .+\)\. The turn may still complete on the service: get its outcome with ws\.turn\('trn_1'\)/);
      assert.equal(server.received.length, 1);
    });

    it('break during a Retry-After wait aborts at once, without further requests', async () => {
      server.respond((_req, res, received) => {
        if (isPost(received)) {
          openEventStream(res);
          writeThenDrop(res, wire(1, 1));
          return;
        }
        json(res, 503, unavailable('database_unavailable', 5));
      });
      const turn = client().conversation('cnv_1').ask('Hi');
      const iterator = turn[Symbol.asyncIterator]();
      assert.deepEqual((await iterator.next()).value, events[0]);
      await until(() => server.received.length === 2, 'the reconnection');
      await sleep(50); // the SDK now waits the 5 s the service asked for
      const broke = Date.now();
      await iterator.return?.();
      const error = await within(1000, failure(turn), 'the awaited turn');
      assert.ok(Date.now() - broke < 300, `aborted after ${Date.now() - broke} ms`);
      assert.deepEqual([error.code, error.turnId], ['aborted', 'trn_1']);
      await sleep(200);
      assert.equal(server.received.length, 2);
    });

    it('break while reading a resumed stream closes that connection', async () => {
      let gone: Promise<boolean> | undefined;
      server.respond((_req, res, received) => {
        openEventStream(res);
        if (isPost(received)) {
          writeThenDrop(res, wire(1, 1));
          return;
        }
        gone = clientGone(res);
        res.write(wire(2, 3)); // and never finishes
      });
      const turn = client().conversation('cnv_1').ask('Hi');
      for await (const event of turn) if (event.type === 'text') break;
      await until(() => gone !== undefined, 'the reconnection');
      assert.equal(await within(2000, gone!, 'the server-side close'), true);
      assert.equal((await failure(turn)).code, 'aborted');
      assert.equal(server.received.length, 2);
    });

    it('the signal option aborts a backoff wait too', async () => {
      Object.assign(resumePolicy, { baseDelayMs: 2000, maxDelayMs: 4000 }); // the first wait is 1-2 s
      server.respond((_req, res) => {
        openEventStream(res);
        writeThenDrop(res, wire(1, 1));
      });
      const controller = new AbortController();
      const turn = client().conversation('cnv_1').ask('Hi', { signal: controller.signal });
      await until(() => turn.id !== undefined, 'the start event');
      await sleep(50);
      controller.abort();
      assert.equal((await within(800, failure(turn), 'the aborted turn')).code, 'aborted');
      assert.equal(server.received.length, 1);
    });

    it('a drop before the start event resumes from the beginning when the answer named the turn (X-Turn-Id)', async () => {
      server.respond((_req, res, received) => {
        if (isPost(received)) {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'x-turn-id': 'trn_1' });
          res.flushHeaders();
          writeThenDrop(res, ': keepalive\n\n');
          return;
        }
        openEventStream(res);
        res.end(wire(1));
      });
      const turn = client().conversation('cnv_1').ask('Hi');
      await until(() => turn.id !== undefined, 'the answer');
      assert.equal(turn.id, 'trn_1', 'known from the header, before the start event');
      assert.deepEqual(await collect(turn), events);
      assert.deepEqual(lastEventIds(server), ['0']);
      assert.equal(server.received[1]?.url, '/v1/turns/trn_1/events');
    });

    it('a 409 turn_in_progress names the running turn in error.turnId, for ws.turn()', async () => {
      server.respond((_req, res) =>
        json(res, 409, { error: { code: 'turn_in_progress', message: 'turn trn_4x7k of this conversation is still running', retryable: false } }),
      );
      const error = await failure(client().conversation('cnv_1').ask('Hi'));
      assert.deepEqual([error.code, error.status, error.turnId], ['turn_in_progress', 409, 'trn_4x7k']);
      server.respond((_req, res) => json(res, 409, { error: { code: 'conversation_ended', message: 'ended', retryable: false } }));
      assert.equal((await failure(client().conversation('cnv_1').ask('Hi'))).turnId, undefined);
    });
  });

  describe('ws.turn(turnId)', () => {
    beforeEach(() =>
      server.respond((_req, res) => {
        openEventStream(res);
        res.end(wire(1));
      }),
    );

    for (const variant of ['new Service()', 'Service.getWorkspace()'] as const) {
      it(`${variant}: sends nothing until used, then replays a finished turn from Last-Event-ID 0 to its reply`, async () => {
        const options = { apiKey: 'k', baseURL: server.baseURL };
        const ws = variant === 'new Service()' ? new Service(options) : Service.getWorkspace(options);
        const turn = ws.turn('trn_1');
        assert.ok(turn instanceof Turn);
        assert.equal(turn.id, 'trn_1');
        await sleep(50);
        assert.equal(server.received.length, 0, 'a handle makes no network call');
        assert.equal(await turn, 'Hello world');
        assert.deepEqual(await collect(turn), events, 'iterating after awaiting yields every event');
        assert.deepEqual(
          server.received.map((r) => [r.method, r.url, r.headers['last-event-id'], r.headers.authorization]),
          [['GET', '/v1/turns/trn_1/events', '0', 'Bearer k']],
        );
        assert.deepEqual(await collect(ws.turn('trn_1')), events, 'iterating alone');
        assert.equal(server.received.length, 2);
      });
    }

    it('follows a running turn live, through a drop', async () => {
      server.respond((_req, res, received) => {
        openEventStream(res);
        if (received.headers['last-event-id'] === '0') writeThenDrop(res, wire(1, 4));
        else setTimeout(() => res.end(wire(5)), 50);
      });
      const ws = client();
      const turn = ws.turn('trn_1');
      assert.deepEqual(await collect(turn), events);
      assert.equal(await turn, 'Hello world');
      assert.deepEqual(lastEventIds(server), ['0', '4']);
    });

    it('waits out a service that is unreachable at first (an API restart)', async () => {
      server.down();
      setTimeout(() => void server.up(), 300);
      const attempts: string[] = [];
      assert.equal(await within(3000, client({ resumeTimeout: 5000, attempts }).turn('trn_1').then((r) => r), 'the turn'), 'Hello world');
      assert.ok(attempts.length > 1, 'refused attempts were retried');
      assert.deepEqual(lastEventIds(server), ['0']);
    });

    it("rejects with the turn's own failure: turn_failed from an error event", async () => {
      server.respond((_req, res) => {
        openEventStream(res);
        res.end(wire(1, 3) + sseEvent(4, { type: 'error', message: 'the model is overloaded', retryable: true }));
      });
      const error = await failure(client().turn('trn_1'));
      assert.deepEqual([error.code, error.message, error.turnId], ['turn_failed', 'the model is overloaded', 'trn_1']);
    });

    it('an unknown turn rejects at once with 404 turn_not_found; a bad id or an aborted signal sends nothing', async () => {
      server.respond((_req, res) => json(res, 404, { error: { code: 'turn_not_found', message: 'no such turn', retryable: false } }));
      const ws = client();
      const error = await within(1000, failure(ws.turn('trn_nope')), 'the turn');
      assert.deepEqual([error.code, error.status, error.turnId], ['turn_not_found', 404, 'trn_nope']);
      assert.equal(server.received.length, 1);
      assert.equal((await failure(ws.turn('..'))).code, 'invalid_request');
      assert.equal((await failure(ws.turn('trn_1', { signal: AbortSignal.abort() }))).code, 'aborted');
      assert.equal(server.received.length, 1);
      assert.ok((await failure(ws.turn('trn_1', { signal: AbortSignal.abort() }))) instanceof ServiceError);
    });
  });
});
