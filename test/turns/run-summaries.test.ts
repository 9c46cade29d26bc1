import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { turnEventSchema } from '../../domain/turn-events';
import { bundleWorkflows } from '../../workers/worker';
import { useTestApi } from '../support/api';
import { call } from '../../harness/http';
import { collectTurn } from '../support/sse';

/** A summary as the Temporal UI shows it: the payload decoded by the client's codec (PAYLOAD_KEY) and converter. */
async function summaryOf(client: Client, metadata: temporal.api.sdk.v1.IUserMetadata | null | undefined): Promise<string | undefined> {
  if (!metadata?.summary) return undefined;
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  let payloads = [metadata.summary as Payload];
  for (const codec of [...payloadCodecs].reverse()) payloads = await codec.decode(payloads);
  return payloadConverter.fromPayload<string>(payloads[0]!);
}

/**
 * A run's timeline in the Temporal UI reads without decoding (docs/operations.md: "Reading a run
 * in the Temporal UI"): a turn whose offline model calls a tool records the model steps, the tool
 * call under the tool's name as events show it, and the turn's deadline timer, each with a summary.
 */
describe('turn runs carry summaries for the Temporal UI', () => {
  const api = useTestApi();

  it('a turn with a tool: "model step N" on the model calls, "tool files.write" on the tool call, "turn deadline" on the timer, "end the turn: done"', async () => {
    const { apiKey } = await api.newWorkspace({ credits: 100 });
    const agent = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', { apiKey, body: { name: 'Scribe', filesystem: 'drive', tools: ['files.write'] } });
    assert.equal(agent.status, 201, JSON.stringify(agent.body));
    const conv = await call<{ id: string }>(api.baseURL, 'POST', `/v1/agents/${agent.body.id}/conversations`, { apiKey, body: {} });
    const res = await collectTurn(`${api.baseURL}/v1/conversations/${conv.body.id}/turns`, {
      method: 'POST',
      apiKey,
      body: { text: '/tool files_write {"path":"notes.md","content":"hello"}' },
    });
    const events = res.events.map((e) => turnEventSchema.parse(e.event));
    assert.equal(events.at(-1)?.type, 'done', JSON.stringify(events.at(-1)));
    const shown = events.find((e) => e.type === 'tool');
    assert.equal(shown?.type === 'tool' && shown.name, 'files.write', 'the name events show');
    const start = events[0];
    assert.ok(start?.type === 'start');

    const handle = api.temporal.workflow.getHandle(`turn-${start.turnId}`);
    await handle.result(); // the `done` event is written before the workflow completes
    const history = await handle.fetchHistory();
    const activities: Array<[string, string | undefined]> = [];
    const timers: Array<string | undefined> = [];
    const markers: Array<string | undefined> = [];
    for (const e of history.events ?? []) {
      if (e.markerRecordedEventAttributes) markers.push(await summaryOf(api.temporal, e.userMetadata));
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled) activities.push([scheduled.activityType?.name ?? '', await summaryOf(api.temporal, e.userMetadata)]);
      if (e.timerStartedEventAttributes) timers.push(await summaryOf(api.temporal, e.userMetadata));
    }
    assert.deepEqual(activities, [
      ['modelStep', 'model step 1'],
      ['runTool', 'tool files.write'],
      ['modelStep', 'model step 2'],
    ]);
    assert.deepEqual(timers, ['turn deadline']);
    assert.deepEqual(markers, ['end the turn: done'], 'the local activity that ends the turn');
  });

  /**
   * The same turn as recorded by the workflow code before summaries existed (payloads decoded,
   * PAYLOAD_KEY aside): its commands carry no user metadata. Temporal matches commands to history by
   * activity id and type, timer id, child workflow id and type — not by metadata — so it replays
   * with today's code. A run in flight when the workers are upgraded goes on the same way.
   */
  it('a turn recorded before summaries existed replays with today\'s workflow code', async function () {
    this.timeout(120_000);
    const recorded = JSON.parse(readFileSync(path.join(__dirname, '../fixtures/histories/turnWorkflow.before-summaries.json'), 'utf8')) as object;
    const history = temporal.api.history.v1.History.fromObject(recorded);
    assert.ok(history.events.every((e) => !e.userMetadata?.summary), 'the recording has no summaries');
    const workflowBundle = await bundleWorkflows();
    await Worker.runReplayHistory({ workflowBundle }, history);
    // The check is live: a history whose tool call was another activity does not replay.
    const altered = temporal.api.history.v1.History.fromObject(recorded);
    const scheduled = altered.events.filter((e) => e.activityTaskScheduledEventAttributes);
    scheduled[1]!.activityTaskScheduledEventAttributes!.activityType = { name: 'modelStep' };
    await assert.rejects(Worker.runReplayHistory({ workflowBundle }, altered), DeterminismViolationError);
  });
});
