import type { Config } from '../config/env';
import type { Repositories } from '../db/repositories';
import type { Logger } from '../infra/logger';

/** Events (and audit rows) deleted per statement: short statements, so pruning never holds locks for long. */
const EVENTS_BATCH = 5000;
/** Batches per run at most: a large backlog is worked off over several runs, not in one long burst. */
const MAX_BATCHES = 200;
const DAY_MS = 86_400_000;

interface Retention {
  /** Days the event log of a finished turn is kept (all but its `start` and terminal event). */
  eventLogDays: number;
  /** Days a diagnostics probe row is kept. */
  probeDays: number;
  /** Days an audit log row is kept (AUDIT_RETENTION_DAYS). */
  auditDays: number;
}

/** One pruning run: deletes what is older than the retention; returns what it deleted. */
async function pruneOnce(repos: Repositories, retention: Retention, now = Date.now()): Promise<{ events: number; probes: number; audit: number }> {
  const eventsBefore = new Date(now - retention.eventLogDays * DAY_MS);
  let events = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const n = await repos.turns.pruneEvents({ before: eventsBefore, limit: EVENTS_BATCH });
    events += n;
    if (n < EVENTS_BATCH) break;
  }
  const probes = await repos.probes.prune({ before: new Date(now - retention.probeDays * DAY_MS) });
  // Through `audit_prune`, the one way rows leave the audit log (migration 031).
  const auditBefore = new Date(now - retention.auditDays * DAY_MS);
  let audit = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const n = await repos.audit.prune({ before: auditBefore, limit: EVENTS_BATCH });
    audit += n;
    if (n < EVENTS_BATCH) break;
  }
  return { events, probes, audit };
}

/**
 * Prunes the event log, probe rows and the audit log by age, in every worker process, at start and then every
 * `intervalMs`. A timer rather than a Temporal Schedule: nothing needs to survive a worker, the
 * deletes are idempotent (several workers pruning at once delete each row once), and it needs no
 * Schedule to be created and kept in step with the configuration.
 */
export function startRetentionPruner(deps: { repos: Repositories; retention: Retention; intervalMs: number; logger: Logger }): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  const once = () => {
    if (busy) return;
    busy = true;
    running = pruneOnce(deps.repos, deps.retention)
      .then((pruned) => {
        if (pruned.events + pruned.probes + pruned.audit > 0) deps.logger.info(pruned, 'retention: pruned old event log, probe and audit rows');
      })
      .catch((err: unknown) => deps.logger.warn({ err }, 'retention: pruning failed; trying again at the next interval'))
      .finally(() => {
        busy = false;
      });
  };
  const timer = setInterval(once, deps.intervalMs);
  timer.unref();
  once();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/** The retention and pruning interval the configuration sets. */
export type RetentionConfig = Pick<Config, 'EVENT_LOG_RETENTION_DAYS' | 'PROBE_RETENTION_DAYS' | 'AUDIT_RETENTION_DAYS' | 'RETENTION_PRUNE_INTERVAL_SECONDS'>;

export function retentionFromConfig(config: RetentionConfig): { retention: Retention; intervalMs: number } {
  return {
    retention: { eventLogDays: config.EVENT_LOG_RETENTION_DAYS, probeDays: config.PROBE_RETENTION_DAYS, auditDays: config.AUDIT_RETENTION_DAYS },
    intervalMs: config.RETENTION_PRUNE_INTERVAL_SECONDS * 1000,
  };
}
