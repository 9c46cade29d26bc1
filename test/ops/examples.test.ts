import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type EverythingServer, startEverything } from '../support/mcp-everything';
import { useIsolatedStack } from '../support/isolated-stack';

/**
 * Every program in examples/ runs green against the test service, as a developer runs it
 * (`npx tsx examples/<name>.ts` with SERVICE_API_KEY and SERVICE_BASE_URL), so none can rot.
 * Loopback is allowed for tools here, so the HTTP tool and MCP examples reach local servers.
 */

const root = path.resolve(__dirname, '../..');
const RUN_LIMIT_MS = 90_000;

function runExample(name: string, env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('examples', `${name}.ts`), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe('examples/ run against the service', function () {
  this.timeout(RUN_LIMIT_MS + 30_000);
  const { api } = useIsolatedStack({ worker: 'inline', env: { OUTBOUND_ALLOW_PRIVATE: '127.0.0.1/32' } });
  let everything: EverythingServer;
  let echo: http.Server;
  let env: Record<string, string>;
  const echoed: string[] = [];

  before(async () => {
    everything = await startEverything('http');
    // An echo endpoint for the HTTP tool example, recording what the tool sent.
    echo = http.createServer((req, res) => {
      echoed.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ order: '42', status: 'shipped', auth: req.headers.authorization }));
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const { apiKey } = await api.newWorkspace({ credits: 1000 });
    env = {
      SERVICE_API_KEY: apiKey,
      SERVICE_BASE_URL: api.baseURL,
      EXAMPLE_HTTP_URL: `http://127.0.0.1:${(echo.address() as AddressInfo).port}`,
      EXAMPLE_MCP_URL: everything.url,
    };
  });
  after(async () => {
    await everything?.stop();
    echo?.close();
  });

  const expectations: Array<[name: string, args: string[], expect: RegExp[]]> = [
    ['quick-start', [], [/You said: Hello! What can you do\?/, /reply: \(offline model\) You said: Thanks, bye\./, /messages stored: 4/]],
    ['http-tool-with-secret', [], [/tool lookup_order: end \(ok: true\)/, /shipped/, /token visible in reply: false/]],
    ['mcp-server', [], [/tool everything\.echo: end \(ok: true\)/, /hello from MCP/]],
    [
      'refund-approval',
      [],
      [/waiting for approval: refund \{"order":"42","amount":20\}/, /approval approved \(checked the order\)/, /tool refund: end \(ok: true\)/, /approval denied \(over the chat refund limit\)/, /refund \(error\): The tool was not run: a person denied this call\. Their note: over the chat refund limit/],
    ],
    ['scheduled-agent', [], [/waiting for two runs/, /(You said: Status report, please\.[\s\S]*){2}/]],
    ['project-two-members', [], [/task: .*Writer.*\[done\]/, /task: .*Reviewer.*\[done\]/, /project files: .*notes\.md/]],
    ['embed-page', ['--check'], [/page has the tag: true; v1\.js: 200; public agent: 200/]],
    [
      'eval-gate',
      [],
      [/v1: 3\/3 passed/, /v1 is in production/, /v2 refused: .*writes-notes \(files\.write was not called\)/, /in production: v1/, /writes-notes: passed → failed \(broke\)/],
    ],
  ];

  for (const [name, args, expect] of expectations) {
    it(`${name} exits 0 and prints what it promises`, async () => {
      const { code, out } = await runExample(name, env, args);
      assert.equal(code, 0, out);
      for (const pattern of expect) assert.match(out, pattern, out);
      if (name === 'http-tool-with-secret') assert.ok(echoed.some((line) => line.includes('/orders/42 Bearer example-token-123')), echoed.join('\n'));
      // The approved refund was posted once; the denied one never.
      if (name === 'refund-approval') assert.deepEqual(echoed.filter((line) => line.startsWith('POST /refunds')).length, 1, echoed.join('\n'));
    });
  }
});
