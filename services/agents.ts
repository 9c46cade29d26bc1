import type { Knex } from 'knex';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import { knowledgeSpace } from '../db/repositories/files';
import {
  type Agent,
  type AgentConfig,
  agentConfigSchema,
  applyAgentUpdate,
  type CreateAgentInput,
  type UpdateAgentInput,
  type VersionItem,
  type Playbook,
} from '../domain/agent';
import type { AddressRules } from '../domain/address-policy';
import { AppError } from '../domain/errors';
import { fieldPath } from '../domain/field-path';
import { fileToolsWithoutDrive } from '../domain/tool-catalogue';
import { toolUrlWarnings } from '../domain/tool-url-warnings';
import { newId } from '../domain/ids';
import type { Trigger } from '../domain/trigger';
import type { TriggerSchedules } from './trigger-schedules';
import type { WebhooksService } from './webhooks';

/** A whole configuration failed validation after a change: name the field as the caller sent it. */
function validated(config: unknown, root: string): AgentConfig {
  const r = agentConfigSchema.safeParse(config);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw new AppError('invalid_request', `${fieldPath(root, issue.path)}: ${issue.message}`);
}

const notFound = () => new AppError('agent_not_found', 'no such agent');

/**
 * The rules of agents and versions: creation publishes version 1; `update`, `setPlaybook`,
 * `removePlaybook` and `setTriggers` each publish exactly one new immutable snapshot; nothing
 * else does. Every read and change is scoped to the caller's workspace.
 */
export class AgentsService {
  constructor(
    private readonly deps: {
      db: Db;
      repos: Repositories;
      schedules: TriggerSchedules;
      webhooks: WebhooksService;
      /** OUTBOUND_ALLOW_PRIVATE's rule: what create and update warn of (`Agent.warnings`). */
      outbound: AddressRules;
    },
  ) {}

  /** The saved agent, with `warnings` when a tool of it will be refused at call time (domain/tool-url-warnings.ts). */
  private withWarnings(agent: Agent): Agent {
    const warnings = toolUrlWarnings(agent, this.deps.outbound);
    return warnings.length === 0 ? agent : { ...agent, warnings };
  }

