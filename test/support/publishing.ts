import http from 'node:http';
import { call } from '../../harness/http';
import { collectTurn, type SeenEvent } from './sse';

/** A request to the API's port as if sent to `siteURL` (a deployment URL): the `Host` header is the site's. */
export function siteRequest(
  baseURL: string,
  siteURL: string,
  opts: { method?: string; path?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const api = new URL(baseURL);
  const site = new URL(siteURL);
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: api.hostname,
        port: api.port,
        method: opts.method ?? 'GET',
        path: opts.path ?? '/',
        headers: { host: site.host, ...(body ? { 'content-type': 'application/json' } : {}), ...opts.headers },
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.end(body);
  });
}

/** Creates a freelancer agent (version 1) and returns its id and version 1's id. */
export async function freelancer(
  baseURL: string,
  apiKey: string,
  fields: Record<string, unknown> = {},
): Promise<{ agentId: string; versionIds: () => Promise<Array<{ id: string; number: number; isProd: boolean; deployedAt: string }>> }> {
  const created = await call<{ id: string }>(baseURL, 'POST', '/v1/agents', { apiKey, body: { name: 'Shop Helper', role: 'freelancer', greeting: 'Hi! How can I help?', ...fields } });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const agentId = created.body.id;
  return {
    agentId,
    versionIds: async () => (await call<{ data: Array<{ id: string; number: number; isProd: boolean; deployedAt: string }> }>(baseURL, 'GET', `/v1/agents/${agentId}/deployments`, { apiKey })).body.data,
  };
}

/** One public chat message as a browser sends it, with the events it streams. */
export async function publicChat(
  baseURL: string,
  token: string,
  content: string,
  user: { id: string; name?: string; email?: string },
): Promise<{ status: number; headers: Headers; events: SeenEvent[]; errorBody?: unknown }> {
  return collectTurn(`${baseURL}/v1/public/chat`, { method: 'POST', apiKey: token, body: { content, user } });
}
