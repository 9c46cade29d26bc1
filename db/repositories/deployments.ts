import type { Knex } from 'knex';
import type { AgentConfig } from '../../domain/agent';
import type { EvalGateRecord } from '../../domain/runs/deploy';
import { newId } from '../../domain/ids';
import { slugCandidate } from '../../domain/publishing';
import type { Db } from '../connect';

/** A version as deployments see it, with its agent's publishing state. */
export interface DeployableVersion {
  workspaceId: string;
  agentId: string;
  role: 'freelancer' | 'teammate';
  versionId: string;
  number: number;
  prodVersion: number | null;
  slug: string | null;
}

/** A deployed agent as public traffic reaches it: the version it serves and its configuration. */
export interface ServedAgent {
  workspaceId: string;
  agentId: string;
  version: number;
  config: AgentConfig;
  slug: string | null;
  /** Set for a test host. */
  testDeploymentId?: string;
}

interface TestDeploymentRow {
  id: string;
  agent_id: string;
  version_id: string;
  version_number: number;
  host_label: string;
  created_at: Date;
  expires_at: Date;
  retired_at: Date | null;
}

/** The sealed publishable token and its lookup hash, made by the caller (it holds the key). */
interface MintedToken {
  hash: string;
  sealed: Buffer;
}

/**
 * Production pointers, slugs, publishable tokens and test deployments. One object argument and
 * an optional transaction on every method; reads of owner data are scoped by workspace.
 */
export class DeploymentsRepository {
  constructor(private readonly db: Db) {}

  /** A version of an agent in the workspace, by version id; undefined when either is absent. */
  async version({ workspaceId, versionId }: { workspaceId: string; versionId: string }, trx?: Knex.Transaction): Promise<DeployableVersion | undefined> {
    const row = await (trx ?? this.db)('agent_versions as v')
      .join('agents as a', 'a.id', 'v.agent_id')
      .where({ 'v.id': versionId, 'a.workspace_id': workspaceId })
      .first('a.workspace_id', 'a.id as agent_id', 'a.role', 'v.id as version_id', 'v.number', 'a.prod_version', 'a.slug');
    if (!row) return undefined;
    return {
      workspaceId: row.workspace_id,
      agentId: row.agent_id,
      role: row.role,
      versionId: row.version_id,
      number: row.number,
      prodVersion: row.prod_version,
      slug: row.slug,
    };
  }

  /**
   * Makes `number` the production version in one transaction: gives the agent a slug on its first
   * deploy (the first of `base`, `base-2`, … that is free for its workspace, see `claimSlug`),
   * stores the token `mint()` makes when the agent has none, and stamps the version's
   * `deployed_at`. Undefined when the agent is gone.
   */
  async promote(
    input: { agentId: string; number: number; slugBase: string; mint: () => MintedToken },
  ): Promise<{ slug: string; versionNumber: number } | undefined> {
    return this.db.transaction(async (trx) => {
      const agent = await trx('agents').where({ id: input.agentId }).forUpdate().first('slug', 'public_token_hash', 'workspace_id');
      if (!agent) return undefined;
      const slug: string = agent.slug ?? (await this.claimSlug(input.slugBase, agent.workspace_id, trx));
      const token = agent.public_token_hash ? {} : (({ hash, sealed }) => ({ public_token_hash: hash, public_token_sealed: sealed }))(input.mint());
      await trx('agents').where({ id: input.agentId }).update({ prod_version: input.number, slug, ...token });
      await trx('agent_versions').where({ agent_id: input.agentId, number: input.number }).update({ deployed_at: trx.fn.now() });
      return { slug, versionNumber: input.number };
    });
  }

