import assert from 'node:assert/strict';
import { Service, ServiceError } from '../../sdk/src';
import { type RunningApi, startTestApi } from '../support/api';
import { type DomainStack, httpsGet, startDomainStack } from '../support/domains';
import { call, type ErrorJson } from '../../harness/http';
import { freelancer, siteRequest } from '../support/publishing';
import { waitFor } from '../support/wait';
import { useIsolatedStack } from '../support/isolated-stack';
import { isolatedConfig, spawnWorker, startInProcessWorker } from '../support/workers';

interface DomainJson {
  domain: string;
  agentId: string;
  status: string;
  target: string;
  failure: string | null;
  certificateExpiresAt: string | null;
}

/** A deployed freelancer agent: its id and production host (what a custom domain must be a CNAME of). */
async function deployedAgent(api: RunningApi, apiKey: string, name: string): Promise<{ agentId: string; host: string }> {
  const agent = await freelancer(api.baseURL, apiKey, { name });
  const [v1] = await agent.versionIds();
  const deployed = await call<{ url: string }>(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: v1!.id } });
  assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
  return { agentId: agent.agentId, host: new URL(deployed.body.url).hostname };
}

const uniqueDomain = (label: string) => `${label}-${Math.random().toString(36).slice(2, 8)}.shop.example.com`;

async function domainStatus(api: RunningApi, apiKey: string, domain: string): Promise<DomainJson> {
  return (await call<DomainJson>(api.baseURL, 'GET', `/v1/domains/${domain}`, { apiKey })).body;
}

