import type { Repositories } from '../../db/repositories';
import type { KnowledgeIndexer } from '../../infra/knowledge-indexer';
import type { Embedder } from '../model/embeddings';
import type { Step } from '../../domain/turn-events';
import type { ModelTool, ModelToolCall } from '../model/types';
import { dataTool } from './builtin-data';
import { fileTools } from './builtin-files';
import { knowledgeTool } from './builtin-knowledge';
import { planTool } from './builtin-plan';
import { needsDrive } from '../../domain/tool-catalogue';
import type { BuiltInTool } from './builtin-types';
import { type PreparedCall, type ToolContext, type ToolRunner, type ToolResult, unknownToolCall } from './types';

/**
 * A tool a turn can offer, from any source (built-in, HTTP tool, MCP server), resolved for one
 * turn's context. `run` returns raw results; the runner masks them.
 */
export interface OfferedTool {
  definition: ModelTool;
  displayName: string;
  describe(args: Record<string, unknown>): { label: string; kind: Step['kind'] };
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult>;
}

/** Tools beyond the built-ins (HTTP tools, MCP servers), and how results are masked. */
export interface ToolSources {
  extra(ctx: ToolContext): Promise<OfferedTool[]>;
  mask(ctx: ToolContext, text: string): Promise<string>;
}

const noExtraTools: ToolSources = { extra: async () => [], mask: async (_ctx, text) => text };

/** What knowledge search needs: the embeddings model (absent: full-text only) and its price. */
export interface KnowledgeSearchDeps {
  embedder?: Embedder | undefined;
  creditsPer1kEmbeddingTokens?: number;
}

function builtIns(repos: Repositories, extraBuiltIns: BuiltInTool[], storageQuotaBytes: number | undefined, knowledge: KnowledgeSearchDeps): BuiltInTool[] {
  const setPlan = async (turnId: string, items: Step[]) => {
    await repos.turns.changeSteps({ turnId, change: (steps) => [...items, ...steps.filter((s) => !s.id.startsWith('plan-'))] });
  };
  return [...fileTools(repos, storageQuotaBytes), dataTool(repos, storageQuotaBytes), knowledgeTool({ repos, ...knowledge }), planTool(setPlan), ...extraBuiltIns];
}

/**
 * The tools of a turn: the built-ins the agent names (file tools only with `filesystem: drive`),
 * then its HTTP tools and MCP servers' tools. Every result — a thrown error's message too — is
 * masked before the model, the event log or the message history can see it.
 */
export function createToolRunner(opts: {
  repos: Repositories;
  builtIns?: BuiltInTool[];
  sources?: ToolSources;
  /** WORKSPACE_STORAGE_BYTES: the file tools' writes count against the workspace's quota like uploads. */
  storageQuotaBytes?: number;
  knowledge?: KnowledgeSearchDeps;
  /** Told when a tool wrote files to an indexed space (a project's files), so they are indexed. */
  indexer?: KnowledgeIndexer;
}): ToolRunner {
  const catalogue = builtIns(opts.repos, opts.builtIns ?? [], opts.storageQuotaBytes, opts.knowledge ?? {});
  const indexer = opts.indexer;
  const sources = opts.sources ?? noExtraTools;

  async function offered(ctx: ToolContext): Promise<OfferedTool[]> {
    const named = new Set<string>(ctx.agent.tools);
    const mine = catalogue
      .filter((t) => named.has(t.name) && (ctx.agent.filesystem === 'drive' || !needsDrive(t.name)))
      .map<OfferedTool>((t) => ({
        definition: t.definition,
        displayName: t.name,
        describe: (args) => t.describe(args),
        run: (args, signal) => t.run(ctx, args, signal),
      }));
    return [...mine, ...(await sources.extra(ctx))];
  }

  return {
    async available(ctx) {
      return (await offered(ctx)).map(({ definition, displayName }) => ({ definition, displayName }));
    },
    async prepare(ctx: ToolContext, call: ModelToolCall): Promise<PreparedCall> {
      const tool = (await offered(ctx)).find((t) => t.definition.name === call.name);
      if (!tool) return unknownToolCall(call);
      const { label, kind } = tool.describe(call.args);
      return {
        displayName: tool.displayName,
        label,
        kind,
        async run(signal) {
          let result: ToolResult;
          try {
            result = await tool.run(call.args, signal);
          } catch (e) {
            // A thrown message is a result like any other: it may quote a URL or header that holds a secret.
            result = { ok: false, content: `the tool failed: ${e instanceof Error ? e.message : String(e)}` };
          }
          if (indexer && result.files?.length) await indexer.changed(ctx.workspaceId, ctx.drive);
          return { ...result, content: await sources.mask(ctx, result.content) };
        },
      };
    },
  };
}
