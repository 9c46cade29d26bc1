import type { McpServer } from '../../domain/agent-tools';
import type { BuiltInTool } from './builtin-types';
import { str } from './builtin-types';
import { runHttpTool } from './http-tool';
import { httpToolDefinition } from './http-tool-params';
import { callMcpTool, listMcpTools, type McpToolEntry } from './mcp/tools';
import type { OfferedTool, ToolSources } from './runner';
import { maskSecrets, substituteCredentials } from './substitute';
import type { Credentials } from '../../domain/credentials';
import type { CredentialSource } from '../../infra/credential-source';
import type { SafeFetch } from '../outbound/safe-fetch';
import type { ToolContext } from './types';
import { runWebFetch, webFetchTool } from './web-fetch';

/** `web.fetch`: a built-in, through the outbound-safe fetch. */
export function webFetchBuiltIn(fetch: SafeFetch): BuiltInTool {
  return {
    name: 'web.fetch',
    definition: webFetchTool,
    describe: (args) => {
      const url = str(args.url);
      let host = url ?? 'a page';
      try {
        if (url) host = new URL(url).host;
      } catch {
        // not a URL: the tool itself will say so
      }
      return { label: `Fetching ${host}`, kind: 'web' };
    },
    run: (_ctx, args, signal) => runWebFetch(args, { fetch, signal }),
  };
}

/** How long an MCP server's tool list is reused within one worker process. */
const MCP_LISTING_TTL_MS = 60_000;

/**
 * HTTP tools and MCP servers of an agent, with credentials loaded by reference at call time and
 * every result masked against them. MCP headers get `{{secrets.NAME}}`/`{{connections.P}}`
 * filled in; a server whose headers name something missing is left out of the turn.
 */
export function createExtraToolSources(deps: { credentials: CredentialSource; fetch: SafeFetch; now?: () => number }): ToolSources {
  const now = deps.now ?? Date.now;
  const credentialsOf = new WeakMap<ToolContext, Promise<Credentials>>();
  const listings = new Map<string, { at: number; tools: Promise<McpToolEntry[]> }>();

  const credentials = (ctx: ToolContext): Promise<Credentials> => {
    let c = credentialsOf.get(ctx);
    if (!c) {
      c = deps.credentials.load({ workspaceId: ctx.workspaceId, agentId: ctx.agentId, conversationId: ctx.conversationId });
      credentialsOf.set(ctx, c);
    }
    return c;
  };

  const headersFor = (server: McpServer, creds: Credentials): Record<string, string> | undefined => {
    const out: Record<string, string> = {};
    for (const [name, template] of Object.entries(server.headers ?? {})) {
      const r = substituteCredentials(template, creds);
      if (!r.ok) return undefined;
      out[name] = r.value;
    }
    return out;
  };

  const mcpTools = async (ctx: ToolContext, creds: Credentials): Promise<McpToolEntry[]> => {
    const servers = ctx.agent.mcpServers.filter((s) => headersFor(s, creds) !== undefined);
    if (servers.length === 0) return [];
    // Keyed by conversation: headers may carry conversation-scoped values.
    const key = `${ctx.conversationId}:${JSON.stringify(servers)}`;
    const cached = listings.get(key);
    if (cached && now() - cached.at < MCP_LISTING_TTL_MS) return cached.tools;
    const tools = listMcpTools(servers, { headers: (s) => headersFor(s, creds) ?? {}, fetch: deps.fetch }).then((l) => l.tools);
    listings.set(key, { at: now(), tools });
    for (const [k, v] of listings) if (now() - v.at >= MCP_LISTING_TTL_MS) listings.delete(k);
    return tools;
  };

  return {
    async extra(ctx) {
      if (ctx.agent.httpTools.length === 0 && ctx.agent.mcpServers.length === 0) return [];
      const creds = await credentials(ctx);
      const http: OfferedTool[] = ctx.agent.httpTools.map((tool) => ({
        definition: httpToolDefinition(tool),
        displayName: tool.name,
        describe: () => ({ label: `Calling ${tool.name}`, kind: 'web' }),
        run: (args, signal) => runHttpTool(tool, args, { fetch: deps.fetch, credentials: creds, signal }),
      }));
      const mcp: OfferedTool[] = (await mcpTools(ctx, creds)).map((entry) => {
        const server = ctx.agent.mcpServers.find((s) => s.name === entry.server)!;
        return {
          definition: entry.definition,
          displayName: entry.displayName,
          describe: () => ({ label: `Calling ${entry.displayName}`, kind: 'other' }),
          run: (args, signal) => callMcpTool(server, entry.tool, args, { headers: headersFor(server, creds) ?? {}, fetch: deps.fetch, signal }),
        };
      });
      return [...http, ...mcp];
    },
    async mask(ctx, text) {
      return maskSecrets(text, await credentials(ctx));
    },
  };
}
