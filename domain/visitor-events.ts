import type { TurnEvent } from './turn-events';
import { TURN_CANCELLED_MESSAGE } from './runs/turn';

type ErrorEvent = Extract<TurnEvent, { type: 'error' }>;

/**
 * What a visitor (public chat, a test URL, the embed, the hosted page) is told when the owner's
 * side cannot take or finish their message. The owner reads why through the API, with its key.
 */
export const VISITOR_UNAVAILABLE = 'This assistant cannot answer right now. Please try again later.';

/** A visitor's message refused (429) because the workspace runs as many turns as it may: its count is the owner's. */
export const VISITOR_BUSY = 'This assistant is answering as many people as it can right now. Please try again in a few seconds.';

/** A visitor's message refused at admission: the credits (retryable: a top-up may come) or a version a visitor cannot use. */
export const visitorRefusal = (retryable: boolean): ErrorEvent => ({ type: 'error', message: VISITOR_UNAVAILABLE, retryable });

/**
 * A turn's terminal `error` event as a visitor sees it. Every turn error message is written for the
 * workspace and may carry what visitors must not read — an agent id and its cap and spending, the
 * balance, the step limit or the deadline, a turn's internal state — so visitors get a fixed
 * sentence instead, whatever the message (a message added later is hidden too):
 * a cancel stays a cancel; a turn stopped for its credits becomes exactly the admission refusal
 * (visitors cannot tell a stop mid-turn from a refusal before it, and no `code` says which
 * budget ran out); anything else is VISITOR_UNAVAILABLE with the event's own `retryable`.
 */
export function visitorTerminal(event: ErrorEvent): ErrorEvent {
  if (event.message === TURN_CANCELLED_MESSAGE && event.code === undefined) return { type: 'error', message: TURN_CANCELLED_MESSAGE, retryable: false };
  if (event.code !== undefined) return visitorRefusal(true);
  return { type: 'error', message: VISITOR_UNAVAILABLE, retryable: event.retryable };
}
