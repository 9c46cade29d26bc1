import type { Knex } from 'knex';
import type { Agent, AgentConfig, VersionItem } from '../../domain/agent';
import { type EvalGateRecord, gateView } from '../../domain/runs/deploy';
import { newId } from '../../domain/ids';
import type { Db } from '../connect';
import { iso } from '../rows';

interface AgentRow {
  id: string;
  workspace_id: string;
  role: Agent['role'];
  current_version: number;
  created_at: Date;
  updated_at: Date;
}

interface VersionRow {
  id: string;
  agent_id: string;
  number: number;
  /** The role the version was published with (migration 020); `agents.role` is the current one. */
  role: Agent['role'];
  config: AgentConfig;
  created_at: Date;
}

/** An agent as of one version: the snapshot's role and configuration with the agent's identity. */
function toAgent(agent: Pick<AgentRow, 'id' | 'created_at'>, version: VersionRow): Agent {
  return {
    id: agent.id,
    role: version.role,
    ...version.config,
    version: version.number,
    versionId: version.id,
    createdAt: iso(agent.created_at),
    updatedAt: iso(version.created_at),
  };
}

/** jsonb goes in as text: node-postgres would turn a top-level array into a PostgreSQL array. */
async function insertVersion(
  trx: Knex.Transaction,
  agentId: string,
  { number, role, config }: Pick<VersionRow, 'number' | 'role' | 'config'>,
): Promise<VersionRow> {
  const [row] = await trx('agent_versions')
    .insert({ id: newId('version'), agent_id: agentId, number, role, config: JSON.stringify(config) })
    .returning('*');
  return row as VersionRow;
}

type PublishOutcome = { agent: Agent } | { missing: true };

/**
 * Agents and their versions. Every method takes one object and an optional transaction;
 * every query is scoped by workspace, so another workspace's agent reads as absent.
 */
export class AgentsRepository {
  constructor(private readonly db: Db) {}

  /** True when the id is taken now or was ever used (ids are never reused). */
  async idUsed({ id }: { id: string }, trx?: Knex.Transaction): Promise<boolean> {
    const q = trx ?? this.db;
    const [live, retired] = await Promise.all([
      q('agents').where({ id }).first('id'),
      q('retired_agent_ids').where({ id }).first('id'),
    ]);
    return Boolean(live || retired);
  }

  /** Inserts the agent and its version 1 in the caller's transaction. */
  async create(
    input: { workspaceId: string; id: string; role: Agent['role']; config: AgentConfig },
    trx: Knex.Transaction,
  ): Promise<Agent> {
    const [agent] = await trx<AgentRow>('agents')
      .insert({ id: input.id, workspace_id: input.workspaceId, role: input.role, current_version: 1 })
      .returning('*');
    const version = await insertVersion(trx, input.id, { number: 1, role: input.role, config: input.config });
    return toAgent(agent!, version);
  }

  /** The latest version of every agent of the workspace, newest agent first. */
  async list({ workspaceId }: { workspaceId: string }, trx?: Knex.Transaction): Promise<Agent[]> {
    const rows = await (trx ?? this.db)('agents as a')
      .join('agent_versions as v', (j) => j.on('v.agent_id', 'a.id').andOn('v.number', 'a.current_version'))
      .where('a.workspace_id', workspaceId)
      .orderBy([{ column: 'a.created_at', order: 'desc' }, { column: 'a.id', order: 'desc' }])
      .select('a.id', 'a.created_at', 'v.id as version_id', 'v.number', 'v.role', 'v.config', 'v.created_at as version_created_at');
    return rows.map((r) =>
      toAgent(r, { id: r.version_id, agent_id: r.id, number: r.number, role: r.role, config: r.config, created_at: r.version_created_at }),
    );
  }

  async find({ workspaceId, agentId }: { workspaceId: string; agentId: string }, trx?: Knex.Transaction): Promise<AgentRow | undefined> {
    return (trx ?? this.db)<AgentRow>('agents').where({ id: agentId, workspace_id: workspaceId }).first();
  }

  /**
   * Like `find`, and holds the row (FOR SHARE) until `trx` ends: deleting the agent waits for the
   * transaction, so what it adds (members, files) exists before the delete removes it; a delete
   * that came first makes this undefined.
   */
  async hold({ workspaceId, agentId }: { workspaceId: string; agentId: string }, trx: Knex.Transaction): Promise<AgentRow | undefined> {
    return trx<AgentRow>('agents').where({ id: agentId, workspace_id: workspaceId }).forShare().first();
  }

