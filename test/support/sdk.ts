import assert from 'node:assert/strict';
import http from 'node:http';
import { z } from 'zod';
import { agentSchema, versionItemSchema } from '../../domain/agent';
import { connectionStatusSchema } from '../../domain/credentials';
import { evalComparisonSchema, evalGateSchema, evalRunListItemSchema, evalRunSchema } from '../../domain/eval-runs';
import { evalCaseSchema } from '../../domain/evals';
import { fileEntrySchema } from '../../domain/file-path';
import { projectSchema } from '../../domain/project';
import { projectConversationSchema } from '../../domain/project-conversation';
import { workspaceSchema } from '../../domain/workspace';
import { Service, ServiceError, type WorkspaceClient } from '../../sdk/src';
import type { RunningApi } from './api';

const listOf = (item: z.ZodType) => z.object({ data: z.array(item) }).strict();
const errorBodySchema = z
  .object({ error: z.object({ code: z.string().min(1), message: z.string(), retryable: z.boolean(), retryAfter: z.number().optional() }).strict() })
  .strict();
const A = '/v1/agents/[^/]+';
const P = '/v1/projects/[^/]+';
const C = '/v1/conversations/[^/]+';

/**
 * The server schema of each successful JSON answer, by method and path; `null`: no body (204) or
 * raw bytes. Answers of routes not listed pass unchecked; error bodies are always checked.
 */
const answerSchemas: Array<[string, RegExp, z.ZodType | null]> = [
  ['GET', /^\/v1\/workspace$/, workspaceSchema.strict()],
  ['POST', /^\/v1\/agents$/, agentSchema],
  ['GET', /^\/v1\/agents$/, listOf(agentSchema)],
  ['GET', new RegExp(`^${A}$`), agentSchema],
  ['PATCH', new RegExp(`^${A}$`), agentSchema],
  ['DELETE', new RegExp(`^${A}$`), null],
  ['GET', new RegExp(`^${A}/versions$`), listOf(agentSchema)],
  ['GET', new RegExp(`^${A}/deployments$`), listOf(versionItemSchema)],
  ['PUT', new RegExp(`^${A}/workflows$`), agentSchema],
  ['DELETE', new RegExp(`^${A}/workflows/[^/]+$`), agentSchema],
  ['PUT', new RegExp(`^${A}/triggers$`), agentSchema],
  ['GET', new RegExp(`^${A}/knowledge$`), listOf(fileEntrySchema)],
  ['PUT', new RegExp(`^${A}/knowledge/.+$`), fileEntrySchema],
  ['GET', new RegExp(`^${A}/knowledge/.+$`), null],
  ['DELETE', new RegExp(`^${A}/knowledge/.+$`), null],
  ['GET', new RegExp(`^${A}/evals$`), listOf(evalCaseSchema)],
  ['PUT', new RegExp(`^${A}/evals/[^/]+$`), evalCaseSchema],
  ['DELETE', new RegExp(`^${A}/evals/[^/]+$`), null],
  ['POST', new RegExp(`^${A}/eval-runs$`), evalRunSchema],
  ['GET', new RegExp(`^${A}/eval-runs$`), listOf(evalRunListItemSchema)],
  ['GET', new RegExp(`^${A}/eval-runs/[^/]+$`), evalRunSchema],
  ['POST', new RegExp(`^${A}/eval-runs/[^/]+/cancel$`), evalRunSchema],
  ['GET', new RegExp(`^${A}/eval-runs/[^/]+/compare$`), evalComparisonSchema],
  ['GET', new RegExp(`^${A}/eval-gate$`), evalGateSchema],
  ['PUT', new RegExp(`^${A}/eval-gate$`), evalGateSchema],
  ['POST', /^\/v1\/projects$/, projectSchema],
  ['GET', /^\/v1\/projects$/, listOf(projectSchema)],
  ['GET', new RegExp(`^${P}$`), projectSchema],
  ['PATCH', new RegExp(`^${P}$`), projectSchema],
  ['DELETE', new RegExp(`^${P}$`), null],
  ['POST', new RegExp(`^${P}/agents$`), projectSchema],
  ['DELETE', new RegExp(`^${P}/agents/[^/]+$`), projectSchema],
  ['POST', new RegExp(`^${P}/archive$`), projectSchema],
  ['POST', new RegExp(`^${P}/conversations$`), projectConversationSchema],
  ['GET', new RegExp(`^${P}/conversations$`), listOf(projectConversationSchema)],
  ['GET', new RegExp(`^${P}/files$`), listOf(fileEntrySchema)],
  ['PUT', new RegExp(`^${A}/credentials$`), null],
  ['PUT', new RegExp(`^${C}/credentials$`), null],
  ['GET', new RegExp(`^${A}/connections$`), listOf(connectionStatusSchema)],
  ['GET', new RegExp(`^${C}/connections$`), listOf(connectionStatusSchema)],
  ['DELETE', new RegExp(`^${A}/connections/[^/]+$`), null],
];

