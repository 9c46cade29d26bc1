import { ServiceError } from './errors.js';
import type { HttpClient } from './http.js';
import { segment } from './paths.js';
import { readSSE } from './sse.js';
import type { Attachment, TurnEvent } from './types.js';

/**
 * @internal How a broken event stream is resumed: up to `attempts` reconnections, the first
 * after `delayMs`, each later one after twice the previous wait. Not part of the public API
 * (tests shorten the delay).
 */
export const resumePolicy = { attempts: 5, delayMs: 250 };

/** @internal What `conversation.ask()` hands to a `Turn`. */
export interface TurnRequest {
  conversationId: string;
  text: string;
  attachments?: Attachment[];
  signal?: AbortSignal;
}

type TerminalEvent = Extract<TurnEvent, { type: 'done' | 'error' }>;

/**
 * One turn of a conversation: what `conversation.ask(text)` returns. The request
 * (`POST /v1/conversations/:conversationId/turns`) is sent once, as soon as `ask()` is called,
 * and the turn can be consumed in two ways, alone or together:
 *
 * ```ts
 * const reply = await conversation.ask('Hello');            // the reply string
 *
 * for await (const event of conversation.ask('Hello')) {   // every TurnEvent as it arrives
 *   if (event.type === 'text') process.stdout.write(event.text);
 * }
 * ```
 *
 * **Awaiting** (`then`, `catch`, `finally`) resolves to the `done` event's `reply`. It rejects
 * with a `ServiceError`:
 * - an answer refused before the stream started keeps the service's `code` and `status`
 *   (e.g. 409 `conversation_ended`, `conversation_not_ready`, `turn_in_progress`,
 *   `insufficient_credits`; 404 `conversation_not_found`);
 * - an `error` event from the service gives code `turn_failed`, the event's `message` and
 *   `retryable`, and status 500 when retryable or 400 when not, so that `status` agrees with
 *   `retryable` as in the spec's error table;
 * - a connection that broke and could not be resumed gives code `connection_error` (status 0,
 *   retryable): the turn may still have run on the service;
 * - the `signal` option, or a `break` out of the iteration, gives code `aborted`.
 * Awaiting is allowed any number of times, before, during or after iterating.
 *
 * **Iterating** (`for await`) yields the events in order, ending with exactly one `done` or
 * `error` event; every failure above arrives as that `error` event (`message`, `retryable`)
 * instead of being thrown. A Turn can be iterated once: a second iteration throws an `Error`.
 * Events are buffered from the start, so iterating after awaiting yields them all. Leaving
 * the loop early (`break`, `return`, a throw) aborts the request if the turn has not ended yet;
 * awaiting the turn afterwards rejects with code `aborted`.
 *
 * The `timeout` option does not apply: a turn lasts as long as the agent works. Keepalive
 * comments are ignored. If the event stream breaks before the last event, and the turn has
 * started (a `start` event arrived), the SDK reconnects to `GET /v1/turns/:turnId/events`
 * with `Last-Event-ID` set to the last event's sequence number: up to 5 attempts, 250 ms
 * apart and doubling, counted afresh once a reconnection brings new events. No event is
 * yielded twice. This is the only case where the SDK sends a request by itself; the message
 * is never sent again. A 4xx answer other than 429 to a reconnection ends the turn at once
 * with that error.
 */
export class Turn implements PromiseLike<string>, AsyncIterable<TurnEvent> {
  readonly #http: HttpClient;
  readonly #controller = new AbortController();
  readonly #result: Promise<string>;
  #resolve: (reply: string) => void = () => undefined;
  #reject: (error: ServiceError) => void = () => undefined;
  /** Events not yet handed to the iterator (all of them until iteration starts). */
  readonly #buffer: TurnEvent[] = [];
  #head = 0;
  #wake: (() => void) | undefined;
  #iterated = false;
  #settled = false;
  #turnId: string | undefined;
  #lastSeq: number | undefined;
  /** Events received so far, duplicates and unknown types excluded. */
  #received = 0;

  /** @internal Built by `conversation.ask()`; not part of the public API. Sends the request now. */
  constructor(http: HttpClient, request: TurnRequest) {
    this.#http = http;
    this.#result = new Promise<string>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Nobody may ever await this turn (iteration only): its rejection is not "unhandled".
    this.#result.catch(() => undefined);
    const outer = request.signal;
    const forward = () => this.#controller.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    void this.#run(request).finally(() => outer?.removeEventListener('abort', forward));
  }

