// Long on purpose (about 370 lines): a Turn is one object a caller holds — awaiting, streaming, resuming,
// cancelling and approving — and its public surface reads best in one file.
import { ApprovalHandle } from './approval.js';
import { ServiceError, withTurnId } from './errors.js';
import type { HttpClient } from './http.js';
import { segment } from './paths.js';
import { readSSE } from './sse.js';
import { aborted, invalidResponse, toServiceError, turnFailed } from './turn-errors.js';
import { parseEvent } from './turn-parse.js';
import { follow, type ResumableStream } from './turn-resume.js';
import type { CallOptions } from './options.js';
import type { Approval } from './types/approval.js';
import type { Attachment, TurnState } from './types/conversation.js';
import type { TurnEvent } from './types/turn-event.js';

/** @internal What builds a `Turn`: `conversation.ask()` sends a message, `ws.turn(turnId)` follows a turn. */
export type TurnRequest =
  | { kind: 'ask'; conversationId: string; text: string; attachments?: Attachment[]; signal?: AbortSignal }
  | { kind: 'follow'; turnId: string; signal?: AbortSignal };

type TerminalEvent = Extract<TurnEvent, { type: 'done' | 'error' }>;

/**
 * One turn of a conversation: what `conversation.ask(text)` and `ws.turn(turnId)` return. It can
 * be consumed in two ways, alone or together:
 *
 * ```ts
 * const reply = await conversation.ask('Hello');            // the reply string
 *
 * for await (const event of conversation.ask('Hello')) {   // every TurnEvent as it arrives
 *   if (event.type === 'text') process.stdout.write(event.text);
 * }
 * ```
 *
 * From `conversation.ask()`, the request (`POST /v1/conversations/:conversationId/turns`) is
 * sent once, as soon as `ask()` is called. From `ws.turn(turnId)`, nothing is sent until the
 * turn is first awaited or iterated; then it reads `GET /v1/turns/:turnId/events` from the
 * first event (`Last-Event-ID: 0`), live until the turn ends, or at once if it has ended.
 *
 * **Awaiting** (`then`, `catch`, `finally`) resolves to the `done` event's `reply`. It rejects
 * with a `ServiceError`:
 * - an answer refused before the stream started keeps the service's `code` and `status`
 *   (e.g. 409 `conversation_ended`, `conversation_not_ready`, `turn_in_progress` — whose
 *   `turnId` names the conversation's running turn —, `insufficient_credits`; 404
 *   `conversation_not_found`, or `turn_not_found` from `ws.turn(turnId)`);
 * - an `error` event from the service gives the event's `code` (`credits_exhausted`,
 *   `credit_cap_reached`) or else `turn_failed`, the event's `message` and
 *   `retryable`, and status 500 when retryable or 400 when not, so that `status` agrees with
 *   `retryable` as in the service's errors (5xx and 429 only are retryable);
 * - a connection that broke and could not be resumed within the `resumeTimeout` option gives
 *   code `connection_error` (status 0, retryable): the turn may still complete on the service,
 *   and the message says so and names the turn (see below);
 * - the `signal` option, or a `break` out of the iteration, gives code `aborted`.
 * Every such error carries `turnId` once the turn's id is known. Awaiting is allowed any number
 * of times, before, during or after iterating.
 *
 * **Iterating** (`for await`) yields the events in order, ending with exactly one `done` or
 * `error` event; every failure above arrives as that `error` event (`message`, `retryable`)
 * instead of being thrown. A Turn can be iterated once: a second iteration throws an `Error`.
 * Events are buffered from the start, so iterating after awaiting yields them all. Leaving
 * the loop early (`break`, `return`, a throw) aborts the request if the turn has not ended yet;
 * awaiting the turn afterwards rejects with code `aborted`.
 *
 * **Resuming.** The `timeout` option does not apply: a turn lasts as long as the agent works.
 * Keepalive comments are ignored. If the event stream breaks before the last event (a dropped
 * connection, an API restart, a database failover) and the turn's id is known (the `X-Turn-Id`
 * header of the answer, or the `start` event), the SDK reconnects to
 * `GET /v1/turns/:turnId/events` with `Last-Event-ID` set to the last event's sequence number,
 * and goes on trying for as long as the `resumeTimeout` option allows (default 3 minutes of
 * lost connection, counted afresh whenever new events arrive): waits grow from 250 ms to 5 s,
 * with jitter, and a 429 or 503 answer's `Retry-After` is honoured. No event is yielded twice.
 * A 4xx answer other than 408 and 429 (e.g. 404 `turn_not_found`), or an abort, ends the turn
 * at once. Awaiting and iterating share this one stream. This is the only case where the SDK
 * sends a request by itself; the message is never sent again.
 *
 * **Losing track of a turn.** When resuming gives up, the turn goes on running on the service
 * and is billed as usual; the `connection_error` says so, with the turn's id in the message and
 * in `error.turnId`. Get the outcome with `ws.turn(turnId)`: awaiting it gives the reply (or the
 * turn's own failure), iterating it replays every event. A process that kept only the id (store
 * `turn.id`) does the same. Without the id: while the turn runs, another `ask` on the
 * conversation is refused with 409 `turn_in_progress` whose `turnId` names it; once it ended,
 * `conversation.messages()` holds its reply. Do not `ask` the same message again to recover a
 * reply: that is a new, separately billed turn.
 */
