import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { Payload as PayloadType, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/** Where the replay test (test/workflows/replay.unit.test.ts) reads the recorded histories from. */
const HISTORIES_DIR = path.join(__dirname, '..', 'fixtures', 'histories');

/** Workflow types whose runs are recorded; the probe is a diagnostics round trip, not a run to keep. */
const SKIPPED_TYPES = new Set(['roundTripProbe']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isPayload = (v: { [key: string]: Json }): boolean => typeof v.metadata === 'object' && v.metadata !== null && 'encoding' in v.metadata;

/**
 * Every payload of a history decoded by `codec` (PAYLOAD_KEY), in the proto's JSON form: the
 * fixture then replays with no key, as the default data converter reads plain JSON payloads.
 */
async function decodeHistory(history: temporal.api.history.v1.IHistory, codec: PayloadCodec): Promise<Json> {
  const { Payload } = temporal.api.common.v1;
  const walk = async (value: Json): Promise<Json> => {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return Promise.all(value.map(walk));
    if (isPayload(value)) {
      const [decoded] = await codec.decode([Payload.fromObject(value) as PayloadType]);
      return Payload.create(decoded).toJSON() as Json;
    }
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) out[k] = await walk(v);
    return out;
  };
  return walk(temporal.api.history.v1.History.create(history).toJSON() as Json);
}

/**
 * With RECORD_HISTORIES=1, at the end of a test run (test/support/global-fixture.ts): one closed
 * run of each workflow type the run executed, decoded, written to test/fixtures/histories/<type>.json
 * (replacing the one there). Run the tests that exercise a type to refresh its fixture.
 */
export async function recordHistories(client: Client, log: (line: string) => void): Promise<void> {
  const codec = client.options.loadedDataConverter.payloadCodecs[0];
  if (!codec) throw new Error('RECORD_HISTORIES: the test client has no payload codec');
  // Per type, the run with the longest history (the most commands to check): a completed one where
  // there is one, else a closed one (a domain run continues as new or is terminated on removal).
  const chosen = new Map<string, WorkflowExecutionInfo>();
  for (const query of ['ExecutionStatus = "Completed"', 'ExecutionStatus != "Running"']) {
    const found = new Map<string, WorkflowExecutionInfo>();
    for await (const run of client.workflow.list({ query })) {
      if (chosen.has(run.type) || SKIPPED_TYPES.has(run.type)) continue;
      const best = found.get(run.type);
      if (!best || run.historyLength > best.historyLength) found.set(run.type, run);
    }
    for (const [type, run] of found) chosen.set(type, run);
  }
  mkdirSync(HISTORIES_DIR, { recursive: true });
  for (const [type, run] of chosen) {
    const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
    const file = path.join(HISTORIES_DIR, `${type}.json`);
    writeFileSync(file, `${JSON.stringify(await decodeHistory(history, codec), null, 1)}\n`);
    log(`recorded ${type} (${run.status.name}, ${history.events?.length ?? 0} events) to ${path.relative(process.cwd(), file)}`);
  }
}