  /**
   * The turn's id, from its `start` event: `undefined` until that event has arrived, and for
   * a turn that failed before starting. Not a promise, so reading it never waits.
   */
  get id(): string | undefined {
    return this.#turnId;
  }

  /** Resolves to the reply; rejects with a `ServiceError` (see the class description). */
  then<TResult1 = string, TResult2 = never>(
    onfulfilled?: ((reply: string) => TResult1 | PromiseLike<TResult1>) | null,
    onrejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
  ): Promise<TResult1 | TResult2> {
    return this.#result.then(onfulfilled, onrejected);
  }

  /** Like `Promise.prototype.catch` on the reply. */
  catch<TResult = never>(onrejected?: ((reason: unknown) => TResult | PromiseLike<TResult>) | null): Promise<string | TResult> {
    return this.#result.catch(onrejected);
  }

  /** Like `Promise.prototype.finally` on the reply. */
  finally(onfinally?: (() => void) | null): Promise<string> {
    return this.#result.finally(onfinally);
  }

  /** Iterates the turn's events (once per Turn); see the class description. */
  [Symbol.asyncIterator](): AsyncIterator<TurnEvent> {
    if (this.#iterated) {
      throw new Error('this Turn has already been iterated: a Turn can be iterated only once (await it to get the reply)');
    }
    this.#iterated = true;
    return this.#events();
  }

  /** `[object Turn]` in `Object.prototype.toString`. */
  get [Symbol.toStringTag](): string {
    return 'Turn';
  }

  async *#events(): AsyncGenerator<TurnEvent, void, undefined> {
    let ended = false;
    try {
      for (;;) {
        const event = this.#buffer[this.#head];
        if (event === undefined) {
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
          continue;
        }
        this.#head++;
        if (this.#head === this.#buffer.length) {
          // Caught up: drop what was handed out, so a long turn does not pile up events.
          this.#buffer.length = 0;
          this.#head = 0;
        }
        ended = event.type === 'done' || event.type === 'error';
        yield event;
        if (ended) return;
      }
    } finally {
      if (!ended) this.#controller.abort(new Error('the iteration of the turn ended before its last event'));
    }
  }

  #push(event: TurnEvent): void {
    this.#buffer.push(event);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Ends the turn with its terminal event; later calls are ignored. */
  #settle(event: TerminalEvent, error?: ServiceError): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#push(event);
    if (event.type === 'done') this.#resolve(event.reply);
    else this.#reject(error ?? turnFailed(event));
  }

  #fail(error: ServiceError): void {
    this.#settle({ type: 'error', message: error.message, retryable: error.retryable }, error);
  }

  /** Sends the turn, reads its events, and resumes a broken stream; always settles the turn. */
  async #run(request: TurnRequest): Promise<void> {
    const signal = this.#controller.signal;
    try {
      const body: { text: string; attachments?: Attachment[] } = { text: request.text };
      if (request.attachments !== undefined) body.attachments = request.attachments;
      const path = `/v1/conversations/${segment(request.conversationId, 'conversation id')}/turns`;
      if (signal.aborted) throw aborted(signal);
      let response: Response | undefined = await this.#http.stream('POST', path, { body, signal });
      let attempt = 0;
      let cause: unknown;
      for (;;) {
        if (response !== undefined) {
          const before = this.#received;
          try {
            if (await this.#read(response, signal)) return;
            cause = undefined;
          } catch (error) {
            if (error instanceof ServiceError) throw error; // an invalid event: resuming would not help
            cause = error;
          }
          if (this.#received > before) attempt = 0;
        }
        if (signal.aborted) throw aborted(signal);
        if (this.#turnId === undefined || this.#lastSeq === undefined) {
          throw broken('the connection closed before the turn started', cause);
        }
        if (attempt >= resumePolicy.attempts) {
          throw broken(`the turn's event stream broke and could not be resumed after ${resumePolicy.attempts} attempts`, cause);
        }
        await sleep(resumePolicy.delayMs * 2 ** attempt, signal);
        attempt++;
        if (signal.aborted) throw aborted(signal);
        try {
          response = await this.#http.stream('GET', `/v1/turns/${segment(this.#turnId, 'turn id')}/events`, {
            headers: { 'Last-Event-ID': String(this.#lastSeq) },
            signal,
          });
        } catch (error) {
          if (error instanceof ServiceError && !error.retryable) throw error; // 4xx, or aborted
          cause = error;
          response = undefined;
        }
      }
    } catch (error) {
      this.#fail(toServiceError(error, signal));
    }
  }

  /**
   * Reads one event stream to its end. True when the turn's last event arrived (the stream is
   * then closed); false when the stream ended or was aborted before it. Throws a `ServiceError`
   * for an answer that is not a valid event stream, and whatever the body read throws when the
   * connection breaks.
   */
  async #read(response: Response, signal: AbortSignal): Promise<boolean> {
    const contentType = response.headers.get('content-type');
    if (contentType !== null && !contentType.toLowerCase().includes('text/event-stream')) {
      await response.body?.cancel().catch(() => undefined);
      throw invalidResponse(response.status, `an event stream (got ${contentType})`);
    }
    if (response.body === null) return false;
    for await (const message of readSSE(response.body, signal)) {
      const seq = message.id !== undefined && /^\d+$/.test(message.id) ? Number(message.id) : undefined;
      if (seq !== undefined && this.#lastSeq !== undefined && seq <= this.#lastSeq) continue; // seen before a reconnection
      if (message.data === '') continue;
      const event = parseEvent(message.data, response.status);
      if (seq !== undefined) this.#lastSeq = seq;
      if (event === undefined) continue; // a type this SDK does not know: skipped
      this.#received++;
      if (event.type === 'start') this.#turnId = event.turnId;
      if (event.type === 'done' || event.type === 'error') {
        this.#settle(event);
        return true;
      }
      this.#push(event);
    }
    return false;
  }
}

