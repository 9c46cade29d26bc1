import assert from 'node:assert/strict';
import { networkInterfaces } from 'node:os';
import { randomToken } from '../../domain/ids';
import { freePort } from '../../infra/temporal-dev-server';
import { startTestApi } from '../support/api';
import { call } from '../../harness/http';
import { parseExposition, type Sample, total } from '../support/prometheus';
import { freelancer } from '../support/publishing';
import { collectTurn } from '../support/sse';
import { waitFor } from '../support/wait';
import { useIsolatedStack } from '../support/isolated-stack';
import { isolatedConfig } from '../support/workers';

/** This machine's first non-loopback IPv4 address: a caller from there is not local. */
function externalAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal);
  assert.ok(found, 'the test needs a non-loopback IPv4 interface to call from');
  return found.address;
}

const UUID_OR_ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b(?:ws|agt|ver|prj|cnv|trn|key|sk)_[0-9a-z]{6,}/i;

/**
 * `/metrics` of a real API and a real `hosted-agents worker` process: a turn moves the worker's
 * turn counters and time-to-first-text histogram and the API's request histogram; a caller off
 * loopback is refused without the token; no label carries an id.
 */
describe('metrics: /metrics on the API and the worker', function () {
  this.timeout(120_000);
  const token = randomToken(40);
  let workerPort: number;
  let temporalMetricsPort: number;
  const stack = useIsolatedStack({
    worker: 'process',
    env: async () => {
      workerPort = await freePort();
      temporalMetricsPort = await freePort();
      return {
        WORKER_HEALTH_PORT: String(workerPort),
        HOST: '0.0.0.0',
        METRICS_TOKEN: token,
        TEMPORAL_METRICS_ADDRESS: `127.0.0.1:${temporalMetricsPort}`,
        // Each word of the offline reply 50 ms apart: a turn streams long enough to be seen open.
        LOCAL_MODEL_DELAY_MS: '50',
      };
    },
    api: () => ({ host: '0.0.0.0' }),
  });
  const { api } = stack;
  const apiPort = () => new URL(api.baseURL).port;

  async function scrape(url: string): Promise<Sample[]> {
    const res = await fetch(url);
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return parseExposition(await res.text());
  }
  const workerMetrics = () => scrape(`http://127.0.0.1:${workerPort}/metrics`);
  const apiMetrics = () => scrape(`${api.baseURL}/metrics`);

  it('a turn moves the turn counters, the time-to-first-text histogram, the open-streams gauge and the request histogram; no label is an id', async () => {
    const [workerBefore, apiBefore] = await Promise.all([workerMetrics(), apiMetrics()]);
    const { apiKey } = await api.newWorkspace({ credits: 100 });
    const agent = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', { apiKey, body: { name: 'Counted' } });
    const conv = await call<{ id: string }>(api.baseURL, 'POST', `/v1/agents/${agent.body.id}/conversations`, { apiKey, body: {} });
    const streaming = collectTurn(`${api.baseURL}/v1/conversations/${conv.body.id}/turns`, { method: 'POST', apiKey, body: { text: 'count me in' } });
    streaming.catch(() => undefined); // awaited below; never unhandled if the wait fails first
    const open = (samples: Sample[]) => total(samples, 'hosted_agents_sse_streams_open');
    await waitFor('open event streams', apiMetrics, (s) => open(s) === 1, 10_000);
    const turn = await streaming;
    assert.equal(turn.events.at(-1)?.event.type, 'done', JSON.stringify(turn.events));

    // The turn's end is counted after its transaction commits, a moment after `done` reaches the stream.
    const finished = (samples: Sample[]) => total(samples, 'hosted_agents_turns_finished_total', { grade: 'standard' });
    const workerAfter = await waitFor('turns finished', workerMetrics, (s) => finished(s) > finished(workerBefore), 10_000);
    const moved = (name: string, labels: Record<string, string> = {}) => total(workerAfter, name, labels) - total(workerBefore, name, labels);
    assert.equal(moved('hosted_agents_turns_started_total', { grade: 'standard' }), 1);
    assert.equal(moved('hosted_agents_turns_finished_total', { grade: 'standard' }), 1);
    assert.equal(moved('hosted_agents_turns_failed_total'), 0);
    assert.equal(moved('hosted_agents_turn_time_to_first_text_seconds_count', { grade: 'standard' }), 1);
    assert.ok(moved('hosted_agents_turn_time_to_first_text_seconds_sum', { grade: 'standard' }) > 0);
    assert.equal(moved('hosted_agents_turn_duration_seconds_count', { grade: 'standard', outcome: 'done' }), 1);
    assert.ok(moved('hosted_agents_model_tokens_total', { grade: 'standard', direction: 'output' }) > 0);
    assert.ok(moved('hosted_agents_credits_debited_total', { grade: 'standard' }) > 0);
    assert.ok(total(workerAfter, 'process_cpu_user_seconds_total') > 0, 'Node process metrics are there too');

    const apiAfter = await apiMetrics();
    const asked = { method: 'POST', route: '/v1/conversations/:conversationId/turns', status: '200' };
    assert.equal(
      total(apiAfter, 'hosted_agents_http_request_duration_seconds_count', asked) - total(apiBefore, 'hosted_agents_http_request_duration_seconds_count', asked),
      1,
      JSON.stringify(apiAfter.filter((s) => s.name === 'hosted_agents_http_request_duration_seconds_count')),
    );
    assert.equal(total(apiAfter, 'hosted_agents_sse_streams_open'), 0, 'the stream closed with its turn');

    const unknown = await fetch(`${api.baseURL}/no/such/${conv.body.id}`);
    assert.equal(unknown.status, 404);
    const labels = [...(await apiMetrics()), ...workerAfter].flatMap((s) => Object.values(s.labels));
    assert.ok(labels.includes('unmatched'), 'an unknown path is one series');
    const ids = labels.filter((v) => UUID_OR_ID.test(v));
    assert.deepEqual(ids, [], 'no label value is an id');
  });

  it('a production deploy counts its promote run as promoted', async () => {
    const promoted = (samples: Sample[]) => total(samples, 'hosted_agents_ops_workflow_outcomes_total', { workflow: 'promote', outcome: 'promoted' });
    const before = promoted(await workerMetrics());
    const { apiKey } = await api.newWorkspace({ credits: 100 });
    const agent = await freelancer(api.baseURL, apiKey);
    const [version] = await agent.versionIds();
    const deployed = await call(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: version!.id } });
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
    await waitFor('promote outcomes', async () => promoted(await workerMetrics()), (n) => n === before + 1, 10_000);
  });

  it('each 429 counts the limit that refused it', async () => {
    const limited = await startTestApi({ config: isolatedConfig({ ...stack.env, KEY_BURST_PER_SECOND: '2' }) });
    try {
      const { apiKey } = await limited.newWorkspace();
      const statuses = await Promise.all(Array.from({ length: 6 }, () => call(limited.baseURL, 'GET', '/v1/workspace', { apiKey }).then((r) => r.status)));
      const refused = statuses.filter((s) => s === 429).length;
      assert.ok(refused >= 1, statuses.join(' '));
      const samples = await scrape(`${limited.baseURL}/metrics`);
      assert.equal(total(samples, 'hosted_agents_rate_limit_refusals_total', { limit: 'key-burst' }), refused);
      assert.equal(total(samples, 'hosted_agents_http_request_duration_seconds_count', { route: '/v1/workspace', status: '429' }), refused);
    } finally {
      await limited.stop();
    }
  });

  it('the Temporal SDK serves its own runtime metrics on TEMPORAL_METRICS_ADDRESS', async () => {
    const samples = await scrape(`http://127.0.0.1:${temporalMetricsPort}/metrics`);
    assert.ok(samples.some((s) => s.name.startsWith('temporal_')), samples.slice(0, 5).map((s) => s.name).join(', '));
  });

  it('a caller off loopback, or one that came through a proxy, is refused without the token and let in with it', async () => {
    const external = externalAddress();
    for (const base of [`http://${external}:${apiPort()}`, `http://${external}:${workerPort}`]) {
      assert.equal((await fetch(`${base}/metrics`)).status, 404, `${base} without a token`);
      assert.equal((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${randomToken(40)}` } })).status, 404, `${base} with a wrong token`);
      const withToken = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(withToken.status, 200, `${base} with the token`);
      assert.match(await withToken.text(), /process_cpu_user_seconds_total/);
    }
    for (const base of [api.baseURL, `http://127.0.0.1:${workerPort}`]) {
      assert.equal((await fetch(`${base}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status, 404, `${base} through a proxy`);
    }
  });
});
