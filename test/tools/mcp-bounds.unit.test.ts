import assert from 'node:assert/strict';
import type { McpServer } from '../../domain/agent-tools';
import { createSafeFetch } from '../../activities/outbound/safe-fetch';
import { toolLimits } from '../../activities/tools/limits';
import { callMcpTool, listMcpTools } from '../../activities/tools/mcp/tools';
import type { ToolResult } from '../../activities/tools/types';
import { startHostileMcp, type HostileServer } from '../support/mcp-hostile';

/**
 * A hostile MCP server (its own process, test/support/mcp-hostile-server.ts) answers a tool call
 * with 300 MB, with a gzip bomb (1 GiB from about 1 MiB on the wire) or with an endless event
 * stream. Each call must end quickly with a tool error naming the bound, while this process — the
 * worker — stays far below what was sent: the answer is refused as it arrives, never buffered.
 */

const MiB = 1024 * 1024;
/** What this process may grow by during one hostile call: far below the 300 MB sent. */
const HEAP_GROWTH_MAX = 64 * MiB;
const RSS_GROWTH_MAX = 128 * MiB;
/** The servers' timeout: a refusal must come well before it (not as a timeout). */
const TIMEOUT_MS = 20_000;
const REFUSED_WITHIN_MS = 10_000;

const messageRefusal = `hostile.dump failed: the server sent a message larger than ${toolLimits.mcpMessageBytes / MiB} MiB, the most one MCP message may be; it was not read`;
const sessionRefusal = `hostile.dump failed: the server sent more than ${toolLimits.mcpSessionBytes / MiB} MiB, the most one MCP listing or call may read; the rest was not read`;

interface Measured<T> {
  result: T;
  ms: number;
  /** The largest growth of heapUsed and of RSS seen while `run` ran. */
  heap: number;
  rss: number;
}

async function measured<T>(run: () => Promise<T>): Promise<Measured<T>> {
  const start = process.memoryUsage();
  const started = Date.now();
  let heap = 0;
  let rss = 0;
  const sample = () => {
    const now = process.memoryUsage();
    heap = Math.max(heap, now.heapUsed - start.heapUsed);
    rss = Math.max(rss, now.rss - start.rss);
  };
  const timer = setInterval(sample, 5);
  try {
    const result = await run();
    sample();
    const ms = Date.now() - started;
    // MCP_BOUNDS_DEBUG=1 prints what each call cost.
    if (process.env.MCP_BOUNDS_DEBUG) process.stderr.write(`    ${ms} ms, heap +${mb(heap)}, RSS +${mb(rss)}\n`);
    return { result, ms, heap, rss };
  } finally {
    clearInterval(timer);
  }
}

const mb = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

function assertContained(m: Measured<unknown>): void {
  assert.ok(m.ms < REFUSED_WITHIN_MS, `refused after ${m.ms} ms: not within ${REFUSED_WITHIN_MS} ms`);
  assert.ok(m.heap < HEAP_GROWTH_MAX, `the heap grew by ${mb(m.heap)}`);
  assert.ok(m.rss < RSS_GROWTH_MAX, `RSS grew by ${mb(m.rss)}`);
}

describe('MCP: a hostile server is read within bounds', function () {
  this.timeout(60_000);
  let hostile: HostileServer;
  const fetch = createSafeFetch({ allowPrivate: ['127.0.0.0/8'] });
  const server = (path: string, transport: McpServer['transport'] = 'http'): McpServer => ({ name: 'hostile', url: `${hostile.origin}${path}`, transport, timeoutMs: TIMEOUT_MS });
  const call = (s: McpServer): Promise<ToolResult> => callMcpTool(s, 'dump', {}, { headers: {}, fetch });

  before(async () => {
    hostile = await startHostileMcp();
  });
  after(async () => {
    await hostile?.stop();
  });

  for (const [mode, what] of [
    ['huge-json', 'a 300 MB JSON answer'],
    ['huge-sse', 'a 300 MB event in an event stream'],
  ] as const) {
    it(`${what} is refused as it arrives, naming the bound`, async () => {
      const m = await measured(() => call(server(`/${mode}`)));
      assert.deepEqual(m.result, { ok: false, content: messageRefusal });
      assertContained(m);
      // The download was cancelled, not read to the end and dropped.
      const sent = (await hostile.stats())[mode] ?? 0;
      assert.ok(sent < 64 * MiB, `the server wrote ${mb(sent)}`);
    });
  }

  it('a gzip bomb (Content-Encoding: gzip, 1 GiB inflated) is counted as inflated bytes and refused', async () => {
    const m = await measured(() => call(server('/gzip-json')));
    assert.deepEqual(m.result, { ok: false, content: messageRefusal });
    assertContained(m);
  });

  it('an endless stream of small events is refused at the session bound', async () => {
    const m = await measured(() => call(server('/flood-sse')));
    assert.deepEqual(m.result, { ok: false, content: sessionRefusal });
    assertContained(m);
  });

  it('over HTTP+SSE, a 300 MB event on the stream ends the call at once with the bound, not at its timeout', async () => {
    const m = await measured(() => call(server('/sse/huge-sse', 'sse')));
    assert.deepEqual(m.result, { ok: false, content: messageRefusal });
    assertContained(m);
  });

  it('a 300 MB tool listing leaves the server out with the bound as its problem', async () => {
    const m = await measured(() => listMcpTools([server('/huge-list')], { headers: () => ({}), fetch }));
    assert.deepEqual(m.result.tools, []);
    assert.deepEqual(m.result.problems, [
      `MCP server hostile could not list its tools: the server sent a message larger than ${toolLimits.mcpMessageBytes / MiB} MiB, the most one MCP message may be; it was not read`,
    ]);
    assertContained(m);
  });

  it('an answer within the bounds (3 MiB, gzip) is read, and the model gets at most 16 000 characters of it', async () => {
    const r = await call(server('/fine'));
    assert.equal(r.ok, true);
    assert.match(r.content, /^x{16000}\n\[truncated: \d+ more characters\]$/);
    assert.equal(r.content.split('\n')[0]!.length, toolLimits.modelTextChars);
  });
});
