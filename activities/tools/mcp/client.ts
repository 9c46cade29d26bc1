/**
 * One session with one MCP server. Each server is reached over Streamable HTTP (`transport:
 * 'http'`, the default) or the older HTTP+SSE transport (`'sse'`) with the official SDK. Every
 * outbound request goes through the fetch given in the options (the outbound-safety fetch in
 * production): the SDK transports take a `fetch` option and use it for every POST, GET (event
 * stream) and DELETE they make.
 *
 * `timeoutMs` (default 30 s) bounds connecting (transport start + `initialize`), listing (all
 * pages together) and each call. What the server sends is read within `toolLimits.mcpMessageBytes`
 * per message and `toolLimits.mcpSessionBytes` per session (bounded-fetch.ts); past either, the
 * connection, listing or call fails with a message naming the bound.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '../../../domain/agent-tools';
import type { JsonSchemaObject } from '../../model/types';
import type { SafeFetch } from '../../outbound/safe-fetch';
import { capText } from '../limits';
import type { ToolResult } from '../types';
import { boundedMcpFetch } from './bounded-fetch';
import { hasContent, mcpResultToToolResult } from './results';

const MCP_DEFAULT_TIMEOUT_MS = 30_000;
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

// ---------------------------------------------------------------------------------------------
// Errors and bounds

/** The server's URL without credentials or query, fit for messages. */
function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** An error's message with its cause (fetch's "fetch failed" says little without ECONNREFUSED). */
function errorText(err: unknown): string {
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
// Sessions

/** The transport, and the signal that aborts when the server's answers go past a bound. */
function makeTransport(server: McpServer, url: URL, opts: McpConnectOptions): { transport: Transport; refused: AbortSignal } {
  const safe = opts.fetch;
  const base: FetchLike = safe ? (input, init) => safe(typeof input === 'string' ? input : input.href, init) : (input, init) => fetch(input, init);
  const bounded = boundedMcpFetch(base);
  const common = { requestInit: { headers: { ...opts.headers } }, fetch: bounded.fetch };
  const transport = server.transport === 'sse' ? new SSEClientTransport(url, common) : new StreamableHTTPClientTransport(url, common);
  return { transport, refused: bounded.refused };
}

/** Why `refused` aborted: the bound's message. */
function refusalText(refused: AbortSignal): string {
  return refused.reason instanceof Error ? refused.reason.message : String(refused.reason);
}

/** `signal` and `refused` together (either aborts the request). */
function withRefusal(refused: AbortSignal, signal: AbortSignal | undefined): AbortSignal {
  return signal ? AbortSignal.any([signal, refused]) : refused;
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

  const { transport, refused } = makeTransport(server, url, opts);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  // Transport errors after connecting surface as request failures; nothing to log here.
  client.onerror = () => undefined;

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('timeout')), timeoutMs);
  const signal = AbortSignal.any([deadline.signal, refused, ...(opts.signal ? [opts.signal] : [])]);
  try {
    // The SDK's request timeout covers `initialize`; the race also covers the transport's start
    // (the SSE transport waits for the server's `endpoint` event, with no timeout of its own).
    await untilAborted(client.connect(transport, { timeout: timeoutMs, signal }), signal);
  } catch (err) {
    await settleWithin(client.close(), CLOSE_WAIT_MS);
    await settleWithin(transport.close(), CLOSE_WAIT_MS);
    // The SDK reports an aborted request as a RequestTimeout error too: look at the signals first.
    const late = `${where} did not answer within ${timeoutMs} ms (${shownUrl(url)})`;
    if (refused.aborted) throw new Error(`${where}: ${refusalText(refused)}`);
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
          const res = await client.listTools(cursor ? { cursor } : undefined, { timeout: remaining, signal: withRefusal(refused, listSignal) });
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
        if (refused.aborted) throw new Error(`${where} could not list its tools: ${refusalText(refused)}`);
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
        const res = await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: timeoutMs, signal: withRefusal(refused, callSignal) });
        // The SDK's return type includes the pre-2024-11 `{ toolResult }` shape; the schema above rules it out.
        if (!hasContent(res)) return { ok: true, content: capText(JSON.stringify(res.toolResult) ?? '(no content)') };
        return mcpResultToToolResult(res, shown);
      } catch (err) {
        if (refused.aborted) return { ok: false, content: `${shown} failed: ${refusalText(refused)}` };
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
