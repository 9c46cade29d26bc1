import assert from 'node:assert/strict';
import type { TurnEvent } from '../../domain/turn-events';
import { TURN_CANCELLED_MESSAGE } from '../../domain/runs/turn';
import { VISITOR_UNAVAILABLE, visitorRefusal, visitorTerminal } from '../../domain/visitor-events';

type ErrorEvent = Extract<TurnEvent, { type: 'error' }>;

/** Every terminal `error` a turn's writers produce today (workflows/turn.ts, activities, services), as the workspace reads it. */
const written: ErrorEvent[] = [
  { type: 'error', message: 'agent agt_0123456789abcdefghij reached its credit cap (6.02 of 6 credits spent); the turn stopped', retryable: false, code: 'credit_cap_reached' },
  { type: 'error', message: 'the workspace has no credits left for another model step; the turn stopped', retryable: false, code: 'credits_exhausted' },
  { type: 'error', message: 'the agent did not finish within 12 steps', retryable: false },
  { type: 'error', message: 'the turn did not finish within its time limit of 900 s', retryable: true },
  { type: 'error', message: 'the model refused the request (turn trn_0123456789abcdefghij)', retryable: false },
  { type: 'error', message: 'the model is unavailable; try again later (turn trn_0123456789abcdefghij)', retryable: true },
  { type: 'error', message: 'the agent of turn trn_0123456789abcdefghij is gone', retryable: false },
  { type: 'error', message: 'the turn failed (turn trn_0123456789abcdefghij)', retryable: true },
  { type: 'error', message: 'the turn could not be started', retryable: true },
];

describe('visitor-safe terminal events (domain/visitor-events.ts)', () => {
  it('every failure a visitor can meet reads as the fixed sentence: no number, no id, no code', () => {
    for (const event of written) {
      const shown = visitorTerminal(event);
      assert.equal(shown.message, VISITOR_UNAVAILABLE, event.message);
      assert.equal(shown.code, undefined, event.message);
      assert.doesNotMatch(JSON.stringify(shown), /\d|agt_|trn_|ws_/, event.message);
    }
  });

  it('a credit stop mid-turn is exactly the admission refusal; other failures keep their retryable', () => {
    assert.deepEqual(visitorTerminal(written[0]!), visitorRefusal(true));
    assert.deepEqual(visitorTerminal(written[1]!), visitorRefusal(true));
    assert.equal(visitorTerminal(written[2]!).retryable, false);
    assert.equal(visitorTerminal(written[3]!).retryable, true);
  });

  it('a cancel stays a cancel', () => {
    assert.deepEqual(visitorTerminal({ type: 'error', message: TURN_CANCELLED_MESSAGE, retryable: false }), { type: 'error', message: TURN_CANCELLED_MESSAGE, retryable: false });
  });
});
