import type { SealedColumn, SealedValuesRepository } from '../db/repositories/sealed-values';
import { type SecretBox, SecretBoxError } from '../domain/secret-box';

/**
 * `hosted-agents secrets rekey`: re-seals every stored value (every column in `sealedColumns`)
 * under the current key of the SECRETS_KEY ring, in batches. Only values under another key are
 * read, so a second run — or a run after an interruption — finds only what is left: nothing is
 * done twice and no cursor has to be kept. A value that no key of the ring opens is reported
 * (never printed) and left as it is; the run then ends with a failure so the operator sees it.
 */
export interface RekeyOptions {
  /** Values read and written per batch. */
  batchSize: number;
  /** Stop after re-sealing this many values (a partial run, e.g. to spread the load). */
  limit?: number;
  progress(line: string): void;
}

export interface RekeyReport {
  resealed: number;
  /** Values already under the current key when the run began (skipped). */
  alreadyCurrent: number;
  /** Values no key of the ring opens: where they are and why, never what. */
  failed: string[];
  /** True when `limit` stopped the run before everything was under the current key. */
  stoppedEarly: boolean;
}

export async function rekeySealedValues(
  deps: { sealedValues: SealedValuesRepository; columns: readonly SealedColumn[]; box: SecretBox },
  opts: RekeyOptions,
): Promise<RekeyReport> {
  const report: RekeyReport = { resealed: 0, alreadyCurrent: 0, failed: [], stoppedEarly: false };
  const { box } = deps;
  for (const column of deps.columns) {
    const counts = await deps.sealedValues.count(column, box.keyId);
    report.alreadyCurrent += counts.current;
    opts.progress(`${column.name}: ${counts.other} to re-encrypt, ${counts.current} already under the current key ${box.keyId}`);
    let after: string[] | undefined;
    let done = 0;
    for (;;) {
      const room = opts.limit === undefined ? opts.batchSize : Math.min(opts.batchSize, opts.limit - report.resealed);
      if (room <= 0) {
        report.stoppedEarly = true;
        opts.progress(`stopped after ${report.resealed} values (--limit); run again to go on`);
        return report;
      }
      const batch = await deps.sealedValues.nextBatch(column, box.keyId, after, room);
      if (batch.length === 0) break;
      for (const row of batch) {
        const context = column.context(row.fields);
        try {
          const resealed = box.seal(box.openBytes(row.sealed, context), context);
          if (await deps.sealedValues.replace(column, row, resealed)) {
            report.resealed++;
            done++;
          }
        } catch (e) {
          if (!(e instanceof SecretBoxError)) throw e;
          report.failed.push(`${column.name} (${row.key.join(', ')}): ${e.message}`);
        }
      }
      after = batch.at(-1)?.key;
      opts.progress(`${column.name}: ${done} of ${counts.other} re-encrypted`);
    }
  }
  return report;
}
