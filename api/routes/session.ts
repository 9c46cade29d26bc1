import { z } from 'zod';
import type { Repositories } from '../../db/repositories';
import type { AuditRepository } from '../../db/repositories/audit';
import { AppError } from '../../domain/errors';
import { changePasswordBodySchema, sessionInfoSchema } from '../../domain/member';
import { auditOf, type PasswordSignIn } from '../../services/password-sign-in';
import { publicMember } from '../../services/sign-in';
import { actorOf, type ApiContext } from '../context';
import type { ApiRouter } from '../routing';
import { clearSessionCookie } from '../cookies/session-cookie';

interface SessionRouteDeps {
  repos: Pick<Repositories, 'sessions' | 'members' | 'workspaces'>;
  audit: Pick<AuditRepository, 'append'>;
  password: PasswordSignIn;
  baseURL: string;
}

/** The session of a cookie-authenticated call; a key's call to a session route is a 400. */
function sessionOf(ctx: ApiContext) {
  const actor = actorOf(ctx);
  if (actor.kind !== 'member' || !actor.sessionId) throw new AppError('invalid_request', 'this route acts on a signed-in session; the call used an API key');
  return { ...actor, sessionId: actor.sessionId };
}

/**
 * The caller's own session (docs/security.md, "Sessions"): who am I, sign out, sign out
 * everywhere, change my password. Every member may call them; changes need the CSRF token like
 * any other change by cookie.
 */
export function sessionRoutes(r: ApiRouter, deps: SessionRouteDeps): void {
  const { repos, audit } = deps;

  /** Runs a sign-out and writes its one audit row, refused (an API key's call) or not. */
  async function selfAudited<T>(
    ctx: ApiContext,
    action: string,
    status: number,
    run: (session: ReturnType<typeof sessionOf>) => Promise<{ result: T; detail?: Record<string, unknown> }>,
  ): Promise<T> {
    const actor = actorOf(ctx);
    const targets: Record<string, string> = actor.kind === 'member' ? { memberId: actor.id } : {};
    const entry = { workspaceId: actor.workspaceId, actor: { kind: actor.kind, id: actor.id, role: actor.role }, action, targets };
    try {
      const { result, detail } = await run(sessionOf(ctx));
      await audit.append(auditOf(ctx, { ...entry, outcome: 'ok', status, detail }));
      return result;
    } catch (err) {
      const known = err instanceof AppError;
      await audit.append(auditOf(ctx, { ...entry, outcome: known ? err.code : 'internal_error', status: known ? err.status : 500 }));
      throw err;
    }
  }
  r.add(
    {
      method: 'get', path: '/v1/session', operationId: 'getSession', tag: 'Sign-in', role: 'viewer',
      summary: "Who is calling: the signed-in member with their role, the session's CSRF token and expiry — or, for an API key, the key and its role",
      response: { status: 200, description: 'The caller', schema: sessionInfoSchema },
      errors: ['workspace_not_found'],
    },
    async (ctx) => {
      const actor = actorOf(ctx);
      const workspace = await repos.workspaces.get({ id: actor.workspaceId });
      if (!workspace) throw new AppError('workspace_not_found', 'the workspace no longer exists');
      const who = { kind: actor.kind, id: actor.id, role: actor.role };
      if (actor.kind === 'key' || !actor.sessionId) return { actor: who, workspace, member: null, csrfToken: null, expiresAt: null };
      const [member, info] = await Promise.all([repos.members.get({ workspaceId: actor.workspaceId, memberId: actor.id }), repos.sessions.info({ id: actor.sessionId })]);
      if (!member || !info) throw new AppError('invalid_session', 'the session has ended: sign in again');
      return { actor: who, workspace, member: publicMember(member), csrfToken: info.csrfToken, expiresAt: info.expiresAt.toISOString() };
    },
  );
  r.add(
    {
      method: 'post', path: '/v1/auth/sign-out', operationId: 'signOut', tag: 'Sign-in', role: 'viewer', audit: 'self',
      summary: 'End this session and clear its cookie',
      response: { status: 204, description: 'Signed out' },
    },
    async (ctx) =>
      selfAudited(ctx, 'signOut', 204, async (session) => {
        await repos.sessions.end({ id: session.sessionId });
        clearSessionCookie(ctx, { baseURL: deps.baseURL });
        return { result: undefined };
      }),
  );
  r.add(
    {
      method: 'post', path: '/v1/auth/sign-out-everywhere', operationId: 'signOutEverywhere', tag: 'Sign-in', role: 'viewer', audit: 'self',
      summary: "End every session of the signed-in person's account, in every workspace and browser, this one too",
      response: { status: 200, description: 'How many sessions ended', schema: z.object({ ended: z.number().int() }) },
    },
    async (ctx) =>
      selfAudited(ctx, 'signOutEverywhere', 200, async (session) => {
        const member = await repos.members.get({ workspaceId: session.workspaceId, memberId: session.id });
        const ended = member ? await repos.sessions.endAllOfAccount({ accountId: member.accountId }) : await repos.sessions.endAllOfMember({ memberId: session.id });
        clearSessionCookie(ctx, { baseURL: deps.baseURL });
        return { result: { ended }, detail: { ended } };
      }),
  );
  r.add(
    {
      method: 'put', path: '/v1/session/password', operationId: 'changePassword', tag: 'Sign-in', role: 'viewer',
      summary: "Set the signed-in person's password (the current one is checked when there is one); their other sessions end, this one stays",
      body: changePasswordBodySchema,
      response: { status: 204, description: 'Changed' },
      errors: ['invalid_credentials'],
    },
    async (ctx, { body }) => {
      const session = sessionOf(ctx);
      const member = await repos.members.get({ workspaceId: session.workspaceId, memberId: session.id });
      if (!member) throw new AppError('invalid_session', 'the session has ended: sign in again');
      await deps.password.changePassword({ accountId: member.accountId, sessionId: session.sessionId, currentPassword: body.currentPassword, newPassword: body.newPassword });
    },
  );
}
