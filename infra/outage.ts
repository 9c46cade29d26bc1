/**
 * Which failures mean "a dependency is away for now" rather than "this request is wrong": the
 * API answers them 503 with a stable, retryable code, and callers try again.
 */

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** PostgreSQL SQLSTATEs of a server going away: admin/crash shutdown, cannot connect now, too many connections. */
const PG_OUTAGE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** Socket errors of a database connection. */
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** What node-postgres says when the server closes a connection under it. */
const PG_MESSAGES = /Connection terminated|connection (?:is )?closed|Client has encountered a connection error|terminating connection/i;

function* chain(err: unknown): Generator<ErrorLike> {
  let e = err;
  for (let depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    yield e as ErrorLike;
    e = (e as ErrorLike).cause;
  }
}

/**
 * True for a lost or refused PostgreSQL connection, a failover (57P01/57P02/57P03, class 08),
 * too many connections, or a pool that could hand out no connection in time (knex's
 * `KnexTimeoutError`).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of chain(err)) {
    if (e.name === 'KnexTimeoutError') return true;
    if (typeof e.code === 'string' && (PG_OUTAGE_STATES.has(e.code) || e.code.startsWith('08') || NET_CODES.has(e.code))) return true;
    if (typeof e.message === 'string' && PG_MESSAGES.test(e.message)) return true;
  }
  return false;
}

/** True for a Temporal frontend that cannot be reached (gRPC UNAVAILABLE or DEADLINE_EXCEEDED, or a connection error). */
export function isTemporalUnavailable(err: unknown): boolean {
  for (const e of chain(err)) {
    if (e.code === 14 || e.code === 4) return true;
    if (typeof e.name === 'string' && /ServiceError|ConnectionError|TransportError/.test(e.name) && typeof e.message === 'string' && /unavailable|connect|deadline/i.test(e.message)) {
      return true;
    }
  }
  return false;
}
