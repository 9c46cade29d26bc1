/** Errors of outbound requests, and the sentence a tool shows the model for any failure of one. */

const HINT = 'an operator can allow it with OUTBOUND_ALLOW_PRIVATE';

/** An outbound request that could not be made: bad URL, bad redirect, too many redirects. */
export class OutboundError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutboundError';
  }
}

/** A request to a private, loopback, link-local or metadata address, refused before connecting. */
export class OutboundRefusedError extends OutboundError {
  constructor(
    readonly host: string,
    /** The address the host resolved to (the host itself for a literal IP); absent for a refused name. */
    readonly address: string | undefined,
    /** Why: the address range (e.g. `loopback`, `private`, `linkLocal`) or `metadata host`. */
    readonly reason: string,
  ) {
    super(
      address === undefined || address === host
        ? `refused to connect to ${host} (${reason}): private and internal addresses are blocked; ${HINT}`
        : `refused to connect to ${host}: it resolves to ${address} (${reason}); private and internal addresses are blocked; ${HINT}`,
    );
    this.name = 'OutboundRefusedError';
  }
}

/** The OutboundError (e.g. a refusal from the lookup) somewhere in an error's cause chain. */
export function findOutboundError(e: unknown): OutboundError | undefined {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 8; cur = cur.cause, depth++) {
    if (cur instanceof OutboundError) return cur;
  }
  return undefined;
}

/**
 * A short, clear sentence for what went wrong with an outbound request, for the model: a refusal,
 * a name that does not resolve, a refused or reset connection, a TLS failure, a timeout.
 */
export function describeOutboundError(e: unknown, context: { url: string; timeoutMs?: number; timedOut?: boolean }): string {
  const outbound = findOutboundError(e);
  if (outbound) return outbound.message;
  if (context.timedOut) return `request to ${context.url} timed out after ${context.timeoutMs ?? '?'} ms`;
  const name = e instanceof Error ? e.name : '';
  if (name === 'TimeoutError') return `request to ${context.url} timed out after ${context.timeoutMs ?? '?'} ms`;
  if (name === 'AbortError') return `request to ${context.url} was cancelled`;
  let host = context.url;
  try {
    host = new URL(context.url).host;
  } catch {
    // Keep the URL as given.
  }
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 8; cur = cur.cause, depth++) {
    const code = (cur as NodeJS.ErrnoException).code;
    switch (code) {
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
      case 'EAI_NODATA':
      case 'EAI_NONAME':
        return `could not resolve host ${host} (${code})`;
      case 'ECONNREFUSED':
        return `connection to ${host} was refused (ECONNREFUSED)`;
      case 'ECONNRESET':
      case 'EPIPE':
      case 'UND_ERR_SOCKET':
        return `connection to ${host} was closed unexpectedly (${code})`;
      case 'ETIMEDOUT':
      case 'UND_ERR_CONNECT_TIMEOUT':
        return `connecting to ${host} timed out (${code})`;
      case 'UND_ERR_HEADERS_TIMEOUT':
      case 'UND_ERR_BODY_TIMEOUT':
        return `${host} did not answer in time (${code})`;
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return `${host} is unreachable (${code})`;
      default:
        if (code && /CERT|SSL|TLS/i.test(code)) return `TLS error talking to ${host}: ${cur.message} (${code})`;
    }
  }
  const inner = e instanceof Error && e.cause instanceof Error ? e.cause.message : undefined;
  const message = e instanceof Error ? e.message : String(e);
  return `request to ${context.url} failed: ${inner ? `${message}: ${inner}` : message}`;
}
