import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import { segment } from './paths.js';
import type { CreatedInvite, InviteInput, MemberInvite, ResetLink, WorkspaceMember } from './types/member.js';
import type { WorkspaceRole } from './types/workspace.js';

/**
 * The workspace's members (`ws.members`). Every role may list them; inviting, changing roles,
 * removing and reset links need `owner`. The workspace always keeps one owner: demoting or
 * removing the last one is 409 `last_owner`.
 */
export class MembersResource {
  readonly #http: HttpClient;

  /** @internal Built by `WorkspaceClient`; not part of the public API. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /** The members, oldest first (`GET /v1/members`). */
  list(options: CallOptions = {}): Promise<WorkspaceMember[]> {
    return this.#http.request<WorkspaceMember[]>('GET', '/v1/members', { signal: options.signal, expect: 'list' });
  }

  /**
   * Invites someone by e-mail with a role (`POST /v1/members`): the answer has the one-time link,
   * once; the server also mails it when it has SMTP_URL. 409 `member_exists` for a member's e-mail.
   */
  invite(input: InviteInput, options: CallOptions = {}): Promise<CreatedInvite> {
    return this.#http.request<CreatedInvite>('POST', '/v1/members', { body: input, signal: options.signal, expect: 'object' });
  }

  /** Changes a member's role (`PATCH /v1/members/:memberId`); their sessions end. 409 `last_owner` for the last owner. */
  update(memberId: string, input: { role: WorkspaceRole }, options: CallOptions = {}): Promise<WorkspaceMember> {
    return this.#http.request<WorkspaceMember>('PATCH', `/v1/members/${segment(memberId, 'member id')}`, { body: { role: input.role }, signal: options.signal, expect: 'object' });
  }

  /** Removes a member (`DELETE /v1/members/:memberId`; 204); their sessions end. 409 `last_owner` for the last owner. */
  async remove(memberId: string, options: CallOptions = {}): Promise<void> {
    await this.#http.request<void>('DELETE', `/v1/members/${segment(memberId, 'member id')}`, { signal: options.signal });
  }

  /** A one-time password reset link for a member, to pass on by hand (`POST /v1/members/:memberId/reset-link`). */
  resetLink(memberId: string, options: CallOptions = {}): Promise<ResetLink> {
    return this.#http.request<ResetLink>('POST', `/v1/members/${segment(memberId, 'member id')}/reset-link`, { signal: options.signal, expect: 'object' });
  }

  /** Pending invites, newest first (`GET /v1/members/invites`); never their links. */
  invites(options: CallOptions = {}): Promise<MemberInvite[]> {
    return this.#http.request<MemberInvite[]>('GET', '/v1/members/invites', { signal: options.signal, expect: 'list' });
  }

  /** Revokes a pending invite: its link stops working (`DELETE /v1/members/invites/:inviteId`; 204). */
  async revokeInvite(inviteId: string, options: CallOptions = {}): Promise<void> {
    await this.#http.request<void>('DELETE', `/v1/members/invites/${segment(inviteId, 'invite id')}`, { signal: options.signal });
  }
}
