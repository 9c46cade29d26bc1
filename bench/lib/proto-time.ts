import type { google } from '@temporalio/proto';

/**
 * A protobuf timestamp (a history event's time, an activation's) as epoch milliseconds, keeping
 * the fraction: @temporalio/common's `tsToMs` floors to whole milliseconds, and the legs the bench
 * compares are a few milliseconds long.
 */
export const timestampMs = (t: google.protobuf.ITimestamp | null | undefined): number | undefined =>
  t ? Number(String(t.seconds ?? 0)) * 1000 + (t.nanos ?? 0) / 1e6 : undefined;
