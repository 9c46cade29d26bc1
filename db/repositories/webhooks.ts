import type { Knex } from 'knex';
import type { Db } from '../connect';

export interface WebhookRow {
  id: string;
  workspace_id: string;
  agent_id: string;
  trigger_index: number;
  token_hash: string;
  /** The token, sealed (domain/webhooks.ts). */
  token_sealed: Buffer;
  signing_secret_sealed: Buffer | null;
  created_at: Date;
  url_rotated_at: Date | null;
  secret_rotated_at: Date | null;
}

/**
 * The webhooks of agents' `webhook` triggers. Sealed bytes in, sealed bytes out: the webhooks
 * service seals and opens them. Reads by agent are scoped by workspace.
 */
export class WebhooksRepository {
  constructor(private readonly db: Db) {}

  /** The agent's webhooks in trigger order. */
  async ofAgent({ workspaceId, agentId }: { workspaceId: string; agentId: string }, trx?: Knex.Transaction): Promise<WebhookRow[]> {
    return (trx ?? this.db)<WebhookRow>('webhooks').where({ workspace_id: workspaceId, agent_id: agentId }).orderBy('trigger_index');
  }

  /** The webhooks of several agents (a list of agents), in trigger order. */
  async ofAgents({ workspaceId, agentIds }: { workspaceId: string; agentIds: string[] }): Promise<WebhookRow[]> {
    if (agentIds.length === 0) return [];
    return this.db<WebhookRow>('webhooks').where({ workspace_id: workspaceId }).whereIn('agent_id', agentIds).orderBy('trigger_index');
  }

  async byTokenHash({ hash }: { hash: string }): Promise<WebhookRow | undefined> {
    return this.db<WebhookRow>('webhooks').where({ token_hash: hash }).first();
  }

  /** By id alone: for the delivery activity, which acts on a run the API already accepted. */
  async byId({ id }: { id: string }): Promise<WebhookRow | undefined> {
    return this.db<WebhookRow>('webhooks').where({ id }).first();
  }

  async insert(
    input: { id: string; workspaceId: string; agentId: string; triggerIndex: number; tokenHash: string; tokenSealed: Buffer },
    trx: Knex.Transaction,
  ): Promise<void> {
    await trx('webhooks').insert({
      id: input.id,
      workspace_id: input.workspaceId,
      agent_id: input.agentId,
      trigger_index: input.triggerIndex,
      token_hash: input.tokenHash,
      token_sealed: input.tokenSealed,
    });
  }

  async moveTo({ id, triggerIndex }: { id: string; triggerIndex: number }, trx: Knex.Transaction): Promise<void> {
    await trx('webhooks').where({ id }).update({ trigger_index: triggerIndex });
  }

  async remove({ ids }: { ids: string[] }, trx: Knex.Transaction): Promise<void> {
    if (ids.length > 0) await trx('webhooks').whereIn('id', ids).delete();
  }

  /** Replaces the token (the old URL stops at once); undefined when the agent has no such webhook. */
  async rotateToken(
    input: { workspaceId: string; agentId: string; id: string; tokenHash: string; tokenSealed: Buffer },
  ): Promise<WebhookRow | undefined> {
    const [row] = await this.db<WebhookRow>('webhooks')
      .where({ id: input.id, agent_id: input.agentId, workspace_id: input.workspaceId })
      .update({ token_hash: input.tokenHash, token_sealed: input.tokenSealed, url_rotated_at: this.db.fn.now() })
      .returning('*');
    return row as WebhookRow | undefined;
  }

  /** Replaces the signing secret; false when the agent has no such webhook. */
  async setSigningSecret(input: { workspaceId: string; agentId: string; id: string; sealed: Buffer }): Promise<boolean> {
    const n = await this.db('webhooks')
      .where({ id: input.id, agent_id: input.agentId, workspace_id: input.workspaceId })
      .update({ signing_secret_sealed: input.sealed, secret_rotated_at: this.db.fn.now() });
    return n > 0;
  }
}
