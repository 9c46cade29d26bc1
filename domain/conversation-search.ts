import { z } from 'zod';
import { agentConversationSchema } from './conversation';

/**
 * `GET /v1/conversations` (issue 51, the console's Conversations page): the workspace's
 * conversations of every agent and project, filtered, newest first, a page at a time.
 */

/**
 * How a conversation stands, by its latest turn: `waiting` is a running turn with a pending tool
 * approval, so `running` here means running and not waiting — the five never overlap.
 */
export const conversationStatusSchema = z.enum(['running', 'done', 'error', 'cancelled', 'waiting']);

/** The most conversations one page answers. */
const CONVERSATION_PAGE_MAX = 100;

const isoTime = (what: string) =>
  z.iso.datetime({ offset: true, error: 'an ISO 8601 date-time such as 2026-01-01T00:00:00Z' }).optional().describe(what);

/**
 * The words of a text query, lower-cased: runs of letters and digits. Matching is by word
 * (docs/http-api.md; `search_document`, migration 035, splits the stored text the same way):
 * every word must begin a word of the title or of one message — `inv 20` finds "INVOICE-2026".
 */
export function searchWords(q: string): string[] {
  return q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export const searchConversationsQuerySchema = z
  .object({
    agentId: z.string().min(1).max(100).optional().describe("Only this agent's conversations."),
    version: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').optional().describe('Only conversations pinned to this version (with `agentId`).'),
    projectId: z.string().min(1).max(100).optional().describe("Only this project's conversations (with its manager, and its members' delegated ones)."),
    endUserId: z.string().min(1).max(200).optional().describe('Only conversations for this end user (your id of them).'),
    status: conversationStatusSchema.optional().describe("By the latest turn: `running`, `done`, `error`, `cancelled`, or `waiting` (running, with a tool call waiting for approval)."),
    since: isoTime('Only conversations started at or after this time.'),
    until: isoTime('Only conversations started before this time.'),
    q: z
      .string()
      .min(1, 'at least 1 character')
      .max(200, 'at most 200 characters')
      .refine((q) => searchWords(q).length > 0, 'at least one letter or digit')
      .optional()
      .describe('Words that the title or one message holds, case-insensitive; each word matches the start of a word (`inv` finds "invoice").'),
    cursor: z.string().regex(/^[A-Za-z0-9_-]{1,200}$/, 'the nextCursor of an earlier page').optional().describe('The `nextCursor` of the page before.'),
    limit: z.coerce
      .number({ error: 'a number' })
      .int('a whole number')
      .min(1, 'at least 1')
      .max(CONVERSATION_PAGE_MAX, `at most ${CONVERSATION_PAGE_MAX}`)
      .default(50)
      .describe(`Conversations per page, 1–${CONVERSATION_PAGE_MAX} (default 50).`),
  })
  .strict()
  .refine((f) => f.version === undefined || f.agentId !== undefined, { path: ['version'], message: 'only with agentId' });
export type ConversationSearchFilters = Omit<z.infer<typeof searchConversationsQuerySchema>, 'cursor' | 'limit'>;

export const conversationLastTurnSchema = z
  .object({
    id: z.string(),
    status: z.enum(['running', 'done', 'error', 'cancelled']),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    waiting: z.boolean().describe('A tool call of this turn waits for a person\'s approval.'),
  })
  .strict()
  .meta({ id: 'ConversationLastTurn' });

export const conversationSummarySchema = z
  .object({
    id: z.string().startsWith('cnv_'),
    agentId: z.string().nullable().describe("Null for a conversation with a project's manager."),
    projectId: z.string().nullable().describe("The project's, for its manager's and its members' delegated conversations."),
    version: z.number().int().nullable(),
    title: z.string().nullable(),
    endUser: agentConversationSchema.shape.endUser,
    startedAt: z.string(),
    endedAt: z.string().nullable(),
    lastTurn: conversationLastTurnSchema.nullable().describe('Null before the first message.'),
  })
  .strict()
  .meta({ id: 'ConversationSummary', description: 'One row of the workspace-wide conversation search.' });
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;
