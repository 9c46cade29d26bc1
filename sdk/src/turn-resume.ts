import { ServiceError } from './errors.js';
import type { HttpClient } from './http.js';
import { segment } from './paths.js';
import { sleep } from './sleep.js';
import { aborted, broken, describe, seconds } from './turn-errors.js';

/**
 * Resuming a turn's broken event stream: the loop that reconnects to
 * `GET /v1/turns/:turnId/events` with `Last-Event-ID` until the turn's last event arrives or the
 * `resumeTimeout` budget is spent (see `Turn`, "Resuming").
 */

/**
 * @internal The waits between attempts to resume a broken event stream. The n-th wait since the
 * last new event (n from 0) is drawn between half and all of `min(maxDelayMs, baseDelayMs * 2^n)`,
 * or is the service's `Retry-After` when that is longer. A reconnection whose answer has not
 * arrived after `connectMs` (or the rest of the `resumeTimeout` budget, if longer) counts as
 * failed. How long resuming goes on is the `resumeTimeout` option. Not part of the public API
 * (tests shorten the waits).
 */
export const resumePolicy = { baseDelayMs: 250, maxDelayMs: 5000, connectMs: 10_000 };

/** @internal What the loop needs of the turn it resumes: read live, as each read changes them. */
export interface ResumableStream {
  /** Reads one event stream to its end: true when the turn's last event arrived. */
  read(response: Response, signal: AbortSignal): Promise<boolean>;
  /** Events received so far; a reconnection that brings new ones restarts the budget. */
  received(): number;
  /** The turn's id, once known; without it the stream cannot be resumed. */
  turnId(): string | undefined;
  /** Sequence number of the last event received, sent as `Last-Event-ID`. */
  lastSeq(): number | undefined;
}

/**
 * Reads `first` (the answer to the POST; none for `ws.turn(turnId)`, which connects at once)
 * and resumes the stream until the turn's last event arrives or the `resumeTimeout` budget is
 * spent. The budget counts the time without a connection since the last new event.
 */
export async function follow(http: HttpClient, stream: ResumableStream, first: Response | undefined, signal: AbortSignal): Promise<void> {
  const budget = http.resumeTimeout;
  let response = first;
  let connectNow = first === undefined;
  let attempt = 0; // failed reconnections since the last new event
  let spent = 0; // ms without a connection since the last new event, before `lostAt`
  let lostAt = Date.now(); // when the current time without a connection began
  let cause: unknown; // why the last connection ended or the last reconnection failed
  let retryAfter: number | undefined; // seconds, from the last failed reconnection
  for (;;) {
    if (response !== undefined) {
      const before = stream.received();
      try {
        if (await stream.read(response, signal)) return;
        cause = undefined;
      } catch (error) {
        if (error instanceof ServiceError) throw error; // an invalid event: resuming would not help
        cause = error;
      }
      if (stream.received() > before) {
        attempt = 0;
        spent = 0;
      }
      lostAt = Date.now();
      response = undefined;
    }
    if (signal.aborted) throw aborted(signal);
    const turnId = stream.turnId();
    if (turnId === undefined) {
      // Not resumable without the id (the answer had no X-Turn-Id, e.g. a proxy dropped it).
      throw broken('the connection closed before the turn started', cause, notStartedAdvice);
    }
    const remaining = budget - spent - (Date.now() - lostAt);
    if (!connectNow) {
      const waitAfter = retryAfter === undefined ? 0 : retryAfter * 1000;
      if (remaining <= 0 || waitAfter > remaining) throw gaveUp(turnId, budget, cause);
      const cap = Math.min(resumePolicy.maxDelayMs, resumePolicy.baseDelayMs * 2 ** Math.min(attempt, 30));
      const backoff = cap / 2 + (Math.random() * cap) / 2;
      const wait = waitAfter > 0 ? Math.max(waitAfter + Math.random() * resumePolicy.baseDelayMs, backoff) : backoff;
      await sleep(Math.min(wait, remaining), signal);
      if (signal.aborted) throw aborted(signal);
      attempt++;
    }
    connectNow = false;
    try {
      const limit = Math.max(resumePolicy.connectMs, budget - spent - (Date.now() - lostAt));
      response = await connect(http, turnId, stream.lastSeq(), signal, limit);
      spent += Date.now() - lostAt;
      retryAfter = undefined;
    } catch (error) {
      if (signal.aborted) throw aborted(signal);
      if (!(error instanceof ServiceError && worthRetrying(error))) throw error; // e.g. 404 turn_not_found
      cause = error;
      retryAfter = error.retryAfter;
    }
  }
}

/**
 * Opens `GET /v1/turns/:turnId/events` after the last event received (all of them when none
 * was). Fails with a retryable `connection_error` when no answer arrives within `limitMs`.
 */
async function connect(http: HttpClient, turnId: string, lastSeq: number | undefined, signal: AbortSignal, limitMs: number): Promise<Response> {
  const path = `/v1/turns/${segment(turnId, 'turn id')}/events`;
  const attempt = new AbortController();
  const forward = () => attempt.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    attempt.abort();
  }, limitMs);
  try {
    const response = await http.stream('GET', path, { headers: { 'Last-Event-ID': String(lastSeq ?? 0) }, signal: attempt.signal });
    // The body is read with the turn's signal (readSSE cancels it on abort): stop forwarding.
    signal.removeEventListener('abort', forward);
    return response;
  } catch (error) {
    signal.removeEventListener('abort', forward);
    if (late && !signal.aborted) {
      throw new ServiceError({ code: 'connection_error', status: 0, message: `no answer to the reconnection within ${seconds(limitMs)}`, cause: error });
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The error of a turn whose stream could not be resumed within the budget: it says that the
 * turn may still complete and how to get its outcome.
 */
function gaveUp(turnId: string, budget: number, cause: unknown): ServiceError {
  const detail = cause instanceof Error ? `; last failure: ${describe(cause)}` : '';
  const how = budget > 0 ? `could not resume it within ${seconds(budget)} (the resumeTimeout option${detail})` : `did not resume it (the resumeTimeout option is 0${detail})`;
  return new ServiceError({
    code: 'connection_error',
    status: 0,
    retryable: true,
    turnId,
    cause,
    message:
      `lost the event stream of turn ${turnId} and ${how}. ` +
      `The turn may still complete on the service: get its outcome with ws.turn('${turnId}'), which replays its events and reply ` +
      `(GET /v1/turns/${turnId}/events); asking again would start a new turn`,
  });
}

/** What a caller whose turn broke before its id was known can do. */
const notStartedAdvice =
  '. If the service accepted the turn, asking again while it runs is refused with 409 turn_in_progress naming it ' +
  '(error.turnId, for ws.turn(turnId)), and conversation.messages() shows its reply once it ends';

/** Whether a failed reconnection may succeed later: no answer, 408, 429 and 5xx; not an abort. */
function worthRetrying(error: ServiceError): boolean {
  if (error.code === 'aborted') return false;
  return error.status === 0 || error.status === 408 || error.status === 429 || error.status >= 500;
}

