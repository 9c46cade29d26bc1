import type { TurnEvent } from '../../../sdk/src';
import { readSSE } from '../../../sdk/src/sse';
import { ApiError } from './api';
import { toTurnEvent } from './events';

/** Waits before each resume attempt after a dropped stream; its length is the number of tries. */
const RESUME_DELAYS_MS = [500, 1500, 3000, 6000];

export interface FollowOptions {
  /** Opens the rest of the turn after `lastEventId` (the resume endpoint). */
  resume(turnId: string, lastEventId: string | null, signal: AbortSignal): Promise<Response>;
  onEvent(event: TurnEvent): void;
  /** The stream dropped and a resume attempt is about to be made. */
  onReconnecting(): void;
  signal: AbortSignal;
}

/**
 * Follows one turn to its final event across dropped connections: when a stream breaks (or ends)
 * before `done`/`error`, it reopens the turn from the last event id seen, a few times with
 * backoff. Survives across calls, so "Retry" after a lost connection picks up where it stopped.
 */
export class TurnFollower {
  private lastEventId: string | null = null;

  constructor(
    public turnId: string | null,
    private readonly options: FollowOptions,
  ) {}

  /**
   * Reads `first` (or resumes when null) until a final event: 'final' once `done` or `error`
   * arrived, 'lost' when the stream could not be recovered. Rejects when the signal aborts, and
   * with an ApiError when the service refuses to resume for good (e.g. the turn is unknown).
   */
  async follow(first: Response | null): Promise<'final' | 'lost'> {
    const { signal } = this.options;
    let response = first;
    let attempt = 0;
    for (;;) {
      try {
        if (!response) {
          if (!this.turnId) return 'lost';
          response = await this.options.resume(this.turnId, this.lastEventId, signal);
        }
        const seenBefore = this.lastEventId;
        if (await this.read(response)) return 'final';
        if (this.lastEventId !== seenBefore) attempt = 0; // it made progress: a fresh set of tries
      } catch (error) {
        if (signal.aborted) throw error;
        if (error instanceof ApiError && !error.retryable) throw error;
      }
      response = null;
      if (!this.turnId || attempt >= RESUME_DELAYS_MS.length) return 'lost';
      this.options.onReconnecting();
      await sleep(RESUME_DELAYS_MS[attempt++] ?? 0, signal);
    }
  }

  /** Delivers the events of one response; true when a final event arrived. */
  private async read(response: Response): Promise<boolean> {
    if (!response.body) return false;
    const turnHeader = response.headers.get('X-Turn-Id');
    if (turnHeader) this.turnId = turnHeader;
    // The SDK's reader: its `finally` cancels the body when a final event ends the loop early.
    for await (const sse of readSSE(response.body)) {
      if (sse.id) this.lastEventId = sse.id;
      const event = toTurnEvent(sse);
      if (!event) continue;
      if (event.type === 'start' && event.turnId) this.turnId = event.turnId;
      this.options.onEvent(event);
      if (event.type === 'done' || event.type === 'error') return true;
    }
    return false;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done(): void {
      signal.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted(): void {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', aborted, { once: true });
  });
}
