import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { devCredentialsSchema } from '../../cli/dev-credentials';
import { workspaceSchema } from '../../domain/workspace';
import { ENCRYPTED_ENCODING } from '../../infra/payload-codec';
import { freePort } from '../../infra/temporal-dev-server';
import { repoRoot, runCli } from '../../harness/cli';
import { fixture } from '../support/fixture';
import { call } from '../../harness/http';
import { parseExposition, total } from '../support/prometheus';
import { collectTurn } from '../support/sse';
import { waitFor } from '../support/wait';

/**
 * `npm start` exactly as an operator types it, on an empty DATA_DIR, with no DATABASE_URL,
 * TEMPORAL_ADDRESS, model key or LOG_LEVEL: the banner a newcomer reads, a quiet terminal, a clean Ctrl-C.
 */
describe('npm start (the embedded default)', function () {
  this.timeout(180_000);

  let dataDir: string;
  let env: Record<string, string>;
  let ports: { api: number; temporal: number; ui: number; pg: number };
  let child: ChildProcess | undefined;
  let output = '';

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'ha-start-'));
    ports = { api: await freePort(), temporal: await freePort(), ui: await freePort(), pg: await freePort() };
    env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      PORT: String(ports.api),
      TEMPORAL_DEV_PORT: String(ports.temporal),
      TEMPORAL_UI_PORT: String(ports.ui),
      EMBEDDED_PG_PORT: String(ports.pg),
      TEMPORAL_CLI_PATH: fixture().temporalCliPath,
    };
  });
  after(async () => {
    // PostgreSQL runs in a process group of its own: a test that failed half-way may have left it.
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    if (existsSync(pidFile)) {
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8').split('\n')[0]), 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (child?.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await rm(dataDir, { recursive: true, force: true });
  });

  const base = () => `http://127.0.0.1:${ports.api}`;

  function start(): ChildProcess {
    output = '';
    // A process group of its own, as a terminal or a supervisor gives it.
    const c = spawn('npm', ['start'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    c.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    c.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    return c;
  }

  async function waitReady(c: ChildProcess): Promise<void> {
    const deadline = Date.now() + 150_000;
    while (Date.now() < deadline) {
      if (c.exitCode !== null) throw new Error(`npm start exited with ${c.exitCode}:\n${output}`);
      const ok = await fetch(`${base()}/readyz`).then((r) => r.status === 200, () => false);
      if (ok) return;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`npm start was not ready in time:\n${output}`);
  }

  /**
   * A signal to the whole process group (SIGINT: a Ctrl-C at the terminal; SIGTERM: a supervisor);
   * resolves with npm's exit code when none of the group is left.
   */
  async function stop(c: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const group = -c.pid!;
    const exited = new Promise<number | null>((resolve) => {
      if (c.exitCode !== null) resolve(c.exitCode);
      else c.once('exit', (code) => resolve(code));
    });
    process.kill(group, signal);
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      try {
        process.kill(group, 0);
      } catch {
        return exited;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    process.kill(group, 'SIGKILL');
    throw new Error(`npm start's processes were still running 30 s after SIGTERM:\n${output}`);
  }

  function portOpen(port: number): Promise<boolean> {
    return new Promise((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
  }

  function credentials() {
    return devCredentialsSchema.parse(JSON.parse(readFileSync(path.join(dataDir, 'dev-credentials.json'), 'utf8')));
  }

  let firstWorkspaceId = '';
  let balanceAtStop = 0;

  it('boots on an empty DATA_DIR: /readyz is ready and the printed key reads the dev workspace', async () => {
    child = start();
    await waitReady(child);
    const creds = credentials();
    assert.equal(creds.baseURL, `http://localhost:${ports.api}`);
    assert.ok(output.includes(creds.apiKey), 'the API key is printed');
    assert.ok(output.includes(`http://localhost:${ports.ui}`), 'the Temporal UI URL is printed, on the origin the codec answers');
    const ws = await call(base(), 'GET', '/v1/workspace', { apiKey: creds.apiKey });
    assert.equal(ws.status, 200);
    const workspace = workspaceSchema.parse(ws.body);
    assert.equal(workspace.name, 'dev');
    assert.equal(workspace.credits, 1000);
    firstWorkspaceId = workspace.id;
    assert.equal((await fetch(`http://127.0.0.1:${ports.ui}/`)).status, 200, 'the Temporal UI serves');
  });

  it('the banner names the model, the API docs and the next command to try, with the key filled in', () => {
    const creds = credentials();
    const lines = output.split('\n').map((l) => l.trim());
    assert.ok(lines.includes('Model        local:offline'), `the offline model is named:\n${output}`);
    assert.match(output, /OPENAI_API_KEY or ANTHROPIC_API_KEY/, 'how to set a real model');
    assert.match(output, /private addresses are blocked for HTTP tools, MCP servers and web\.fetch; OUTBOUND_ALLOW_PRIVATE=true allows them/, 'why a tool at localhost would fail');
    assert.ok(lines.includes(`API docs     ${creds.baseURL}/docs`), '/docs is printed');
    const next = `SERVICE_API_KEY=${creds.apiKey} SERVICE_BASE_URL=${creds.baseURL} npx tsx examples/quick-start.ts`;
    assert.ok(lines.includes(next), `the next step is printed: ${next}\n${output}`);
    assert.ok(existsSync(path.join(repoRoot, 'examples', 'quick-start.ts')), 'the example it names exists');
  });

  it("the banner's one-time sign-in link signs the dev workspace's owner in, once", async () => {
    const link = /^ {2}Sign in {6}(\S+)$/m.exec(output)?.[1];
    assert.ok(link, `a sign-in link is printed:\n${output}`);
    assert.match(output, /as owner@localhost \(owner\)/);
    const linkPath = new URL(link).pathname;
    const used = await call<{ member: { email: string; role: string } }>(base(), 'POST', linkPath, { body: {} });
    assert.equal(used.status, 200);
    assert.deepEqual(used.body.member.email, 'owner@localhost');
    assert.equal(used.body.member.role, 'owner');
    assert.equal((await call(base(), 'POST', linkPath, { body: {} })).status, 400, 'the link works once');
  });

  it('a request prints nothing by default: the banner stays on screen', async () => {
    const before = output.length;
    assert.equal((await call(base(), 'GET', '/v1/workspace', { apiKey: credentials().apiKey })).status, 200);
    assert.equal((await call(base(), 'GET', '/v1/agents/agt_missing', { apiKey: credentials().apiKey })).status, 404);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(output.slice(before), '', 'no log line for a request');
  });

  it('the admin CLI with the same DATA_DIR reaches the running embedded database', async () => {
    const r = await runCli(['workspace', 'credits', firstWorkspaceId, '--add', '5', '--json'], { DATA_DIR: dataDir });
    assert.equal(r.code, 0, r.stderr);
    const ws = await call(base(), 'GET', '/v1/workspace', { apiKey: credentials().apiKey });
    assert.equal(workspaceSchema.parse(ws.body).credits, 1005);
  });

  let turnId = '';

  it("the API port's /metrics shows the worker's turn counters: one process, one registry", async () => {
    const { apiKey } = credentials();
    const agent = await call<{ id: string }>(base(), 'POST', '/v1/agents', { apiKey, body: { name: 'Counted' } });
    const conv = await call<{ id: string }>(base(), 'POST', `/v1/agents/${agent.body.id}/conversations`, { apiKey, body: {} });
    const turn = await collectTurn(`${base()}/v1/conversations/${conv.body.id}/turns`, { method: 'POST', apiKey, body: { text: 'count me in' } });
    assert.equal(turn.events.at(-1)?.event.type, 'done', JSON.stringify(turn.events));
    const first = turn.events[0]?.event;
    assert.ok(first?.type === 'start', JSON.stringify(first));
    turnId = first.turnId;
    const scrape = async () => parseExposition(await (await fetch(`${base()}/metrics`)).text());
    await waitFor('turns finished on the API port', scrape, (s) => total(s, 'hosted_agents_turns_finished_total') >= 1, 10_000);
  });

  it("the Temporal UI's origin decodes a turn's input from loopback with no token; without that Origin, or through a proxy, 401", async () => {
    const connection = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
    let input: { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null } | undefined;
    try {
      const history = await new Client({ connection }).workflow.getHandle(`turn-${turnId}`).fetchHistory();
      input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    } finally {
      await connection.close();
    }
    assert.ok(input?.data, 'the turn workflow has an input');
    const wire = {
      metadata: Object.fromEntries(Object.entries(input.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
      data: Buffer.from(input.data).toString('base64'),
    };
    const encoding = (m: Record<string, string>) => Buffer.from(m.encoding ?? '', 'base64').toString('utf8');
    assert.equal(encoding(wire.metadata), ENCRYPTED_ENCODING, 'the input is encrypted in the history');
    const uiOrigin = `http://localhost:${ports.ui}`;
    const decode = (headers: Record<string, string>) => call<{ payloads: Array<{ metadata: Record<string, string>; data: string }> }>(base(), 'POST', '/v1/codec/decode', { body: { payloads: [wire] }, headers });
    const decoded = await decode({ origin: uiOrigin, 'x-namespace': 'default' });
    assert.equal(decoded.status, 200, JSON.stringify(decoded.body));
    const plain = decoded.body.payloads[0]!;
    assert.equal(encoding(plain.metadata), 'json/plain', 'decoded: the JSON the UI shows');
    assert.ok(Buffer.from(plain.data, 'base64').toString('utf8').includes(turnId), "the decoded input names the turn");
    assert.equal((await decode({})).status, 401, 'no Origin: the token is needed');
    assert.equal((await decode({ origin: 'http://localhost:1' })).status, 401, 'another origin: the token is needed');
    assert.equal((await decode({ origin: uiOrigin, 'x-forwarded-for': '203.0.113.9' })).status, 401, 'through a proxy: not a loopback caller');
  });

  it('stops cleanly on Ctrl-C (SIGINT to the group): no error or warning lines, exit 0, nothing left behind', async () => {
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    const pgPid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    balanceAtStop = workspaceSchema.parse((await call(base(), 'GET', '/v1/workspace', { apiKey: credentials().apiKey })).body).credits;
    const mark = output.length;
    const code = await stop(child!, 'SIGINT');
    const stopping = output.slice(mark);
    assert.match(stopping, /stopped cleanly/);
    assert.deepEqual(
      stopping.split('\n').filter((l) => /error|warn|fail/i.test(l)),
      [],
      `Ctrl-C printed:\n${stopping}`,
    );
    assert.equal(code, 0, 'npm start exits 0');
    assert.equal(existsSync(pidFile), false, 'postmaster.pid is removed by a clean shutdown');
    assert.throws(() => process.kill(pgPid, 0), 'postgres is gone');
    assert.equal(await portOpen(ports.temporal), false, 'temporal is gone');
    assert.equal(await portOpen(ports.api), false, 'the API is gone');
  });

  it('a second start reuses the data: same workspace, same key, same balance', async () => {
    child = start();
    await waitReady(child);
    const creds = credentials();
    assert.equal(creds.workspaceId, firstWorkspaceId);
    const ws = workspaceSchema.parse((await call(base(), 'GET', '/v1/workspace', { apiKey: creds.apiKey })).body);
    assert.deepEqual([ws.id, ws.credits], [firstWorkspaceId, balanceAtStop]);
    await stop(child);
    assert.match(output, /stopped cleanly/);
  });
});
