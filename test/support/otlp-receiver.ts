import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OTLP/JSON attribute value (`ExportTraceServiceRequest` as the HTTP exporter sends it). */
interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportTraceServiceRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: KeyValue[] }> }>;
  }>;
}

/** One received span, flattened: ids in hex, attributes as plain values, and its resource's service name. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  service: string | undefined;
  attributes: Record<string, string | number | boolean | undefined>;
}

const plain = (v: AnyValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));
const record = (kvs: KeyValue[] = []) => Object.fromEntries(kvs.map((kv) => [kv.key, plain(kv.value)]));

/**
 * A loopback OTLP/HTTP trace receiver: accepts `POST /v1/traces` with a JSON body (what
 * @opentelemetry/exporter-trace-otlp-http sends by default) and keeps every span. Anything else,
 * protobuf included, is refused with 415 so a change of encoding fails the test loudly.
 */
export async function startOtlpReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; requests: () => number; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !req.headers['content-type']?.startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      requests++;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportTraceServiceRequest;
      for (const rs of body.resourceSpans ?? []) {
        const service = record(rs.resource?.attributes)['service.name'];
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              service: typeof service === 'string' ? service : undefined,
              attributes: record(s.attributes),
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
