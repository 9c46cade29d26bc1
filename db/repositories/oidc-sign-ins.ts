import type { Knex } from 'knex';
import type { Db } from '../connect';

/** What a pending sign-in's sealed `secrets` are bound to (the AAD): its state's hash, so a row's value opens in that row only. */
export const oidcSignInSealContext = (stateHash: string): string => JSON.stringify(['oidc-sign-in', stateHash]);

/** An OIDC sign-in started and not finished: where it goes, and its sealed secrets (migration 033). */
export interface OidcSignInRow {
  state_hash: string;
  secrets: Buffer;
  workspace_id: string | null;
  return_to: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

/** The server side of an OIDC sign-in's `state`: written by the start step, consumed once by the callback. */
export class OidcSignInsRepository {
  constructor(private readonly db: Db) {}

  async create(input: { stateHash: string; secrets: Buffer; workspaceId: string | null; returnTo: string; expiresAt: Date }): Promise<void> {
    await this.db('oidc_sign_ins').insert({
      state_hash: input.stateHash,
      secrets: input.secrets,
      workspace_id: input.workspaceId,
      return_to: input.returnTo,
      expires_at: input.expiresAt,
    });
    // Old rows are of no use to anyone; pruning here keeps the table small without a job.
    await this.db('oidc_sign_ins').where('expires_at', '<', this.db.raw("now() - interval '1 day'")).delete();
  }

  /**
   * Marks the sign-in used and returns it, if it exists, was never used and has not expired — in
   * one statement, so two callbacks with the same state cannot both get it.
   */
  async consume({ stateHash }: { stateHash: string }, trx?: Knex.Transaction): Promise<OidcSignInRow | undefined> {
    const [row] = await (trx ?? this.db)('oidc_sign_ins')
      .where({ state_hash: stateHash })
      .whereNull('used_at')
      .where('expires_at', '>', this.db.fn.now())
      .update({ used_at: this.db.fn.now() })
      .returning('*');
    return row as OidcSignInRow | undefined;
  }
}
