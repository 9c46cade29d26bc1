import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { TurnLimits } from '../../domain/runs/turn';
import type { bareTurnWorkflow } from './workflows';

/**
 * The bare baseline's client process, the counterpart of our API: `concurrency` loops, each
 * starting a bare turn workflow and awaiting its result, for `seconds`, after `warmup` sequential
 * ones and then `sequential` more whose ids it reports (bench:turns reads their histories for the
 * engine's own legs of the time to first text). Prints `window start` when the timed window
 * begins (bench:turns samples CPU then), and at the end one JSON line: turns completed in the
 * window and after it, errors, per-turn ms and the sequential workflows' ids.
 * Arguments: <temporal address> <task queue> <concurrency> <seconds> <warm-up> <sequential> <limits JSON>.
 */
export interface BareLoadResult {
  inWindow: number;
  afterWindow: number;
  errors: number;
  totalMs: number[];
  firstError?: string;
  sequentialIds: string[];
}

async function main(): Promise<void> {
  const [address, taskQueue, concurrency, seconds, warmup, sequential, limitsJson] = process.argv.slice(2);
  if (!address || !taskQueue || !concurrency || !seconds || !warmup || !sequential || !limitsJson) throw new Error('usage: client.ts <address> <queue> <concurrency> <seconds> <warm-up> <sequential> <limits JSON>');
  const limits = JSON.parse(limitsJson) as TurnLimits;
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const result: BareLoadResult = { inWindow: 0, afterWindow: 0, errors: 0, totalMs: [], sequentialIds: [] };
  const once = async (workflowId = `bare-${randomUUID()}`): Promise<number> => {
    const started = performance.now();
    await client.workflow.execute<typeof bareTurnWorkflow>('bareTurnWorkflow', { taskQueue, workflowId, args: [limits] });
    return performance.now() - started;
  };
  for (let i = 0; i < Number(warmup); i++) await once();
  for (let i = 0; i < Number(sequential); i++) {
    const workflowId = `bare-${randomUUID()}`;
    await once(workflowId);
    result.sequentialIds.push(workflowId);
  }
  const deadline = performance.now() + Number(seconds) * 1000;
  process.stdout.write('window start\n');
  const loop = async () => {
    while (performance.now() < deadline) {
      try {
        const took = await once();
        if (performance.now() <= deadline) {
          result.inWindow++;
          result.totalMs.push(took);
        } else result.afterWindow++;
      } catch (e) {
        result.errors++;
        result.firstError ??= e instanceof Error ? e.message : String(e);
      }
    }
  };
  await Promise.all(Array.from({ length: Number(concurrency) }, loop));
  await connection.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bare client failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
