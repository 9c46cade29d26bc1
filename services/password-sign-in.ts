import type { Config } from '../config/env';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { AuditRepository } from '../db/repositories/audit';
import type { AuditEntry } from '../domain/audit';
import { AppError, RateLimitRefusal } from '../domain/errors';
import { normalizeEmail } from '../domain/member';
import type { Workspace } from '../domain/workspace';
import type { ApiContext } from '../api/context';
import type { Logger } from '../infra/logger';
import type { Mailer } from '../infra/mailer';
import { hashPassword, verifyPassword } from './passwords';
import { startSession, type StartedSession } from './sign-in';

/** Failed attempts are counted over this window (per e-mail and per client address). */
const ATTEMPT_WINDOW_MS = 15 * 60 * 1000;
const MINUTE_MS = 60_000;

export interface PeopleDeps {
  db: Db;
  repos: Pick<Repositories, 'members' | 'memberLinks' | 'sessions' | 'signInFailures' | 'workspaces'>;
  audit: Pick<AuditRepository, 'append'>;
  config: Pick<
    Config,
    'baseURL' | 'SESSION_ABSOLUTE_DAYS' | 'INVITE_TTL_HOURS' | 'SIGN_IN_LINK_TTL_MINUTES' | 'SIGN_IN_ATTEMPTS_PER_ACCOUNT' | 'SIGN_IN_ATTEMPTS_PER_ADDRESS'
  >;
  /** Absent without `SMTP_URL`: links are then only shown to whoever made them. */
  mailer?: Mailer;
  /** Where a mail that could not be sent is reported. */
  logger?: Pick<Logger, 'warn'>;
}

/** A signed-in member, as the sign-in routes answer (the cookie is set on the response). */
export interface SignedIn extends StartedSession {
  workspace: Workspace;
}

/** An audit row about a request: its address, user agent and request id filled in. */
export function auditOf(ctx: ApiContext, entry: Omit<AuditEntry, 'ip' | 'userAgent' | 'requestId' | 'targets'> & { targets?: Record<string, string> }): AuditEntry {
  return { targets: {}, ...entry, ip: ctx.ip, userAgent: ctx.get('user-agent') || undefined, requestId: ctx.state.requestId };
}

/** The URL of a one-time link: its page (GET) shows a form that uses it (POST). */
export function linkURL(config: Pick<Config, 'baseURL'>, token: string): string {
  return `${config.baseURL}/v1/auth/links/${token}`;
}

/**
 * Password sign-in (docs/security.md, "Members, roles and sign-in"): attempt limits checked before
 * any hash is computed, one answer for every kind of failure, a dummy hash for unknown e-mails.
 */
export class PasswordSignIn {
  constructor(private readonly deps: PeopleDeps) {}

  async signIn(ctx: ApiContext, input: { email: string; password: string; workspaceId?: string }): Promise<SignedIn> {
    const { repos, config, audit } = this.deps;
    const email = normalizeEmail(input.email);
    await this.refuseOverLimit(ctx, email);
    const account = await repos.members.accountByEmail({ email });
    const matches = await verifyPassword(account?.passwordHash, input.password);
    // Looked up for an unknown e-mail too (an id nothing has), so the time does not tell them apart.
    const memberships = await repos.members.membershipsOf({ accountId: account?.id ?? 'acc_none' });
    const chosen = input.workspaceId ? memberships.find((m) => m.workspaceId === input.workspaceId) : memberships[0];
    const member = matches ? chosen : undefined;
    const workspace = member ? await repos.workspaces.get({ id: member.workspaceId }) : undefined;
    if (!member || !workspace) {
      await repos.signInFailures.record({ email, ip: ctx.ip });
      // A member's failed sign-in is in their workspace's log, where its owners see it; a stranger's
      // (an unknown e-mail) belongs to no workspace, whatever workspace the request named.
      const failedIn = (chosen ?? memberships[0])?.workspaceId ?? null;
      await audit.append(auditOf(ctx, { workspaceId: failedIn, actor: { kind: 'anonymous', email }, action: 'signInFailed', outcome: 'invalid_credentials', status: 401 }));
      throw new AppError('invalid_credentials', 'the e-mail and password do not match a member');
    }
    await repos.signInFailures.clearAccount({ email });
    const started = await startSession({ repos, config }, ctx, member.id, member.workspaceId);
    await audit.append(
      auditOf(ctx, { workspaceId: member.workspaceId, actor: { kind: 'member', id: member.id, role: member.role, email }, action: 'signIn', outcome: 'ok', status: 200, detail: { method: 'password' } }),
    );
    return { ...started, workspace };
  }