  /**
   * The first of `base`, `base-2`, `base-3` … that no agent holds and no other workspace ever
   * held (`slug_claims` keeps released slugs as tombstones of their workspace), claimed for
   * `workspaceId`. A racing claim fails the primary key or the agents' unique index; the caller
   * (a retried activity) tries again.
   */
  private async claimSlug(base: string, workspaceId: string, trx: Knex.Transaction): Promise<string> {
    const similar = (q: Knex.QueryBuilder, column: string) => q.where(column, base).orWhere(column, 'like', `${base}-%`);
    const held = new Set((await similar(trx('agents'), 'slug').select('slug')).map((r: { slug: string }) => r.slug));
    const claims = await trx('slug_claims').where((q) => similar(q, 'slug')).select('slug', 'workspace_id');
    const others = new Set(claims.filter((c: { workspace_id: string }) => c.workspace_id !== workspaceId).map((c: { slug: string }) => c.slug));
    for (let attempt = 1; ; attempt++) {
      const candidate = slugCandidate(base, attempt);
      if (held.has(candidate) || others.has(candidate)) continue;
      // A claim another workspace made meanwhile wins: no row comes back, the transaction fails.
      const claimed = await trx.raw(
        `insert into slug_claims (slug, workspace_id) values (?, ?)
         on conflict (slug) do update set workspace_id = excluded.workspace_id where slug_claims.workspace_id = excluded.workspace_id
         returning slug`,
        [candidate, workspaceId],
      );
      if ((claimed as { rows: unknown[] }).rows.length === 0) throw new Error(`slug ${candidate} was claimed by another workspace meanwhile; try again`);
      return candidate;
    }
  }

  /**
   * Points production at another version of the same deployed agent, in one statement.
   * `missing` says what was not there: the agent, the version (of this agent), or a deployment.
   */
  async rollback(
    { workspaceId, agentId, versionId }: { workspaceId: string; agentId: string; versionId: string },
  ): Promise<{ ok: true; before: number; after: number } | { missing: 'agent' | 'version' | 'deployment' }> {
    return this.db.transaction(async (trx) => {
      const agent = await trx('agents').where({ id: agentId, workspace_id: workspaceId }).forUpdate().first('prod_version');
      if (!agent) return { missing: 'agent' } as const;
      const version = await trx('agent_versions').where({ id: versionId, agent_id: agentId }).first('number');
      if (!version) return { missing: 'version' } as const;
      if (agent.prod_version === null) return { missing: 'deployment' } as const;
      if (agent.prod_version !== version.number) {
        await trx('agents').where({ id: agentId }).update({ prod_version: version.number });
        await trx('agent_versions').where({ id: versionId }).update({ deployed_at: trx.fn.now() });
      }
      return { ok: true, before: agent.prod_version as number, after: version.number as number } as const;
    });
  }

  /** The agent's sealed token; `none` before its first prod deploy. */
  async sealedToken({ workspaceId, agentId }: { workspaceId: string; agentId: string }): Promise<{ sealed: Buffer; slug: string } | 'none' | undefined> {
    const row = await this.db('agents').where({ id: agentId, workspace_id: workspaceId }).first('public_token_sealed', 'slug');
    if (!row) return undefined;
    return row.public_token_sealed ? { sealed: row.public_token_sealed, slug: row.slug } : 'none';
  }

  /** Replaces the token; the old value stops working with this statement. False when there was none. */
  async replaceToken({ workspaceId, agentId, token }: { workspaceId: string; agentId: string; token: MintedToken }): Promise<boolean> {
    const n = await this.db('agents')
      .where({ id: agentId, workspace_id: workspaceId })
      .whereNotNull('public_token_hash')
      .update({ public_token_hash: token.hash, public_token_sealed: token.sealed });
    return n > 0;
  }

  /** The deployed agent a token names; undefined for an unknown token or an undeployed agent. */
  async servedByToken({ tokenHash }: { tokenHash: string }): Promise<ServedAgent | undefined> {
    return this.served(this.db('agents as a').where('a.public_token_hash', tokenHash));
  }

  /** The deployed agent at `agentId` (any workspace: public routes). */
  async servedById({ agentId }: { agentId: string }): Promise<ServedAgent | undefined> {
    return this.served(this.db('agents as a').where('a.id', agentId));
  }

  /** The deployed agent whose production host label is `slug`. */
  async servedBySlug({ slug }: { slug: string }): Promise<ServedAgent | undefined> {
    return this.served(this.db('agents as a').where('a.slug', slug));
  }

