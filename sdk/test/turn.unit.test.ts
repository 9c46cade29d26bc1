import assert from 'node:assert/strict';
import { Service, ServiceError, Turn, type TurnEvent } from '../src';
import { resumePolicy } from '../src/turn-resume';
import { clientGone, collectEvents, failure, json, openEventStream, sseEvent, sseEvents, startTestServer, type Received, type TestServer, within, writeThenDrop } from './support/test-server';

/** A whole turn as the service streams it: seq n is events[n - 1]. */
const events: TurnEvent[] = [
  { type: 'start', turnId: 'trn_1' },
  { type: 'progress', steps: [{ id: 'stp_1', label: 'Reading the brief', kind: 'read', status: 'active' }] },
  { type: 'text', text: 'Let me check' },
  { type: 'tool', name: 'files.read', state: 'start' },
  { type: 'tool', name: 'files.read', state: 'end', ok: true },
  { type: 'text', text: 'Draft' },
  { type: 'text', text: 'Hello', reset: true },
  { type: 'text', text: ' world' },
  { type: 'progress', steps: [{ id: 'stp_1', label: 'Reading the brief', kind: 'read', status: 'done' }] },
  { type: 'file', path: 'out/report.md' },
  { type: 'done', reply: 'Hello world' },
];

const wire = (from: number, to = events.length): string => sseEvents(events, from, to);

