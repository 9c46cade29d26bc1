import type { Knex } from 'knex';
import type { Db } from '../connect';

/** Rows older than this are deleted as new ones are written: no window is longer. */
const KEEP_MS = 24 * 60 * 60 * 1000;

/**
 * Failed password sign-ins (migration 030), counted per e-mail and per client address over a
 * window. In PostgreSQL rather than process memory: every API process sees the same counts.
 */
export class SignInFailuresRepository {
  constructor(private readonly db: Db) {}

  /** Failures in the last `windowMs`: of the e-mail (since its last success) and of the address. */
  async counts({ email, ip, windowMs }: { email?: string; ip: string; windowMs: number }): Promise<{ account: number; address: number }> {
    const result = await this.db.raw<{ rows: { account: number; address: number }[] }>(
      `select count(*) filter (where email = ? and not account_cleared) as account,
              count(*) filter (where ip = ?) as address
         from sign_in_failures
        where at > now() - (? * interval '1 millisecond') and (email = ? or ip = ?)`,
      [email ?? null, ip, windowMs, email ?? null, ip],
    );
    const row = result.rows[0];
    return { account: Number(row?.account ?? 0), address: Number(row?.address ?? 0) };
  }

  /** Records a failure (an e-mail of null: a reset request, counted for the address only); prunes old rows. */
  async record({ email, ip }: { email: string | null; ip: string }, trx?: Knex.Transaction): Promise<void> {
    const db = trx ?? this.db;
    await db('sign_in_failures').insert({ email, ip });
    await db('sign_in_failures').where('at', '<', new Date(Date.now() - KEEP_MS)).delete();
  }

  /** A successful sign-in: the e-mail's earlier failures no longer count against the account (they still count for their addresses). */
  async clearAccount({ email }: { email: string }, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('sign_in_failures').where({ email, account_cleared: false }).update({ account_cleared: true });
  }
}
