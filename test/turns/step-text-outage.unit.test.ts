import assert from 'node:assert/strict';
import { StepTextStream, type StepTextSink } from '../../activities/turn-text';
import type { TurnEvent } from '../../domain/turn-events';

/**
 * A model step's text while PostgreSQL is away (docs/operations.md: Outages): held in order,
 * written once the database answers, neither lost nor repeated — and given up on past the
 * policy's length or buffer, or at once for a write that fails for another reason.
 * The event log here is an array; "down" makes its writes fail as node-postgres does.
 */
function eventLog(policy: { maxMs: number; maxBufferedChars: number }) {
  const events: TurnEvent[] = [];
  const state = { down: false, landThenFail: false, superseded: false, appends: 0 };
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const shown = () => events.reduce((text, e) => (e.type !== 'text' ? text : e.reset ? e.text : text + e.text), '');
  const sink: StepTextSink = {
    append: async (batch) => {
      state.appends++;
      if (state.superseded) return false;
      // The statement committed, then the connection died before its answer came back.
      if (state.landThenFail) {
        state.landThenFail = false;
        events.push(...batch);
        throw Object.assign(new Error('Connection terminated unexpectedly'), {});
      }
      if (state.down) throw refused();
      events.push(...batch);
      return true;
    },
    readShown: async () => {
      if (state.down) throw refused();
      return shown();
    },
    outage: policy,
    signal: new AbortController().signal,
  };
  return { events, state, sink, shown };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WORDS = Array.from({ length: 30 }, (_, i) => `w${i} `);

describe('a step’s text while PostgreSQL is away (unit)', () => {
  it('holds the text through an outage and writes it once, in order, when the database answers', async () => {
    const log = eventLog({ maxMs: 5000, maxBufferedChars: 1000 });
    let doomed: Error | undefined;
    const text = new StepTextStream('', log.sink, 10, () => undefined, (e) => (doomed = e));
    for (const [i, word] of WORDS.entries()) {
      if (i === 5) log.state.down = true;
      if (i === 25) log.state.down = false;
      text.push(word);
      await sleep(15);
    }
    await text.end();
    assert.equal(doomed, undefined);
    assert.equal(log.shown(), WORDS.join(''));
    assert.ok(log.events.every((e) => e.type === 'text' && !e.reset), 'no reset: nothing was shown twice');
    const held = log.events.find((e) => e.type === 'text' && e.text.split(' ').length > 10);
    assert.ok(held, 'the words held during the outage went in one batch');
  });

  it('a write that landed before its connection died is not written again', async () => {
    const log = eventLog({ maxMs: 5000, maxBufferedChars: 1000 });
    const text = new StepTextStream('', log.sink, 10);
    for (const [i, word] of WORDS.entries()) {
      if (i === 10) log.state.landThenFail = true;
      text.push(word);
      await sleep(15);
    }
    await text.end();
    assert.equal(log.shown(), WORDS.join(''));
    assert.ok(log.events.every((e) => e.type === 'text' && !e.reset));
  });

  it('gives up once the outage outlasts its length, with the outage as the cause', async () => {
    const log = eventLog({ maxMs: 300, maxBufferedChars: 1000 });
    let doomed: Error | undefined;
    const text = new StepTextStream('', log.sink, 10, () => undefined, (e) => (doomed = e));
    log.state.down = true;
    const started = performance.now();
    text.push('hello ');
    await assert.rejects(text.end(), (err: Error) => /PostgreSQL did not answer for 300 ms/.test(err.message) && /ECONNREFUSED/.test(String(err.cause)));
    assert.ok(doomed, 'the attempt was doomed: its model call stops');
    assert.ok(performance.now() - started < 2000, 'given up near its length, not later');
  });

  it('gives up once it holds more text than its buffer, without waiting for the outage to end', async () => {
    const log = eventLog({ maxMs: 60_000, maxBufferedChars: 50 });
    let doomed: Error | undefined;
    const text = new StepTextStream('', log.sink, 10, () => undefined, (e) => (doomed = e));
    log.state.down = true;
    for (const word of WORDS) {
      text.push(word);
      await sleep(15);
      if (doomed) break;
    }
    assert.match(doomed?.message ?? '', /held \d+ characters of text while PostgreSQL was away \(at most 50\)/);
    await assert.rejects(text.end(), /at most 50/);
  });

  it('a turn that ended or another writer took stops the attempt at once, outage or not', async () => {
    const log = eventLog({ maxMs: 60_000, maxBufferedChars: 1000 });
    const text = new StepTextStream('', log.sink, 10);
    log.state.superseded = true;
    text.push('hello ');
    await assert.rejects(text.end(), /superseded/);
    assert.equal(log.state.appends, 1);
  });
});
