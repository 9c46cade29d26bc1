import os from 'node:os';
import path from 'node:path';
import { buildEmbed, LOADER_GZIP_BUDGET } from '../embed/build';
import { launchChromium, startCustomerSite } from '../harness/browser';
import { apiJson } from '../harness/http';
import { benchConfig } from './lib/config';
import { directSend, installStopwatch, MESSAGE, measureLoads, newVisitor, pageSend, STEP_TIMEOUT_MS } from './lib/embed-timing';
import { Cleanup, startStack } from './lib/stack';
import { appendResult } from './lib/results';
import { ms, percentile } from './lib/stats';

/**
 * `npm run bench:embed`: what the embed costs a visitor. Starts PostgreSQL (DATABASE_URL's server or
 * embedded), an in-memory Temporal dev server, and the API and worker as separate processes (through
 * bench/lib/stack.ts) with the offline model streaming a word every BENCH_EMBED_MODEL_DELAY_MS;
 * deploys a freelancer agent to production; builds the embed; then in headless Chromium measures
 * - the size of v1.js, chat.js and chat.css (bytes and gzip);
 * - a customer page's navigation start → the bubble visible (first visits: a fresh browser
 *   context each, nothing cached; repeat visits: reloads, v1.js from the HTTP cache);
 * - in the hosted chat page, pressing Enter → the first character of the reply in the page, next to
 *   the same message POSTed to /v1/public/chat from Node (→ the first `text` event); the
 *   difference is the overhead of the page.
 * Everything runs on 127.0.0.1 (the customer site as http://shop.localhost:<port>). Settings
 * (environment): BENCH_EMBED_LOADS [20], BENCH_EMBED_SENDS [30], BENCH_EMBED_MODEL_DELAY_MS [5],
 * plus DATABASE_URL, TEMPORAL_CLI_PATH, CHROMIUM_PATH. The measurements themselves: lib/embed-timing.ts.
 */

const startedAt = Date.now();
const log = (line: string) => process.stderr.write(`[bench +${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

function int(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name}: a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  return value;
}

const settings = {
  loads: int('BENCH_EMBED_LOADS', 20, 10, 1000),
  sends: int('BENCH_EMBED_SENDS', 30, 20, 1000),
  modelDelayMs: int('BENCH_EMBED_MODEL_DELAY_MS', 5, 0, 1000),
  warmup: 3,
};

/** `p50 12.3 ms, p95 45.6 ms (n=20, min 10.1, max 50.2)` */
function figures(samples: number[]): string {
  if (samples.length === 0) return 'no samples';
  return `p50 ${ms(percentile(samples, 50))} ms, p95 ${ms(percentile(samples, 95))} ms  (n=${samples.length}, min ${ms(Math.min(...samples))}, max ${ms(Math.max(...samples))})`;
}
const signed = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(1)}` : 'n/a');

