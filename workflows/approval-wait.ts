import { condition, defineSignal, patched, setHandler, sleep } from '@temporalio/workflow';
import type { ApprovalActivities, SettledApproval } from '../activities/approvals';
import { APPROVAL_SIGNAL, type ApprovalSignal } from '../domain/runs/approval';
import type { TranscriptToolCall } from '../domain/turn-transcript';
import { summaries } from './summaries';

/**
 * The patch behind which a turn waits for approvals: a history recorded before it never waits (its
 * tool calls ran at once), so it replays unchanged (docs/operations.md: Changing workflow code).
 */
const APPROVALS_PATCH = 'tool-approvals';

/**
 * The turn's deadline clock: it does not run while a call waits for a person, so the deadline
 * (`limits.turnTimeoutMs`) never cuts a wait short of the approval timeout, which bounds it instead.
 * The turn may work `timeoutMs` in all; the deadline falls that long after the start plus every
 * wait. Built when the deadline's timer starts (workflow time is the same within an activation).
 */
export class DeadlineClock {
  private readonly startedAt = Date.now();
  private waitingSince: number | undefined;
  private paused = 0;

  pause(): void {
    this.waitingSince = Date.now();
  }

  resume(): void {
    if (this.waitingSince === undefined) return;
    this.paused += Date.now() - this.waitingSince;
    this.waitingSince = undefined;
  }

  /**
   * Called when the deadline's timer (of `timeoutMs`) fires: returns once the turn has worked
   * `timeoutMs` outside its waits. A turn that never waited returns at once, starting no timer,
   * as before approvals existed (so its recorded history replays).
   */
  async overtime(timeoutMs: number): Promise<void> {
    for (;;) {
      if (this.paused === 0 && this.waitingSince === undefined) return;
      if (this.waitingSince !== undefined) await condition(() => this.waitingSince === undefined);
      const left = this.startedAt + timeoutMs + this.paused - Date.now();
      if (left <= 0) return;
      await sleep(left, { summary: summaries.turnDeadline });
    }
  }
}

type Bookkeeping = (summary: string) => ApprovalActivities;

/**
 * Receives the API's decision signals (`approvalDecided`, sent once a decision is recorded):
 * register it before the turn's first await, so a signal is never delivered to no handler.
 */
export function approvalWaits(bookkeeping: Bookkeeping, clock: () => DeadlineClock) {
  const signalled = new Set<string>();
  setHandler(defineSignal<[ApprovalSignal]>(APPROVAL_SIGNAL), ({ approvalId }) => {
    signalled.add(approvalId);
  });

  return {
    /** Whether this call waits: it needs approval, and this run is past the patch. */
    applies: (needed: boolean | undefined): boolean => needed === true && patched(APPROVALS_PATCH),

    /**
     * Records the call as pending, then waits — durably, no activity running — for a decision or
     * the timeout. The database holds the decision (the first one stands); the signal only wakes
     * the wait, so a lost or repeated signal changes nothing.
     */
    async wait(turnId: string, call: TranscriptToolCall, tool: string): Promise<Exclude<SettledApproval, { status: 'pending' }>> {
      const { approvalId, timeoutMs } = await bookkeeping(summaries.approvalRequest(tool)).requestApproval({ turnId, call, tool });
      const started = Date.now();
      clock().pause();
      try {
        for (;;) {
          const left = timeoutMs - (Date.now() - started);
          const woken = left > 0 && (await condition(() => signalled.has(approvalId), left, { summary: summaries.approvalWait(tool) }));
          const settled = await bookkeeping(summaries.approvalSettle(tool)).settleApproval({ turnId, approvalId, timedOut: !woken });
          if (settled.status !== 'pending') return settled;
          signalled.delete(approvalId);
        }
      } finally {
        clock().resume();
      }
    },
  };
}
