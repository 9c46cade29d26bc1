/**
 * MCP tools: an agent's `mcpServers` offer their tools to the model, named `<server>__<tool>`.
 *
 * Each server is reached over Streamable HTTP (`transport: 'http'`, the default) or the older
 * HTTP+SSE transport (`'sse'`) with the official SDK. Every outbound request goes through the
 * fetch given in the options (the outbound-safety fetch in production): the SDK transports take a
 * `fetch` option and use it for every POST, GET (event stream) and DELETE they make.
 *
 * `timeoutMs` (default 30 s) bounds connecting (transport start + `initialize`), listing (all
 * pages together) and each call. Listing and calling never throw: an unreachable server's tools
 * are left out with a `problems` entry, a failed call is `ok: false` with a clear message.
 */
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '../../domain/agent';
import type { JsonSchemaObject, ModelTool } from '../model/types';
import { capText } from './limits';
import type { SafeFetch } from '../outbound/safe-fetch';
import type { ToolResult } from './types';

export const MCP_DEFAULT_TIMEOUT_MS = 30_000;
/** Longest model-facing tool name OpenAI and Anthropic accept. */
export const MCP_MAX_NAME = 64;
/** A server's tool description is cut to this many characters (a server cannot flood the prompt). */
export const MCP_MAX_DESCRIPTION = 4_000;
/** At most this many `tools/list` pages are read from one server. */
const MAX_LIST_PAGES = 20;
/** How long `close()` waits for the session's DELETE and the transport to close. */
const CLOSE_WAIT_MS = 2_000;
const CLIENT_INFO = { name: 'hosted-agents', version: '0.1.0' };

/** A tool as one MCP server describes it. */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  /** The tool's JSON Schema (type: 'object'). */
  inputSchema: JsonSchemaObject;
}

export interface McpConnectOptions {
  /** Headers sent with every request, secrets already substituted. */
  headers: Record<string, string>;
  /** Used for every HTTP request the transport makes (the outbound-safety fetch); global fetch otherwise. */
  fetch?: SafeFetch;
  /** Aborts connecting. */
  signal?: AbortSignal;
}

/** One connected MCP server. */
export interface McpSession {
  readonly server: McpServer;
  /** All of the server's tools (every page). Rejects with a clear message on failure or timeout. */
  listTools(signal?: AbortSignal): Promise<McpToolInfo[]>;
  /** Runs one tool; never throws. */
  callTool(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
  /** Ends the session (DELETE for Streamable HTTP) and closes the transport; never throws. */
  close(): Promise<void>;
}

/** One MCP tool as offered to the model. */
export interface McpToolEntry {
  /** What the model calls it by: `[A-Za-z0-9_-]{1,64}`, unique across the listing. */
  modelName: string;
  /** `<server>.<tool>`, for steps and logs. */
  displayName: string;
  /** The server's name (from the agent's `mcpServers`). */
  server: string;
  /** The tool's name on that server. */
  tool: string;
  definition: ModelTool;
}

export interface McpListOptions {
  /** Each server's headers with secrets substituted; defaults to `server.headers` as configured. */
  headers?: (server: McpServer) => Record<string, string>;
  fetch?: SafeFetch;
  signal?: AbortSignal;
}

export interface McpListing {
  tools: McpToolEntry[];
  /** One line per server whose tools are missing (unreachable, timed out, refused…). */
  problems: string[];
}

// ---------------------------------------------------------------------------------------------
// Names

const INVALID_NAME_CHARS = /[^A-Za-z0-9_-]/gu;

function shortHash(seed: string): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, 8);
}

/** `base` cut so that `_<8 hex>` fits in 64 characters, then that suffix. */
function withHash(base: string, seed: string): string {
  return `${base.slice(0, MCP_MAX_NAME - 9)}_${shortHash(seed)}`;
}

/**
 * The model-facing name of `toolName` on `serverName`: `<server>__<tool>`, with every character
 * outside `[A-Za-z0-9_-]` replaced by `_`. When that replacement changed anything or the name is
 * longer than 64 characters, it is cut and given a stable 8-hex suffix hashed from the original
 * server and tool names, so two different tools do not end up with the same sanitised name.
 */
export function mcpToolName(serverName: string, toolName: string): string {
  const raw = `${serverName}__${toolName}`;
  const clean = raw.replace(INVALID_NAME_CHARS, '_');
  if (clean === raw && clean.length <= MCP_MAX_NAME) return clean;
  return withHash(clean, `${serverName}\u0000${toolName}`);
}

/**
 * Model-facing names for a listing, in order: `mcpToolName` for each, and for any name already
 * taken by an earlier entry (e.g. server `a` tool `b__c` against server `a__b` tool `c`) a
 * hash-suffixed one instead. The first entry keeps the plain name.
 */