async function run(cleanup: Cleanup): Promise<void> {
  out('# bench:embed');
  out();
  out(`machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`);
  out(
    `model: the offline model (local:offline) with LOCAL_MODEL_DELAY_MS=${settings.modelDelayMs} — a ${settings.modelDelayMs} ms pause before each streamed word, ` +
      'so "first character" includes one such pause',
  );

  log('building the embed…');
  const built = await buildEmbed();

  log('starting PostgreSQL, Temporal, API and worker…');
  const stack = await startStack(benchConfig(), cleanup, log, {
    env: {
      MODEL_STANDARD: 'local:offline',
      MODEL_PREMIUM: 'local:offline',
      LOCAL_MODEL_DELAY_MS: String(settings.modelDelayMs),
      PUBLIC_CHAT_PER_VISITOR: '100000',
      PUBLIC_CHAT_PER_ADDRESS: '100000',
      PUBLIC_CHAT_PER_TOKEN: '100000',
      PUBLIC_READS_PER_ADDRESS: '100000',
    },
  });
  out(`PostgreSQL: ${stack.postgresKind}; Temporal: dev server in memory; API and worker: separate processes; public chat limits raised to 100000/min for the run`);

  log('deploying an agent to production…');
  const agent = await apiJson<{ id: string }>(stack.baseURL, stack.apiKey, 'POST', '/v1/agents', { name: 'Bench Shop', role: 'freelancer', greeting: 'Hi! How can I help?' });
  const versions = await apiJson<{ data: Array<{ id: string }> }>(stack.baseURL, stack.apiKey, 'GET', `/v1/agents/${agent.id}/deployments`);
  await apiJson(stack.baseURL, stack.apiKey, 'POST', '/v1/deployments/prod', { versionId: versions.data[0]!.id });
  const { token } = await apiJson<{ token: string }>(stack.baseURL, stack.apiKey, 'GET', `/v1/agents/${agent.id}/public-token`);

  const served = await fetch(`${stack.baseURL}/embed/v1.js`, { headers: { 'accept-encoding': 'gzip, br' } });
  const servedBytes = (await served.arrayBuffer()).byteLength;
  out();
  out('## Sizes (esbuild, minified; gzip = zlib default level)');
  for (const f of built) {
    const name = path.basename(f.file);
    const budget = name === 'v1.js' ? `  (budget ${LOADER_GZIP_BUDGET} gzip: ${f.gzipBytes <= LOADER_GZIP_BUDGET ? 'within' : 'OVER'})` : '';
    out(`${name.padEnd(9)} ${String(f.bytes).padStart(7)} bytes  ${String(f.gzipBytes).padStart(6)} gzip${budget}`);
  }
  out(
    `GET /embed/v1.js as served: ${servedBytes} bytes, Content-Encoding ${served.headers.get('content-encoding') ?? 'none'}, ` +
      `Cache-Control ${served.headers.get('cache-control') ?? 'none'}`,
  );

  const site = await startCustomerSite({ embedBase: stack.baseURL, agentId: agent.id });
  cleanup.add('customer site', () => site.close());
  log('launching Chromium…');
  const browser = await launchChromium();
  cleanup.add('Chromium', () => browser.close());
  out(`browser: Chromium ${browser.version()} headless (playwright-core), on the same machine`);

  log(`bubble: ${settings.warmup} + ${settings.loads} first visits, then ${settings.warmup} + ${settings.loads} reloads`);
  const loads = await measureLoads(browser, site.url(), settings);
  out();
  out(`## Customer page (${site.origin}, v1.js from ${stack.baseURL}): navigation start → bubble visible`);
  for (const [label, timings] of [
    ['first visit (fresh browser context each, nothing cached)', loads.first],
    ['repeat visit (reload, v1.js from the HTTP cache)', loads.repeat],
  ] as const) {
    out(`${label}:`);
    out(`  bubble visible                  ${figures(timings.map((t) => t.bubble))}`);
    out(`  of which: DOMContentLoaded      ${figures(timings.map((t) => t.domContentLoaded))}`);
    out(`            v1.js received        ${figures(timings.map((t) => t.loaderLoaded).filter(Number.isFinite))}`);
    out(`            agent metadata (GET /v1/public/agents/:id) received  ${figures(timings.map((t) => t.metaAnswered).filter(Number.isFinite))}`);
  }

  log(`sends: ${settings.warmup} + ${settings.sends} from the hosted page and as many straight to the API, alternating`);
  const context = await browser.newContext({ viewport: { width: 400, height: 700 } });
  cleanup.add('browser context', () => context.close());
  const page = await context.newPage();
  const runTag = Date.now().toString(36);
  await page.goto(`${stack.baseURL}/embed/${agent.id}#uid=bench-page-${runTag}-start`, { timeout: STEP_TIMEOUT_MS });
  await newVisitor(page, `bench-page-${runTag}-start`);
  await installStopwatch(page);
  const viaPage: number[] = [];
  const direct: number[] = [];
  for (let i = 0; i < settings.warmup + settings.sends; i++) {
    await newVisitor(page, `bench-page-${runTag}-${i}`);
    const p = await pageSend(page);
    const d = await directSend(stack.baseURL, token, `bench-direct-${runTag}-${i}`);
    if (i >= settings.warmup) {
      viaPage.push(p);
      direct.push(d);
    }
  }
  out();
  out(`## Send → first streamed character (${settings.sends} sends each, one at a time, each from a new visitor; message ${JSON.stringify(MESSAGE)})`);
  out(`hosted page in Chromium (Enter in the composer → first reply character in the page):  ${figures(viaPage)}`);
  out(`POST /v1/public/chat from Node (request → first \`text\` event):                      ${figures(direct)}`);
  const overhead50 = percentile(viaPage, 50) - percentile(direct, 50);
  const overhead95 = percentile(viaPage, 95) - percentile(direct, 95);
  out(`overhead of the page: p50 ${signed(overhead50)} ms, p95 ${signed(overhead95)} ms`);
  const gzip = (name: string) => built.find((f) => path.basename(f.file) === name)?.gzipBytes;
  appendResult('embed', {
    loaderGzipBytes: gzip('v1.js'),
    chatJsGzipBytes: gzip('chat.js'),
    chatCssGzipBytes: gzip('chat.css'),
    bubbleFirstP50Ms: percentile(loads.first.map((t) => t.bubble), 50),
    bubbleFirstP95Ms: percentile(loads.first.map((t) => t.bubble), 95),
    bubbleRepeatP50Ms: percentile(loads.repeat.map((t) => t.bubble), 50),
    bubbleRepeatP95Ms: percentile(loads.repeat.map((t) => t.bubble), 95),
    pageSendP50Ms: percentile(viaPage, 50),
    pageSendP95Ms: percentile(viaPage, 95),
    directSendP50Ms: percentile(direct, 50),
    directSendP95Ms: percentile(direct, 95),
  });
  out('(the page also renders markdown once per animation frame, so its first character waits for the next frame: up to ~16 ms at 60 Hz)');
}

async function main(): Promise<void> {
  const cleanup = new Cleanup();
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) process.exit(1);
    interrupted = true;
    log(`${signal}: cleaning up…`);
    void cleanup.run(log).finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await run(cleanup);
  } finally {
    log('stopping everything…');
    await cleanup.run(log);
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