export class Turn implements PromiseLike<string>, AsyncIterable<TurnEvent> {
  readonly #http: HttpClient;
  readonly #request: TurnRequest;
  readonly #controller = new AbortController();
  readonly #result: Promise<string>;
  #resolve: (reply: string) => void = () => undefined;
  #reject: (error: ServiceError) => void = () => undefined;
  /** Events not yet handed to the iterator (all of them until iteration starts). */
  readonly #buffer: TurnEvent[] = [];
  #head = 0;
  #wake: (() => void) | undefined;
  #started = false;
  #iterated = false;
  #settled = false;
  #turnId: string | undefined;
  #lastSeq: number | undefined;
  /** Events received so far, duplicates and unknown types excluded. */
  #received = 0;
  /** The approval the turn waits on (its last `approval` event, while `pending`). */
  #pendingApproval: string | undefined;
  /** Callers of `approve`/`deny` waiting for an approval to be pending, or the turn to end. */
  #approvalWaiters: Array<() => void> = [];
  /** Resolves once the turn's id is known, or the turn ended without one (refused). */
  readonly #idKnown: Promise<void>;
  #markIdKnown: () => void = () => undefined;

  /**
   * @internal Built by `conversation.ask()` (which sends the request now) and `ws.turn(turnId)`
   * (which sends nothing until the turn is used); not part of the public API.
   */
  constructor(http: HttpClient, request: TurnRequest) {
    this.#http = http;
    this.#request = request;
    this.#result = new Promise<string>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Nobody may ever await this turn (iteration only): its rejection is not "unhandled".
    this.#result.catch(() => undefined);
    this.#idKnown = new Promise<void>((resolve) => {
      this.#markIdKnown = resolve;
    });
    if (request.kind === 'follow') this.#setId(request.turnId);
    else this.#start();
  }

  /**
   * The turn's id: known once the service has accepted the turn (the `X-Turn-Id` header of its
   * answer, else the `start` event), and from the start for `ws.turn(turnId)`; `undefined`
   * before, and for a turn refused before starting. Not a promise, so reading it never waits.
   * Store it to get the turn's outcome later with `ws.turn(turnId)`.
   */
  get id(): string | undefined {
    return this.#turnId;
  }

  /**
   * Cancels the turn (`POST /v1/turns/:turnId/cancel`): the service stops the model
   * or tool call in flight (and a project manager's running delegation) and ends the turn with one
   * `error` event — `retryable: false`, a message saying it was cancelled — which this Turn then
   * yields as its last event (awaiting it rejects with `turn_failed`). What the turn consumed
   * until then is billed. Resolves to the turn's state: `cancelled`, or `done` / `error` when it
   * had already ended (nothing changes). Waits for the turn's id if the service has not answered
   * the ask yet; a turn refused before it started rejects with that refusal.
   */
  async cancel(options: CallOptions = {}): Promise<TurnState> {
    this.#start();
    await this.#idKnown;
    // Refused before it started (it has no id): that refusal is the answer.
    if (this.#turnId === undefined) return this.#result.then(() => Promise.reject(new Error('the turn ended without an id')));
    return this.#http.request<TurnState>('POST', `/v1/turns/${segment(this.#turnId, 'turn id')}/cancel`, { signal: options.signal, expect: 'object' });
  }

  /**
   * Approves the tool call the turn waits on (`POST /v1/approvals/:approvalId` for its `approval`
   * event with status `pending`): the call runs and the turn goes on. If no call waits yet, waits
   * for one to (reading the turn's events, as awaiting it does); rejects with 404
   * `approval_not_found` when the turn ends without one, and 409 `approval_decided` when someone
   * decided it first. Resolves to the approval as decided.
   */
  async approve(note?: string, options: CallOptions = {}): Promise<Approval> {
    return (await this.#waitingApproval(options.signal)).approve(note, options);
  }

  /** Denies the tool call the turn waits on, as `approve` finds it: the model is told it was not run (with `note`). */
  async deny(note?: string, options: CallOptions = {}): Promise<Approval> {
    return (await this.#waitingApproval(options.signal)).deny(note, options);
  }

  async #waitingApproval(signal: AbortSignal | undefined): Promise<ApprovalHandle> {
    this.#start();
    for (;;) {
      if (signal?.aborted) throw aborted(signal);
      if (this.#pendingApproval !== undefined) return new ApprovalHandle(this.#http, this.#pendingApproval);
      if (this.#settled) throw new ServiceError({ code: 'approval_not_found', status: 404, message: 'the turn ended with no tool call waiting for approval' });
      await new Promise<void>((resolve) => {
        this.#approvalWaiters.push(resolve);
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
    }
  }

  #noteApproval(event: Extract<TurnEvent, { type: 'approval' }>): void {
    if (event.status === 'pending') this.#pendingApproval = event.approvalId;
    else if (this.#pendingApproval === event.approvalId) this.#pendingApproval = undefined;
    this.#wakeApprovalWaiters();
  }

  #wakeApprovalWaiters(): void {
    const waiters = this.#approvalWaiters;
    this.#approvalWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves to the reply; rejects with a `ServiceError` (see the class description). */
  then<TResult1 = string, TResult2 = never>(
    onfulfilled?: ((reply: string) => TResult1 | PromiseLike<TResult1>) | null,
    onrejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
  ): Promise<TResult1 | TResult2> {
    this.#start();
    return this.#result.then(onfulfilled, onrejected);
  }

  /** Like `Promise.prototype.catch` on the reply. */
  catch<TResult = never>(onrejected?: ((reason: unknown) => TResult | PromiseLike<TResult>) | null): Promise<string | TResult> {
    this.#start();
    return this.#result.catch(onrejected);
  }

  /** Like `Promise.prototype.finally` on the reply. */
  finally(onfinally?: (() => void) | null): Promise<string> {
    this.#start();
    return this.#result.finally(onfinally);
  }

  /** Iterates the turn's events (once per Turn); see the class description. */
  [Symbol.asyncIterator](): AsyncIterator<TurnEvent> {
    if (this.#iterated) {
      throw new Error('this Turn has already been iterated: a Turn can be iterated only once (await it to get the reply)');
    }
    this.#iterated = true;
    this.#start();
    return this.#events();
  }

  /** `[object Turn]` in `Object.prototype.toString`. */
  get [Symbol.toStringTag](): string {
    return 'Turn';
  }

  /** Starts the requests, once. */
  #start(): void {
    if (this.#started) return;
    this.#started = true;
    const outer = this.#request.signal;
    const forward = () => this.#controller.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    void this.#run(this.#request).finally(() => outer?.removeEventListener('abort', forward));
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

  #setId(turnId: string): void {
    this.#turnId = turnId;
    this.#markIdKnown();
  }

  /** Ends the turn with its terminal event; later calls are ignored. */
  #settle(event: TerminalEvent, error?: ServiceError): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#pendingApproval = undefined;
    this.#wakeApprovalWaiters();
    this.#markIdKnown();
    this.#push(event);
    if (event.type === 'done') this.#resolve(event.reply);
    else this.#reject(withTurnId(error ?? turnFailed(event), this.#turnId));
  }

  #fail(error: ServiceError): void {
    this.#settle({ type: 'error', message: error.message, retryable: error.retryable }, error);
  }

  /** Sends the turn (or connects to it), reads its events and resumes a broken stream; always settles the turn. */
  async #run(request: TurnRequest): Promise<void> {
    const signal = this.#controller.signal;
    try {
      if (signal.aborted) throw aborted(signal);
      const response = request.kind === 'ask' ? await this.#send(request, signal) : undefined;
      await this.#follow(response, signal);
    } catch (error) {
      this.#fail(toServiceError(error, signal));
    }
  }

  /** Sends the message (`POST …/turns`) and resolves to the event stream's answer. */
  async #send(request: Extract<TurnRequest, { kind: 'ask' }>, signal: AbortSignal): Promise<Response> {
    const body: { text: string; attachments?: Attachment[] } = { text: request.text };
    if (request.attachments !== undefined) body.attachments = request.attachments;
    const path = `/v1/conversations/${segment(request.conversationId, 'conversation id')}/turns`;
    let response: Response;
    try {
      response = await this.#http.stream('POST', path, { body, signal });
    } catch (error) {
      // The service names the running turn in the message (its documented contract for this code).
      if (error instanceof ServiceError && error.code === 'turn_in_progress') withTurnId(error, /\btrn_[0-9A-Za-z]+/.exec(error.message)?.[0]);
      throw error;
    }
    const turnId = response.headers.get('x-turn-id');
    if (turnId) this.#setId(turnId); // known before the start event: a drop before it can be resumed
    return response;
  }

  /** Reads the first answer (none for `ws.turn(turnId)`) and resumes the stream until the turn's last event (see turn-resume.ts). */
  async #follow(first: Response | undefined, signal: AbortSignal): Promise<void> {
    const stream: ResumableStream = {
      read: (response, readSignal) => this.#read(response, readSignal),
      received: () => this.#received,
      turnId: () => this.#turnId,
      lastSeq: () => this.#lastSeq,
    };
    await follow(this.#http, stream, first, signal);
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
      if (event.type === 'start') this.#setId(event.turnId);
      if (event.type === 'approval') this.#noteApproval(event);
      if (event.type === 'done' || event.type === 'error') {
        this.#settle(event);
        return true;
      }
      this.#push(event);
    }
    return false;
  }
}
