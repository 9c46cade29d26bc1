/**
 * Keyset pagination, the one convention of every paged list (`GET /v1/audit`,
 * `GET /v1/conversations`): a page is read with one row more than asked, which says whether a
 * next page exists without a count; `nextCursor` is the last row's key, opaque to clients, and
 * null on the last page.
 */
export interface KeysetPage<T> {
  data: T[];
  nextCursor: string | null;
}

/** The page of `rows` (read with `limit + 1`), its items made by `item` and its cursor by `cursorOf`. */
export function keysetPage<R, T>(rows: R[], limit: number, item: (row: R) => T, cursorOf: (row: R) => string): KeysetPage<T> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { data: page.map(item), nextCursor: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}

/**
 * A cursor of a (time, id) key — the list is ordered by both, descending — as base64url of
 * `<time>|<id>`. The time is PostgreSQL's own text of it, to the microsecond (`timeKeySql`): a
 * JavaScript Date keeps milliseconds only, and a cursor rounded to them would skip the rows
 * between. Decoding gives undefined for a string this did not make (the caller answers 400).
 */
export function encodeTimeIdCursor(at: string, id: string): string {
  return Buffer.from(`${at}|${id}`, 'utf8').toString('base64url');
}

/** The SQL that selects the time of a (time, id) key as `encodeTimeIdCursor` takes it. */
export function timeKeySql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

const TIME_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function decodeTimeIdCursor(cursor: string): { at: string; id: string } | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  if (bar < 0) return undefined;
  const at = text.slice(0, bar);
  const id = text.slice(bar + 1);
  return TIME_KEY.test(at) && id !== '' ? { at, id } : undefined;
}