const collect = (turn: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> => collectEvents(turn);

function calls(server: TestServer): string[] {
  return server.received.map((r) => `${r.method} ${r.url}`);
}

function isPost(received: Received): boolean {
  return received.method === 'POST';
}

const turnsPath = '/v1/conversations/cnv_1/turns';
const resumePath = '/v1/turns/trn_1/events';

describe('SDK turns: conversation.ask() returns a Turn, awaitable and iterable', () => {
  let server: TestServer;
  let ws: Service;
  const policy = { ...resumePolicy };
  before(async () => {
    server = await startTestServer();
    ws = new Service({ apiKey: 'k', baseURL: server.baseURL });
    // Keep reconnection tests quick: waits from 10-20 ms, doubling, jittered, up to 160-320 ms.
    Object.assign(resumePolicy, { baseDelayMs: 20, maxDelayMs: 320 });
  });
  beforeEach(() => {
    server.received.length = 0;
    server.respond((_req, res) => {
      openEventStream(res);
      res.end(wire(1));
    });
  });
  after(async () => {
    Object.assign(resumePolicy, policy);
    await server.close();
  });

  describe('one request, shared by awaiting and iterating', () => {
    it('awaiting resolves to the reply of the done event; one POST carrying { text }', async () => {
      const turn = ws.conversation('cnv_1').ask('Hi there');
      assert.ok(turn instanceof Turn);
      assert.equal(await turn, 'Hello world');
      assert.deepEqual(calls(server), [`POST ${turnsPath}`]);
      const [req] = server.received;
      assert.deepEqual(JSON.parse(req!.body), { text: 'Hi there' });
      assert.equal(req!.headers['content-type'], 'application/json');
      assert.equal(req!.headers.accept, 'text/event-stream');
      assert.equal(req!.headers.authorization, 'Bearer k');
    });

    it('iterating yields exactly the events in order, the text reset flag included', async () => {
      const seen = await collect(ws.conversation('cnv_1').ask('Hi'));
      assert.deepEqual(seen, events);
      const reset = seen.filter((e) => e.type === 'text' && e.reset === true);
      assert.deepEqual(reset, [{ type: 'text', text: 'Hello', reset: true }]);
      assert.equal(server.received.length, 1);
    });

    it('the request is sent when ask() is called, even if the turn is never consumed', async () => {
      const sent = new Promise<void>((resolve) =>
        server.respond((_req, res) => {
          openEventStream(res);
          res.end(wire(1));
          resolve();
        }),
      );
      ws.conversation('cnv_1').ask('fire and forget');
      await within(2000, sent, 'the POST');
      assert.deepEqual(calls(server), [`POST ${turnsPath}`]);
    });

    it('awaiting and iterating the same Turn share one POST, in either order', async () => {
      const turn = ws.conversation('cnv_1').ask('Hi');
      const [reply, seen] = await Promise.all([turn, collect(turn)]);
      assert.equal(reply, 'Hello world');
      assert.deepEqual(seen, events);
      assert.equal(await turn, 'Hello world', 'awaiting again after iterating');
      assert.equal(await turn.then((r) => r.length), 11);

      const later = ws.conversation('cnv_1').ask('Hi');
      assert.equal(await later, 'Hello world');
      assert.deepEqual(await collect(later), events, 'iterating after awaiting yields every buffered event');
      assert.deepEqual(calls(server), [`POST ${turnsPath}`, `POST ${turnsPath}`]);
    });

    it('a Turn can be iterated once: a second iteration throws a clear Error', async () => {
      const turn = ws.conversation('cnv_1').ask('Hi');
      await collect(turn);
      assert.throws(() => turn[Symbol.asyncIterator](), (error: unknown) => {
        assert.ok(error instanceof Error && !(error instanceof ServiceError));
        assert.match(error.message, /iterated only once/);
        return true;
      });
      await assert.rejects(collect(turn), /iterated only once/);
      assert.equal(await turn, 'Hello world', 'awaiting is still allowed');
      assert.equal(server.received.length, 1);
    });

    it('turn.id is undefined until the start event, then the turnId', async () => {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      server.respond((_req, res) => {
        openEventStream(res);
        void held.then(() => res.end(wire(1)));
      });
      const turn = ws.conversation('cnv_1').ask('Hi');
      assert.equal(turn.id, undefined);
      release();
      await turn;
      assert.equal(turn.id, 'trn_1');
    });

    it('catch and finally work like a promise', async () => {
      let finished = false;
      assert.equal(await ws.conversation('cnv_1').ask('Hi').finally(() => (finished = true)), 'Hello world');
      assert.ok(finished);
      server.respond((_req, res) => json(res, 409, { error: { code: 'turn_in_progress', message: 'busy', retryable: false } }));
      const code = await ws
        .conversation('cnv_1')
        .ask('Hi')
        .catch((error: unknown) => (error instanceof ServiceError ? error.code : 'other'));
      assert.equal(code, 'turn_in_progress');
    });

    it('keepalive comments are ignored, wherever they fall', async () => {
      server.respond((_req, res) => {
        openEventStream(res);
        res.write(': keepalive\n\n');
        res.write(wire(1, 3));
        res.write(': keepalive\n\n: keepalive\n');
        res.end(`\n${wire(4)}: keepalive\n\n`);
      });
      assert.deepEqual(await collect(ws.conversation('cnv_1').ask('Hi')), events);
    });

    it('the timeout option does not apply to the stream: a slow turn still completes', async () => {
      const slow = new Service({ apiKey: 'k', baseURL: server.baseURL, timeout: 100 });
      server.respond((_req, res) => {
        openEventStream(res);
        res.write(wire(1, 1));
        setTimeout(() => res.write(': keepalive\n\n'), 150);
        setTimeout(() => res.end(wire(2)), 400);
      });
      const started = Date.now();
      assert.deepEqual(await collect(slow.conversation('cnv_1').ask('Hi')), events);
      assert.ok(Date.now() - started >= 350, 'the stream did not wait for the slow events');
      assert.equal(server.received.length, 1);
    });

    it('unknown event types are skipped; the known ones still arrive', async () => {
      server.respond((_req, res) => {
        openEventStream(res);
        res.end(wire(1, 1) + sseEvent(2, { type: 'usage', tokens: 12 }) + wire(3));
      });
      assert.deepEqual(await collect(ws.conversation('cnv_1').ask('Hi')), [events[0], ...events.slice(2)]);
    });
  });

  describe('aborting', () => {
    it('break aborts the request (the server sees the connection close); awaiting then rejects with aborted', async () => {
      let gone: Promise<boolean> | undefined;
      server.respond((_req, res) => {
        gone = clientGone(res);
        openEventStream(res);
        res.write(wire(1, 2)); // and never finishes
      });
      const turn = ws.conversation('cnv_1').ask('Hi');
      const seen: TurnEvent[] = [];
      for await (const event of turn) {
        seen.push(event);
        if (event.type === 'progress') break;
      }
      assert.deepEqual(seen, events.slice(0, 2));
      assert.ok(gone);
      assert.equal(await within(2000, gone, 'server-side close'), true);
      const error = await within(2000, failure(turn), 'the awaited turn');
      assert.deepEqual([error.code, error.status, error.retryable], ['aborted', 0, false]);
      assert.equal(server.received.length, 1, 'no reconnection after an abort');
    });

    it('break on the done event changes nothing: the turn had ended', async () => {
      const turn = ws.conversation('cnv_1').ask('Hi');
      for await (const event of turn) if (event.type === 'done') break;
      assert.equal(await turn, 'Hello world');
    });

    it('the signal option aborts: iteration yields a non-retryable error event, awaiting rejects with aborted', async () => {
      let gone: Promise<boolean> | undefined;
      server.respond((_req, res) => {
        gone = clientGone(res);
        openEventStream(res);
        res.write(wire(1, 1));
      });
      const controller = new AbortController();
      const turn = ws.conversation('cnv_1').ask('Hi', { signal: controller.signal });
      const seen: TurnEvent[] = [];
      for await (const event of turn) {
        seen.push(event);
        if (event.type === 'start') controller.abort();
      }
      assert.deepEqual(seen, [events[0], { type: 'error', message: 'the turn was aborted', retryable: false }]);
      assert.equal(await within(2000, gone!, 'server-side close'), true);
      assert.equal((await failure(turn)).code, 'aborted');
    });

    it('an already aborted signal sends nothing', async () => {
      const turn = ws.conversation('cnv_1').ask('Hi', { signal: AbortSignal.abort() });
      assert.equal((await failure(turn)).code, 'aborted');
      assert.deepEqual(await collect(turn), [{ type: 'error', message: 'the turn was aborted', retryable: false }]);
      assert.equal(server.received.length, 0);
    });
  });

  describe('failures', () => {
    it('an HTTP error before the stream: awaiting rejects with the body code; iterating yields one error event', async () => {
      server.respond((_req, res) => json(res, 409, { error: { code: 'conversation_ended', message: 'the conversation has ended', retryable: false } }));
      const error = await failure(ws.conversation('cnv_1').ask('Hi'));
      assert.deepEqual([error.code, error.status, error.retryable, error.message], ['conversation_ended', 409, false, 'the conversation has ended']);
      assert.deepEqual(await collect(ws.conversation('cnv_1').ask('Hi')), [{ type: 'error', message: 'the conversation has ended', retryable: false }]);

      server.respond((_req, res) => json(res, 404, { error: { code: 'conversation_not_found', message: 'no such conversation', retryable: false } }));
      assert.deepEqual([(await failure(ws.conversation('cnv_1').ask('Hi'))).status], [404]);
      server.respond((_req, res) => json(res, 503, { error: { code: 'unavailable', message: 'try later', retryable: true } }));
      assert.deepEqual(await collect(ws.conversation('cnv_1').ask('Hi')), [{ type: 'error', message: 'try later', retryable: true }]);
      assert.equal(server.received.length, 4, 'no retry of a refused turn');
    });

    it('an error event rejects the awaited turn with code turn_failed, status 500 if retryable else 400', async () => {
      for (const retryable of [true, false]) {
        const failed: TurnEvent = { type: 'error', message: 'the model is overloaded', retryable };
        server.respond((_req, res) => {
          openEventStream(res);
          res.end(wire(1, 3) + sseEvent(4, failed));
        });
        const turn = ws.conversation('cnv_1').ask('Hi');
        assert.deepEqual(await collect(turn), [...events.slice(0, 3), failed]);
        const error = await failure(turn);
        assert.deepEqual([error.code, error.status, error.retryable, error.message], ['turn_failed', retryable ? 500 : 400, retryable, 'the model is overloaded']);
      }
    });

    it('an invalid conversation id fails the turn with invalid_request, without a request', async () => {
      const turn = ws.conversation('..').ask('Hi');
      assert.equal((await failure(turn)).code, 'invalid_request');
      assert.equal(server.received.length, 0);
    });

    it('event data that is not a valid TurnEvent fails the turn with invalid_response', async () => {
      server.respond((_req, res) => {
        openEventStream(res);
        res.end(`${wire(1, 1)}id: 2\nevent: text\ndata: {not json\n\n`);
      });
      const turn = ws.conversation('cnv_1').ask('Hi');
      const seen = await collect(turn);
      assert.equal(seen.length, 2);
      assert.ok(seen[1]?.type === 'error' && seen[1].retryable === false, JSON.stringify(seen[1]));
      assert.match(seen[1].message, /not JSON event data/);
      assert.equal((await failure(turn)).code, 'invalid_response');

      server.respond((_req, res) => {
        openEventStream(res);
        res.end(sseEvent(1, { type: 'done' }));
      });
      assert.equal((await failure(ws.conversation('cnv_1').ask('Hi'))).code, 'invalid_response');
      assert.equal(server.received.length, 2, 'an invalid event is not resumed');
    });

    it('a 200 answer that is not an event stream fails with invalid_response', async () => {
      server.respond((_req, res) => json(res, 200, { reply: 'hi' }));
      const error = await failure(ws.conversation('cnv_1').ask('Hi'));
      assert.deepEqual([error.code, error.status], ['invalid_response', 200]);
    });
  });

  describe('resuming a broken stream', () => {
    it('after a drop mid-stream it reconnects with Last-Event-ID: no event repeated or lost, one terminal event', async () => {
      server.respond((_req, res, received) => {
        if (isPost(received)) {
          openEventStream(res);
          writeThenDrop(res, wire(1, 4));
          return;
        }
        openEventStream(res);
        res.end(wire(3)); // the service may resend events the client already has: they are skipped
      });
      const turn = ws.conversation('cnv_1').ask('Hi');
      const seen = await collect(turn);
      assert.deepEqual(seen, events);
      assert.equal(seen.filter((e) => e.type === 'done' || e.type === 'error').length, 1);
      assert.equal(await turn, 'Hello world');
      assert.deepEqual(calls(server), [`POST ${turnsPath}`, `GET ${resumePath}`]);
      const resume = server.received[1]!;
      assert.equal(resume.headers['last-event-id'], '4');
      assert.equal(resume.headers.accept, 'text/event-stream');
      assert.equal(resume.headers.authorization, 'Bearer k');
      assert.equal(resume.body, '');
    });

    it('a stream that ends before its last event is resumed too, as often as it keeps making progress', async () => {
      let gets = 0;
      server.respond((_req, res, received) => {
        openEventStream(res);
        if (isPost(received)) {
          res.end(wire(1, 2)); // a clean end, but no done or error
          return;
        }
        gets++;
        if (gets <= 7) {
          const from = Number(received.headers['last-event-id']) + 1;
          writeThenDrop(res, wire(from, from));
          return;
        }
        res.end(wire(10));
      });
      const turn = ws.conversation('cnv_1').ask('Hi');
      assert.deepEqual(await collect(turn), events);
      assert.deepEqual(
        server.received.filter((r) => !isPost(r)).map((r) => r.headers['last-event-id']),
        ['2', '3', '4', '5', '6', '7', '8', '9'],
        'more reconnections than the old limit of 5 attempts, each after progress',
      );
      assert.equal(await turn, 'Hello world');
    });

    it('failed reconnections (5xx, dropped) are retried with doubling delays (jittered: at least half of each)', async () => {
      const times: number[] = [];
      server.respond((_req, res, received) => {
        times.push(Date.now());
        if (isPost(received)) {
          openEventStream(res);
          writeThenDrop(res, wire(1, 2));
          return;
        }
        const attempt = times.length - 1;
        if (attempt === 1) json(res, 503, { error: { code: 'unavailable', message: 'down', retryable: true } });
        else if (attempt === 2) writeThenDrop(res);
        else if (attempt === 3) json(res, 429, { error: { code: 'rate_limited', message: 'slow down', retryable: true, retryAfter: 0 } });
        else {
          openEventStream(res);
          res.end(wire(3));
        }
      });
      assert.deepEqual(await collect(ws.conversation('cnv_1').ask('Hi')), events);
      assert.equal(times.length, 5);
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      const expected = [10, 20, 40, 80];
      gaps.forEach((gap, i) => assert.ok(gap >= expected[i]! - 5, `gap ${i + 1} was ${gap} ms, expected at least ${expected[i]} ms`));
      assert.ok(server.received.slice(1).every((r) => r.headers['last-event-id'] === '2'));
    });

    it('when the stream cannot be resumed within resumeTimeout, the turn ends with a retryable error naming the turn', async () => {
      server.respond((_req, res, received) => {
        if (isPost(received)) {
          openEventStream(res);
          writeThenDrop(res, wire(1, 3));
          return;
        }
        writeThenDrop(res);
      });
      const brief = new Service({ apiKey: 'k', baseURL: server.baseURL, resumeTimeout: 800 });
      const started = Date.now();
      const turn = brief.conversation('cnv_1').ask('Hi');
      const seen = await collect(turn);
      const elapsed = Date.now() - started;
      assert.deepEqual(seen.slice(0, 3), events.slice(0, 3));
      assert.equal(seen.length, 4);
      const last = seen[3]!;
      assert.ok(last.type === 'error' && last.retryable === true, JSON.stringify(last));
      assert.match(last.message, /^lost the event stream of turn trn_1 and could not resume it within 0\.8 s \(the resumeTimeout option; last failure: /);
      assert.match(last.message, /may still complete on the service: get its outcome with ws\.turn\('trn_1'\)/);
      assert.ok(elapsed >= 800 && elapsed < 3500, `gave up after ${elapsed} ms`);
      assert.ok(server.received.filter((r) => !isPost(r)).length > 5, 'more reconnections than the old limit of 5');
      const error = await failure(turn);
      assert.deepEqual([error.code, error.status, error.retryable, error.turnId], ['connection_error', 0, true, 'trn_1']);
      assert.equal(error.message, last.message);
    });

    it('a drop before the start event cannot be resumed: one retryable error event, no reconnection', async () => {
      server.respond((_req, res) => {
        openEventStream(res);
        writeThenDrop(res, ': keepalive\n\n');
      });
      const turn = ws.conversation('cnv_1').ask('Hi');
      const seen = await collect(turn);
      assert.equal(seen.length, 1);
      assert.ok(seen[0]?.type === 'error' && seen[0].retryable === true);
      assert.match(seen[0].message, /before the turn started/);
      assert.equal((await failure(turn)).code, 'connection_error');
      assert.deepEqual(calls(server), [`POST ${turnsPath}`]);
    });

    it('a non-retryable answer to a reconnection ends the turn at once with that error', async () => {
      server.respond((_req, res, received) => {
        if (isPost(received)) {
          openEventStream(res);
          writeThenDrop(res, wire(1, 1));
          return;
        }
        json(res, 404, { error: { code: 'turn_not_found', message: 'no such turn', retryable: false } });
      });
      const turn = ws.conversation('cnv_1').ask('Hi');
      assert.deepEqual(await collect(turn), [events[0], { type: 'error', message: 'no such turn', retryable: false }]);
      const error = await failure(turn);
      assert.deepEqual([error.code, error.status], ['turn_not_found', 404]);
      assert.equal(server.received.length, 2);
    });

    it('break while waiting to reconnect aborts without further requests', async () => {
      Object.assign(resumePolicy, { baseDelayMs: 600, maxDelayMs: 1200 }); // the first wait is 300-600 ms
      try {
        server.respond((_req, res, received) => {
          if (isPost(received)) {
            openEventStream(res);
            writeThenDrop(res, wire(1, 1));
            return;
          }
          openEventStream(res);
          res.end(wire(2));
        });
        const turn = ws.conversation('cnv_1').ask('Hi');
        const iterator = turn[Symbol.asyncIterator]();
        assert.deepEqual((await iterator.next()).value, events[0]);
        await new Promise((resolve) => setTimeout(resolve, 100)); // the drop has happened; the SDK waits 300-600 ms
        await iterator.return?.();
        assert.equal((await within(2000, failure(turn), 'the awaited turn')).code, 'aborted');
        await new Promise((resolve) => setTimeout(resolve, 700));
        assert.deepEqual(calls(server), [`POST ${turnsPath}`]);
      } finally {
        Object.assign(resumePolicy, { baseDelayMs: 20, maxDelayMs: 320 });
      }
    });
  });
});
