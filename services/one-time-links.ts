import type { ConsumedLink } from '../db/repositories/member-links';
import { AppError } from '../domain/errors';
import type { Role } from '../domain/roles';
import type { Workspace } from '../domain/workspace';
import type { ApiContext } from '../api/context';
import { auditOf, type PasswordSignIn, type PeopleDeps, type SignedIn } from './password-sign-in';
import { hashPassword, newPasswordSchema, verifyPassword } from './passwords';
import { startSession } from './sign-in';

/** What a link's page shows before it is used: enough to say what using it does. */
export interface LinkPreview {
  kind: ConsumedLink['kind'];
  email: string;
  workspace: Workspace;
  role: Role | null;
  /** Invites only: the account already has a password, so the form asks for it instead of a new one. */
  hasPassword: boolean;
}

/** What the person using a link sends: an invite takes `name` and `password`, a reset `password`. */
export interface LinkInput {
  name?: string;
  password?: string;
  /** Optional: the e-mail the client expects the link to be for (403 `email_mismatch` if it is another). */
  email?: string;
}

const badLink = () => new AppError('invalid_link', 'this link is unknown, was used before, or has expired: ask for a new one');

/**
 * Using one-time links (docs/security.md, "Members, roles and sign-in"): an invite makes the
 * member, a sign-in link signs in, a reset sets a new password and ends the account's other
 * sessions. Each is checked without being used first (a wrong password does not burn the link),
 * then used by one conditional UPDATE in the transaction that makes its change.
 */
export class OneTimeLinks {
  constructor(
    private readonly deps: PeopleDeps,
    /** The password attempt limits, which an invite's password check counts toward too. */
    private readonly passwords: Pick<PasswordSignIn, 'refuseOverLimit'>,
  ) {}

  async preview(token: string): Promise<LinkPreview> {
    const { repos } = this.deps;
    const link = await repos.memberLinks.peek({ token });
    const workspace = link ? await repos.workspaces.get({ id: link.workspaceId }) : undefined;
    if (!link || !workspace) throw badLink();
    const account = await repos.members.accountByEmail({ email: link.email });
    return { kind: link.kind, email: link.email, workspace, role: link.role, hasPassword: Boolean(account?.passwordHash) };
  }

  async use(ctx: ApiContext, token: string, input: LinkInput): Promise<SignedIn> {
    const { repos, db, config, audit } = this.deps;
    const preview = await this.preview(token);
    if (input.email !== undefined && input.email.trim().toLowerCase() !== preview.email) {
      throw new AppError('email_mismatch', `this link is for another e-mail address than ${input.email.trim()}`);
    }
    const account = await repos.members.accountByEmail({ email: preview.email });
    let passwordHash: string | undefined;
    if (preview.kind === 'reset' || (preview.kind === 'invite' && !preview.hasPassword)) {
      const checked = newPasswordSchema.safeParse(input.password ?? '');
      if (!input.password) throw new AppError('invalid_request', 'body.password: a new password is required');
      if (!checked.success) throw new AppError('invalid_request', `body.password: ${checked.error.issues[0]?.message ?? 'not accepted'}`);
      passwordHash = await hashPassword(input.password);
    } else if (preview.kind === 'invite') {
      // An invite link is shown to the inviter too: joining as an account that has a password needs
      // that password — under the same attempt limits as a sign-in, or the link would be a free guesser.
      await this.passwords.refuseOverLimit(ctx, preview.email);
      if (!(await verifyPassword(account?.passwordHash, input.password ?? ''))) {
        await repos.signInFailures.record({ email: preview.email, ip: ctx.ip });
        throw new AppError('invalid_credentials', 'this e-mail already has a password: enter it to accept the invite (or reset it first)');
      }
    }
    const { link, memberId } = await db.transaction(async (trx) => {
      const used = await repos.memberLinks.consume({ token }, trx);
      if (!used) throw badLink();
      const acc = await repos.members.findOrCreateAccount({ email: used.email, name: input.name?.trim() || undefined }, trx);
      if (passwordHash) await repos.members.setPasswordHash({ accountId: acc.id, passwordHash }, trx);
      if (used.kind === 'reset') await repos.sessions.endAllOfAccount({ accountId: acc.id }, trx);
      const existing = await repos.members.memberOf({ workspaceId: used.workspaceId, accountId: acc.id }, trx);
      if (existing) return { link: used, memberId: existing.id };
      if (used.kind !== 'invite') throw badLink(); // the member was removed since the link was made
      const added = await repos.members.add({ workspaceId: used.workspaceId, accountId: acc.id, role: used.role ?? 'viewer' }, trx);
      return { link: used, memberId: added!.id };
    });
    const started = await startSession({ repos, config }, ctx, memberId, link.workspaceId);
    const action = link.kind === 'invite' ? 'inviteAccepted' : link.kind === 'reset' ? 'passwordReset' : 'signIn';
    const actor = { kind: 'member' as const, id: memberId, role: started.member.role, email: link.email };
    await audit.append(auditOf(ctx, { workspaceId: link.workspaceId, actor, action, targets: { memberId, linkId: link.id }, outcome: 'ok', status: 200, detail: { method: 'link' } }));
    if (link.kind !== 'sign_in') {
      await audit.append(auditOf(ctx, { workspaceId: link.workspaceId, actor, action: 'signIn', targets: { memberId }, outcome: 'ok', status: 200, detail: { method: link.kind } }));
    }
    return { ...started, workspace: preview.workspace };
  }
}
