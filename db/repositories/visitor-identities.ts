import type { Knex } from 'knex';
import type { PublicIdentityMode } from '../../domain/visitor-identity';
import type { Db } from '../connect';

export interface VisitorIdentityRow {
  agent_id: string;
  workspace_id: string;
  mode: PublicIdentityMode;
  /** Sealed (domain/secret-box.ts, `visitorSecretContext`). */
  secret_sealed: Buffer | null;
  secret_created_at: Date | null;
  /** The secret a rotation replaced, sealed; it verifies until `previous_valid_until`. */
  previous_secret_sealed: Buffer | null;
  previous_valid_until: Date | null;
}

/** Per-agent visitor identity settings and secrets; an agent without a row is `anonymous` with no secret. */
export class VisitorIdentitiesRepository {
  constructor(private readonly db: Db) {}

  async get({ agentId }: { agentId: string }): Promise<VisitorIdentityRow | undefined> {
    return this.db<VisitorIdentityRow>('visitor_identities').where({ agent_id: agentId }).first();
  }

  async setMode({ workspaceId, agentId, mode }: { workspaceId: string; agentId: string; mode: PublicIdentityMode }): Promise<void> {
    await this.db('visitor_identities')
      .insert({ agent_id: agentId, workspace_id: workspaceId, mode })
      .onConflict('agent_id')
      .merge({ mode, updated_at: this.db.fn.now() });
  }

  /** The agent's row, created when missing, locked until `trx` ends: one rotation at a time. */
  async lock({ workspaceId, agentId }: { workspaceId: string; agentId: string }, trx: Knex.Transaction): Promise<VisitorIdentityRow> {
    await trx('visitor_identities').insert({ agent_id: agentId, workspace_id: workspaceId }).onConflict('agent_id').ignore();
    return (await trx<VisitorIdentityRow>('visitor_identities').where({ agent_id: agentId }).forUpdate().first())!;
  }

  /** Stores a new current secret and what becomes of the one it replaces. */
  async rotate(
    input: { agentId: string; sealed: Buffer; previous: { sealed: Buffer; validUntil: Date } | null },
    trx: Knex.Transaction,
  ): Promise<VisitorIdentityRow> {
    const [row] = await trx('visitor_identities')
      .where({ agent_id: input.agentId })
      .update({
        secret_sealed: input.sealed,
        secret_created_at: trx.fn.now(),
        previous_secret_sealed: input.previous?.sealed ?? null,
        previous_valid_until: input.previous?.validUntil ?? null,
        updated_at: trx.fn.now(),
      })
      .returning('*');
    return row as VisitorIdentityRow;
  }
}
