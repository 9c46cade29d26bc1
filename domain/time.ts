/** Timestamps on the wire are ISO 8601 in UTC with milliseconds, e.g. 2026-11-21T17:48:54.123Z. */
export function isoTimestamp(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