  /** Locks the agent row against every other writer until `trx` ends (it is about to be deleted); false when absent. */
  async lock({ workspaceId, agentId }: { workspaceId: string; agentId: string }, trx: Knex.Transaction): Promise<boolean> {
    return (await trx('agents').where({ id: agentId, workspace_id: workspaceId }).forUpdate().first('id')) !== undefined;
  }

  /** The agent as of `version` (default: the latest); undefined when either is absent. */
  async get(
    { workspaceId, agentId, version }: { workspaceId: string; agentId: string; version?: number },
    trx?: Knex.Transaction,
  ): Promise<{ agent: Agent } | { missing: 'agent' | 'version' }> {
    const agent = await this.find({ workspaceId, agentId }, trx);
    if (!agent) return { missing: 'agent' };
    const row = await (trx ?? this.db)<VersionRow>('agent_versions')
      .where({ agent_id: agentId, number: version ?? agent.current_version })
      .first();
    return row ? { agent: toAgent(agent, row) } : { missing: 'version' };
  }

  /** The configuration stored in one version; undefined when there is no such version. */
  async versionConfig({ agentId, number }: { agentId: string; number: number }, trx?: Knex.Transaction): Promise<AgentConfig | undefined> {
    const row = await (trx ?? this.db)('agent_versions').where({ agent_id: agentId, number }).first('config');
    return (row as { config: AgentConfig } | undefined)?.config;
  }

  /** Every snapshot, newest first; undefined when the agent is absent. */
  async versions({ workspaceId, agentId }: { workspaceId: string; agentId: string }): Promise<Agent[] | undefined> {
    const agent = await this.find({ workspaceId, agentId });
    if (!agent) return undefined;
    const rows = await this.db<VersionRow>('agent_versions').where({ agent_id: agentId }).orderBy('number', 'desc');
    return rows.map((r) => toAgent(agent, r));
  }

  /**
   * The deployment list: one item a version, newest first. `isProd` marks the production version;
   * `deployedAt` is when a version last became production, else when it was published.
   */
  async versionItems({ workspaceId, agentId }: { workspaceId: string; agentId: string }): Promise<VersionItem[] | undefined> {
    const agent = await this.db('agents').where({ id: agentId, workspace_id: workspaceId }).first('prod_version');
    if (!agent) return undefined;
    const rows = await this.db('agent_versions')
      .where({ agent_id: agentId })
      .orderBy('number', 'desc')
      .select('id', 'number', 'created_at', 'deployed_at', 'deploy_evals');
    return rows.map((r: { id: string; number: number; created_at: Date; deployed_at: Date | null; deploy_evals: EvalGateRecord | null }) => ({
      id: r.id,
      number: r.number,
      deployedAt: iso(r.deployed_at ?? r.created_at),
      isProd: r.number === agent.prod_version,
      ...(r.deploy_evals ? { evals: gateView(r.deploy_evals) } : {}),
    }));
  }

  /**
   * Publishes the next version: locks the agent row, hands the current configuration to
   * `change`, and stores what it returns as version N+1, with `role` (default: the current one)
   * as the agent's role from now on. Concurrent publishes queue on the lock, so each builds on the
   * one before and none is lost. `then` runs in the same transaction (what must commit with the
   * version: the agent's webhooks).
   */
  async publish({
    workspaceId,
    agentId,
    change,
    role,
    then,
  }: {
    workspaceId: string;
    agentId: string;
    change: (current: AgentConfig) => AgentConfig;
    role?: Agent['role'];
    then?: (trx: Knex.Transaction, previous: AgentConfig, next: AgentConfig) => Promise<void>;
  }): Promise<PublishOutcome> {
    return this.db.transaction(async (trx) => {
      const agent = await trx<AgentRow>('agents').where({ id: agentId, workspace_id: workspaceId }).forUpdate().first();
      if (!agent) return { missing: true } as const;
      const current = await trx<VersionRow>('agent_versions').where({ agent_id: agentId, number: agent.current_version }).first();
      const next = change(current!.config);
      const number = agent.current_version + 1;
      const nextRole = role ?? agent.role;
      const version = await insertVersion(trx, agentId, { number, role: nextRole, config: next });
      await trx('agents').where({ id: agentId }).update({ current_version: number, role: nextRole, updated_at: version.created_at });
      await then?.(trx, current!.config, next);
      return { agent: toAgent(agent, version) };
    });
  }

  /** Removes the agent, its versions and memberships (cascade) and retires its id. */
  async delete({ workspaceId, agentId }: { workspaceId: string; agentId: string }, trx: Knex.Transaction): Promise<boolean> {
    const n = await trx('agents').where({ id: agentId, workspace_id: workspaceId }).delete();
    if (n === 0) return false;
    await trx('retired_agent_ids').insert({ id: agentId }).onConflict('id').ignore();
    return true;
  }
}