/** The error an `error` event rejects the awaited turn with. */
function turnFailed(event: Extract<TurnEvent, { type: 'error' }>): ServiceError {
  return new ServiceError({ code: 'turn_failed', status: event.retryable ? 500 : 400, retryable: event.retryable, message: event.message });
}

function aborted(signal: AbortSignal): ServiceError {
  return new ServiceError({ code: 'aborted', status: 0, retryable: false, message: 'the turn was aborted', cause: signal.reason });
}

function broken(message: string, cause: unknown): ServiceError {
  const detail = cause instanceof Error ? `: ${cause.message}` : '';
  return new ServiceError({ code: 'connection_error', status: 0, retryable: true, message: `${message}${detail}`, cause });
}

function invalidResponse(status: number, what: string, cause?: unknown): ServiceError {
  return new ServiceError({ code: 'invalid_response', status, retryable: false, message: `the service answered the turn with something that is not ${what}`, cause });
}

function toServiceError(error: unknown, signal: AbortSignal): ServiceError {
  if (error instanceof ServiceError) return error;
  if (signal.aborted) return aborted(signal);
  return broken('the turn failed', error);
}

/** Waits `ms`, or less if `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

type Fields = Record<string, unknown>;

const isString = (value: unknown): value is string => typeof value === 'string';

/** Field checks of each known event type; an event failing them is an invalid answer. */
const shapes: Record<TurnEvent['type'], (event: Fields) => boolean> = {
  start: (e) => isString(e.turnId),
  progress: (e) => Array.isArray(e.steps),
  tool: (e) => isString(e.name) && (e.state === 'start' || e.state === 'end') && (e.ok === undefined || typeof e.ok === 'boolean'),
  text: (e) => isString(e.text) && (e.reset === undefined || e.reset === true),
  file: (e) => isString(e.path),
  done: (e) => isString(e.reply),
  error: (e) => isString(e.message) && typeof e.retryable === 'boolean',
};

/** The TurnEvent in an SSE `data` field; `undefined` for a type this SDK does not know. */
function parseEvent(data: string, status: number): TurnEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (cause) {
    throw invalidResponse(status, 'JSON event data', cause);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !isString((value as Fields).type)) {
    throw invalidResponse(status, 'an event object with a type');
  }
  const event = value as Fields;
  const type = event.type as string;
  if (!Object.hasOwn(shapes, type)) return undefined;
  if (!shapes[type as TurnEvent['type']](event)) throw invalidResponse(status, `a valid ${type} event`);
  return event as unknown as TurnEvent;
}
