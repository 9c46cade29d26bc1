import type { MemberRecord } from '../db/repositories/members';
import { AppError } from '../domain/errors';
import type { Invite } from '../domain/member';
import type { Actor, Role } from '../domain/roles';
import type { ApiContext } from '../api/context';
import { linkURL, type PeopleDeps } from './password-sign-in';

const HOUR_MS = 60 * 60 * 1000;
const MINUTE_MS = 60_000;

const notFound = () => new AppError('member_not_found', 'no such member of this workspace');
const lastOwner = () =>
  new AppError('last_owner', 'the workspace must keep at least one owner: make another member owner before removing or demoting this one');

/**
 * A workspace's members (issue 50, item 1): invites, role changes and removals. At least one owner
 * always remains: the check and the change run in one transaction that first locks the
 * workspace's owner rows, so two owners demoting each other at once cannot both succeed. A role
 * change or a removal ends the member's sessions in the same transaction.
 */
export class MembersService {
  constructor(private readonly deps: PeopleDeps) {}

  list(workspaceId: string): Promise<MemberRecord[]> {
    return this.deps.repos.members.list({ workspaceId });
  }

  listInvites(workspaceId: string): Promise<Invite[]> {
    return this.deps.repos.memberLinks.pendingInvites({ workspaceId });
  }

  /** Makes an invite link (shown once to the inviter), mailed to the invitee when mail is set up. */
  async invite(actor: Actor, input: { email: string; role: Role; name?: string }): Promise<{ invite: Invite; url: string; mailed: boolean }> {
    const { repos, config, mailer } = this.deps;
    const account = await repos.members.accountByEmail({ email: input.email });
    if (account && (await repos.members.memberOf({ workspaceId: actor.workspaceId, accountId: account.id }))) {
      throw new AppError('member_exists', `${input.email} is already a member of this workspace: change their role instead`);
    }
    if (input.name && !account?.name) await repos.members.findOrCreateAccount({ email: input.email, name: input.name });
    const link = await repos.memberLinks.create({
      kind: 'invite',
      workspaceId: actor.workspaceId,
      email: input.email,
      role: input.role,
      createdBy: actor.id,
      ttlMs: config.INVITE_TTL_HOURS * HOUR_MS,
    });
    const url = linkURL(config, link.token);
    const workspace = await repos.workspaces.get({ id: actor.workspaceId });
    // The link is in the answer either way: a mail server that is down leaves `mailed: false`, not a failed invite.
    const mailed = mailer
      ? await mailer.send(inviteMail(input.email, workspace?.name ?? actor.workspaceId, input.role, url, config.INVITE_TTL_HOURS)).then(
          () => true,
          (err: unknown) => (this.deps.logger?.warn({ err }, 'an invite could not be mailed'), false),
        )
      : false;
    const invite: Invite = { id: link.id, email: input.email, role: input.role, createdAt: new Date().toISOString(), expiresAt: link.expiresAt.toISOString() };
    return { invite, url, mailed };
  }

  async revokeInvite(workspaceId: string, inviteId: string): Promise<void> {
    if (!(await this.deps.repos.memberLinks.revokeInvite({ workspaceId, id: inviteId }))) {
      throw new AppError('invalid_link', 'no pending invite of that id in this workspace (accepted, revoked or expired)');
    }
  }

  /** Changes a member's role; a change ends their sessions (they sign in again with the new role). */
  async updateRole(ctx: ApiContext, workspaceId: string, memberId: string, role: Role): Promise<MemberRecord> {
    const { db, repos } = this.deps;
    return db.transaction(async (trx) => {
      const owners = await repos.members.lockOwners({ workspaceId }, trx);
      const member = await repos.members.get({ workspaceId, memberId }, trx);
      if (!member) throw notFound();
      if (member.role === role) return member;
      if (member.role === 'owner' && owners.length <= 1) throw lastOwner();
      const updated = await repos.members.updateRole({ workspaceId, memberId, role }, trx);
      await repos.sessions.endAllOfMember({ memberId }, trx);
      ctx.state.audit = { targets: { memberId, accountId: member.accountId } };
      return updated!;
    });
  }

  /** Removes a member: their sessions end (the rows cascade), their account stays (other workspaces, history). */
  async remove(ctx: ApiContext, workspaceId: string, memberId: string): Promise<void> {
    const { db, repos } = this.deps;
    await db.transaction(async (trx) => {
      const owners = await repos.members.lockOwners({ workspaceId }, trx);
      const member = await repos.members.get({ workspaceId, memberId }, trx);
      if (!member) throw notFound();
      if (member.role === 'owner' && owners.length <= 1) throw lastOwner();
      await repos.sessions.endAllOfMember({ memberId }, trx);
      await repos.members.remove({ workspaceId, memberId }, trx);
      ctx.state.audit = { targets: { memberId, accountId: member.accountId } };
    });
  }

  /** A one-time reset link for a member, shown once to the owner who asked (to pass on by hand). */
  async resetLink(actor: Actor, memberId: string): Promise<{ url: string; expiresAt: string }> {
    const { repos, config } = this.deps;
    const member = await repos.members.get({ workspaceId: actor.workspaceId, memberId });
    if (!member) throw notFound();
    await repos.memberLinks.voidUnused({ workspaceId: actor.workspaceId, email: member.email, kind: 'reset' });
    const link = await repos.memberLinks.create({ kind: 'reset', workspaceId: actor.workspaceId, email: member.email, createdBy: actor.id, ttlMs: config.SIGN_IN_LINK_TTL_MINUTES * MINUTE_MS });
    return { url: linkURL(config, link.token), expiresAt: link.expiresAt.toISOString() };
  }
}

function inviteMail(to: string, workspaceName: string, role: Role, url: string, ttlHours: number) {
  return {
    to,
    subject: `You are invited to ${workspaceName} on Hosted Agents`,
    text: `You are invited to join the workspace "${workspaceName}" as ${role}.\n\nAccept here (the link works once, for ${ttlHours} hours):\n\n${url}\n\nIf you did not expect this, ignore this message.\n`,
  };
}
