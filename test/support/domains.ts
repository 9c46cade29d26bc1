import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { freePort } from '../../infra/temporal-dev-server';
import { type PebbleStack, startPebble } from './pebble';
import { isolatedEnv } from './workers';

/**
 * Port 80 as Pebble reaches it: a forwarder to the test API's HTTP port that a test can close for
 * a while (`hold`), to catch the ACME order mid-validation (and kill the worker running it).
 */
interface ChallengeGate {
  port: number;
  /** Where requests go: the API's HTTP port (set once the API listens). */
  target: number | undefined;
  /** Holds challenge requests until `release`; `seen` resolves when the first one arrives. */
  hold(): { seen: Promise<void>; release(): void };
  /** Host names whose challenge requests are answered 404 (their validation fails). */
  refused: Set<string>;
  close(): Promise<void>;
}

async function startChallengeGate(): Promise<ChallengeGate> {
  let held: { wait: Promise<void>; arrived: () => void } | undefined;
  const gate: ChallengeGate = {
    port: 0,
    target: undefined,
    refused: new Set(),
    hold() {
      let release!: () => void;
      let arrived!: () => void;
      const wait = new Promise<void>((r) => (release = r));
      const seen = new Promise<void>((r) => (arrived = r));
      held = { wait, arrived };
      return {
        seen,
        release: () => {
          held = undefined;
          release();
        },
      };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const server = http.createServer((req, res) => {
    const forward = () => {
      const up = http.request({ host: '127.0.0.1', port: gate.target, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      up.on('error', () => res.writeHead(502).end());
      req.pipe(up);
    };
    if (gate.refused.has((req.headers.host ?? '').replace(/:\d+$/, ''))) return void res.writeHead(404).end();
    if (!held) return forward();
    held.arrived();
    void held.wait.then(forward);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  gate.port = (server.address() as AddressInfo).port;
  return gate;
}

/** Pebble validating through a gate, and the environment of an API and workers that use them. */
export interface DomainStack {
  pebble: PebbleStack;
  gate: ChallengeGate;
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startDomainStack(opts: { validitySeconds?: number; dnsDeadlineSeconds?: number } = {}): Promise<DomainStack> {
  const gate = await startChallengeGate();
  const pebble = await startPebble({ httpPort: gate.port, ...(opts.validitySeconds ? { validitySeconds: opts.validitySeconds } : {}) });
  const env = isolatedEnv({
    ACME_DIRECTORY_URL: pebble.directoryUrl,
    ACME_CA_FILE: pebble.caFile,
    ACME_EMAIL: 'ops@example.com',
    DNS_RESOLVER: pebble.dnsServer,
    HTTPS_PORT: String(await freePort()),
    DOMAIN_DNS_DEADLINE_SECONDS: String(opts.dnsDeadlineSeconds ?? 4),
  });
  return {
    pebble,
    gate,
    env,
    async stop() {
      await pebble.stop();
      await gate.close();
    },
  };
}

/** One HTTPS GET to 127.0.0.1:`port` for `domain` (SNI and Host), trusting only `ca`; the page and the certificate's serial. */
export function httpsGet(port: number, domain: string, ca: string, path = '/'): Promise<{ status: number; text: string; serial: string; validity: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, servername: domain, headers: { host: domain }, path, ca, agent: false, timeout: 10_000 }, (res) => {
      const peer = (res.socket as TLSSocket).getPeerCertificate();
      const serial = peer.serialNumber;
      const validity = `${peer.valid_from} – ${peer.valid_to}`;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), serial, validity }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.end();
  });
}
