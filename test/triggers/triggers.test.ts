import assert from 'node:assert/strict';
import { ScheduleNotFoundError } from '@temporalio/client';
import { createLogger } from '../../infra/logger';
import { useTestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { call } from '../../harness/http';
import { freelancer } from '../support/publishing';
import { waitFor } from '../support/wait';

type Conversation = { id: string; version: number; trigger?: { kind: string; index: number } };

/** Schedule and interval triggers on Temporal Schedules, reconciled after each publish. */
describe('triggers', () => {
  const api = useTestApi(() => ({ config: fixture().config, logger: createLogger('error') }));
  let apiKey: string;

  before(async () => {
    ({ apiKey } = await api.newWorkspace({ credits: 1000 }));
  });

  const req = <T>(method: string, path: string, body?: unknown) => call<T>(api.baseURL, method, path, { apiKey, ...(body ? { body } : {}) });
  const newAgent = async (body: Record<string, unknown>) => {
    const r = await req<{ id: string }>('POST', '/v1/agents', { name: 'Scheduled', ...body });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.id;
  };
  const conversations = async (agentId: string) =>
    (await req<{ data: Conversation[] }>('GET', `/v1/agents/${agentId}/conversations`)).body.data;

  /** The agent's Schedules as the Temporal server lists them (visibility may lag: wait until `expected`). */
  async function listed(agentId: string, expected: number): Promise<string[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const ids: string[] = [];
      for await (const s of api.temporal.schedule.list()) if (s.scheduleId.startsWith(`trigger-${agentId}-`)) ids.push(s.scheduleId);
      if (ids.length === expected || Date.now() > deadline) return ids.sort();
      await new Promise((r) => setTimeout(r, 300));
    }
  }
  async function exists(id: string): Promise<boolean> {
    try {
      await api.temporal.schedule.getHandle(id).describe();
      return true;
    } catch (e) {
      if (e instanceof ScheduleNotFoundError) return false;
      throw e;
    }
  }

  it('an interval trigger with maxRuns 3 runs exactly three times, then has no remaining actions', async () => {
    const agentId = await newAgent({ triggers: [{ kind: 'interval', seconds: 1, maxRuns: 3, message: 'Tick' }] });
    const handle = api.temporal.schedule.getHandle(`trigger-${agentId}-0`);
    const done = await waitFor(
      'three runs with a done turn',
      async () => {
        const list = await conversations(agentId);
        const turns = await api.db('turns').whereIn('conversation_id', list.map((c) => c.id)).select('status');
        return { list, done: turns.filter((t) => t.status === 'done').length };
      },
      (v) => v.list.length >= 3 && v.done >= 3,
    );
    // Three seconds more: a fourth run would have fired by now.
    await new Promise((r) => setTimeout(r, 3000));
    const after = await conversations(agentId);
    assert.equal(after.length, 3, 'exactly three runs');
    assert.deepEqual(after.map((c) => c.trigger), [0, 1, 2].map(() => ({ kind: 'interval', index: 0 })));
    assert.equal(done.done, 3);
    const messages = await req<{ data: Array<{ role: string; content: string }> }>('GET', `/v1/conversations/${after[0]!.id}/messages`);
    assert.deepEqual(messages.body.data.map((m) => m.role), ['user', 'assistant']);
    assert.equal(messages.body.data[0]!.content, 'Tick');
    const described = await handle.describe();
    assert.equal(described.state.remainingActions, 0);
    assert.equal(described.info.numActionsTaken, 3);
    // Runs are searchable by workspace and agent.
    const runs: string[] = [];
    for await (const w of api.temporal.workflow.list({ query: `AgentId = "${agentId}" AND WorkflowType = "triggerRunWorkflow"` })) runs.push(w.workflowId);
    assert.equal(runs.length, 3);
  });

  it('a schedule trigger has a Schedule with its cron and time zone; trigger-now makes a run', async () => {
    const agentId = await newAgent({ triggers: [{ kind: 'chat' }, { kind: 'schedule', cron: '30 9 * * 1', timezone: 'Europe/Paris', message: 'Weekly report' }] });
    const described = await api.temporal.schedule.getHandle(`trigger-${agentId}-1`).describe();
    assert.equal(described.spec.timezone, 'Europe/Paris');
    const calendar = described.spec.calendars?.[0];
    assert.ok(calendar, JSON.stringify(described.spec));
    assert.deepEqual(calendar.minute, [{ start: 30, end: 30, step: 1 }]);
    assert.deepEqual(calendar.hour, [{ start: 9, end: 9, step: 1 }]);
    assert.deepEqual(calendar.dayOfWeek, ['MONDAY'].map((d) => ({ start: d, end: d, step: 1 })));
    assert.equal(await exists(`trigger-${agentId}-0`), false, 'a chat trigger has no Schedule');
    // Names in either case, ranges and steps are what Temporal runs.
    assert.equal((await req('PUT', `/v1/agents/${agentId}/triggers`, { triggers: [{ kind: 'chat' }, { kind: 'schedule', cron: '*/15 8-18 * jan-mar mon-fri', message: 'Busy hours' }, { kind: 'schedule', cron: '30 9 * * 1', timezone: 'Europe/Paris', message: 'Weekly report' }] })).status, 200);
    assert.ok(await exists(`trigger-${agentId}-2`));
    await api.temporal.schedule.getHandle(`trigger-${agentId}-2`).trigger();
    const list = await waitFor('a run', () => conversations(agentId), (l) => l.length === 1);
    assert.deepEqual(list[0]!.trigger, { kind: 'schedule', index: 2 });
  });

  it("a deployed freelancer's run is pinned to its production version; otherwise to the latest", async () => {
    const weekly = (message: string) => ({ kind: 'schedule', cron: '0 9 * * 1', message });
    const agent = await freelancer(api.baseURL, apiKey, { triggers: [weekly('Report v1')] });
    const [v1] = await agent.versionIds();
    const deployed = await req<{ versionNumber: number }>('POST', '/v1/deployments/prod', { versionId: v1!.id });
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
    assert.equal((await req('PATCH', `/v1/agents/${agent.agentId}`, { triggers: [weekly('Report v2')] })).status, 200);
    await api.temporal.schedule.getHandle(`trigger-${agent.agentId}-0`).trigger();
    const [run] = await waitFor('a run', () => conversations(agent.agentId), (l) => l.length === 1);
    assert.equal(run!.version, 1, 'the production version');
    const messages = await req<{ data: Array<{ content: string }> }>('GET', `/v1/conversations/${run!.id}/messages`);
    assert.equal(messages.body.data[0]!.content, 'Report v2', "the latest version's trigger message");

    const teammate = await newAgent({ triggers: [weekly('v1')] });
    assert.equal((await req('PATCH', `/v1/agents/${teammate}`, { instructions: 'Be brief.' })).status, 200);
    await api.temporal.schedule.getHandle(`trigger-${teammate}-0`).trigger();
    const [own] = await waitFor('a run', () => conversations(teammate), (l) => l.length === 1);
    assert.equal(own!.version, 2, 'the latest version');
  });

  /** Results of the agent's finished trigger runs, once there are `count`. */
  async function runResults(agentId: string, count: number): Promise<unknown[]> {
    return waitFor(
      'the runs closed',
      async () => {
        const out: unknown[] = [];
        for await (const w of api.temporal.workflow.list({ query: `AgentId = "${agentId}" AND WorkflowType = "triggerRunWorkflow"` })) {
          if (w.status.name === 'COMPLETED') out.push(await api.temporal.workflow.getHandle(w.workflowId, w.runId).result());
        }
        return out;
      },
      (v) => v.length === count,
    );
  }

  it('an agent that requires a value not supplied skips the run as not ready', async () => {
    const agentId = await newAgent({
      secrets: [{ name: 'CRM_KEY', scope: 'fixed', required: true }],
      triggers: [{ kind: 'schedule', cron: '0 9 * * 1', message: 'Sync' }],
    });
    await api.temporal.schedule.getHandle(`trigger-${agentId}-0`).trigger();
    assert.deepEqual(await runResults(agentId, 1), [{ skipped: 'conversation_not_ready', detail: 'missing: secret CRM_KEY' }]);
    assert.deepEqual(await conversations(agentId), []);
  });

  it('a workspace without credits skips the run with a recorded reason: no conversation, no failed run', async () => {
    const poor = await api.newWorkspace({ credits: 0 });
    const created = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', {
      apiKey: poor.apiKey,
      body: { name: 'Broke', triggers: [{ kind: 'interval', seconds: 1, maxRuns: 1, message: 'Tick' }] },
    });
    assert.equal(created.status, 201);
    const agentId = created.body.id;
    const results = await runResults(agentId, 1);
    assert.deepEqual(results, [{ skipped: 'insufficient_credits', detail: 'the workspace has no credits left' }]);
    const list = await call<{ data: unknown[] }>(api.baseURL, 'GET', `/v1/agents/${agentId}/conversations`, { apiKey: poor.apiKey });
    assert.deepEqual(list.body.data, []);
  });

  it('republishing leaves exactly one Schedule per trigger, also when publishes race; deleting the agent removes them', async () => {
    const every = (seconds: number) => ({ kind: 'interval', seconds: 3600 * seconds, message: `every ${seconds}h` });
    const agentId = await newAgent({ triggers: [every(1), every(2), every(3)] });
    assert.deepEqual(await listed(agentId, 3), [0, 1, 2].map((i) => `trigger-${agentId}-${i}`));

    assert.equal((await req('PUT', `/v1/agents/${agentId}/triggers`, { triggers: [every(4)] })).status, 200);
    assert.equal((await req('PUT', `/v1/agents/${agentId}/triggers`, { triggers: [every(4)] })).status, 200, 'the same again');
    assert.deepEqual([await exists(`trigger-${agentId}-0`), await exists(`trigger-${agentId}-1`), await exists(`trigger-${agentId}-2`)], [true, false, false]);
    assert.equal((await api.temporal.schedule.getHandle(`trigger-${agentId}-0`).describe()).spec.intervals?.[0]?.every, 4 * 3600 * 1000);

    // Two publishes at once: whichever commits last, the Schedules match the latest version.
    const racing = await Promise.all([
      req('PUT', `/v1/agents/${agentId}/triggers`, { triggers: [every(5), every(6)] }),
      req('PATCH', `/v1/agents/${agentId}`, { triggers: [every(7), every(8), every(9)] }),
    ]);
    assert.deepEqual(racing.map((r) => r.status), [200, 200]);
    const latest = (await req<{ triggers: Array<{ seconds: number }> }>('GET', `/v1/agents/${agentId}`)).body.triggers;
    for (let i = 0; i < 4; i++) {
      const want = latest[i];
      if (!want) {
        assert.equal(await exists(`trigger-${agentId}-${i}`), false, `no Schedule ${i}`);
        continue;
      }
      const d = await api.temporal.schedule.getHandle(`trigger-${agentId}-${i}`).describe();
      assert.equal(d.spec.intervals?.[0]?.every, want.seconds * 1000, `Schedule ${i} matches the latest version`);
    }
    assert.equal((await listed(agentId, latest.length)).length, latest.length);

    assert.equal((await req('DELETE', `/v1/agents/${agentId}`)).status, 204);
    for (let i = 0; i < 3; i++) assert.equal(await exists(`trigger-${agentId}-${i}`), false);
    assert.deepEqual(await listed(agentId, 0), []);
  });
});
