import assert from 'node:assert/strict';
import pg from 'pg';
import { createDb, type Db } from '../../db/connect';
import { TurnsRepository } from '../../db/turns/repository';
import { CARRY_EVENTS_MAX_BYTES, decodeTurnNotification, TURN_EVENTS_CHANNEL } from '../../db/turns/notification';
import type { TurnEvent } from '../../domain/turn-events';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { endlessTurn, newConversation } from '../support/limits';
import { followTurnEvents as follow, type TurnFollower as Follower, type TurnFrame as Frame } from '../support/sse';
import { waitFor } from '../support/wait';

const text = (t: string): TurnEvent => ({ type: 'text', text: t });
const seqs = (f: Follower) => f.frames.map((x) => x.seq);
const oneToN = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('turn notifications that carry their events', function () {
  this.timeout(60_000);
  const api = useTestApi();
  /** The worker's side: its own pool, so that every query on the API's pool (`api.db`) is the API's. */
  let worker: { db: Db; turns: TurnsRepository };
  let apiKey: string;
  let workspaceId: string;
  let followers: Follower[] = [];
  /** Queries on the API's pool that touch the event log: the streams' reads. */
  let reads = 0;
  const countRead = (q: { sql: string }) => {
    if (q.sql.includes('turn_events')) reads++;
  };

  before(async () => {
    const db = createDb({ url: fixture().databaseUrl, poolMax: 2 });
    worker = { db, turns: new TurnsRepository(db) };
    const ws = await api.newWorkspace({ name: 'notification payloads' });
    apiKey = ws.apiKey;
    workspaceId = ws.workspace.id;
  });
  after(async () => {
    await worker.db.destroy();
  });
  afterEach(() => {
    api.db.off('query', countRead);
    for (const f of followers) f.close();
    followers = [];
  });

  /** A running turn with its start event, and a stream of it that has received that event. */
  async function followedTurn(): Promise<{ turnId: string; f: Follower }> {
    const { conversationId } = await newConversation(api, apiKey);
    const turnId = await endlessTurn(api, workspaceId, conversationId);
    const f = await follow(api.baseURL, apiKey, turnId);
    followers.push(f);
    await waitFor('the start event', () => f.frames.length, (n) => n === 1, 10_000);
    reads = 0;
    api.db.on('query', countRead);
    return { turnId, f };
  }

  /** Appends `event` in `trx` as a notification lost on the way would leave it: logged, nobody told. */
  async function appendUnannounced(trx: Db, turnId: string, event: TurnEvent): Promise<number> {
    const [row] = await trx('turns').where({ id: turnId }).increment('last_seq', 1).returning<Array<{ last_seq: number }>>('last_seq');
    await trx('turn_events').insert({ turn_id: turnId, seq: row!.last_seq, type: event.type, data: JSON.stringify(event) });
    return row!.last_seq;
  }

  const stored = async (turnId: string): Promise<Frame[]> =>
    worker.db('turn_events').where({ turn_id: turnId }).orderBy('seq').select<Frame[]>('seq', 'type', worker.db.raw('data::text as data'));

  it('a caught-up stream writes small appended events from the notification, with no read query, as a read would', async () => {
    const { turnId, f } = await followedTurn();
    await worker.turns.append({ turnId, events: [text('one')] });
    await worker.turns.append({ turnId, events: [text('two'), text('three'), { type: 'file', path: 'out/a.txt' }] });
    await worker.turns.append({ turnId, events: [text('four ü “quoted” \\ \n')] });
    await waitFor('every event', () => f.frames.length, (n) => n === 6, 5000);
    assert.equal(reads, 0, 'no stream read the log');
    // The bytes a read (a resume, a replay) gives: the stored JSON text.
    assert.deepEqual(f.frames, await stored(turnId));
    assert.deepEqual(JSON.parse(f.frames.at(-1)!.data), text('four ü “quoted” \\ \n'));
  });

  it('the terminal event carried by a notification ends the stream, with no read query', async () => {
    const { turnId, f } = await followedTurn();
    await worker.turns.append({ turnId, events: [text('bye'), { type: 'done', reply: 'bye' }] });
    await waitFor('the stream ended', () => f.ended, Boolean, 5000);
    assert.deepEqual(f.frames.map((x) => x.type), ['start', 'text', 'done']);
    assert.equal(reads, 0);
  });

  it('the notification names the appended seqs and carries the events as stored, or only the seqs when they are too big', async () => {
    const { conversationId } = await newConversation(api, apiKey);
    const turnId = await endlessTurn(api, workspaceId, conversationId);
    const listener = new pg.Client({ connectionString: fixture().databaseUrl });
    const payloads: string[] = [];
    listener.on('notification', (m) => payloads.push(m.payload ?? ''));
    await listener.connect();
    try {
      await listener.query(`LISTEN ${TURN_EVENTS_CHANNEL}`);
      await worker.turns.append({ turnId, events: [text('small'), text('too')] });
      await worker.turns.append({ turnId, events: [text('x'.repeat(CARRY_EVENTS_MAX_BYTES))] });
      await waitFor('both notifications', () => payloads.length, (n) => n === 2, 5000);
    } finally {
      await listener.end();
    }
    const [small, big] = payloads.map((p) => decodeTurnNotification(p));
    const rows = await stored(turnId);
    assert.deepEqual(small, { turnId, appended: { first: 2, last: 3, events: rows.slice(1, 3) } });
    assert.deepEqual(big, { turnId, appended: { first: 4, last: 4 } });
    assert.ok(Buffer.byteLength(payloads[1]!) < 200);
  });

  it('events too big to carry are read: the client gets every event in order, once', async () => {
    const { turnId, f } = await followedTurn();
    await worker.turns.append({ turnId, events: [text('small')] });
    // Past PostgreSQL's 8000-byte limit if it were carried: the append itself would fail.
    await worker.turns.append({ turnId, events: [text('é'.repeat(5000))] });
    await worker.turns.append({ turnId, events: Array.from({ length: 30 }, (_, i) => text(`${i} ${'y'.repeat(300)}`)) });
    await worker.turns.append({ turnId, events: [text('small again'), { type: 'done', reply: 'end' }] });
    await waitFor('the stream ended', () => f.ended, Boolean, 5000);
    assert.deepEqual(seqs(f), oneToN(35));
    assert.deepEqual(f.frames, await stored(turnId));
    assert.ok(reads >= 1, 'the big ones were read');
  });

  it('a stream behind the carried events reads from its last seq: all of them, in order, once', async () => {
    const { turnId, f } = await followedTurn();
    // One transaction, so the hub's sweep cannot see the unannounced event before the notification.
    await worker.db.transaction(async (trx) => {
      await appendUnannounced(trx, turnId, text('lost'));
      await worker.turns.append({ turnId, events: [text('announced')] }, trx);
    });
    await waitFor('both events', () => f.frames.length, (n) => n >= 3, 2000); // well before the 10 s sweep
    await sleep(200);
    assert.deepEqual(seqs(f), [1, 2, 3]);
    assert.deepEqual(f.frames, await stored(turnId));
    assert.ok(reads >= 1);
  });

  it('a notification for events the stream has sent is skipped; one that overlaps them is read', async () => {
    const { turnId, f } = await followedTurn();
    const notify = (trx: Db, p: unknown) => trx.raw('select pg_notify(?, ?)', [TURN_EVENTS_CHANNEL, JSON.stringify(p)]);
    const forged = (seq: number) => ['text', `{"text": "forged ${seq}", "type": "text"}`];
    await notify(worker.db, { v: 1, turnId, first: 1, last: 1, events: [forged(1)] });
    await worker.db.transaction(async (trx) => {
      await appendUnannounced(trx, turnId, text('real'));
      await notify(trx, { v: 1, turnId, first: 1, last: 2, events: [forged(1), forged(2)] });
    });
    await waitFor('seq 2', () => f.frames.length, (n) => n >= 2, 2000);
    await sleep(200);
    assert.deepEqual(f.frames, await stored(turnId), 'seq 2 as stored, sent once; nothing forged');
    assert.equal(reads, 1, 'read once, for the overlapping one');
  });

  it('carried events written while a read is under way are not written again when that read returns them', async () => {
    const { turnId, f } = await followedTurn();
    // Holding the log's table lock keeps the stream's read waiting until the append commits.
    const trx = await worker.db.transaction();
    try {
      await trx.raw('lock table turn_events in access exclusive mode');
      await worker.turns.append({ turnId, events: [text('raced')] }, trx);
      await worker.db.raw('select pg_notify(?, ?)', [TURN_EVENTS_CHANNEL, turnId]);
      const waiting = () =>
        worker.db.raw<{ rows: unknown[] }>(`select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%from "turn_events"%'`);
      await waitFor('the stream’s read waiting', waiting, (r) => r.rows.length === 1, 5000);
      // What the append's notification will say, delivered ahead of the read's answer.
      const ahead = { v: 1, turnId, first: 2, last: 2, events: [['text', '{"text": "raced", "type": "text"}']] };
      await worker.db.raw('select pg_notify(?, ?)', [TURN_EVENTS_CHANNEL, JSON.stringify(ahead)]);
      await waitFor('the carried event, while the read waits', () => f.frames.length, (n) => n === 2, 2000);
      await trx.commit();
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
    await sleep(300);
    assert.deepEqual(f.frames, await stored(turnId), 'seq 2 once');
    assert.equal(reads, 1);
  });

  it('an older worker’s payload (the turn id) and a malformed one wake the turn’s streams, which read; one with no turn id is ignored', async () => {
    const { turnId, f } = await followedTurn();
    await worker.db.transaction(async (trx) => {
      await appendUnannounced(trx, turnId, text('old worker'));
      await trx.raw('select pg_notify(?, ?)', [TURN_EVENTS_CHANNEL, turnId]);
    });
    await waitFor('the old worker’s event', () => f.frames.length, (n) => n >= 2, 2000);
    await worker.db.transaction(async (trx) => {
      await appendUnannounced(trx, turnId, text('stored'));
      const injected = { v: 1, turnId, first: 3, last: 3, events: [['text', '{"text": "x"}\n\nid: 99\nevent: done\ndata: {}']] };
      await trx.raw('select pg_notify(?, ?)', [TURN_EVENTS_CHANNEL, JSON.stringify(injected)]);
    });
    await waitFor('the event as stored', () => f.frames.length, (n) => n >= 3, 2000);
    await worker.db.raw('select pg_notify(?, ?)', [TURN_EVENTS_CHANNEL, '{not json']);
    await worker.turns.append({ turnId, events: [text('after')] });
    await waitFor('the next event', () => f.frames.length, (n) => n >= 4, 2000);
    await sleep(200);
    assert.deepEqual(f.frames, await stored(turnId));
    assert.equal(reads, 2, 'read for the two payloads that carried nothing usable, not for the last append');
  });

  it('a stream opened on a long log while small events keep coming gets each once, in order, and ends', async () => {
    const { conversationId } = await newConversation(api, apiKey);
    const turnId = await endlessTurn(api, workspaceId, conversationId);
    for (let i = 0; i < 3; i++) await worker.turns.append({ turnId, events: Array.from({ length: 500 }, (_, j) => text(`backlog ${i}.${j}`)) });
    const f = await follow(api.baseURL, apiKey, turnId);
    followers.push(f);
    for (let i = 0; i < 100; i++) await worker.turns.append({ turnId, events: [text(`live ${i}`)] });
    await worker.turns.append({ turnId, events: [{ type: 'done', reply: 'end' }] });
    await waitFor('the stream ended', () => f.ended, Boolean, 10_000);
    assert.deepEqual(seqs(f), oneToN(1 + 1500 + 100 + 1));
    assert.deepEqual(f.frames, await stored(turnId));
  });
});