  /**
   * Mails a reset link when the e-mail is a member's and mail is set up; answers the same in every
   * case. The mail goes out after the answer, so neither the answer's status nor its time says
   * whether the e-mail is known (a mail server that is slow or down included); what remains is the
   * time of two short queries. Counts as a failed attempt of the client's address (not of the
   * account, which a stranger could otherwise lock out by asking).
   */
  async requestReset(ctx: ApiContext, input: { email: string }): Promise<void> {
    const { repos, config, audit, mailer, logger } = this.deps;
    const email = normalizeEmail(input.email);
    await this.refuseOverLimit(ctx, undefined);
    await repos.signInFailures.record({ email: null, ip: ctx.ip });
    const account = await repos.members.accountByEmail({ email });
    // The account's password is one for all its workspaces: the link signs in to the one seen last.
    const [member] = account ? await repos.members.membershipsOf({ accountId: account.id }) : [];
    if (!member) return;
    await repos.memberLinks.voidUnused({ workspaceId: member.workspaceId, email, kind: 'reset' });
    const link = await repos.memberLinks.create({ kind: 'reset', workspaceId: member.workspaceId, email, createdBy: member.id, ttlMs: config.SIGN_IN_LINK_TTL_MINUTES * MINUTE_MS });
    await audit.append(
      auditOf(ctx, { workspaceId: member.workspaceId, actor: { kind: 'anonymous', email }, action: 'passwordResetRequested', targets: { memberId: member.id, linkId: link.id }, outcome: 'ok', status: 202, detail: { mailed: mailer !== undefined } }),
    );
    mailer?.send(resetMail(email, linkURL(config, link.token), config.SIGN_IN_LINK_TTL_MINUTES)).catch((err: unknown) => logger?.warn({ err }, 'a password reset link could not be mailed'));
  }

  /**
   * A signed-in member sets their password: the current one is checked when there is one (an
   * account signed in by link or OIDC sets its first without); other sessions of the account end.
   */
  async changePassword(input: { accountId: string; sessionId: string; currentPassword?: string; newPassword: string }): Promise<void> {
    const { repos, db } = this.deps;
    const account = await repos.members.accountById({ id: input.accountId });
    if (!account) throw new AppError('invalid_session', 'the session has ended: sign in again');
    if (account.passwordHash && !(await verifyPassword(account.passwordHash, input.currentPassword ?? ''))) {
      throw new AppError('invalid_credentials', 'the current password is wrong');
    }
    const passwordHash = await hashPassword(input.newPassword);
    await db.transaction(async (trx) => {
      await repos.members.setPasswordHash({ accountId: account.id, passwordHash }, trx);
      await trx('sessions')
        .whereIn('member_id', trx('members').select('id').where({ account_id: account.id }))
        .whereNot({ id: input.sessionId })
        .whereNull('ended_at')
        .update({ ended_at: trx.fn.now() });
    });
  }

  /** 429 before any hash is computed when the e-mail or the address is over its failed attempts. */
  async refuseOverLimit(ctx: ApiContext, email: string | undefined): Promise<void> {
    const { config, repos, audit } = this.deps;
    const counts = await repos.signInFailures.counts({ email, ip: ctx.ip, windowMs: ATTEMPT_WINDOW_MS });
    const over = counts.address >= config.SIGN_IN_ATTEMPTS_PER_ADDRESS ? 'address' : email && counts.account >= config.SIGN_IN_ATTEMPTS_PER_ACCOUNT ? 'account' : undefined;
    if (!over) return;
    await audit.append(auditOf(ctx, { workspaceId: null, actor: { kind: 'anonymous', email }, action: 'signInFailed', outcome: 'rate_limited', status: 429, detail: { limit: over } }));
    throw new RateLimitRefusal(
      `sign-in-${over}`,
      `too many failed sign-ins for this ${over === 'address' ? 'address' : 'account'} in the last ${ATTEMPT_WINDOW_MS / MINUTE_MS} minutes: try again later or reset the password`,
      ATTEMPT_WINDOW_MS / 1000,
    );
  }
}

function resetMail(to: string, url: string, ttlMinutes: number) {
  return {
    to,
    subject: 'Reset your Hosted Agents password',
    text: `Someone (hopefully you) asked to reset the password of ${to}.\n\nSet a new password here (the link works once, for ${ttlMinutes} minutes):\n\n${url}\n\nIf it was not you, ignore this message: nothing changes.\n`,
  };
}