  async create(workspaceId: string, input: CreateAgentInput): Promise<Agent> {
    const { id: chosen, role, ...fields } = input;
    const config = validated(fields, 'body');
    const id = chosen ?? newId('agent');
    const agent = await this.deps.db.transaction(async (trx) => {
      // Serialise creations of the same id so "exists or existed" is decided once.
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [id]);
      if (await this.deps.repos.agents.idUsed({ id }, trx)) {
        throw new AppError('agent_exists', `an agent with id ${id} exists or existed; ids are never reused`);
      }
      const created = await this.deps.repos.agents.create({ workspaceId, id, role, config }, trx);
      await this.deps.webhooks.reconcile(trx, { workspaceId, agentId: id, previous: [], next: config.triggers });
      return created;
    });
    await this.reconcile(id);
    return this.withWarnings(agent);
  }

  list(workspaceId: string): Promise<Agent[]> {
    return this.deps.repos.agents.list({ workspaceId });
  }

  async get(workspaceId: string, agentId: string, version?: number): Promise<Agent> {
    const r = await this.deps.repos.agents.get({ workspaceId, agentId, version });
    if ('agent' in r) return r.agent;
    if (r.missing === 'agent') throw notFound();
    throw new AppError('version_not_found', `agent ${agentId} has no version ${version}`);
  }

  async versions(workspaceId: string, agentId: string): Promise<Agent[]> {
    const list = await this.deps.repos.agents.versions({ workspaceId, agentId });
    if (!list) throw notFound();
    return list;
  }

  async versionItems(workspaceId: string, agentId: string): Promise<VersionItem[]> {
    const list = await this.deps.repos.agents.versionItems({ workspaceId, agentId });
    if (!list) throw notFound();
    return list;
  }

  /** `role`, when given, is the agent's from the new version on (docs/publishing.md: Changing the role). */
  async update(workspaceId: string, agentId: string, patch: UpdateAgentInput): Promise<Agent> {
    const change = (current: AgentConfig) => {
      const next = validated(applyAgentUpdate(current, patch), 'body');
      // Only when the update touches them: an older version breaking the rule still takes other changes.
      const problem = patch.tools !== undefined || patch.filesystem !== undefined ? fileToolsWithoutDrive(next) : undefined;
      if (problem) throw new AppError('invalid_request', `body.filesystem: ${problem}`);
      return next;
    };
    return this.withWarnings(await this.publish(workspaceId, agentId, change, patch.role));
  }

  /** Adds the playbook (`PUT …/workflows`), or replaces the one of the same name where it stands. */
  setPlaybook(workspaceId: string, agentId: string, playbook: Playbook): Promise<Agent> {
    return this.publish(workspaceId, agentId, (current) => {
      const at = current.workflows.findIndex((p) => p.name === playbook.name);
      const workflows = at === -1 ? [...current.workflows, playbook] : current.workflows.map((p, i) => (i === at ? playbook : p));
      return validated({ ...current, workflows }, 'body');
    });
  }

  /** Removes the playbook of that name (`DELETE …/workflows/:name`); the wire still calls it a workflow. */
  removePlaybook(workspaceId: string, agentId: string, name: string): Promise<Agent> {
    return this.publish(workspaceId, agentId, (current) => {
      if (!current.workflows.some((p) => p.name === name)) {
        throw new AppError('workflow_not_found', `agent ${agentId} has no workflow named ${JSON.stringify(name)}`);
      }
      return { ...current, workflows: current.workflows.filter((p) => p.name !== name) };
    });
  }

  setTriggers(workspaceId: string, agentId: string, triggers: Trigger[]): Promise<Agent> {
    return this.publish(workspaceId, agentId, (current) => validated({ ...current, triggers }, 'body'));
  }

  /** Deletes the agent and everything it owns: versions, knowledge files, its conversations and their drives (so their signed links stop working), project memberships, trigger Schedules, webhooks (cascade). */
  async delete(workspaceId: string, agentId: string): Promise<void> {
    await this.deps.schedules.removeWith(agentId, async (trx) => {
      // Before the agent: deleting it cascades to its conversations, which name the drives. The
      // lock keeps a conversation from starting in between.
      if (!(await this.deps.repos.agents.lock({ workspaceId, agentId }, trx))) throw notFound();
      await this.deps.repos.files.dropAgentDrives({ agentId }, trx);
      if (!(await this.deps.repos.agents.delete({ workspaceId, agentId }, trx))) throw notFound();
      await this.deps.repos.files.dropSpace({ space: knowledgeSpace(agentId) }, trx);
    });
  }

  /**
   * Runs `work` in a transaction that holds the agent (see `AgentsRepository.hold`), so a
   * concurrent delete cannot leave behind what `work` writes. Throws agent_not_found when absent.
   */
  async whileExists<T>(workspaceId: string, agentId: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.deps.db.transaction(async (trx) => {
      if (!(await this.deps.repos.agents.hold({ workspaceId, agentId }, trx))) throw notFound();
      return work(trx);
    });
  }

  /** Throws agent_not_found unless the agent is in the workspace. */
  async assertExists(workspaceId: string, agentId: string): Promise<void> {
    if (!(await this.deps.repos.agents.find({ workspaceId, agentId }))) throw notFound();
  }

  private async publish(
    workspaceId: string,
    agentId: string,
    change: (current: AgentConfig) => AgentConfig,
    role?: Agent['role'],
  ): Promise<Agent> {
    const r = await this.deps.repos.agents.publish({
      workspaceId,
      agentId,
      change,
      role,
      // The webhooks commit with the version: an inbound URL never points at a trigger that moved.
      then: (trx, previous, next) => this.deps.webhooks.reconcile(trx, { workspaceId, agentId, previous: previous.triggers, next: next.triggers }),
    });
    if ('missing' in r) throw notFound();
    // Every publish reconciles the agent's Schedules with its latest version (see TriggerSchedules).
    await this.reconcile(agentId);
    return r.agent;
  }

  /** The version is committed before its Schedules follow; a failure here is mended by the next publish. */
  private async reconcile(agentId: string): Promise<void> {
    try {
      await this.deps.schedules.reconcile(agentId);
    } catch (e) {
      throw new AppError(
        'temporal_unavailable',
        `the version is published but its trigger Schedules could not be updated (publish again to retry): ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
}
