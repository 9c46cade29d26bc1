import { invalidResponse } from './turn-errors.js';
import type { TurnEvent } from './types/turn-event.js';

/** Reading a `TurnEvent` out of an SSE `data` field, checking the fields of the types this SDK knows. */

type Fields = Record<string, unknown>;

const isString = (value: unknown): value is string => typeof value === 'string';

/** Field checks of each known event type; an event failing them is an invalid answer. */
const shapes: Record<TurnEvent['type'], (event: Fields) => boolean> = {
  start: (e) => isString(e.turnId),
  progress: (e) => Array.isArray(e.steps),
  tool: (e) => isString(e.name) && (e.state === 'start' || e.state === 'end') && (e.ok === undefined || typeof e.ok === 'boolean'),
  text: (e) => isString(e.text) && (e.reset === undefined || e.reset === true),
  file: (e) => isString(e.path),
  approval: (e) =>
    isString(e.approvalId) &&
    isString(e.tool) &&
    typeof e.arguments === 'object' &&
    e.arguments !== null &&
    (e.approver === 'visitor' || e.approver === 'workspace') &&
    ['pending', 'approved', 'denied', 'expired'].includes(e.status as string),
  done: (e) => isString(e.reply),
  error: (e) => isString(e.message) && typeof e.retryable === 'boolean',
};

/** The TurnEvent in an SSE `data` field; `undefined` for a type this SDK does not know. */
export function parseEvent(data: string, status: number): TurnEvent | undefined {
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
