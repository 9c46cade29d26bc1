import { z } from 'zod';
import { createdInviteSchema, inviteBodySchema, inviteSchema, memberSchema, resetLinkSchema, updateMemberBodySchema } from '../../domain/member';
import type { MembersService } from '../../services/members';
import { publicMember } from '../../services/sign-in';
import { actorOf, workspaceOf } from '../context';
import { type ApiRouter, listOf, listSchema } from '../routing';

const memberParams = z.object({ memberId: z.string().regex(/^mem_[0-9a-z]{1,40}$/, 'a member id (mem_…)') });
const inviteParams = z.object({ inviteId: z.string().regex(/^lnk_[0-9a-z]{1,40}$/, 'an invite id (lnk_…)') });

/**
 * A workspace's members (`ws.members`; docs/security.md, "Members, roles and sign-in"). Every
 * member may see who is in the workspace (a viewer sees whom they work with); only owners invite,
 * change roles, remove and make reset links. The workspace always keeps one owner (409 `last_owner`).
 */
export function memberRoutes(r: ApiRouter, members: MembersService): void {
  r.add(
    {
      method: 'get', path: '/v1/members', operationId: 'listMembers', tag: 'Members', role: 'viewer',
      summary: "The workspace's members, oldest first, with role and last seen",
      response: { status: 200, description: 'The members', schema: listSchema(memberSchema, { id: 'WorkspaceMemberList' }) },
    },
    async (ctx) => listOf((await members.list(workspaceOf(ctx))).map(publicMember)),
  );
  r.add(
    {
      method: 'post', path: '/v1/members', operationId: 'inviteMember', tag: 'Members', role: 'owner',
      summary: 'Invite someone by e-mail with a role: a one-time link (INVITE_TTL_HOURS), in this answer once and mailed when SMTP_URL is set',
      body: inviteBodySchema,
      response: { status: 201, description: 'The invite and its link', schema: createdInviteSchema },
      errors: ['member_exists'],
    },
    async (ctx, { body }) => {
      const created = await members.invite(actorOf(ctx), body);
      ctx.state.audit = { targets: { inviteId: created.invite.id } };
      return created;
    },
  );
  r.add(
    {
      method: 'get', path: '/v1/members/invites', operationId: 'listInvites', tag: 'Members', role: 'owner',
      summary: 'Pending invites (not accepted, revoked or expired), newest first; never their links',
      response: { status: 200, description: 'The invites', schema: listSchema(inviteSchema, { id: 'MemberInviteList' }) },
    },
    async (ctx) => listOf(await members.listInvites(workspaceOf(ctx))),
  );
  r.add(
    {
      method: 'delete', path: '/v1/members/invites/:inviteId', operationId: 'revokeInvite', tag: 'Members', role: 'owner',
      summary: 'Revoke a pending invite: its link stops working',
      params: inviteParams,
      response: { status: 204, description: 'Revoked' },
      errors: ['invalid_link'],
    },
    async (ctx, { params }) => {
      ctx.state.audit = { targets: { inviteId: params.inviteId } };
      await members.revokeInvite(workspaceOf(ctx), params.inviteId);
    },
  );
  r.add(
    {
      method: 'patch', path: '/v1/members/:memberId', operationId: 'updateMember', tag: 'Members', role: 'owner',
      summary: "Change a member's role; their sessions end (they sign in again with the new role)",
      params: memberParams,
      body: updateMemberBodySchema,
      response: { status: 200, description: 'The member', schema: memberSchema },
      errors: ['member_not_found', 'last_owner'],
    },
    async (ctx, { params, body }) => publicMember(await members.updateRole(ctx, workspaceOf(ctx), params.memberId, body.role)),
  );
  r.add(
    {
      method: 'delete', path: '/v1/members/:memberId', operationId: 'removeMember', tag: 'Members', role: 'owner',
      summary: 'Remove a member: their sessions end at once; their account and what they did stay',
      params: memberParams,
      response: { status: 204, description: 'Removed' },
      errors: ['member_not_found', 'last_owner'],
    },
    async (ctx, { params }) => {
      await members.remove(ctx, workspaceOf(ctx), params.memberId);
    },
  );
  r.add(
    {
      method: 'post', path: '/v1/members/:memberId/reset-link', operationId: 'createResetLink', tag: 'Members', role: 'owner',
      summary: 'A one-time password reset link for a member (SIGN_IN_LINK_TTL_MINUTES), in this answer once: pass it on by hand',
      params: memberParams,
      response: { status: 201, description: 'The link', schema: resetLinkSchema },
      errors: ['member_not_found'],
    },
    async (ctx, { params }) => {
      ctx.state.audit = { targets: { memberId: params.memberId } };
      return members.resetLink(actorOf(ctx), params.memberId);
    },
  );
}
