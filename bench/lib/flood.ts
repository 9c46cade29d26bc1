/**
 * The flood of `bench:limits`, in its own process so that the well-behaved client's timings in the
 * parent are not taken on a busy event loop. Reads FLOOD_SPEC (JSON, see `FloodSpec`), runs every
 * client as fast as it can until the time is up, and prints one JSON line of counts (`FloodCounts`).
 */

interface FloodTarget {
  apiKey: string;
  method: 'GET' | 'PUT';
  /** `{i}` is replaced by the client's number (uploads: one file per client). */
  path: string;
  /** Bytes of the body (PUT). */
  bodyBytes?: number;
  clients: number;
}

export interface FloodSpec {
  baseURL: string;
  seconds: number;
  targets: FloodTarget[];
}

export interface FloodCounts {
  requests: number;
  byStatus: Record<string, number>;
  /** Requests that got no HTTP answer at all (connection refused or reset). */
  failed: number;
}

async function client(spec: FloodSpec, target: FloodTarget, i: number, until: number, counts: FloodCounts): Promise<void> {
  const url = `${spec.baseURL}${target.path.replace('{i}', String(i))}`;
  const body = target.bodyBytes ? 'x'.repeat(target.bodyBytes) : undefined;
  const headers: Record<string, string> = { authorization: `Bearer ${target.apiKey}` };
  if (body) headers['content-type'] = 'text/plain';
  while (Date.now() < until) {
    counts.requests++;
    try {
      const res = await fetch(url, { method: target.method, headers, body });
      await res.arrayBuffer();
      counts.byStatus[res.status] = (counts.byStatus[res.status] ?? 0) + 1;
    } catch {
      counts.failed++;
    }
  }
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.env.FLOOD_SPEC ?? '') as FloodSpec;
  const counts: FloodCounts = { requests: 0, byStatus: {}, failed: 0 };
  const until = Date.now() + spec.seconds * 1000;
  process.stdout.write('flooding\n');
  const runs: Array<Promise<void>> = [];
  for (const target of spec.targets) for (let i = 0; i < target.clients; i++) runs.push(client(spec, target, i, until, counts));
  await Promise.all(runs);
  process.stdout.write(`${JSON.stringify(counts)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`flood failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
