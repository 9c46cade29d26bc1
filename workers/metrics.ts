import type { InjectedSinks } from '@temporalio/worker';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { TurnMetrics } from '../activities/turn-metrics';
import { collectProcessMetrics } from '../infra/process-metrics';
import { recordSafely } from '../infra/record-safely';
import type { OutcomeSinks } from '../workflows/outcome-sink';

/**
 * What the worker records (docs/operations.md: Metrics): turns — counted here because the worker runs every
 * turn, whatever admitted it — and the outcomes of deployment and domain runs. Served at the
 * worker's `/metrics` (workers/health-server.ts), and under `start` at the API's too (one registry).
 */
export interface WorkerMetrics {
  registry: Registry;
  turns: TurnMetrics;
  /** The sink workflows report their outcome through (workflows/outcome-sink.ts). */
  sinks: InjectedSinks<OutcomeSinks>;
}

/** Seconds: a local model answers in milliseconds, a busy provider's long turn in minutes. */
const TURN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300, 600];

/** The worker's instruments on `registry` (one per process, made at start-up, shared with the API's under `start`), with Node's process metrics. */
export function createWorkerMetrics(registry: Registry): WorkerMetrics {
  collectProcessMetrics(registry);
  const registers = [registry];
  const started = new Counter({ name: 'hosted_agents_turns_started_total', help: 'Turns whose first model step started, by agent grade.', labelNames: ['grade'], registers });
  const finished = new Counter({ name: 'hosted_agents_turns_finished_total', help: 'Turns that ended with a reply, by agent grade.', labelNames: ['grade'], registers });
  const failed = new Counter({
    name: 'hosted_agents_turns_failed_total',
    help: 'Turns that ended without a reply, by agent grade and reason (error or cancelled).',
    labelNames: ['grade', 'reason'],
    registers,
  });
  const turnHistogram = <L extends string>(name: string, help: string, labelNames: L[]) => new Histogram<L>({ name, help, labelNames, buckets: TURN_BUCKETS, registers });
  const firstText = turnHistogram('hosted_agents_turn_time_to_first_text_seconds', "Time from a turn's admission to its first text in the event log, by agent grade.", ['grade']);
  const duration = turnHistogram(
    'hosted_agents_turn_duration_seconds',
    "Time from a turn's admission to its terminal event, by agent grade and outcome (done, error, cancelled).",
    ['grade', 'outcome'],
  );
  const tokens = new Counter({
    name: 'hosted_agents_model_tokens_total',
    help: 'Model tokens of ended turns (what is debited), by agent grade and direction (input, output).',
    labelNames: ['grade', 'direction'],
    registers,
  });
  const credits = new Counter({ name: 'hosted_agents_credits_debited_total', help: 'Credits debited for turns, by agent grade.', labelNames: ['grade'], registers });
  const outcomes = new Counter({
    name: 'hosted_agents_ops_workflow_outcomes_total',
    help: 'How deployment and custom-domain workflow runs ended, by workflow and outcome.',
    labelNames: ['workflow', 'outcome'],
    registers,
  });
  return {
    registry,
    turns: {
      started: (grade) => recordSafely(() => started.inc({ grade })),
      firstText: (grade, seconds) => recordSafely(() => firstText.observe({ grade }, seconds)),
      ended: (turn) =>
        recordSafely(() => {
          if (turn.status === 'done') finished.inc({ grade: turn.grade });
          else failed.inc({ grade: turn.grade, reason: turn.status });
          duration.observe({ grade: turn.grade, outcome: turn.status }, turn.seconds);
          tokens.inc({ grade: turn.grade, direction: 'input' }, turn.usage.inputTokens);
          tokens.inc({ grade: turn.grade, direction: 'output' }, turn.usage.outputTokens);
          credits.inc({ grade: turn.grade }, turn.credits);
        }),
    },
    sinks: {
      opsOutcomes: {
        record: { fn: (_info, workflow, outcome) => recordSafely(() => outcomes.inc({ workflow, outcome })), callDuringReplay: false },
      },
    },
  };
}
