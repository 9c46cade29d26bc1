import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import type { Approval, ApprovalStatus } from './types/approval.js';

/** What `ws.approvals.list(options)` selects. */
export interface ListApprovalsOptions extends CallOptions {
  /** Only approvals in this status: `pending` for the calls waiting now. */
  status?: ApprovalStatus;
  /** Only the approvals of this turn (`trn_…`). */
  turnId?: string;
}

/**
 * The workspace's approvals (`ws.approvals`): tool calls that wait, or waited, for a person. A
 * turn started by a schedule, a webhook or a delegation has nobody reading its stream: list what
 * waits here, then decide it with `ws.approval(id)`.
 */
export class ApprovalsResource {
  readonly #http: HttpClient;

  /** @internal Built by `WorkspaceClient`; not part of the public API. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** The workspace's approvals, newest first, at most 100 (`GET /v1/approvals`). */
  list(options: ListApprovalsOptions = {}): Promise<Approval[]> {
    const query = { status: options.status, turnId: options.turnId };
    return this.#http.request<Approval[]>('GET', '/v1/approvals', { query, signal: options.signal, expect: 'list' });
  }
}