export function assignMcpToolNames(pairs: ReadonlyArray<{ server: string; tool: string }>): string[] {
  const taken = new Set<string>();
  return pairs.map(({ server, tool }) => {
    let name = mcpToolName(server, tool);
    const base = `${server}__${tool}`.replace(INVALID_NAME_CHARS, '_');
    for (let n = 0; taken.has(name); n++) name = withHash(base, `${server}\u0000${tool}\u0000${n}`);
    taken.add(name);
    return name;
  });
}

// ---------------------------------------------------------------------------------------------
// Errors and bounds

/** The server's URL without credentials or query, fit for messages. */
function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** An error's message with its cause (fetch's "fetch failed" says little without ECONNREFUSED). */
export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause: unknown = err.cause;
  let text = err.message || err.name;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    const detail = typeof code === 'string' ? code : cause.message;
    if (detail && !text.includes(detail)) text += ` (${detail})`;
  }
  return text;
}

function isTimeout(err: unknown): boolean {
  return err instanceof McpError && err.code === ErrorCode.RequestTimeout;
}

/** `promise`, or a rejection with `signal.reason` as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  promise.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Waits for `promise` at most `ms`; never rejects. */
async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// Results

function base64Bytes(data: string): number {
  return Buffer.byteLength(data, 'base64');
}

