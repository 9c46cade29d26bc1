/**
 * MCP tools: an agent's `mcpServers` offer their tools to the model, named `<server>__<tool>`
 * (names.ts), each call over its own session (client.ts). Listing and calling never throw: an
 * unreachable server's tools are left out with a `problems` entry, a failed call is `ok: false`
 * with a clear message.
 */
import type { McpServer } from '../../../domain/agent-tools';
import type { ModelTool } from '../../model/types';
import type { SafeFetch } from '../../outbound/safe-fetch';
import type { ToolResult } from '../types';
import type * as McpClientModule from './client';
import type { McpConnectOptions, McpSession, McpToolInfo } from './client';
import { assignMcpToolNames } from './names';

/**
 * The MCP SDK is loaded when an agent with MCP servers first runs, not at the worker's start
 * (docs/operations.md: Start-up): most turns use no MCP server.
 */
const connectMcp: typeof McpClientModule.connectMcp = (server, opts) => (require('./client') as typeof McpClientModule).connectMcp(server, opts);

/** A server's tool description is cut to this many characters (a server cannot flood the prompt). */
const MCP_MAX_DESCRIPTION = 4_000;

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

interface McpListOptions {
  /** Each server's headers with secrets substituted; defaults to `server.headers` as configured. */
  headers?: (server: McpServer) => Record<string, string>;
  fetch?: SafeFetch;
  signal?: AbortSignal;
}

interface McpListing {
  tools: McpToolEntry[];
  /** One line per server whose tools are missing (unreachable, timed out, refused…). */
  problems: string[];
}

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
