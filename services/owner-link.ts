import type { Repositories } from '../db/repositories';
import { linkURL } from './password-sign-in';

/** The dev workspace's owner at `npm start` (README, first screen): sign in with the printed link, then set a password or invite yourself by a real address. */
export const DEV_OWNER_EMAIL = 'owner@localhost';

/**
 * Makes sure `email` is a member of the workspace (an owner when it was not a member) and makes a
 * fresh one-time sign-in link for it: what `npm start` prints in its banner and
 * `hosted-agents workspace create --owner` prints for the operator. The link works once, for
 * SIGN_IN_LINK_TTL_MINUTES; signed in, the owner sets a first password (PUT /v1/session/password)
 * or later signs in with the identity provider.
 */
export async function ownerSignInLink(
  repos: Pick<Repositories, 'members' | 'memberLinks'>,
  opts: { workspaceId: string; email: string; baseURL: string; ttlMinutes: number },
): Promise<{ memberId: string; email: string; url: string; expiresAt: Date; created: boolean }> {
  const account = await repos.members.findOrCreateAccount({ email: opts.email });
  const existing = await repos.members.memberOf({ workspaceId: opts.workspaceId, accountId: account.id });
  const member = existing ?? (await repos.members.add({ workspaceId: opts.workspaceId, accountId: account.id, role: 'owner' }));
  if (!member) throw new Error(`could not add ${opts.email} to ${opts.workspaceId}`);
  const link = await repos.memberLinks.create({ kind: 'sign_in', workspaceId: opts.workspaceId, email: account.email, ttlMs: opts.ttlMinutes * 60_000 });
  return { memberId: member.id, email: account.email, url: linkURL({ baseURL: opts.baseURL }, link.token), expiresAt: link.expiresAt, created: !existing };
}
