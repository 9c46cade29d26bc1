import type { Db } from '../connect';

/** Per-agent allowed origins (migration 019); an agent without a row allows any origin. */
export class AllowedOriginsRepository {
  constructor(private readonly db: Db) {}

  /** The agent's list, in the order it was set; empty when it has none. */
  async of({ agentId }: { agentId: string }): Promise<string[]> {
    const row = await this.db('agent_allowed_origins').where({ agent_id: agentId }).first<{ origins: string[] } | undefined>('origins');
    return row?.origins ?? [];
  }

  /** Replaces the agent's list; an empty one removes the row (back to any origin). */
  async set({ agentId, origins }: { agentId: string; origins: string[] }): Promise<void> {
    if (origins.length === 0) {
      await this.db('agent_allowed_origins').where({ agent_id: agentId }).delete();
      return;
    }
    await this.db('agent_allowed_origins')
      .insert({ agent_id: agentId, origins })
      .onConflict('agent_id')
      .merge({ origins, updated_at: this.db.fn.now() });
  }
}