/** Against a real ACME server (Pebble) and its DNS server: CNAME → certificate → HTTPS, and every way it can go wrong. */
describe('custom domains', function () {
  this.timeout(180_000);
  let stack: DomainStack;
  const { api } = useIsolatedStack({ worker: 'inline', env: async () => (stack = await startDomainStack()).env });
  let apiKey: string;
  let agent: { agentId: string; host: string };
  let root: string;

  before(async () => {
    stack.gate.target = Number(new URL(api.baseURL).port);
    ({ apiKey } = await api.newWorkspace());
    agent = await deployedAgent(api, apiKey, 'Shop Helper');
    root = await stack.pebble.issuingRoot();
  });
  after(async () => {
    await stack?.stop();
  });

  it('CNAME in place → domains.add → the hosted page over HTTPS on that name within 60 s', async () => {
    const domain = uniqueDomain('chat');
    await stack.pebble.setCname(domain, agent.host);
    const ws = new Service({ apiKey, baseURL: api.baseURL });
    const started = Date.now();
    const added = await ws.domains.add({ domain, agentId: agent.agentId });
    assert.equal(added.target, agent.host);
    assert.equal(added.status, 'pending_dns');
    const page = await waitFor(
      `HTTPS on ${domain}`,
      () => httpsGet(api.httpsPort!, domain, root).catch((err: unknown) => ({ status: 0, text: String(err), serial: '' })),
      (r) => r.status === 200,
      60_000,
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(`      custom domain served over HTTPS ${seconds.toFixed(1)} s after domains.add`);
    assert.ok(seconds <= 60, `took ${seconds} s`);
    assert.match(page.text, /Shop Helper/);
    const record = await ws.domains.get(domain);
    assert.equal(record.status, 'active');
    assert.ok(record.certificateExpiresAt);
    // The public API answers on the domain too (the page's chat calls it there).
    const meta = await httpsGet(api.httpsPort!, domain, root, `/v1/public/agents/${agent.agentId}`);
    assert.equal(meta.status, 200);
    assert.ok((await ws.domains.list()).some((d) => d.domain === domain && d.status === 'active'));

    // Made a teammate, the agent is served on none of its hosts, its domain included; made a freelancer again, it is.
    await ws.agent(agent.agentId).update({ role: 'teammate' });
    assert.equal((await httpsGet(api.httpsPort!, domain, root)).status, 404);
    assert.equal((await ws.domains.get(domain)).status, 'active', 'the domain and its certificate are kept');
    await ws.agent(agent.agentId).update({ role: 'freelancer' });
    assert.equal((await httpsGet(api.httpsPort!, domain, root)).status, 200);
  });

  it('a missing CNAME ends failed, with the reason, after the deadline', async () => {
    const domain = uniqueDomain('nodns');
    const added = await call<DomainJson>(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain, agentId: agent.agentId } });
    assert.equal(added.body.status, 'pending_dns');
    const failed = await waitFor('failed', () => domainStatus(api, apiKey, domain), (d) => d.status === 'failed', 30_000);
    assert.match(failed.failure ?? '', new RegExp(`no CNAME record of ${domain.replace(/\./g, '\\.')} points at ${agent.host.replace(/\./g, '\\.')}, and no TXT record _hosted-agents\\.${domain.replace(/\./g, '\\.')} carries this claim's token, after 4 s`));
    assert.match(failed.failure ?? '', /no CNAME record; no TXT record at /);
  });

  it('removal stops serving at once and deletes the domain', async () => {
    const domain = uniqueDomain('gone');
    await stack.pebble.setCname(domain, agent.host);
    await call(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain, agentId: agent.agentId } });
    await waitFor('active', () => domainStatus(api, apiKey, domain), (d) => d.status === 'active', 60_000);
    assert.equal((await httpsGet(api.httpsPort!, domain, root)).status, 200);
    const ws = new Service({ apiKey, baseURL: api.baseURL });
    await ws.domains.remove(domain);
    await assert.rejects(httpsGet(api.httpsPort!, domain, root));
    const page = await siteRequest(api.baseURL, `http://${domain}`);
    assert.doesNotMatch(page.text, /Shop Helper/);
    await assert.rejects(ws.domains.get(domain), (err: unknown) => err instanceof ServiceError && err.code === 'domain_not_found' && err.status === 404);
    assert.equal((await call<ErrorJson>(api.baseURL, 'DELETE', `/v1/domains/${domain}`, { apiKey })).status, 404);
  });

  it("refuses another workspace's agent (404), a domain attached elsewhere (409) and names that cannot be custom domains (400)", async () => {
    const domain = uniqueDomain('taken');
    assert.equal((await call(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain, agentId: agent.agentId } })).status, 202);
    const again = await call<DomainJson>(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain: domain.toUpperCase(), agentId: agent.agentId } });
    assert.equal(again.status, 202, 'the same domain for the same agent: the same answer');

    const other = await api.newWorkspace();
    const otherAgent = await deployedAgent(api, other.apiKey, 'Other Shop');
    const foreign = await call<ErrorJson>(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain: uniqueDomain('x'), agentId: otherAgent.agentId } });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'agent_not_found');
    // Another workspace may claim the name too (DNS decides): its answer says nothing of the first claim.
    const rival = await call<DomainJson>(api.baseURL, 'POST', '/v1/domains', { apiKey: other.apiKey, body: { domain, agentId: otherAgent.agentId } });
    assert.equal(rival.status, 202);
    assert.equal(rival.body.status, 'pending_dns');
    assert.equal(rival.body.agentId, otherAgent.agentId);
    // Within one workspace a name serves one agent.
    const second = await deployedAgent(api, apiKey, 'Second Shop');
    const inUse = await call<ErrorJson>(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain, agentId: second.agentId } });
    assert.equal(inUse.status, 409);
    assert.equal(inUse.body.error.code, 'domain_in_use');

    for (const bad of ['127.0.0.1', '*.shop.example.com', `x.${agent.host}`, 'https://chat.example.com/', 'localhost']) {
      const r = await call<ErrorJson>(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain: bad, agentId: agent.agentId } });
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.error.code, 'invalid_domain', bad);
    }
    const idn = await call<DomainJson>(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain: `bücher-${Math.random().toString(36).slice(2, 6)}.example.com`, agentId: agent.agentId } });
    assert.equal(idn.status, 202);
    assert.match(idn.body.domain, /^xn--bcher-/);
    const teammate = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', { apiKey, body: { name: 'Internal' } });
    const refused = await call<ErrorJson>(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain: uniqueDomain('t'), agentId: teammate.body.id } });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'agent_not_publishable');
    assert.match(refused.body.error.message, /only freelancers are served on domains; make it one with PATCH \/v1\/agents\/agt_\w+ \{"role":"freelancer"\}/);
    const undeployed = await freelancer(api.baseURL, apiKey, { name: 'Draft' });
    const notDeployed = await call<ErrorJson>(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain: uniqueDomain('d'), agentId: undeployed.agentId } });
    assert.equal(notDeployed.body.error.code, 'agent_not_deployed');
  });

  it("a squatter's earlier claim: the workspace whose CNAME names its own agent takes the name and the certificate; the squatter gets neither and is told nothing", async () => {
    const domain = uniqueDomain('squat');
    const squatter = await api.newWorkspace();
    const squatAgent = await deployedAgent(api, squatter.apiKey, 'Squat Shop');
    const squat = await call<DomainJson>(api.baseURL, 'POST', '/v1/domains', { apiKey: squatter.apiKey, body: { domain, agentId: squatAgent.agentId } });
    assert.equal(squat.status, 202);

    // The owner points its DNS at its own agent and claims the name after the squatter.
    await stack.pebble.setCname(domain, agent.host);
    const owner = await call<DomainJson>(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain, agentId: agent.agentId } });
    assert.equal(owner.status, 202, JSON.stringify(owner.body));
    const page = await waitFor('HTTPS for the owner', () => httpsGet(api.httpsPort!, domain, root).catch(() => undefined), (r) => r?.status === 200, 60_000);
    assert.match(page!.text, /Shop Helper/);
    assert.doesNotMatch(page!.text, /Squat Shop/);
    assert.equal((await domainStatus(api, apiKey, domain)).status, 'active');

    // The squatter's claim fails at its deadline with the plain DNS reason: no certificate, no word of the owner.
    const lost = await waitFor('squatter failed', () => domainStatus(api, squatter.apiKey, domain), (d) => d.status === 'failed', 30_000);
    assert.equal(lost.certificateExpiresAt, null);
    assert.match(lost.failure!, new RegExp(`^no CNAME record of ${domain.replace(/\./g, '\\.')} points at ${squatAgent.host.replace(/\./g, '\\.')}`));
    assert.doesNotMatch(lost.failure!, /in use|another|other workspace|held/i);
    assert.doesNotMatch(JSON.stringify(lost), new RegExp(agent.agentId));
    // Adding it again starts over and ends the same way; the owner keeps serving.
    const retry = await call<DomainJson>(api.baseURL, 'POST', '/v1/domains', { apiKey: squatter.apiKey, body: { domain, agentId: squatAgent.agentId } });
    assert.equal(retry.status, 202);
    assert.equal(retry.body.status, 'pending_dns');
    const again = await waitFor('squatter failed again', () => domainStatus(api, squatter.apiKey, domain), (d) => d.status === 'failed', 30_000);
    assert.equal(again.certificateExpiresAt, null);
    assert.match((await httpsGet(api.httpsPort!, domain, root)).text, /Shop Helper/);
  });

  it('an apex name proved by its TXT token (ALIAS records cannot be CNAMEs): only the claim whose token is published takes it', async () => {
    const domain = `apex-${Math.random().toString(36).slice(2, 8)}.example`;
    const squatter = await api.newWorkspace();
    const squatAgent = await deployedAgent(api, squatter.apiKey, 'Squat Shop');
    const squat = await call<DomainJson & { verification: { name: string; value: string } }>(api.baseURL, 'POST', '/v1/domains', { apiKey: squatter.apiKey, body: { domain, agentId: squatAgent.agentId } });
    const owner = await call<DomainJson & { verification: { type: string; name: string; value: string } }>(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain, agentId: agent.agentId } });
    assert.equal(owner.status, 202);
    assert.deepEqual({ ...owner.body.verification, value: '' }, { type: 'TXT', name: `_hosted-agents.${domain}`, value: '' });
    assert.notEqual(owner.body.verification.value, squat.body.verification.value, 'each claim has its own token');
    await stack.pebble.addTxt(owner.body.verification.name, owner.body.verification.value);
    const page = await waitFor('HTTPS for the owner', () => httpsGet(api.httpsPort!, domain, root).catch(() => undefined), (r) => r?.status === 200, 60_000);
    assert.match(page!.text, /Shop Helper/);
    const lost = await waitFor('squatter failed', () => domainStatus(api, squatter.apiKey, domain), (d) => d.status === 'failed', 30_000);
    assert.equal(lost.certificateExpiresAt, null);
    assert.doesNotMatch(lost.failure!, /in use|another|other workspace|held/i);
  });

  it('without HTTPS_PORT, domains.add answers 400 domains_not_configured at once', async () => {
    const { HTTPS_PORT: _off, ...withoutHttps } = stack.env;
    const plain = await startTestApi({ config: isolatedConfig(withoutHttps) });
    try {
      const started = Date.now();
      const r = await call<ErrorJson>(plain.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain: uniqueDomain('off'), agentId: agent.agentId } });
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, 'domains_not_configured');
      assert.match(r.body.error.message, /HTTPS_PORT/);
      assert.ok(Date.now() - started < 5_000);
    } finally {
      await plain.stop();
    }
  });

  it('killing the worker during issuance: the workflow resumes on another worker and the domain becomes active', async () => {
    // A second replica and a worker of its own (its own queues), the one that gets killed.
    const env = { ...stack.env, TEMPORAL_TASK_QUEUE_PREFIX: `k${Math.random().toString(36).slice(2, 8)}-` };
    const replica = await startTestApi({ config: isolatedConfig(env), httpsPort: 0 });
    const doomed = await spawnWorker(env);
    let rescuer: { stop(): Promise<void> } | undefined;
    try {
      const domain = uniqueDomain('killed');
      await stack.pebble.setCname(domain, agent.host);
      const held = stack.gate.hold();
      const added = await call(replica.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain, agentId: agent.agentId } });
      assert.equal(added.status, 202);
      await held.seen; // the CA is validating: the order is half done
      assert.equal((await domainStatus(api, apiKey, domain)).status, 'issuing');
      doomed.kill('SIGKILL');
      held.release();
      rescuer = await startInProcessWorker(isolatedConfig(env));
      const done = await waitFor('active after the kill', () => domainStatus(api, apiKey, domain), (d) => d.status === 'active' || d.status === 'failed', 90_000);
      assert.equal(done.status, 'active', done.failure ?? '');
      // Served by the other replica too (certificates live in PostgreSQL).
      assert.equal((await httpsGet(api.httpsPort!, domain, root)).status, 200);
    } finally {
      doomed.kill('SIGKILL');
      await rescuer?.stop();
      await replica.stop();
    }
  });
});