  /** The production version of a freelancer: a teammate (made one after its deploys too) is served nowhere. */
  private async served(query: Knex.QueryBuilder): Promise<ServedAgent | undefined> {
    const row = await query
      .join('agent_versions as v', (j) => j.on('v.agent_id', 'a.id').andOn('v.number', 'a.prod_version'))
      .where('a.role', 'freelancer')
      .first('a.workspace_id', 'a.id', 'a.slug', 'v.number', 'v.config');
    if (!row) return undefined;
    return { workspaceId: row.workspace_id, agentId: row.id, version: row.number, config: row.config, slug: row.slug };
  }

  /** The live test deployment of a version, if any (created, not retired, not expired). */
  async liveTest({ versionId }: { versionId: string }, trx?: Knex.Transaction): Promise<TestDeploymentRow | undefined> {
    return (trx ?? this.db)<TestDeploymentRow>('test_deployments')
      .where({ version_id: versionId })
      .whereNull('retired_at')
      .where('expires_at', '>', this.db.fn.now())
      .first();
  }

  /**
   * The version's live test deployment, or a new one expiring in `ttlSeconds`. Serialised per
   * version, so two racing calls get the same one; an expired one not yet retired is retired here.
   */
  async liveOrNewTest(
    input: { agentId: string; versionId: string; versionNumber: number; hostLabel: string; ttlSeconds: number },
  ): Promise<{ row: TestDeploymentRow; created: boolean }> {
    return this.db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`test-deploy:${input.versionId}`]);
      const live = await this.liveTest({ versionId: input.versionId }, trx);
      if (live) return { row: live, created: false };
      await trx('test_deployments').where({ version_id: input.versionId }).whereNull('retired_at').update({ retired_at: trx.fn.now() });
      const [row] = await trx('test_deployments')
        .insert({
          id: newId('testDeployment'),
          agent_id: input.agentId,
          version_id: input.versionId,
          version_number: input.versionNumber,
          host_label: input.hostLabel,
          expires_at: trx.raw(`now() + make_interval(secs => ?)`, [input.ttlSeconds]),
        })
        .returning('*');
      return { row: row as TestDeploymentRow, created: true };
    });
  }

  /** Retires the version's test deployments whose time is up; returns when the next live one expires (ms since epoch). */
  async retireExpiredTests({ versionId }: { versionId: string }): Promise<number | null> {
    await this.db('test_deployments')
      .where({ version_id: versionId })
      .whereNull('retired_at')
      .where('expires_at', '<=', this.db.fn.now())
      .update({ retired_at: this.db.fn.now() });
    const next = await this.db('test_deployments').where({ version_id: versionId }).whereNull('retired_at').min('expires_at as at').first();
    const at = (next as { at: Date | null } | undefined)?.at;
    return at ? at.getTime() : null;
  }

  /** The agent a live test host serves, at the deployed version; none while the agent is a teammate (like `served`). */
  async servedByTestHost({ label }: { label: string }): Promise<ServedAgent | undefined> {
    const row = await this.db('test_deployments as t')
      .join('agents as a', 'a.id', 't.agent_id')
      .join('agent_versions as v', 'v.id', 't.version_id')
      .where('t.host_label', label)
      .where('a.role', 'freelancer')
      .whereNull('t.retired_at')
      .where('t.expires_at', '>', this.db.fn.now())
      .first('a.workspace_id', 'a.id', 'a.slug', 'v.number', 'v.config', 't.id as test_id');
    if (!row) return undefined;
    return { workspaceId: row.workspace_id, agentId: row.id, version: row.number, config: row.config, slug: row.slug, testDeploymentId: row.test_id };
  }

  /** The agent's production version number, or null before its first deploy. */
  async prodVersion({ agentId }: { agentId: string }): Promise<number | null> {
    const row = await this.db('agents').where({ id: agentId }).first<{ prod_version: number | null } | undefined>('prod_version');
    return row?.prod_version ?? null;
  }

  /** Stores what the eval gate said about a version's promotion (the latest promotion's). */
  async recordEvals({ agentId, number, record }: { agentId: string; number: number; record: EvalGateRecord }): Promise<void> {
    await this.db('agent_versions').where({ agent_id: agentId, number }).update({ deploy_evals: JSON.stringify(record) });
  }
}
