import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import { segment } from './paths.js';
import type { Approval, ApprovalDecision } from './types/approval.js';

/**
 * A tool call waiting for a person's decision (`ws.approval(approvalId)`), by the id of a turn's
 * `approval` event. Sends no request until a method is called. The first decision stands: a later
 * one rejects with 409 `approval_decided` (its message names the decision that stands). An unknown
 * id, or another workspace's, rejects with 404 `approval_not_found`.
 */
export class ApprovalHandle {
  readonly #http: HttpClient;
  /** The approval's id (`apr_…`). */
  readonly id: string;

  /** @internal Built by `ws.approval()` and `Turn`; not part of the public API. */
  constructor(http: HttpClient, approvalId: string) {
    this.#http = http;
    this.id = approvalId;
  }

  #url(): string {
    return `/v1/approvals/${segment(this.id, 'approval id')}`;
  }

  /** Reads the approval (`GET /v1/approvals/:approvalId`). */
  get(options: CallOptions = {}): Promise<Approval> {
    return this.#http.request<Approval>('GET', this.#url(), { signal: options.signal, expect: 'object' });
  }

  /** Approves the call (`POST /v1/approvals/:approvalId`): the turn goes on and the tool runs. Resolves to the approval as decided. */
  approve(note?: string, options: CallOptions = {}): Promise<Approval> {
    return this.#decide({ decision: 'approve', ...(note === undefined ? {} : { note }) }, options);
  }

  /** Denies the call: the turn goes on, and the model is told the tool was not run (with `note`). */
  deny(note?: string, options: CallOptions = {}): Promise<Approval> {
    return this.#decide({ decision: 'deny', ...(note === undefined ? {} : { note }) }, options);
  }

  #decide(body: ApprovalDecision, options: CallOptions): Promise<Approval> {
    return this.#http.request<Approval>('POST', this.#url(), { body, signal: options.signal, expect: 'object' });
  }
}
