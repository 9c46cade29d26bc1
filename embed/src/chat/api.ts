import type { Message } from '../../../sdk/src';
import type { HostedPageConfig } from '../../page-template';
import type { Visitor } from './identity';

export interface History {
  /** The messages of the visitor's conversation so far. */
  data: Message[];
  /** A turn still being answered (e.g. the visitor reloaded mid-reply): follow it. */
  runningTurnId: string | null;
}

/** A non-2xx answer of the public API, from its `{"error":{…}}` body. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly retryable: boolean,
    /** Seconds to wait, on 429. */
    readonly retryAfter: number | undefined,
  ) {
    super(message);
  }
}

/** The public chat routes, called with the page's token (none on a test host). */
export class PublicApi {
  constructor(private readonly config: HostedPageConfig) {}

  async history(visitor: Visitor, signal: AbortSignal): Promise<History> {
    const res = await this.request(`/v1/public/chat/messages?userId=${encodeURIComponent(visitor.id)}`, { signal, headers: tokenHeader(visitor) });
    const body = (await res.json()) as Partial<History>;
    return { data: Array.isArray(body.data) ? body.data : [], runningTurnId: body.runningTurnId ?? null };
  }

  /** Starts a turn; the answer is the SSE stream of its events (headers carry X-Turn-Id). */
  send(content: string, user: Visitor, signal: AbortSignal): Promise<Response> {
    return this.request('/v1/public/chat', {
      method: 'POST',
      signal,
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ content, user }),
    });
  }

  /** The rest of a turn's events after `lastEventId` (all of them when null). */
  resume(turnId: string, visitor: Visitor, lastEventId: string | null, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { Accept: 'text/event-stream', ...tokenHeader(visitor) };
    if (lastEventId) headers['Last-Event-ID'] = lastEventId;
    const path = `/v1/public/turns/${encodeURIComponent(turnId)}/events?userId=${encodeURIComponent(visitor.id)}`;
    return this.request(path, { signal, headers });
  }

  /** The visitor's decision on a tool call of their conversation; resolves to the status that stands. */
  async decide(approvalId: string, visitor: Visitor, decision: 'approve' | 'deny', signal: AbortSignal): Promise<string> {
    const res = await this.request(`/v1/public/approvals/${encodeURIComponent(approvalId)}`, {
      method: 'POST',
      signal,
      headers: { 'Content-Type': 'application/json', ...tokenHeader(visitor) },
      body: JSON.stringify({ userId: visitor.id, decision }),
    });
    const body = (await res.json()) as { status?: unknown };
    return typeof body.status === 'string' ? body.status : decision === 'approve' ? 'approved' : 'denied';
  }

  private async request(path: string, init: RequestInit & { headers?: Record<string, string> }): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.config.token) headers.Authorization = `Bearer ${this.config.token}`;
    const res = await fetch(this.config.apiBase + path, { ...init, headers, cache: 'no-store' });
    if (!res.ok) throw await toApiError(res);
    return res;
  }
}

/** A verified visitor's reads carry their token in a header (kept out of URLs and logs). */
const tokenHeader = (visitor: Visitor): Record<string, string> => (visitor.token ? { 'X-Visitor-Token': visitor.token } : {});

async function toApiError(res: Response): Promise<ApiError> {
  let error: { code?: unknown; message?: unknown; retryable?: unknown; retryAfter?: unknown } = {};
  try {
    const body = (await res.json()) as { error?: typeof error };
    error = body.error ?? {};
  } catch {
    // not our JSON (a proxy's error page): fall back to the status
  }
  const header = Number(res.headers.get('Retry-After'));
  const retryAfter = typeof error.retryAfter === 'number' ? error.retryAfter : header > 0 ? header : undefined;
  return new ApiError(
    typeof error.message === 'string' ? error.message : `The chat service answered ${res.status}.`,
    res.status,
    typeof error.code === 'string' ? error.code : 'http_error',
    typeof error.retryable === 'boolean' ? error.retryable : res.status >= 500 || res.status === 429,
    retryAfter,
  );
}
