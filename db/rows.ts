import { isoTimestamp } from '../domain/time';

/** Timestamps come back from pg as Date; on the wire they are ISO strings. */
export function iso(value: Date | string): string;
export function iso(value: Date | string | null): string | null;
export function iso(value: Date | string | null): string | null {
  return value === null ? null : isoTimestamp(value);
}