/** A short-lived certificate is renewed at two-thirds of its life, and the new one is served. */
describe('custom domains renewal', function () {
  this.timeout(180_000);
  let stack: DomainStack;
  const { api } = useIsolatedStack({ worker: 'inline', env: async () => (stack = await startDomainStack({ validitySeconds: 24 })).env });

  before(() => {
    stack.gate.target = Number(new URL(api.baseURL).port);
  });
  after(async () => {
    await stack?.stop();
  });

  /** A new agent's domain, once served over HTTPS: what the tests need to follow its certificate. */
  async function servedDomain(label: string) {
    const { apiKey } = await api.newWorkspace();
    const agent = await deployedAgent(api, apiKey, `${label} shop`);
    const root = await stack.pebble.issuingRoot();
    const domain = uniqueDomain(label);
    await stack.pebble.setCname(domain, agent.host);
    await call(api.baseURL, 'POST', '/v1/domains', { apiKey, body: { domain, agentId: agent.agentId } });
    const first = await waitFor('served', () => httpsGet(api.httpsPort!, domain, root).catch(() => undefined), (r) => r?.status === 200, 60_000);
    return { apiKey, root, domain, first: first! };
  }

  it('renews before expiry: the serial served changes, the domain stays active', async () => {
    const { apiKey, root, domain, first } = await servedDomain('renew');
    const renewed = await waitFor(
      'a renewed certificate served',
      () => httpsGet(api.httpsPort!, domain, root).catch(() => undefined),
      (r) => r?.status === 200 && r.serial !== first.serial,
      60_000,
    );
    assert.notEqual(renewed!.serial, first.serial);
    const record = await waitFor('active again', () => domainStatus(api, apiKey, domain), (d) => d.status === 'active', 20_000);
    assert.equal(record.failure, null);
  });

  it('a failing renewal is retried and visible, the old certificate serving meanwhile; past expiry the domain is failed', async () => {
    const { apiKey, root, domain, first } = await servedDomain('norenew');
    stack.gate.refused.add(domain); // from now on the CA's validation of this name fails
    const refusedAt = new Date().toISOString();
    const retrying = await waitFor('a failed renewal attempt', () => domainStatus(api, apiKey, domain), (d) => d.status === 'renewing' && d.failure !== null, 40_000);
    assert.match(retrying.failure!, /^attempt 1 failed, retrying: /);
    const still = await httpsGet(api.httpsPort!, domain, root);
    // Failed once in a CI run of the whole suite (2026-11-27), cause unknown: should it fail again, these say which certificate served when.
    const details = `first served ${first.serial} (${first.validity}); refused from ${refusedAt}; then served ${still.serial} (${still.validity}); domain ${JSON.stringify(retrying)}`;
    assert.equal(still.serial, first.serial, `the old certificate serves while renewal retries: ${details}`);
    const failed = await waitFor('failed after expiry', () => domainStatus(api, apiKey, domain), (d) => d.status === 'failed', 60_000);
    assert.match(failed.failure!, /^the certificate expired; renewing it failed: /);
  });
  it("a holder whose CNAME now names another workspace's agent loses the name at expiry; that workspace then takes it", async () => {
    const { apiKey, root, domain } = await servedDomain('moved');
    const next = await api.newWorkspace();
    const nextAgent = await deployedAgent(api, next.apiKey, 'New Owner');
    await stack.pebble.setCname(domain, nextAgent.host);
    const released = await waitFor('the old holder failed', () => domainStatus(api, apiKey, domain), (d) => d.status === 'failed', 60_000);
    assert.match(released.failure!, /^the certificate expired; renewing it failed: the DNS records of .* no longer prove this claim/);
    assert.equal((await call(api.baseURL, 'POST', '/v1/domains', { apiKey: next.apiKey, body: { domain, agentId: nextAgent.agentId } })).status, 202);
    const page = await waitFor('served for the new owner', () => httpsGet(api.httpsPort!, domain, root).catch(() => undefined), (r) => r?.status === 200 && /New Owner/.test(r.text), 60_000);
    assert.doesNotMatch(page!.text, /moved shop/);
  });
});
