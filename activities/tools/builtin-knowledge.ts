import type { Repositories } from '../../db/repositories';
import { knowledgeSpace } from '../../db/repositories/files';
import type { BuiltInTool } from './builtin-types';
import { str } from './builtin-types';

/** `knowledge.search`: PostgreSQL full-text search over the agent's knowledge files. */
export function knowledgeTool(repos: Repositories): BuiltInTool {
  return {
    name: 'knowledge.search',
    definition: {
      name: 'knowledge_search',
      description:
        "Search the agent's knowledge files. Words match whole words; use \"quotes\" for a phrase, or between alternatives, -word to exclude.",
      parameters: {
        type: 'object',
        properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 20, description: 'Results (default 5)' } },
        required: ['query'],
        additionalProperties: false,
      },
    },
    describe: (args) => ({ label: `Searching knowledge for "${str(args.query) ?? ''}"`, kind: 'search' }),
    async run(ctx, args) {
      const query = str(args.query)?.trim();
      if (!query) return { ok: false, content: 'query is required' };
      const limit = typeof args.limit === 'number' && Number.isInteger(args.limit) ? Math.min(Math.max(args.limit, 1), 20) : 5;
      const hits = await repos.files.search({ space: knowledgeSpace(ctx.agentId), query, limit });
      if (hits.length === 0) return { ok: true, content: `nothing in the knowledge files matches "${query}"` };
      return { ok: true, content: hits.map((h, i) => `${i + 1}. ${h.path}\n${h.snippet.replace(/\s+/g, ' ').trim()}`).join('\n\n') };
    },
  };
}
