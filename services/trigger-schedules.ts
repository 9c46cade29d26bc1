import { createHash } from 'node:crypto';
import { type Client, ScheduleNotFoundError, ScheduleOverlapPolicy, type ScheduleOptions } from '@temporalio/client';
import type { Knex } from 'knex';
import type { Db } from '../db/connect';
import type { Trigger } from '../domain/trigger';
import { type TriggerRunInput, triggerRunWorkflowId, triggerScheduleId } from '../domain/runs/trigger-run';
import type { TurnLimits } from '../domain/runs/turn';
import { AgentIdKey, WorkspaceIdKey } from '../domain/runs/search-attributes';
import type { triggerRunWorkflow } from '../workflows/trigger-run';

interface TriggerSchedulesDeps {
  db: Db;
  temporal: Client;
  opsQueue: string;
  turnsQueue: string;
  limits: TurnLimits;
}

/** What the agent's row remembers of each Schedule it reconciled. */
interface Reconciled {
  id: string;
  hash: string;
}

type Scheduled = Extract<Trigger, { kind: 'schedule' | 'interval' }>;

const lockKey = (agentId: string) => `trigger-schedules:${agentId}`;

/**
 * The agent's Temporal Schedules, one per schedule or interval trigger of its latest version
 * (id `trigger-<agentId>-<index>`). `reconcile` runs after every publish under a per-agent
 * advisory lock and reads the latest version inside it, so however publishes race, the last
 * reconcile to run sees the last publish: Schedules are created, updated (only when their trigger
 * changed) or deleted to match, and the agent's row records what stands.
 */
export class TriggerSchedules {
  constructor(private readonly deps: TriggerSchedulesDeps) {}

  async reconcile(agentId: string): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [lockKey(agentId)]);
      const agent = await trx('agents')
        .where({ id: agentId })
        .first<{ workspace_id: string; current_version: number; trigger_schedules: Reconciled[] } | undefined>(
          'workspace_id',
          'current_version',
          'trigger_schedules',
        );
      if (!agent) return;
      const version = await trx('agent_versions').where({ agent_id: agentId, number: agent.current_version }).first<{ config: { triggers?: Trigger[] } }>('config');
      const triggers = version?.config.triggers ?? [];
      const before = new Map(agent.trigger_schedules.map((r) => [r.id, r.hash]));
      const after: Reconciled[] = [];
      for (const [index, trigger] of triggers.entries()) {
        if (trigger.kind !== 'schedule' && trigger.kind !== 'interval') continue;
        const id = triggerScheduleId(agentId, index);
        const hash = createHash('sha256').update(JSON.stringify(trigger)).digest('hex').slice(0, 16);
        const options = this.options(agent.workspace_id, agentId, index, trigger);
        if (!before.has(id)) await this.create(options);
        else if (before.get(id) !== hash) await this.replace(options);
        after.push({ id, hash });
      }
      const kept = new Set(after.map((r) => r.id));
      await this.deleteAll([...before.keys()].filter((id) => !kept.has(id)));
      await this.record(trx, agentId, after);
    });
  }

  /**
   * Deletes the agent's Schedules, then runs `remove` (which deletes the agent) in the same
   * transaction, under the agent's lock: a reconcile cannot create a Schedule in between.
   */
  async removeWith(agentId: string, remove: (trx: Knex.Transaction) => Promise<void>): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [lockKey(agentId)]);
      const agent = await trx('agents').where({ id: agentId }).first<{ trigger_schedules: Reconciled[] } | undefined>('trigger_schedules');
      await remove(trx);
      await this.deleteAll((agent?.trigger_schedules ?? []).map((r) => r.id));
    });
  }

  private async record(trx: Knex.Transaction, agentId: string, schedules: Reconciled[]): Promise<void> {
    await trx('agents').where({ id: agentId }).update({ trigger_schedules: JSON.stringify(schedules) });
  }

  private options(workspaceId: string, agentId: string, index: number, trigger: Scheduled): ScheduleOptions {
    const input: TriggerRunInput = {
      workspaceId,
      agentId,
      trigger: { kind: trigger.kind, index },
      message: trigger.message,
      limits: this.deps.limits,
      turnsQueue: this.deps.turnsQueue,
    };
    const spec: ScheduleOptions['spec'] =
      trigger.kind === 'schedule'
        ? { cronExpressions: [trigger.cron.trim().toUpperCase()], ...(trigger.timezone ? { timezone: trigger.timezone } : {}) }
        : { intervals: [{ every: trigger.seconds * 1000 }] };
    return {
      scheduleId: triggerScheduleId(agentId, index),
      spec,
      action: {
        type: 'startWorkflow',
        workflowType: 'triggerRunWorkflow' satisfies (typeof triggerRunWorkflow)['name'],
        workflowId: triggerRunWorkflowId(agentId, index),
        taskQueue: this.deps.opsQueue,
        args: [input],
        typedSearchAttributes: [
          { key: WorkspaceIdKey, value: workspaceId },
          { key: AgentIdKey, value: agentId },
        ],
      },
      // A run still going (its turn not ended) when the next is due: the next is skipped.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
      state:
        trigger.kind === 'interval' && trigger.maxRuns !== undefined
          ? { remainingActions: trigger.maxRuns, note: `interval trigger ${index} of ${agentId}` }
          : { note: `${trigger.kind} trigger ${index} of ${agentId}` },
      typedSearchAttributes: [
        { key: WorkspaceIdKey, value: workspaceId },
        { key: AgentIdKey, value: agentId },
      ],
    };
  }

  private async create(options: ScheduleOptions): Promise<void> {
    try {
      await this.deps.temporal.schedule.create(options);
    } catch (e) {
      // Left behind by a reconcile whose transaction did not commit: make it match.
      if ((e as Error).name === 'ScheduleAlreadyRunning') await this.replace(options);
      else throw e;
    }
  }

  /** A changed trigger: its Schedule is replaced, so an interval's `maxRuns` counts afresh. */
  private async replace(options: ScheduleOptions): Promise<void> {
    await this.deleteAll([options.scheduleId]);
    await this.deps.temporal.schedule.create(options);
  }

  private async deleteAll(ids: string[]): Promise<void> {
    for (const id of ids) {
      try {
        await this.deps.temporal.schedule.getHandle(id).delete();
      } catch (e) {
        if (!(e instanceof ScheduleNotFoundError)) throw e;
      }
    }
  }
}
