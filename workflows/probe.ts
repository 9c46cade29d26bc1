import { proxyActivities } from '@temporalio/workflow';
import type { ProbeActivities } from '../activities/probe';
import type { ProbeInput, ProbeResult } from '../domain/runs/probe';

const { recordProbe } = proxyActivities<ProbeActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 5, initialInterval: '200 milliseconds' },
});

/**
 * The round trip an operator (and the test suite) uses to prove API → Temporal → worker → Postgres:
 * one activity writes a row keyed by the probe id, so retries write it once.
 */
export async function roundTripProbe(input: ProbeInput): Promise<ProbeResult> {
  return recordProbe(input);
}
