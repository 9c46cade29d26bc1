/**
 * The one list of error codes. Codes are stable identifiers that clients branch on;
 * messages are for humans and may change. `doc` is the code's meaning as the reference shows it:
 * the OpenAPI document's Error schema and docs/http-api.md "Error codes" (a unit test keeps that
 * table equal to this list), so it is written for users, in the product's words.
 */
export const errorCodes = {
  invalid_request: {
    status: 400,
    doc: 'The body, query or path failed validation; the message starts with the field (`body.triggers[0].cron: …`). A NUL or an unpaired UTF-16 surrogate in any string or key, and percent-encoding that is not UTF-8, are refused the same way. Nothing was written.',
  },
  invalid_json: { status: 400, doc: 'The body is not valid JSON or not sent as `application/json`.' },
  body_too_large: { status: 400, doc: 'The body is larger than `BODY_LIMIT_BYTES`.' },
  body_too_deep: { status: 400, doc: 'The JSON body nests arrays and objects more than 64 deep.' },
  missing_api_key: { status: 401, doc: "No credentials: neither `Authorization: Bearer <key>` nor a signed-in member's session cookie." },
  invalid_api_key: { status: 401, doc: 'The key is malformed, unknown or revoked.' },
  invalid_session: { status: 401, doc: "The session cookie is unknown, signed out, idle past `SESSION_IDLE_HOURS`, past `SESSION_ABSOLUTE_DAYS`, or its member was removed or had their role changed: sign in again." },
  forbidden: { status: 403, doc: "The key's or member's role may not do this; the message names the role the route needs (docs/security.md: Roles). Nothing was done." },
  csrf_token_invalid: { status: 403, doc: "A change made with a session cookie needs its CSRF token in `X-CSRF-Token` (from `GET /v1/session`); it was missing or wrong. Nothing was done." },
  invalid_credentials: { status: 401, doc: "The e-mail and password do not match a member (the same answer whether or not the e-mail is known)." },
  invalid_link: { status: 400, doc: "The invite, sign-in or reset link is unknown, used before, or expired; ask for a new one. Nothing was done." },
  email_mismatch: { status: 403, doc: "The identity provider's verified e-mail is not the one the invite was sent to, or is not verified." },
  not_a_member: { status: 403, doc: "The verified e-mail is not a member of this workspace (nor of an allowed sign-in domain)." },
  oidc_not_configured: { status: 400, doc: "Sign-in with an identity provider is off on this server: the operator sets `OIDC_ISSUER`, `OIDC_CLIENT_ID` and `OIDC_CLIENT_SECRET`." },
  oidc_failed: { status: 401, doc: "Sign-in with the identity provider did not complete: it could not be reached, it answered with an error (the person declined), or its answer did not check out (the code, or the ID token's signature, issuer, audience, expiry or nonce). Nobody was signed in; start again." },
  member_not_found: { status: 404, doc: "No such member of this workspace." },
  key_not_found: { status: 404, doc: "No such API key in this workspace." },
  last_owner: { status: 409, doc: "The workspace must keep at least one owner: make another member owner before removing or demoting this one." },
  member_exists: { status: 409, doc: "That e-mail is already a member of this workspace: change their role instead." },
  erasure_not_found: { status: 404, doc: "No such erasure of this workspace." },
  invalid_codec_token: { status: 401, doc: 'The codec endpoint (`/v1/codec/…`) needs `Authorization: Bearer <CODEC_TOKEN>`; the header is missing or wrong.' },
  not_found: { status: 404, doc: 'No such route.' },
  workspace_not_found: { status: 404, doc: "The key's workspace no longer exists." },
  file_too_large: { status: 400, doc: 'A file is larger than 25 MiB.' },
  agent_not_found: { status: 404, doc: 'No such agent in this workspace.' },
  version_not_found: {
    status: 404,
    doc: 'The agent has no version of that number, or no version has that `ver_…` id (a version id is the `versionId` of an Agent, or an item `id` of GET /v1/agents/:agentId/deployments).',
  },
  workflow_not_found: { status: 404, doc: 'The agent has no workflow of that name.' },
  project_not_found: { status: 404, doc: 'No such project in this workspace.' },
  file_not_found: { status: 404, doc: 'No such file or folder.' },
  invalid_parameters: { status: 400, doc: 'A conversation parameter is missing, undeclared, of the wrong type or not one of its choices.' },
  eval_case_not_found: { status: 404, doc: 'The agent has no evaluation case of that id.' },
  approval_not_found: {
    status: 404,
    doc: "No such approval in this workspace — or, on the public route, none the visitor's own conversation may decide (the agent's `approvals` is not `visitor`).",
  },
  approval_decided: {
    status: 409,
    doc: 'The approval was decided before (or expired, or its turn ended): the first decision stands, and the message names it. `GET /v1/approvals/{approvalId}` reads it.',
  },
  conversation_not_found: { status: 404, doc: 'No such conversation in this workspace.' },
  turn_not_found: { status: 404, doc: 'No such turn in this workspace.' },
  conversation_ended: { status: 409, doc: 'The conversation has ended; start a new one.' },
  conversation_not_ready: { status: 409, doc: 'A required secret or connection is not supplied yet (see the conversation\'s `requires`).' },
  oauth_not_configured: {
    status: 400,
    doc: 'No OAuth provider of that name is configured on this server (`OAUTH_PROVIDERS`): supply its tokens with `bind`/`attach` (`PUT …/credentials`) instead.',
  },
  insufficient_credits: {
    status: 409,
    doc: "The workspace's credits, less what its running turns reserve, do not cover another turn; or the agent reached its credit cap (the message says which).",
  },
  turn_in_progress: { status: 409, doc: 'A turn of this conversation is still running; its id is in the message. Follow it with `GET /v1/turns/{turnId}/events`.' },
  agent_exists: { status: 409, doc: 'An agent with that id exists or existed; ids are never reused.' },
  path_conflict: { status: 409, doc: 'A file path runs through an existing file, or names an existing folder.' },
  project_archived: { status: 409, doc: 'The project is archived: it can be read and deleted, not changed (no updates, member changes, new conversations or asks).' },
  conflict: { status: 409, doc: 'The request conflicts with the current state.' },
  agent_not_publishable: {
    status: 409,
    doc: 'Only freelancer agents are published: a teammate has no test URL, prod URL, custom domain or public token. Make it one with `PATCH /v1/agents/{agentId}` `{"role":"freelancer"}` (SDK: `agent.update({ role: \'freelancer\' })`).',
  },
  agent_not_deployed: { status: 409, doc: 'The agent has no production version yet (rollback, public token): deploy one with `deployToProd` first.' },
  deploy_check_failed: {
    status: 409,
    doc: "The health check or the eval gate of the candidate version failed; production is unchanged. The message names each failed check, and each failing evaluation case with the eval run's id.",
  },
  eval_case_limit: {
    status: 409,
    doc: 'The agent has 200 evaluation cases, the most it may have: remove one before adding another (replacing an existing case is always allowed). Nothing was written.',
  },
  eval_run_not_found: { status: 404, doc: 'No such eval run of this agent.' },
  no_eval_cases: { status: 409, doc: 'The agent has no evaluation cases to run: put one with `PUT /v1/agents/{agentId}/evals/{caseId}` first.' },
  domains_not_configured: {
    status: 400,
    doc: 'Custom domains are off on this server: the operator sets `HTTPS_PORT` (and `ACME_DIRECTORY_URL` is not `off`).',
  },
  invalid_domain: { status: 400, doc: 'Not a host name that can be a custom domain: an IP address, a wildcard, a malformed name, or a host under `AGENTS_DOMAIN`.' },
  domain_not_found: { status: 404, doc: 'No such custom domain in this workspace.' },
  domain_in_use: { status: 409, doc: "The domain is attached to another agent of this workspace: remove it there first. (Other workspaces' claims are never reported: DNS decides between them.)" },
  missing_public_token: { status: 401, doc: "Public chat needs `Authorization: Bearer agt_pk_…` (the agent's publishable token)." },
  invalid_public_token: { status: 401, doc: 'The publishable token is malformed, unknown, rotated, or its agent is not deployed.' },
  origin_not_allowed: { status: 401, doc: "The request's `Origin` is not among the agent's allowed origins (`GET`/`PUT /v1/agents/{agentId}/allowed-origins`); nothing was done." },
  invalid_visitor_token: {
    status: 401,
    doc: "The visitor token (`user.token`, or the `X-Visitor-Token` header) is malformed, not HS256, not signed with the agent's identity secret (or the previous one within its grace period), expired, with an `exp` more than 24 h ahead or an `iat` in the future, or its `sub` is not exactly the visitor id given (surrounding whitespace is refused, not trimmed). The message names the problem. Nothing was written.",
  },
  visitor_token_required: { status: 401, doc: "The agent's `publicIdentity` is `verified`: a visitor needs a token signed by the customer's backend. Nothing was written." },
  webhook_not_found: { status: 404, doc: 'No such webhook: an inbound URL whose token is unknown or rotated, or whose trigger or agent is gone; or no such webhook of this agent.' },
  storage_quota_exceeded: {
    status: 413,
    doc: "The write would take the workspace's stored files past `WORKSPACE_STORAGE_BYTES`; nothing was written. Remove files, or ask the operator to raise the quota.",
  },
  payload_too_large: { status: 413, doc: 'A webhook payload larger than `WEBHOOK_BODY_LIMIT_BYTES`; no run was started.' },
  rate_limited: { status: 429, doc: 'Over a limit of the key, the workspace or the visitor; wait `retryAfter` seconds (also the `Retry-After` header).' },
  internal_error: { status: 500, doc: 'An unexpected failure; details are in the server log under the request id (never in the answer).' },
  temporal_unavailable: { status: 503, doc: 'The Temporal cluster did not answer; try again after `retryAfter` seconds.' },
  database_unavailable: { status: 503, doc: 'PostgreSQL did not answer; try again after `retryAfter` seconds.' },
  worker_timeout: { status: 504, doc: 'No worker finished the job in time (are workers running?). A promotion goes on: call again to wait for it.' },
} as const satisfies Record<string, { status: number; doc: string }>;

