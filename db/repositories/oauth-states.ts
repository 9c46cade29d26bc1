import type { Knex } from 'knex';
import type { Db } from '../connect';
import type { CredentialOwner } from './credentials';

/** A consent URL handed out and not yet used: where its tokens go, and the sealed PKCE verifier. */
export interface OAuthStateRow {
  state_hash: string;
  workspace_id: string;
  owner_kind: CredentialOwner['kind'];
  owner_id: string;
  end_user_id: string | null;
  provider: string;
  code_verifier: Buffer;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

/** The server side of OAuth `state`: written by `authorize`, consumed once by the callback. */
export class OAuthStatesRepository {
  constructor(private readonly db: Db) {}

  async create(input: {
    stateHash: string;
    workspaceId: string;
    owner: CredentialOwner;
    endUserId: string | null;
    provider: string;
    codeVerifier: Buffer;
    expiresAt: Date;
  }): Promise<void> {
    await this.db('oauth_states').insert({
      state_hash: input.stateHash,
      workspace_id: input.workspaceId,
      owner_kind: input.owner.kind,
      owner_id: input.owner.id,
      end_user_id: input.endUserId,
      provider: input.provider,
      code_verifier: input.codeVerifier,
      expires_at: input.expiresAt,
    });
    // Old rows are of no use to anyone; pruning here keeps the table small without a job.
    await this.db('oauth_states').where('expires_at', '<', this.db.raw("now() - interval '1 day'")).delete();
  }

  /** The state, if it exists, was never used and has not expired (the start step reads it). */
  async live({ stateHash }: { stateHash: string }): Promise<OAuthStateRow | undefined> {
    const row: unknown = await this.db('oauth_states').where({ state_hash: stateHash }).whereNull('used_at').where('expires_at', '>', this.db.fn.now()).first();
    return row as OAuthStateRow | undefined;
  }

  /**
   * Marks the state used and returns it, if it exists, was never used and has not expired — in one
   * statement, so two callbacks with the same state cannot both get it.
   */
  async consume({ stateHash }: { stateHash: string }, trx?: Knex.Transaction): Promise<OAuthStateRow | undefined> {
    const [row] = await (trx ?? this.db)('oauth_states')
      .where({ state_hash: stateHash })
      .whereNull('used_at')
      .where('expires_at', '>', this.db.fn.now())
      .update({ used_at: this.db.fn.now() })
      .returning('*');
    return row as OAuthStateRow | undefined;
  }
}
