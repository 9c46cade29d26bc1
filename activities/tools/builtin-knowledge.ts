import { randomUUID } from 'node:crypto';
import type { Repositories } from '../../db/repositories';
import { knowledgeSpace } from '../../db/repositories/files';
import { tokenCredits } from '../../domain/token-credits';
import type { Embedder } from '../model/embeddings';
import { searchKnowledge } from '../knowledge/search';
import type { BuiltInTool } from './builtin-types';
import { str } from './builtin-types';

interface KnowledgeToolDeps {
  repos: Repositories;
  /** `EMBEDDINGS_MODEL`; absent: search is full-text only, and says so. */
  embedder?: Embedder | undefined;
  /** `CREDITS_PER_1K_EMBEDDING_TOKENS`: what embedding the question costs the workspace. */
  creditsPer1kEmbeddingTokens?: number;
}

/**
 * `knowledge.search` (docs/knowledge.md): hybrid search — full-text and meaning, fused — over the
 * agent's knowledge files, or with `scope: 'project'` over the files of the conversation's
 * project. Each hit names its file and location so the model can cite it.
 */
export function knowledgeTool(deps: KnowledgeToolDeps): BuiltInTool {
  const { repos, embedder } = deps;
  return {
    name: 'knowledge.search',
    definition: {
      name: 'knowledge_search',
      description: [
        "Search the agent's knowledge files (PDF, Word, HTML, Markdown, CSV, text) by meaning and by words.",
        'Ask in plain words; "quotes" match a phrase and -word excludes.',
        'Cite what you use from a result as [file, location].',
      ].join(' '),
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          limit: { type: 'integer', minimum: 1, maximum: 20, description: 'Results (default 5)' },
          scope: {
            type: 'string',
            enum: ['agent', 'project'],
            description: "agent (default): the agent's knowledge files; project: the files of this conversation's project",
          },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
    describe: (args) => ({ label: `Searching ${args.scope === 'project' ? 'project files' : 'knowledge'} for "${str(args.query) ?? ''}"`, kind: 'search' }),
    async run(ctx, args, signal) {
      const query = str(args.query)?.trim();
      if (!query) return { ok: false, content: 'query is required' };
      const limit = typeof args.limit === 'number' && Number.isInteger(args.limit) ? Math.min(Math.max(args.limit, 1), 20) : 5;
      let space = knowledgeSpace(ctx.agentId);
      if (args.scope === 'project') {
        if (!ctx.drive.startsWith('project:')) return { ok: false, content: 'this conversation belongs to no project: search with scope "agent"' };
        space = ctx.drive;
      } else if (args.scope !== undefined && args.scope !== 'agent') {
        return { ok: false, content: 'scope is "agent" or "project"' };
      }
      const result = await searchKnowledge({ repos, embedder }, { space, query, limit }, signal);
      const cost = tokenCredits(result.embeddingTokens, deps.creditsPer1kEmbeddingTokens ?? 0);
      // The question's embedding is paid for by the workspace, once per call that made it.
      if (cost > 0) await repos.workspaces.debitTurn({ workspaceId: ctx.workspaceId, turnId: `embed-query:${ctx.turnId}:${randomUUID()}`, amount: cost });
      const what = space === ctx.drive ? 'the project files' : 'the knowledge files';
      const mode = result.mode === 'hybrid' ? '' : ' (full-text search only: no embeddings model is configured, so words must match)';
      if (result.hits.length === 0) return { ok: true, content: `nothing in ${what} matches "${query}"${mode}` };
      const lines = result.hits.map((h, i) => `[${i + 1}] ${h.path}${h.location ? `, ${h.location}` : ''}\n${h.snippet.replace(/\s+/g, ' ').trim()}`);
      return { ok: true, content: `${lines.join('\n\n')}\n\nCite what you use as [file, location]${mode}.` };
    },
  };
}