/** Why an answer does not match the server's schemas, or undefined when it does. */
async function schemaProblem(method: string, url: URL, res: Response): Promise<string | undefined> {
  const text = await res.clone().text();
  if (!res.ok) {
    const r = errorBodySchema.safeParse(text ? JSON.parse(text) : undefined);
    return r.success ? undefined : `error body ${text}: ${r.error.message}`;
  }
  const route = answerSchemas.find(([m, path]) => m === method && path.test(url.pathname));
  if (!route) return undefined; // a route this table does not cover yet (e.g. conversations): passed through unchecked
  const schema = route[2];
  if (schema === null) {
    if (res.status === 204 && text !== '') return `204 with a body: ${text}`;
    return undefined;
  }
  const r = schema.safeParse(JSON.parse(text));
  return r.success ? undefined : `${text.slice(0, 500)}: ${r.error.message}`;
}

/**
 * A fresh workspace and the SDK on its key; `requests` lists every request the SDK sent (`METHOD url`).
 * Every answer is checked against the server's zod schemas on the way in: one that does not match
 * reaches the SDK as a 500 with code `schema_violation`, so the call fails and names the problem.
 */
export interface SdkWorkspace {
  ws: WorkspaceClient;
  workspaceId: string;
  apiKey: string;
  requests: string[];
}

export async function newSdkWorkspace(api: RunningApi, name = 'test'): Promise<SdkWorkspace> {
  const { workspace, apiKey } = await api.newWorkspace({ name });
  const requests: string[] = [];
  // The real global fetch, only observed: every call still reaches the real server.
  const observed: typeof fetch = async (input, init) => {
    const method = init?.method ?? 'GET';
    requests.push(`${method} ${String(input)}`);
    const res = await fetch(input, init);
    const problem = await schemaProblem(method, new URL(String(input)), res);
    if (problem === undefined) return res;
    const error = { code: 'schema_violation', message: `${method} ${String(input)}: ${problem}`, retryable: false };
    return new Response(JSON.stringify({ error }), { status: 500, headers: { 'content-type': 'application/json' } });
  };
  const ws = new Service({ apiKey, baseURL: api.baseURL, fetch: observed });
  return { ws, workspaceId: workspace.id, apiKey, requests };
}

/** The ServiceError a call rejects with; fails the test when the call succeeds or throws anything else. */
export async function failureOf(call: Promise<unknown>): Promise<ServiceError> {
  try {
    await call;
  } catch (e) {
    assert.ok(e instanceof ServiceError, `expected a ServiceError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the call to fail, and it succeeded');
}

/** Asserts the call fails with `status` and `code`; returns the error for further checks. */
export async function expectFailure(call: Promise<unknown>, status: number, code: string): Promise<ServiceError> {
  const e = await failureOf(call);
  assert.equal(e.code, code, `code (message: ${e.message})`);
  assert.equal(e.status, status, `status of ${code}`);
  assert.equal(e.retryable, false, `${code} is not retryable`);
  return e;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/**
 * One request with the path sent byte for byte. `fetch` parses URLs the WHATWG way, which
 * resolves `..`, `%2E%2E` and `.` segments before sending; this does not, so tests can show
 * what the server does with them.
 */
export function rawRequest(
  baseURL: string,
  method: string,
  path: string,
  opts: { apiKey?: string; body?: Buffer | string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const url = new URL(baseURL);
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: the caller asserts on the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}
