import type { Knex } from 'knex';
import { newId } from '../../domain/ids';
import { normalizeEmail, type Member } from '../../domain/member';
import type { Role } from '../../domain/roles';
import type { Db } from '../connect';
import { iso } from '../rows';

/** A person, by e-mail (migration 030). `passwordHash` is an argon2id PHC string, or null until they set one. */
export interface Account {
  id: string;
  email: string;
  name: string;
  passwordHash: string | null;
}

/** A member as the API shows it, with the ids the services need. */
export interface MemberRecord extends Member {
  workspaceId: string;
  accountId: string;
}

interface AccountRow {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
}

interface MemberRow {
  id: string;
  workspace_id: string;
  account_id: string;
  role: Role;
  created_at: Date;
  last_seen_at: Date | null;
  email: string;
  name: string;
}

const toAccount = (row: AccountRow): Account => ({ id: row.id, email: row.email, name: row.name, passwordHash: row.password_hash });

const toMember = (row: MemberRow): MemberRecord => ({
  id: row.id,
  workspaceId: row.workspace_id,
  accountId: row.account_id,
  email: row.email,
  name: row.name,
  role: row.role,
  createdAt: iso(row.created_at),
  lastSeenAt: iso(row.last_seen_at),
});

const memberColumns = ['m.id', 'm.workspace_id', 'm.account_id', 'm.role', 'm.created_at', 'm.last_seen_at', 'a.email', 'a.name'];

/**
 * Accounts (people, by e-mail) and members (an account's role in one workspace). The rule that a
 * workspace keeps one owner lives in services/members.ts, which locks the rows with `lockOwners`
 * in its transaction before it counts.
 */
export class MembersRepository {
  constructor(private readonly db: Db) {}

  private members(trx?: Knex.Transaction) {
    return (trx ?? this.db)('members as m').join('accounts as a', 'a.id', 'm.account_id');
  }

  /** The account of an e-mail (any case), or undefined. */
  async accountByEmail({ email }: { email: string }, trx?: Knex.Transaction): Promise<Account | undefined> {
    const row = await (trx ?? this.db)<AccountRow>('accounts').where({ email: normalizeEmail(email) }).first();
    return row ? toAccount(row) : undefined;
  }

  async accountById({ id }: { id: string }, trx?: Knex.Transaction): Promise<Account | undefined> {
    const row = await (trx ?? this.db)<AccountRow>('accounts').where({ id }).first();
    return row ? toAccount(row) : undefined;
  }

  /**
   * The account of an e-mail, made when there is none (an invite accepted, an owner named by the
   * CLI, a first OIDC sign-in). A name given fills an empty one, never overwrites one. Safe under
   * races: the insert yields to a concurrent one on the unique e-mail.
   */
  async findOrCreateAccount({ email, name }: { email: string; name?: string }, trx?: Knex.Transaction): Promise<Account> {
    const db = trx ?? this.db;
    const normalized = normalizeEmail(email);
    await db('accounts').insert({ id: newId('account'), email: normalized, name: name ?? '' }).onConflict('email').ignore();
    if (name) await db('accounts').where({ email: normalized, name: '' }).update({ name });
    const row = await db<AccountRow>('accounts').where({ email: normalized }).first();
    return toAccount(row!);
  }

  /** Sets (or replaces) an account's password hash. */
  async setPasswordHash({ accountId, passwordHash }: { accountId: string; passwordHash: string }, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('accounts').where({ id: accountId }).update({ password_hash: passwordHash });
  }

  /** Sets an account's display name. */
  async setName({ accountId, name }: { accountId: string; name: string }, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('accounts').where({ id: accountId }).update({ name });
  }

  /** The member of a workspace by id, or undefined. */
  async get({ workspaceId, memberId }: { workspaceId: string; memberId: string }, trx?: Knex.Transaction): Promise<MemberRecord | undefined> {
    const row = await this.members(trx).where({ 'm.workspace_id': workspaceId, 'm.id': memberId }).first<MemberRow | undefined>(memberColumns);
    return row ? toMember(row) : undefined;
  }

