import { readFileSync } from 'node:fs';
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * The client side of `bench:streams`, in its own process so that its event loop and sockets are
 * not the API's: opens one `GET /v1/turns/:id/events` per entry of the spec (keep-alive agent, a
 * few at a time), and reports to its parent over IPC. Each `text` event received is reported at
 * once with its turn id and text (the parent timed its sending), so a sample includes this
 * process's parsing and one IPC hop; `ping` measures that hop alone.
 */

export interface StreamClientsSpec {
  baseURL: string;
  /** How many streams are being opened at any moment. */
  concurrency: number;
  streams: Array<{ turnId: string; apiKey: string }>;
}

export type ToParent =
  | { type: 'opened'; opened: number; retried: number; failed: number; firstError?: string }
  | { type: 'text'; turnId: string; text: string }
  | { type: 'pong'; id: number }
  | { type: 'stats'; open: number; ended: number; loopDelayP99Ms: number; loopDelayMaxMs: number };

export type ToChild = { type: 'ping'; id: number } | { type: 'stats' } | { type: 'resetLoopDelay' };

const send = (m: ToParent) => process.send?.(m);

const spec = JSON.parse(readFileSync(process.env.STREAMS_SPEC_FILE ?? '', 'utf8')) as StreamClientsSpec;
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
let open = 0;
let ended = 0;

class Refused extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    super(`HTTP ${status}: ${body.slice(0, 200)}`);
  }
}

/** Opens one stream; resolves once its first event (`start`) arrived, rejects on a refusal. */
function openOne(turnId: string, apiKey: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${spec.baseURL}/v1/turns/${turnId}/events`, { agent, headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => reject(new Refused(res.statusCode ?? 0, body)));
        return;
      }
      open++;
      res.setEncoding('utf8');
      let buffer = '';
      let started = false;
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(':')) continue; // a keepalive
          const data = block.split('\n').find((l) => l.startsWith('data: '));
          if (!data) continue;
          const event = JSON.parse(data.slice(6)) as { type: string; text?: string };
          if (!started) {
            started = true;
            resolve();
          }
          if (event.type === 'text') send({ type: 'text', turnId, text: event.text ?? '' });
        }
      });
      res.on('close', () => {
        open--;
        ended++;
      });
    });
    req.on('error', reject);
  });
}

async function openAll(): Promise<void> {
  let next = 0;
  let opened = 0;
  let failed = 0;
  let retried = 0;
  let firstError: string | undefined;
  const lane = async () => {
    while (next < spec.streams.length) {
      const s = spec.streams[next++]!;
      for (let attempt = 1; ; attempt++) {
        try {
          await openOne(s.turnId, s.apiKey);
          opened++;
          break;
        } catch (err) {
          // A key's stream slots are leased in PostgreSQL; two opens racing for its last free slots
          // can be refused although it holds fewer than its limit. A client retries a 429.
          if (err instanceof Refused && err.status === 429 && attempt < 5) {
            retried++;
            await new Promise((r) => setTimeout(r, 1000));
            continue;
          }
          failed++;
          firstError ??= err instanceof Error ? err.message : String(err);
          break;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, lane));
  send({ type: 'opened', opened, retried, failed, ...(firstError ? { firstError } : {}) });
}

process.on('message', (m: ToChild) => {
  if (m.type === 'ping') send({ type: 'pong', id: m.id });
  else if (m.type === 'resetLoopDelay') loopDelay.reset();
  else send({ type: 'stats', open, ended, loopDelayP99Ms: loopDelay.percentile(99) / 1e6, loopDelayMaxMs: loopDelay.max / 1e6 });
});
process.on('disconnect', () => process.exit(0));

openAll().catch((err: unknown) => {
  process.stderr.write(`stream clients failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
