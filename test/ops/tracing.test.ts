import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Service } from '../../sdk/src';
import { createDb, type Db } from '../../db/connect';
import { createRepositories } from '../../db/repositories';
import { randomToken } from '../../domain/ids';
import { freePort } from '../../infra/temporal-dev-server';
import { fixture } from '../support/fixture';
import { type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver';
import { isolatedEnv, spawnApi, spawnWorker, stopProcess } from '../support/workers';

const probe = path.join(__dirname, '..', 'support', 'loaded-modules-probe.js');
const isOtel = (file: string) => /[\\/]@opentelemetry[\\/]|interceptors-opentelemetry/.test(file);
/** The OpenTelemetry API alone is loaded by the AI SDK in every worker (its own telemetry, off): only the SDK's modules count there. */
const isOtelSdk = (file: string) => isOtel(file) && !/[\\/]@opentelemetry[\\/]api[\\/]/.test(file);

interface TurnRun {
  requestId: string;
  turnId: string;
  workerLog: Array<Record<string, unknown>>;
  apiModules: string[];
  workerModules: string[];
}

/**
 * A turn through a real `hosted-agents api` and `hosted-agents worker` (their own processes, their
 * own task queues) with `extra` in their environment: the agent writes a file with a tool, so the
 * turn runs model step → tool call → model step. Both processes are stopped with SIGTERM (flushing
 * their spans) before this returns.
 */
async function runTurn(db: Db, extra: Record<string, string>): Promise<TurnRun> {
  const tag = randomToken(6);
  const files = { api: path.join(tmpdir(), `ha-modules-api-${tag}`), worker: path.join(tmpdir(), `ha-modules-worker-${tag}`) };
  const port = await freePort();
  const env = isolatedEnv({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'debug', LOCAL_MODEL_DELAY_MS: '0', NODE_OPTIONS: `--require ${probe}`, ...extra });
  const worker = await spawnWorker({ ...env, LOADED_MODULES_FILE: files.worker });
  const api = await spawnApi({ ...env, LOADED_MODULES_FILE: files.api });
  try {
    const repos = createRepositories(db);
    const workspace = await repos.workspaces.create({ name: 'tracing', credits: 100 });
    const { apiKey } = await repos.apiKeys.create({ workspaceId: workspace.id });
    const baseURL = `http://127.0.0.1:${port}`;
    const ws = new Service({ apiKey, baseURL });
    const agent = await ws.agents.create({ name: 'Traced', filesystem: 'drive', tools: ['files.write'] });
    const conversation = await agent.start();
    const res = await fetch(`${baseURL}/v1/conversations/${conversation.id}/turns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: '/tool files_write {"path":"notes.md","content":"traced"}' }),
    });
    assert.equal(res.status, 200);
    const stream = await res.text(); // the stream ends with the turn
    assert.match(stream, /event: done/, stream);
    const requestId = res.headers.get('x-request-id') ?? '';
    const turnId = res.headers.get('x-turn-id') ?? '';
    assert.ok(requestId && turnId);
    assert.equal(await stopProcess(api), 0, api.output());
    assert.equal(await stopProcess(worker), 0, worker.output());
    const workerLog = worker
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const lines = async (file: string) => (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    return { requestId, turnId, workerLog, apiModules: await lines(files.api), workerModules: await lines(files.worker) };
  } finally {
    for (const child of [api, worker]) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(Object.values(files).map((f) => rm(f, { force: true })));
  }
}

/** The worker's log lines about this turn (its workflow, its activities): every one must carry the request id. */
function turnLines(run: TurnRun): Array<Record<string, unknown>> {
  return run.workerLog.filter((l) => l.workflowId === `turn-${run.turnId}`);
}

/** The SDK's lines written before an activity's headers are read (docs/operations.md: Tracing): the only ones without the id. */
const BEFORE_HEADERS = new Set(['Activity started', 'Starting activity']);

/** Every worker log line of the turn (bar the SDK's two above) carries the request id the API answered with. */
function assertLinesCarryRequestId(run: TurnRun): void {
  const lines = turnLines(run);
  const messages = new Set(lines.map((l) => l.msg));
  // Not vacuous: the workflow's lines and each activity's are there.
  for (const expected of ['Workflow started', 'Workflow completed', 'Activity completed']) assert.ok(messages.has(expected), `no "${expected}" line: ${[...messages].join(', ')}`);
  const activityTypes = new Set(lines.filter((l) => l.msg === 'Activity completed').map((l) => l.activityType));
  assert.deepEqual([...activityTypes].sort(), ['finishTurn', 'modelStep', 'runTool']);
  const without = lines.filter((l) => l.requestId !== run.requestId && !BEFORE_HEADERS.has(String(l.msg)));
  assert.deepEqual(without, [], 'every line of the turn carries its request id');
}

describe('tracing and the request id of a turn', function () {
  this.timeout(180_000);
  let db: Db;
  before(() => {
    db = createDb({ url: fixture().databaseUrl, poolMax: 2 });
  });
  after(() => db.destroy());

  it('OTEL_EXPORTER_OTLP_ENDPOINT set: one trace from the API request through the workflow to each activity and the model and tool calls', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const run = await runTurn(db, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
      const spans = receiver.spans;
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const one = (name: string, service: string) => {
        const found = spans.filter((s) => s.name === name && s.service === service && s.attributes['hosted_agents.request_id'] === run.requestId);
        assert.ok(found.length >= 1, `no span ${name} of ${service}; got ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`);
        return found[0]!;
      };
      const request = one('POST /v1/conversations/:conversationId/turns', 'hosted-agents-api');
      assert.equal(request.attributes['http.route'], '/v1/conversations/:conversationId/turns');
      assert.equal(request.attributes['http.response.status_code'], 200);
      const inTrace = spans.filter((s) => s.traceId === request.traceId);
      const ancestry = (span: ReceivedSpan): string[] => {
        const names: string[] = [];
        for (let s: ReceivedSpan | undefined = span; s; s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined) names.push(s.name);
        return names;
      };
      const model = inTrace.filter((s) => s.name === 'chat offline');
      assert.equal(model.length, 2, 'two model calls: the tool call, then the answer');
      const tool = inTrace.find((s) => s.name === 'execute_tool files.write');
      assert.ok(tool, 'the tool call is a span of the same trace');
      // Linked by parent span ids, from the model call up to the HTTP request.
      for (const leaf of [...model, tool]) {
        const chain = ancestry(leaf);
        assert.equal(chain.at(-1), request.name, `the chain ${chain.join(' ← ')} ends at the API request`);
        assert.ok(chain.includes('RunWorkflow:turnWorkflow'), `the chain ${chain.join(' ← ')} passes through the workflow`);
      }
      assert.deepEqual(ancestry(model[0]!).slice(0, 2), ['chat offline', 'RunActivity:modelStep']);
      assert.deepEqual(ancestry(tool).slice(0, 2), ['execute_tool files.write', 'RunActivity:runTool']);
      const activity = byId.get(model[0]!.parentSpanId!)!;
      assert.equal(activity.service, 'hosted-agents-worker');
      assert.equal(activity.attributes['hosted_agents.request_id'], run.requestId, 'the activity span carries the request id');
      assert.equal(new Set(inTrace.filter((s) => s.name.startsWith('RunWorkflow:')).map((s) => s.traceId)).size, 1);
      assertLinesCarryRequestId(run);
      // The positive control of the off test below: the probe sees what tracing loads.
      assert.ok(run.apiModules.some(isOtelSdk), 'with tracing on the API loads the OpenTelemetry SDK');
      assert.ok(run.workerModules.some(isOtelSdk), 'with tracing on the worker loads the OpenTelemetry SDK');
    } finally {
      await receiver.close();
    }
  });

  it('tracing off: the worker log lines of a turn still carry the request id the API answered with, and no OpenTelemetry SDK module is loaded', async () => {
    const run = await runTurn(db, {});
    assertLinesCarryRequestId(run);
    // Only the API package, which prom-client's process metrics import (a no-op without an SDK).
    assert.deepEqual(run.apiModules.filter(isOtelSdk), [], 'the API loads no OpenTelemetry SDK module');
    assert.deepEqual(run.workerModules.filter(isOtelSdk), [], 'the worker loads no OpenTelemetry SDK module');
  });
});
