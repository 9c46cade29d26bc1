import type { StepUsageRepository } from '../db/repositories/step-usage';
import { type TokenCounter, TokenTally } from './model/token-count';

/**
 * What one attempt of a model step consumes, recorded as it goes (`turn_step_usage`): the input
 * counted before the call, then the output streamed so far — written with each text batch (by
 * the append that writes the text) and, for output that is not shown (tool-call arguments,
 * reasoning, or a retry repeating text already shown), by `flush` on the heartbeat tick. So a
 * step cut short by a cancel, a deadline, a failure or a dead worker is billed for what it used.
 */
export class StepMeter {
  private readonly tally: TokenTally;
  private recorded = 0;

  constructor(
    private readonly usage: StepUsageRepository,
    private readonly key: { turnId: string; writer: string },
    counter: TokenCounter,
  ) {
    this.tally = new TokenTally(counter);
  }

  /** A delta of output, shown or not. */
  add(delta: string): void {
    this.tally.add(delta);
  }

  /** A text batch wrote `tokens` as the output so far. */
  recordedUpTo(tokens: number): void {
    this.recorded = Math.max(this.recorded, tokens);
  }

  get outputTokens(): number {
    return this.tally.tokens;
  }

  /** Writes the output so far if no text batch carried it yet. */
  async flush(): Promise<void> {
    const tokens = this.tally.tokens;
    if (tokens <= this.recorded) return;
    const before = this.recorded;
    this.recorded = tokens;
    try {
      await this.usage.progress({ ...this.key, outputTokens: tokens });
    } catch (err) {
      // Not recorded after all (PostgreSQL away, say): the next flush, or the cut-short bill, writes it.
      if (this.recorded === tokens) this.recorded = before;
      throw err;
    }
  }
}
