import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { freePort } from '../../infra/temporal-dev-server';

/**
 * A real ACME server for tests: Pebble (Let's Encrypt's test CA) and pebble-challtestsrv, whose
 * DNS server answers Pebble's lookups and ours (`DNS_RESOLVER`). Built by `.ci/run` into
 * ~/.cache/hosted-agents/bin (or named by PEBBLE_PATH / PEBBLE_CHALLTESTSRV_PATH). Missing
 * binaries fail the test loudly: these tests never skip.
 */
export interface PebbleStack {
  /** The ACME directory (`ACME_DIRECTORY_URL`). */
  directoryUrl: string;
  /** PEM of the CA that signs Pebble's own HTTPS (`ACME_CA_FILE` points at `caFile`). */
  caFile: string;
  /** PEM of the root Pebble issues certificates under: what a browser would trust. */
  issuingRoot(): Promise<string>;
  /** `127.0.0.1:<port>` of the test DNS server (`DNS_RESOLVER`). */
  dnsServer: string;
  /** Makes `host` a CNAME of `target` in the test DNS server. */
  setCname(host: string, target: string): Promise<void>;
  /** Adds a TXT record `value` at `host` in the test DNS server. */
  addTxt(host: string, value: string): Promise<void>;
  stop(): Promise<void>;
}

const BIN = path.join(homedir(), '.cache', 'hosted-agents', 'bin');

function binary(name: string, envVar: string): string {
  const file = process.env[envVar] ?? path.join(BIN, name);
  if (!existsSync(file)) {
    throw new Error(`${name} not found at ${file}: build it with .ci/run (go install github.com/letsencrypt/pebble/v2/cmd/${name}@v2.10.1) or set ${envVar}`);
  }
  return file;
}

/** A throwaway CA and a server certificate for 127.0.0.1/localhost, signed by it (openssl CLI). */
function makeServerCert(dir: string): { ca: string; cert: string; key: string } {
  const f = (n: string) => path.join(dir, n);
  const run = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=pebble test CA', '-keyout', f('ca.key'), '-out', f('ca.pem')]);
  run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=localhost', '-keyout', f('server.key'), '-out', f('server.csr')]);
  writeFileSync(f('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  run(['x509', '-req', '-days', '2', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-extfile', f('ext.cnf'), '-out', f('server.pem')]);
  return { ca: f('ca.pem'), cert: f('server.pem'), key: f('server.key') };
}

function startProcess(file: string, args: string[], env: Record<string, string>, ready: RegExp, label: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${label} did not start in 15 s:\n${output}`));
    }, 15_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code}:\n${output}`));
    });
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * Starts challtestsrv (DNS and management only; every A query answers 127.0.0.1) and Pebble,
 * which validates HTTP-01 on `httpPort` (where the test API listens) and resolves through that
 * DNS server. `validitySeconds` shortens the certificates it issues (renewal tests).
 */
export async function startPebble(opts: { httpPort: number; validitySeconds?: number }): Promise<PebbleStack> {
  const pebbleBin = binary('pebble', 'PEBBLE_PATH');
  const challBin = binary('pebble-challtestsrv', 'PEBBLE_CHALLTESTSRV_PATH');
  const dir = mkdtempSync(path.join(tmpdir(), 'pebble-'));
  const children: ChildProcess[] = [];
  try {
    const [dnsPort, challMgmtPort, acmePort, pebbleMgmtPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const certs = makeServerCert(dir);
    children.push(
      await startProcess(
        challBin,
        ['-defaultIPv4', '127.0.0.1', '-defaultIPv6', '', '-dnsserver', `127.0.0.1:${dnsPort}`, '-management', `127.0.0.1:${challMgmtPort}`, '-http01', '', '-https01', '', '-tlsalpn01', '', '-doh', ''],
        {},
        /Starting management server/i,
        'pebble-challtestsrv',
      ),
    );
    const validity = opts.validitySeconds ?? 7_776_000;
    const config = {
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${pebbleMgmtPort}`,
        certificate: certs.cert,
        privateKey: certs.key,
        httpPort: opts.httpPort,
        tlsPort: await freePort(),
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
        certificateValidityPeriod: validity,
        profiles: { default: { description: 'test certificates', validityPeriod: validity } },
      },
    };
    writeFileSync(path.join(dir, 'pebble.json'), JSON.stringify(config));
    children.push(
      await startProcess(
        pebbleBin,
        ['-config', path.join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${dnsPort}`],
        { PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' },
        /ACME directory available at/i,
        'pebble',
      ),
    );
    const trusted = new Agent({ connect: { ca: readFileSync(certs.ca) } });
    return {
      directoryUrl: `https://127.0.0.1:${acmePort}/dir`,
      caFile: certs.ca,
      dnsServer: `127.0.0.1:${dnsPort}`,
      async issuingRoot() {
        const res = await request(`https://127.0.0.1:${pebbleMgmtPort}/roots/0`, { dispatcher: trusted });
        if (res.statusCode !== 200) throw new Error(`pebble /roots/0 answered ${res.statusCode}`);
        return res.body.text();
      },
      async setCname(host, target) {
        const res = await request(`http://127.0.0.1:${challMgmtPort}/set-cname`, { method: 'POST', body: JSON.stringify({ host: `${host}.`, target: `${target}.` }) });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`challtestsrv set-cname answered ${res.statusCode}`);
      },
      async addTxt(host, value) {
        const res = await request(`http://127.0.0.1:${challMgmtPort}/set-txt`, { method: 'POST', body: JSON.stringify({ host: `${host}.`, value }) });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`challtestsrv set-txt answered ${res.statusCode}`);
      },
      async stop() {
        await trusted.close();
        for (const child of children.reverse()) await stopProcess(child);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    for (const child of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