  /** An account's membership of a workspace, or undefined. */
  async memberOf({ workspaceId, accountId }: { workspaceId: string; accountId: string }, trx?: Knex.Transaction): Promise<MemberRecord | undefined> {
    const row = await this.members(trx).where({ 'm.workspace_id': workspaceId, 'm.account_id': accountId }).first<MemberRow | undefined>(memberColumns);
    return row ? toMember(row) : undefined;
  }

  /** An account's memberships, the one seen last first (then the newest): where a sign-in without a workspace goes. */
  async membershipsOf({ accountId }: { accountId: string }, trx?: Knex.Transaction): Promise<MemberRecord[]> {
    const rows = await this.members(trx)
      .where({ 'm.account_id': accountId })
      .orderByRaw('m.last_seen_at desc nulls last, m.created_at desc')
      .select<MemberRow[]>(memberColumns);
    return rows.map(toMember);
  }

  /** Makes an account a member; undefined when it already is one of that workspace. */
  async add(
    { workspaceId, accountId, role }: { workspaceId: string; accountId: string; role: Role },
    trx?: Knex.Transaction,
  ): Promise<MemberRecord | undefined> {
    const inserted = await (trx ?? this.db)('members')
      .insert({ id: newId('member'), workspace_id: workspaceId, account_id: accountId, role })
      .onConflict(['workspace_id', 'account_id'])
      .ignore()
      .returning<{ id: string }[]>('id');
    const id = inserted[0]?.id;
    return id ? this.get({ workspaceId, memberId: id }, trx) : undefined;
  }

  /** A workspace's members, oldest first. */
  async list({ workspaceId }: { workspaceId: string }, trx?: Knex.Transaction): Promise<MemberRecord[]> {
    const rows = await this.members(trx).where({ 'm.workspace_id': workspaceId }).orderBy('m.created_at', 'asc').orderBy('m.id').select<MemberRow[]>(memberColumns);
    return rows.map(toMember);
  }

  /** Changes a member's role; undefined when there is no such member. */
  async updateRole(
    { workspaceId, memberId, role }: { workspaceId: string; memberId: string; role: Role },
    trx?: Knex.Transaction,
  ): Promise<MemberRecord | undefined> {
    const n = await (trx ?? this.db)('members').where({ workspace_id: workspaceId, id: memberId }).update({ role });
    return n ? this.get({ workspaceId, memberId }, trx) : undefined;
  }

  /** Removes a member (their sessions cascade); false when there is no such member. */
  async remove({ workspaceId, memberId }: { workspaceId: string; memberId: string }, trx?: Knex.Transaction): Promise<boolean> {
    const n = await (trx ?? this.db)('members').where({ workspace_id: workspaceId, id: memberId }).delete();
    return n > 0;
  }

  /** Records that a member was just seen (a sign-in; later uses of the session move it at most once a minute). */
  async touch({ memberId }: { memberId: string }, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('members').where({ id: memberId }).update({ last_seen_at: this.db.fn.now() });
  }

  /** How many owners a workspace has. */
  async countOwners({ workspaceId }: { workspaceId: string }, trx?: Knex.Transaction): Promise<number> {
    const row = await (trx ?? this.db)('members').where({ workspace_id: workspaceId, role: 'owner' }).count<{ n: number }[]>({ n: '*' });
    return Number(row[0]?.n ?? 0);
  }

  /**
   * Locks a workspace's owner rows for the transaction (SELECT … FOR UPDATE) and returns their ids:
   * two owners demoting or removing each other at once then run one after the other, and the second
   * sees one owner left.
   */
  async lockOwners({ workspaceId }: { workspaceId: string }, trx: Knex.Transaction): Promise<string[]> {
    const rows = await trx('members').where({ workspace_id: workspaceId, role: 'owner' }).orderBy('id').forUpdate().select<{ id: string }[]>('id');
    return rows.map((r) => r.id);
  }
}
