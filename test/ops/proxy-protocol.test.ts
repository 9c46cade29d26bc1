import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { secretBoxFromConfig } from '../../config/secret-box';
import { tlsKeyContext } from '../../domain/custom-domains';
import { startTestApi, type TestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { type RunningHaproxy, startHaproxy } from '../support/haproxy';
import { freelancer } from '../support/publishing';

/** A self-made certificate for `domain`, as if ACME had issued it. */
function selfSigned(domain: string): { certPem: string; keyPem: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'proxy-cert-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${domain}`,
      '-addext', `subjectAltName=DNS:${domain}`, '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { certPem: readFileSync(path.join(dir, 'cert.pem'), 'utf8'), keyPem: readFileSync(path.join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Answer {
  status: number;
  body: { error?: { code: string } } | string;
  /** The certificate the server chose (HTTPS). */
  certificateCN?: string | string[];
}

/**
 * One request from the local address `from` to `port` (HAProxy's front, or the API itself), over
 * HTTPS when `tlsName` is given: SNI is that name and the certificate must be valid for it (`ca`).
 * `Host` is `localhost` (the API's own host); `X-Forwarded-For` is a lie the client tells.
 */
function requestVia(port: number, from: string, path: string, opts: { tlsName?: string; ca?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  const base = { host: '127.0.0.1', port, localAddress: from, agent: false, path, headers: { host: 'localhost', 'x-forwarded-for': `203.0.113.${Math.floor(Math.random() * 250)}`, ...opts.headers } };
  return new Promise((resolve, reject) => {
    const onAnswer = (res: http.IncomingMessage) => {
      let text = '';
      res.on('data', (c: Buffer) => void (text += c.toString()));
      res.on('end', () => {
        let body: Answer['body'] = text;
        try {
          body = JSON.parse(text) as Answer['body'];
        } catch {
          // the metrics' text
        }
        const peer = opts.tlsName ? (res.socket as tls.TLSSocket).getPeerCertificate() : undefined;
        resolve({ status: res.statusCode ?? 0, body, ...(peer ? { certificateCN: peer.subject.CN } : {}) });
      });
    };
    const req = opts.tlsName ? https.request({ ...base, servername: opts.tlsName, ca: opts.ca }, onAnswer) : http.request(base, onAnswer);
    req.on('error', reject);
    req.end();
  });
}

/** What a direct connection that sends no PROXY header gets: the bytes answered before the server closed it. */
function directWithoutHeader(port: number, useTls: boolean, servername: string): Promise<{ answered: string; closed: boolean }> {
  return new Promise((resolve) => {
    let answered = '';
    const socket = useTls
      ? tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false })
      : net.connect(port, '127.0.0.1', () => socket.write('GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    if (useTls) socket.once('secureConnect', () => socket.write('GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n'));
    socket.on('data', (c: Buffer) => void (answered += c.toString()));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answered, closed: false });
    }, 5000);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answered, closed: true });
    });
    socket.on('error', () => undefined);
  });
}

const READS = 3;