function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'audio':
      return `[audio ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource_link':
      return `[resource link ${block.uri}${block.name ? ` "${block.name}"` : ''}${block.mimeType ? `, ${block.mimeType}` : ''}]`;
    case 'resource': {
      const r = block.resource;
      if ('text' in r) return `[resource ${r.uri}${r.mimeType ? `, ${r.mimeType}` : ''}]\n${r.text}`;
      return `[resource ${r.uri}, ${r.mimeType ?? 'binary'}, ${base64Bytes(r.blob)} bytes]`;
    }
    default: {
      const type: unknown = (block as { type?: unknown }).type;
      return `[${typeof type === 'string' ? type : 'unknown'} content]`;
    }
  }
}

function hasContent(result: object): result is CallToolResult {
  return Array.isArray((result as { content?: unknown }).content);
}

/** A `tools/call` result as the model sees it: text joined, other content summarised, capped. */
export function mcpResultToToolResult(
  result: { content?: ContentBlock[]; structuredContent?: Record<string, unknown>; isError?: boolean },
  displayName: string,
): ToolResult {
  const parts = (result.content ?? []).map(renderBlock);
  let text = parts.join('\n');
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (result.isError) return { ok: false, content: capText(text || `${displayName} reported an error`) };
  return { ok: true, content: capText(text || '(no content)') };
}

// ---------------------------------------------------------------------------------------------
// Sessions

function makeTransport(server: McpServer, url: URL, opts: McpConnectOptions): Transport {
  const safe = opts.fetch;
  const fetch: FetchLike | undefined = safe
    ? (input, init) => safe(typeof input === 'string' ? input : input.href, init)
    : undefined;
  const common = { requestInit: { headers: { ...opts.headers } }, ...(fetch ? { fetch } : {}) };
  return server.transport === 'sse' ? new SSEClientTransport(url, common) : new StreamableHTTPClientTransport(url, common);
}

/**
 * Connects to `server` and initialises an MCP session within `server.timeoutMs` (default 30 s).
 * Rejects with a message naming the server (never its headers) when the URL is invalid, the
 * server is unreachable, refuses, or does not answer in time.
 */
export async function connectMcp(server: McpServer, opts: McpConnectOptions): Promise<McpSession> {
  const timeoutMs = server.timeoutMs ?? MCP_DEFAULT_TIMEOUT_MS;
  const where = `MCP server ${server.name}`;
  let url: URL;
  try {
    url = new URL(server.url);
  } catch {
    throw new Error(`${where}: invalid URL`);
  }
  if (opts.signal?.aborted) throw new Error(`${where}: connecting cancelled`);

  const transport = makeTransport(server, url, opts);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  // Transport errors after connecting surface as request failures; nothing to log here.
  client.onerror = () => undefined;

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('timeout')), timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline.signal]) : deadline.signal;
  try {
    // The SDK's request timeout covers `initialize`; the race also covers the transport's start
    // (the SSE transport waits for the server's `endpoint` event, with no timeout of its own).
    await untilAborted(client.connect(transport, { timeout: timeoutMs, signal }), signal);
  } catch (err) {
    await settleWithin(client.close(), CLOSE_WAIT_MS);
    await settleWithin(transport.close(), CLOSE_WAIT_MS);
    // The SDK reports an aborted request as a RequestTimeout error too: look at the signals first.
    const late = `${where} did not answer within ${timeoutMs} ms (${shownUrl(url)})`;
    if (deadline.signal.aborted) throw new Error(late);
    if (opts.signal?.aborted) throw new Error(`${where}: connecting cancelled`);
    if (isTimeout(err)) throw new Error(late);
    throw new Error(`${where} unreachable at ${shownUrl(url)}: ${errorText(err)}`);
  } finally {
    clearTimeout(timer);
  }

  let closed = false;
  return {
    server,

    async listTools(listSignal?: AbortSignal): Promise<McpToolInfo[]> {
      const started = Date.now();
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      try {
        for (let page = 0; page < MAX_LIST_PAGES; page++) {
          const remaining = timeoutMs - (Date.now() - started);
          if (remaining <= 0) throw new McpError(ErrorCode.RequestTimeout, 'Request timed out');
          const res = await client.listTools(cursor ? { cursor } : undefined, {
            timeout: remaining,
            ...(listSignal ? { signal: listSignal } : {}),
          });
          for (const t of res.tools) {
            tools.push({
              name: t.name,
              ...(t.title ? { title: t.title } : {}),
              ...(t.description ? { description: t.description } : {}),
              inputSchema: t.inputSchema,
            });
          }
          if (!res.nextCursor) break;
          cursor = res.nextCursor;
        }
      } catch (err) {
        if (listSignal?.aborted) throw new Error(`${where}: listing tools cancelled`);
        if (isTimeout(err)) throw new Error(`${where} did not list its tools within ${timeoutMs} ms`);
        throw new Error(`${where} could not list its tools: ${errorText(err)}`);
      }
      return tools;
    },

    async callTool(name: string, args: Record<string, unknown>, callSignal?: AbortSignal): Promise<ToolResult> {
      const shown = `${server.name}.${name}`;
      if (closed) return { ok: false, content: `${shown} failed: the MCP session is closed` };
      if (callSignal?.aborted) return { ok: false, content: `${shown} cancelled` };
      try {
        const res = await client.callTool({ name, arguments: args }, CallToolResultSchema, {
          timeout: timeoutMs,
          ...(callSignal ? { signal: callSignal } : {}),
        });
        // The SDK's return type includes the pre-2024-11 `{ toolResult }` shape; the schema above rules it out.
        if (!hasContent(res)) return { ok: true, content: capText(JSON.stringify(res.toolResult) ?? '(no content)') };
        return mcpResultToToolResult(res, shown);
      } catch (err) {
        if (callSignal?.aborted) return { ok: false, content: `${shown} cancelled` };
        if (isTimeout(err)) return { ok: false, content: `${shown} timed out after ${timeoutMs} ms` };
        return { ok: false, content: capText(`${shown} failed: ${errorText(err)}`) };
      }
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (transport instanceof StreamableHTTPClientTransport) await settleWithin(transport.terminateSession(), CLOSE_WAIT_MS);
      await settleWithin(client.close(), CLOSE_WAIT_MS);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Listing and calling across servers

function toolDescription(tool: McpToolInfo, displayName: string): string {
  const text = tool.description?.trim() || tool.title?.trim() || `MCP tool ${displayName}`;
  return text.length <= MCP_MAX_DESCRIPTION ? text : `${text.slice(0, MCP_MAX_DESCRIPTION - 1)}…`;
}

async function listOne(server: McpServer, opts: McpListOptions): Promise<McpToolInfo[]> {
  const headers = opts.headers ? opts.headers(server) : { ...(server.headers ?? {}) };
  const session = await connectMcp(server, {
    headers,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  try {
    return await session.listTools(opts.signal);
  } finally {
    await session.close();
  }
}

/**
 * Every tool of every server, named for the model, servers in parallel (each within its own
 * `timeoutMs`). A server that fails is skipped with a line in `problems`; never throws.
 */
export async function listMcpTools(servers: readonly McpServer[], opts: McpListOptions = {}): Promise<McpListing> {
  const results = await Promise.all(
    servers.map(async (server) => {
      try {
        return { server, tools: await listOne(server, opts) };
      } catch (err) {
        return { server, tools: [] as McpToolInfo[], problem: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  const problems = results.flatMap((r) => (r.problem ? [r.problem] : []));
  const found = results.flatMap((r) => r.tools.map((tool) => ({ server: r.server.name, tool })));
  const names = assignMcpToolNames(found.map((f) => ({ server: f.server, tool: f.tool.name })));
  const tools = found.map((f, i): McpToolEntry => {
    const modelName = names[i]!;
    const displayName = `${f.server}.${f.tool.name}`;
    return {
      modelName,
      displayName,
      server: f.server,
      tool: f.tool.name,
      definition: { name: modelName, description: toolDescription(f.tool, displayName), parameters: f.tool.inputSchema },
    };
  });
  return { tools, problems };
}

/**
 * Connects, runs one tool and closes: what one tool-call activity does. Never throws; a server
 * that cannot be reached is `ok: false` with the reason. `signal` aborts connecting and the call.
 */
export async function callMcpTool(
  server: McpServer,
  tool: string,
  args: Record<string, unknown>,
  opts: McpConnectOptions,
): Promise<ToolResult> {
  let session: McpSession;
  try {
    session = await connectMcp(server, opts);
  } catch (err) {
    return { ok: false, content: `${server.name}.${tool} failed: ${err instanceof Error ? err.message : String(err)}` };
  }
  try {
    return await session.callTool(tool, args, opts.signal);
  } finally {
    await session.close();
  }
}
