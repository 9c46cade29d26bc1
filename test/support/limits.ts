import assert from 'node:assert/strict';
import http from 'node:http';
import type { RunningApi } from './api';
import { call, type ErrorJson, type JsonResponse } from '../../harness/http';
import { newId } from '../../domain/ids';

/** A 429 as README "Limits" promises: `rate_limited`, a `Retry-After` header and the same `retryAfter` in the body. */
export function assertRateLimited(res: JsonResponse<ErrorJson>, what: string): void {
  assert.equal(res.status, 429, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error.code, 'rate_limited', what);
  assert.equal(res.body.error.retryable, true, what);
  const header = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(header) && header >= 1, `${what}: Retry-After ${res.headers.get('retry-after')}`);
  assert.equal(res.body.error.retryAfter, header, `${what}: retryAfter in the body matches the header`);
}

/** A conversation of a new agent of the key's workspace. */
export async function newConversation(api: RunningApi, apiKey: string): Promise<{ agentId: string; conversationId: string }> {
  const agent = await call<{ id: string }>(api.baseURL, 'POST', '/v1/agents', { apiKey, body: { name: 'Limited' } });
  assert.equal(agent.status, 201, JSON.stringify(agent.body));
  const conversation = await call<{ id: string }>(api.baseURL, 'POST', `/v1/agents/${agent.body.id}/conversations`, { apiKey, body: {} });
  assert.equal(conversation.status, 201, JSON.stringify(conversation.body));
  return { agentId: agent.body.id, conversationId: conversation.body.id };
}

/**
 * A turn row marked running with no workflow behind it: it never ends, so a stream of it stays
 * open until the client leaves, and it counts as running for its workspace.
 */
export async function endlessTurn(api: RunningApi, workspaceId: string, conversationId: string): Promise<string> {
  const turn = await api.db.transaction(async (trx) => {
    // Inserted as a row, past admission: the tests that hold such turns fill the limits admission checks.
    const [created] = await trx('turns').insert({ id: newId('turn'), conversation_id: conversationId, workspace_id: workspaceId, agent_id: null, reserved: 0 }).returning<Array<{ id: string }>>('id');
    assert.ok(created, 'the turn was not inserted');
    await api.repos.turns.append({ turnId: created.id, events: [{ type: 'start', turnId: created.id }] }, trx);
    return created;
  });
  return turn.id;
}

/** An open event stream of a turn (`GET /v1/turns/:id/events`), or the error it was refused with. */
export interface HeldStream {
  status: number;
  error?: JsonResponse<ErrorJson>;
  /** Bytes received so far (keepalive comments included). */
  received(): number;
  close(): void;
}

export async function openStream(api: RunningApi, apiKey: string, turnId: string): Promise<HeldStream> {
  const controller = new AbortController();
  const res = await fetch(`${api.baseURL}/v1/turns/${turnId}/events`, { headers: { authorization: `Bearer ${apiKey}` }, signal: controller.signal });
  if (res.status !== 200 || !res.body) {
    const body = (await res.json()) as ErrorJson;
    return { status: res.status, error: { status: res.status, headers: res.headers, body }, received: () => 0, close: () => undefined };
  }
  let bytes = 0;
  const reader = res.body.getReader();
  const pump = async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      bytes += value.byteLength;
    }
  };
  pump().catch(() => undefined); // aborting ends the read with an AbortError
  return { status: 200, received: () => bytes, close: () => controller.abort() };
}

/** A raw `PUT` whose body arrives a byte at a time every `everyMs` and never completes until `finish`. */
export interface TricklingUpload {
  /** Status and body of the answer, once there is one (or `closed` when the connection was cut without one). */
  answer: Promise<{ status: number | 'closed'; body: string }>;
  finish(): void;
}

export function trickleUpload(baseURL: string, path: string, apiKey: string, opts: { totalBytes: number; everyMs: number }): TricklingUpload {
  const url = new URL(path, baseURL);
  const req = http.request(url, {
    method: 'PUT',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/octet-stream', 'content-length': String(opts.totalBytes) },
  });
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < opts.totalBytes - 1) {
      req.write('x');
      sent++;
    }
  }, opts.everyMs);
  const answer = new Promise<{ status: number | 'closed'; body: string }>((resolve) => {
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', () => resolve({ status: 'closed', body: '' }));
    req.on('close', () => clearInterval(timer));
  });
  req.flushHeaders();
  return {
    answer,
    finish() {
      clearInterval(timer);
      req.end('x'.repeat(opts.totalBytes - sent));
    },
  };
}
