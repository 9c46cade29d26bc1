import type { AgentConfig } from '../domain/agent';
import type { TranscriptItem } from '../domain/turn-transcript';
import type { ModelUsage } from './model/types';

type Grade = AgentConfig['grade'];

/**
 * What the turn activities tell the worker's metrics (workers/metrics.ts, docs/operations.md: Metrics). Each
 * is called once per turn whatever retries happen: `started` by the first attempt of the first
 * model step, `firstText` when the turn's first text reaches the event log, `ended` when the
 * turn's terminal event is written (the write that happens once, keyed by the turn id).
 * Implementations never throw: recording is bookkeeping and must not fail a turn.
 */
export interface TurnMetrics {
  started(grade: Grade): void;
  /** Seconds from the turn's admission (its `started_at`) to its first text in the event log. */
  firstText(grade: Grade, seconds: number): void;
  ended(turn: { grade: Grade; status: 'done' | 'error' | 'cancelled'; seconds: number; usage: ModelUsage; credits: number }): void;
}

/**
 * Whether this model step's first text would be the turn's first: no earlier step said anything
 * and no earlier attempt of this step showed text. (A step that only called tools said nothing.)
 */
export function firstTextOfTurn(transcript: TranscriptItem[], alreadyShown: string): boolean {
  return alreadyShown === '' && transcript.every((item) => item.role !== 'assistant' || item.content === '');
}

/** Seconds since `since`, by the worker's clock against the database's timestamp (NTP keeps them close). */
export function secondsSince(since: Date): number {
  return Math.max(0, (Date.now() - since.getTime()) / 1000);
}