export type ErrorCode = keyof typeof errorCodes;

/** Whether an answer of this status may succeed when tried again (`retryable` of the Error body): 5xx and 429 only. */
export const isRetryableStatus = (status: number): boolean => status >= 500 || status === 429;

/** An expected failure with a stable code; rendered by the API's error middleware. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly retryAfter?: number,
    /** What went wrong underneath (a gRPC or provider error): logged, never sent to the client. */
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AppError';
    this.status = errorCodes[code].status;
  }

  get retryable(): boolean {
    return isRetryableStatus(this.status);
  }
}

/**
 * A 429 `rate_limited` that names the limit that refused it — a name fixed in code (a limiter's
 * key prefix such as `key-burst`, never the key it counted), so it can label a metric. `holdMs`:
 * how long its answer is held before it is sent (api/limits/refusal-holds.ts); 0 for at once.
 *
 * It carries no stack trace: a limit decided it, not a failing code path, and nothing reads it (a
 * 4xx is never logged with its stack), while capturing one walks the whole middleware chain for
 * every refused request. Other errors keep theirs.
 */
export class RateLimitRefusal extends AppError {
  constructor(
    readonly limit: string,
    message: string,
    retryAfter: number,
    readonly holdMs = 0,
  ) {
    const frames = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super('rate_limited', message, retryAfter);
    Error.stackTraceLimit = frames;
  }
}

export interface ErrorBody {
  error: { code: string; message: string; retryable: boolean; retryAfter?: number };
}
