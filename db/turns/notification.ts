// The notification a turn's appended events send to every API process's streams. Its payload is
// built once, in SQL, by `notify_turn_events` (sql/notify_turn_events.v1.sql); here are its
// channel, its size bound and its decoder.
import { z } from 'zod';
import { turnEventSchema, type TurnEvent } from '../../domain/turn-events';

/** The channel an append NOTIFYs and each API process LISTENs on. */
export const TURN_EVENTS_CHANNEL = 'turn_events';

/**
 * The largest payload that carries the appended events themselves. PostgreSQL refuses a NOTIFY
 * payload of 8000 bytes or more (the append would fail); above this bound the payload names
 * only the seq range, and the turn's streams read the events as before.
 */
export const CARRY_EVENTS_MAX_BYTES = 7000;

/** A stored event as a stream writes it: `data` is the stored JSON text (jsonb's output), written as is. */
export interface EventText {
  seq: number;
  type: TurnEvent['type'];
  data: string;
}

/** The events one append added: seqs `first`..`last`, and the events themselves when they were small. */
export interface Appended {
  first: number;
  last: number;
  /** In seq order, one per seq of the range. */
  events?: EventText[];
}

/** A notification on TURN_EVENTS_CHANNEL, decoded. */
export interface TurnNotification {
  turnId: string;
  /** Missing in an older worker's payload, which is the turn id alone (streams then read). */
  appended?: Appended;
}

const eventTypes: ReadonlySet<string> = new Set(turnEventSchema.options.map((o) => o.shape.type.value));

const headerSchema = z.object({ turnId: z.string().min(1) });

const appendedSchema = z
  .object({
    // A later format (another `v`) still wakes the turn's streams by its id: they read.
    v: z.literal(1),
    first: z.number().int().positive(),
    last: z.number().int().positive(),
    events: z
      .array(
        z.tuple([
          z.custom<TurnEvent['type']>((t) => typeof t === 'string' && eventTypes.has(t)),
          // One JSON object on one line: a line break would end the SSE `data:` field early.
          z.string().regex(/^\{[^\r\n]*\}$/),
        ]),
      )
      .optional(),
  })
  .refine((a) => a.last >= a.first && (a.events === undefined || a.events.length === a.last - a.first + 1));

/**
 * Decodes a payload on TURN_EVENTS_CHANNEL: an older worker's (the turn id alone), or ours. When
 * the turn id is readable but the rest is not, only the turn id is kept, so its streams read as
 * they always have; `undefined` when not even the turn id is (nobody can be woken: the hub's
 * sweep finds the streams behind).
 */
export function decodeTurnNotification(payload: string): TurnNotification | undefined {
  if (!payload.startsWith('{')) return payload ? { turnId: payload } : undefined;
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return undefined;
  }
  const header = headerSchema.safeParse(json);
  if (!header.success) return undefined;
  const { turnId } = header.data;
  const appended = appendedSchema.safeParse(json);
  if (!appended.success) return { turnId };
  const { first, last, events } = appended.data;
  return {
    turnId,
    appended: { first, last, ...(events ? { events: events.map(([type, data], i) => ({ seq: first + i, type, data })) } : {}) },
  };
}