/** The API with PROXY_PROTOCOL=all behind a real HAProxy in TCP mode: send-proxy-v2 to HTTPS_PORT, send-proxy (v1) to PORT. */
describe('PROXY protocol behind a TLS pass-through HAProxy', function () {
  this.timeout(90_000);
  const metricsToken = randomBytes(24).toString('hex');
  const domain = `shop-${randomBytes(4).toString('hex')}.example.test`;
  const cert = selfSigned(domain);
  let api: TestApi;
  let haproxy: RunningHaproxy;
  let httpsFront: number;
  let httpFront: number;

  before(async () => {
    const config = {
      ...fixture().config,
      PROXY_PROTOCOL: 'all' as const,
      // Believed only where no PROXY header is expected: here, never.
      TRUST_PROXY: true,
      PUBLIC_READS_PER_ADDRESS: READS,
      RATE_LIMIT_HOLD_MS: 0,
      METRICS_TOKEN: metricsToken,
    };
    api = await startTestApi({ config, httpsPort: 0 });
    // The domain served with its certificate, as the provisioning workflow leaves it; set up through
    // a replica without PROXY (this one's ports take no direct calls).
    const setup = await startTestApi();
    try {
      const { workspace, apiKey } = await setup.newWorkspace();
      const { agentId } = await freelancer(setup.baseURL, apiKey);
      const { row } = await setup.repos.customDomains.attach({ domain, workspaceId: workspace.id, agentId });
      // Its DNS proof, as the workflow records it: only the claim holding the name is served.
      assert.equal(await setup.repos.customDomains.verify({ id: row.id }), 'held');
      const x509 = new X509Certificate(cert.certPem);
      await setup.repos.customDomains.storeCertificate({
        id: row.id,
        certPem: cert.certPem,
        keySealed: secretBoxFromConfig(config).seal(cert.keyPem, tlsKeyContext(row.id, domain)),
        notBefore: new Date(x509.validFrom),
        notAfter: new Date(x509.validTo),
        serial: x509.serialNumber,
      });
    } finally {
      await setup.stop();
    }
    haproxy = await startHaproxy([
      { target: api.httpsPort!, version: 'v2' },
      { target: Number(new URL(api.baseURL).port), version: 'v1' },
    ]);
    [httpsFront, httpFront] = haproxy.ports as [number, number];
  });

  after(async () => {
    await haproxy?.stop();
    await api?.stop();
  });

  it('HTTPS (send-proxy-v2): SNI still chooses the certificate, and each client address has its own per-address limit', async () => {
    const via = (from: string) => requestVia(httpsFront, from, '/v1/public/agents/agt_nobody', { tlsName: domain, ca: cert.certPem });
    for (let i = 0; i < READS; i++) {
      const answer = await via('127.0.10.2');
      assert.equal(answer.status, 404, JSON.stringify(answer.body));
      assert.equal(answer.certificateCN, domain, "the domain's own certificate, chosen by SNI through the proxy");
    }
    const over = await via('127.0.10.2');
    assert.equal(over.status, 429, 'the address from the PROXY header reached its limit (X-Forwarded-For changed nothing)');
    const other = await via('127.0.10.3');
    assert.equal(other.status, 404, 'another client of the same proxy has a limit of its own');
  });

  it('HTTP (send-proxy v1): the same, per client address', async () => {
    const via = (from: string) => requestVia(httpFront, from, '/v1/public/agents/agt_nobody');
    for (let i = 0; i < READS; i++) assert.equal((await via('127.0.10.4')).status, 404);
    assert.equal((await via('127.0.10.4')).status, 429);
    assert.equal((await via('127.0.10.5')).status, 404);
  });

  it('/metrics through the proxy is refused without METRICS_TOKEN, though every client is on loopback', async () => {
    const https404 = await requestVia(httpsFront, '127.0.0.1', '/metrics', { tlsName: domain, ca: cert.certPem });
    assert.equal(https404.status, 404);
    const http404 = await requestVia(httpFront, '127.0.0.1', '/metrics');
    assert.equal(http404.status, 404);
    const withToken = await requestVia(httpFront, '127.0.0.1', '/metrics', { headers: { authorization: `Bearer ${metricsToken}` } });
    assert.equal(withToken.status, 200);
    assert.match(String(withToken.body), /hosted_agents_http_request_duration_seconds/);
  });

  it('a direct connection without a PROXY header is closed unanswered (HTTP and HTTPS)', async () => {
    const plain = await directWithoutHeader(Number(new URL(api.baseURL).port), false, domain);
    assert.deepEqual(plain, { answered: '', closed: true });
    const secure = await directWithoutHeader(api.httpsPort!, true, domain);
    assert.deepEqual(secure, { answered: '', closed: true });
  });
});
