import assert from 'node:assert/strict';
import { LISTENER_APPLICATION_NAME } from '../../api/server/pg-listener';
import type { TurnEvent } from '../../domain/turn-events';
import { useTestApi } from '../support/api';
import { endlessTurn, newConversation } from '../support/limits';
import { followTurnEvents, type TurnFollower } from '../support/sse';
import { waitFor } from '../support/wait';

/** Streams open at once: enough that one query per stream per poll would stand out. */
const STREAMS = 20;

/** The seqs and event types a follower has received so far. */
const seqsOf = (f: TurnFollower) => f.frames.map((x) => x.seq);
const typesOf = (f: TurnFollower) => f.frames.map((x) => x.type);

const textEvent = (text: string): TurnEvent => ({ type: 'text', text });

describe('idle turn streams: woken by their turn’s notification, never polling', function () {
  this.timeout(60_000);
  const api = useTestApi();
  // Nested, so that its `after` closes the streams before the outer one stops the API.
  describe(`${STREAMS} streams of running turns`, () => {
    let apiKey: string;
    let followers: TurnFollower[] = [];

    before(async () => {
      const ws = await api.newWorkspace({ name: 'idle streams' });
      apiKey = ws.apiKey;
      for (let i = 0; i < STREAMS; i++) {
        const { conversationId } = await newConversation(api, apiKey);
        const turnId = await endlessTurn(api, ws.workspace.id, conversationId);
        followers.push(await followTurnEvents(api.baseURL, apiKey, turnId));
      }
      await waitFor('every stream has its start event', () => followers.every((f) => seqsOf(f).length === 1), Boolean, 10_000);
    });

    after(() => {
      for (const f of followers) f.close();
      followers = [];
    });

    it(`${STREAMS} open streams of running turns make no query for 5 s; an event reaches its stream and no other`, async () => {
      let queries = 0;
      const count = () => queries++;
      api.db.on('query', count);
      await new Promise((r) => setTimeout(r, 5000));
      api.db.off('query', count);
      // The API's own pool is the test's `api.db`: a stream that read on a timer would show here.
      // One statement may renew the key's stream leases (all of them at once, every 20 s).
      assert.ok(queries <= 1, `${queries} queries while ${STREAMS} streams were idle`);

      const target = followers[7]!;
      const sent = performance.now();
      await api.repos.turns.append({ turnId: target.turnId, events: [textEvent('hello')] });
      await waitFor('the event on its stream', () => seqsOf(target).length, (n) => n === 2, 5000);
      assert.ok(performance.now() - sent < 1000, 'delivered by the notification, not by a later sweep');
      assert.deepEqual(typesOf(target), ['start', 'text']);
      await new Promise((r) => setTimeout(r, 200));
      for (const f of followers) if (f !== target) assert.deepEqual(seqsOf(f), [1], 'no other stream saw anything');
    });

    it('when the LISTEN connection is cut, every stream catches up from its last seq: nothing missed, nothing repeated', async () => {
      const listener = () =>
        api.db.raw<{ rows: Array<{ pid: number }> }>(
          `select pid from pg_stat_activity where datname = current_database() and application_name = ?`,
          [LISTENER_APPLICATION_NAME],
        );
      const before = await listener();
      assert.equal(before.rows.length, 1, 'one LISTEN connection for the API process');
      await api.db.raw('select pg_terminate_backend(?)', [before.rows[0]!.pid]);
      await waitFor('the listener gone', listener, (r) => !r.rows.some((row) => row.pid === before.rows[0]!.pid), 5000);
      // Appended while nobody listens: these notifications are lost.
      const seqsBefore = followers.map((f) => seqsOf(f).at(-1)!);
      for (const f of followers) await api.repos.turns.append({ turnId: f.turnId, events: [textEvent('a'), textEvent('b')] });
      await waitFor('every stream caught up', () => followers.every((f, i) => seqsOf(f).length > 0 && seqsOf(f).at(-1) === seqsBefore[i]! + 2), Boolean, 10_000);
      for (const f of followers) assert.deepEqual(seqsOf(f), Array.from({ length: seqsOf(f).length }, (_, i) => i + 1), `${f.turnId}: gap-free and once`);
      assert.equal((await listener()).rows.length, 1, 'listening again');
    });

    it('a turn that ends without a notification still ends its stream (the hub’s sweep)', async () => {
      const target = followers[3]!;
      // As a notification lost on a half-open connection would leave it: the log moved, nobody was told.
      await api.db.transaction(async (trx) => {
        const [row] = await trx('turns').where({ id: target.turnId }).increment('last_seq', 1).returning<Array<{ last_seq: number }>>('last_seq');
        await trx('turn_events').insert({ turn_id: target.turnId, seq: row!.last_seq, type: 'done', data: JSON.stringify({ type: 'done', reply: 'late' }) });
        await trx('turns').where({ id: target.turnId }).update({ status: 'done', finished_at: trx.fn.now() });
      });
      await waitFor('the terminal event', () => typesOf(target).at(-1), (t) => t === 'done', 15_000);
    });
  });
});
