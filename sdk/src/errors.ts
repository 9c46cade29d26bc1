/** Fields of a `ServiceError`; `retryable` defaults from `status` (see `ServiceError.retryable`). */
export interface ServiceErrorInit {
  /** See `ServiceError.code`. */
  code: string;
  /** Human-readable description. */
  message: string;
  /** See `ServiceError.status`. */
  status: number;
  /** Overrides the status-derived default. */
  retryable?: boolean;
  /** See `ServiceError.retryAfter`. */
  retryAfter?: number;
  /** See `ServiceError.requestId`. */
  requestId?: string;
  /** See `ServiceError.turnId`. */
  turnId?: string;
  /** The underlying failure, kept as the standard `Error.cause`. */
  cause?: unknown;
}

/**
 * The one error type of the SDK: every failed call rejects with it. Branch on `code`, which is
 * stable; `message` is for humans and may be reworded.
 *
 * Codes made by the SDK itself (status 0 unless noted):
 * - `connection_error`: the service could not be reached (refused, DNS, reset). Retryable. For
 *   a `Turn`, the stream broke and could not be resumed within the `resumeTimeout` option: the
 *   turn may still complete on the service, and `turnId` (when known) names it for
 *   `ws.turn(turnId)`.
 * - `timeout`: no complete answer within the `timeout` option. Retryable.
 * - `aborted`: the caller's `AbortSignal` fired. Not retryable.
 * - `missing_api_key` (status 401): no API key was configured; nothing was sent.
 * - `http_<status>`: a non-2xx answer whose body is not the service's JSON error shape.
 * - `invalid_response`: a 2xx answer whose body is not JSON, or not the expected shape (an
 *   object for a record, `{ "data": [...] }` for a list).
 * - `invalid_request` (status 400): an id, workflow name or file path that cannot be put in a
 *   URL (empty, or a `.` or `..` segment), or an empty id for a request body (the version id of
 *   a deploy or rollback); nothing was sent. The service answers other invalid input with the
 *   same code.
 */
export class ServiceError extends Error {
  /** Stable identifier of the failure, e.g. `agent_not_found`, `rate_limited`, `timeout`. */
  readonly code: string;
  /** HTTP status of the answer; 0 when no answer arrived (connection failure, timeout, abort). */
  readonly status: number;
  /**
   * Whether the same call may succeed if repeated: true for 5xx and 429, and for connection
   * failures and timeouts (status 0); false for everything else, including a caller's abort.
   * The SDK never repeats a call by itself (a `Turn` only reconnects to its own event stream).
   */
  readonly retryable: boolean;
  /** Seconds to wait before retrying, from the body's `error.retryAfter` or the `Retry-After` header (429). */
  readonly retryAfter?: number;
  /** The service's id for the request (`X-Request-Id` answer header), to quote in bug reports. */
  readonly requestId?: string;
  /**
   * The turn the failure is about, when known: set on every error of a `Turn` once the service
   * has accepted it (so `ws.turn(turnId)` can fetch the turn's outcome later), and on a 409
   * `turn_in_progress` refusal, where it names the conversation's running turn.
   */
  readonly turnId?: string;

  /** Builds an error from its fields; `retryable` is derived from `status` when omitted. */
  constructor(init: ServiceErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ServiceError';
    this.code = init.code;
    this.status = init.status;
    this.retryable = init.retryable ?? isRetryableStatus(init.status);
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter;
    if (init.requestId !== undefined) this.requestId = init.requestId;
    if (init.turnId !== undefined) this.turnId = init.turnId;
  }
}

/** @internal Sets `error.turnId` unless it is set already; returns `error`. */
export function withTurnId(error: ServiceError, turnId: string | undefined): ServiceError {
  if (turnId !== undefined && error.turnId === undefined) (error as { turnId?: string }).turnId = turnId;
  return error;
}

/** True for 5xx, 429 and 0 (no answer): the statuses where repeating a call can help. */
function isRetryableStatus(status: number): boolean {
  return status === 0 || status === 429 || status >= 500;
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; retryAfter?: unknown };
}

/** Seconds from a `Retry-After` header: delay-seconds or an HTTP date. */
function parseRetryAfterHeader(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds : undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function parseJson(text: string): ErrorBody | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as ErrorBody) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Turns a non-2xx answer into a `ServiceError`, reading its body. The service's body is
 * `{"error":{"code","message","retryable","retryAfter"?}}`; any other body gives code `http_<status>`.
 */
export async function errorFromResponse(response: Response): Promise<ServiceError> {
  const text = await response.text();
  const body = parseJson(text)?.error;
  const status = response.status;
  const code = typeof body?.code === 'string' && body.code !== '' ? body.code : undefined;
  const message = code !== undefined && typeof body?.message === 'string' ? body.message : undefined;
  const bodyRetryAfter = typeof body?.retryAfter === 'number' && body.retryAfter >= 0 ? body.retryAfter : undefined;
  const retryAfter = bodyRetryAfter ?? parseRetryAfterHeader(response.headers.get('retry-after'));
  const requestId = response.headers.get('x-request-id') ?? undefined;
  return new ServiceError({
    code: code ?? `http_${status}`,
    message: message ?? `HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''}`,
    status,
    retryAfter,
    requestId,
  });
}
