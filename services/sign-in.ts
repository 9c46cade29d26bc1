import type { Config } from '../config/env';
import type { Repositories } from '../db/repositories';
import type { MemberRecord } from '../db/repositories/members';
import { AppError } from '../domain/errors';
import type { Member } from '../domain/member';
import type { ApiContext } from '../api/context';
import { setSessionCookie } from '../api/cookies/session-cookie';

/** What every way of signing in (password, one-time link, OIDC) needs to start a session. */
export interface SessionDeps {
  repos: Pick<Repositories, 'sessions' | 'members'>;
  config: Pick<Config, 'baseURL' | 'SESSION_ABSOLUTE_DAYS'>;
}

/** What a sign-in answers besides the cookie: the member, and the CSRF token every change by cookie sends. */
export interface StartedSession {
  sessionId: string;
  csrfToken: string;
  expiresAt: Date;
  member: Member;
  workspaceId: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Starts a session for a member of a workspace and sets the `ha_session` cookie on the response
 * (docs/security.md, "Sessions"). Every sign-in path ends here — password, invite, sign-in and
 * reset links, OIDC — so the cookie's attributes and the session's expiry are decided in one place.
 */
export async function startSession(deps: SessionDeps, ctx: ApiContext, memberId: string, workspaceId: string): Promise<StartedSession> {
  const record = await deps.repos.members.get({ workspaceId, memberId });
  if (!record) throw new AppError('member_not_found', 'no such member of this workspace');
  const session = await deps.repos.sessions.create({
    memberId,
    workspaceId,
    absoluteMs: deps.config.SESSION_ABSOLUTE_DAYS * DAY_MS,
    ip: ctx.ip,
    userAgent: ctx.get('user-agent') || undefined,
  });
  await deps.repos.members.touch({ memberId });
  setSessionCookie(ctx, session.token, { baseURL: deps.config.baseURL, expiresAt: session.expiresAt });
  return { sessionId: session.sessionId, csrfToken: session.csrfToken, expiresAt: session.expiresAt, member: publicMember(record), workspaceId };
}

/** A member as the API shows it (without the account and workspace ids). */
export function publicMember(record: MemberRecord): Member {
  return { id: record.id, email: record.email, name: record.name, role: record.role, createdAt: record.createdAt, lastSeenAt: record.lastSeenAt };
}
