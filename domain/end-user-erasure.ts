import { z } from 'zod';
import { approvalSchema } from './approvals';
import { messageSchema } from './conversation';
import { ERASED_KINDS, type ErasedKind } from './runs/end-user-erasure';
import { turnEventSchema } from './turn-events';

/**
 * An end user's data on request (docs/security.md, "End users' data: export and erasure"): the
 * export document and the erasure's view (the workflow's own contract is domain/runs/end-user-erasure.ts).
 */

export const erasureCountsSchema = z
  .object(Object.fromEntries(ERASED_KINDS.map((k) => [k, z.number().int()])) as Record<ErasedKind, z.ZodNumber>)
  .strict()
  .meta({
    id: 'ErasureCounts',
    description:
      'What was removed, per kind. `turnWorkflows`: Temporal executions of the end user\'s turns deleted (or already gone); `secrets` and `connections`: values stored for the end user or their conversations; `oauthStates`: consent links handed out for them.',
  });

export const erasureSchema = z
  .object({
    id: z.string().startsWith('era_'),
    status: z.enum(['running', 'done']),
    counts: erasureCountsSchema,
    createdAt: z.string(),
    finishedAt: z.string().optional(),
  })
  .strict()
  .meta({
    id: 'EndUserErasure',
    description:
      'An erasure of one end user\'s data. `counts` grows while `running`; once `done` nothing of theirs is left and the row no longer holds their id. A receipt (`endUserErased`, the counts) is in the audit log.',
  });
export type Erasure = z.infer<typeof erasureSchema>;

export const exportTurnSchema = z
  .object({
    id: z.string(),
    status: z.enum(['running', 'done', 'error', 'cancelled']),
    startedAt: z.string(),
    finishedAt: z.string().optional(),
    events: z.array(z.object({ seq: z.number().int(), at: z.string(), event: turnEventSchema }).strict()).describe('The turn\'s event log (older events may have been pruned: docs/operations.md).'),
  })
  .strict()
  .meta({ id: 'EndUserExportTurn' });

export const exportFileSchema = z
  .object({
    path: z.string(),
    mimeType: z.string(),
    size: z.number().int(),
    modifiedAt: z.string(),
    url: z.string().describe('A signed link that serves the file without an API key for an hour.'),
  })
  .strict()
  .meta({ id: 'EndUserExportFile' });

export const exportConversationSchema = z
  .object({
    id: z.string().startsWith('cnv_'),
    agentId: z.string(),
    version: z.number().int(),
    channel: z.enum(['public', 'test']).optional(),
    endUser: z.object({ id: z.string(), name: z.string().optional(), email: z.string().optional(), verified: z.boolean() }).strict(),
    title: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()),
    startedAt: z.string(),
    endedAt: z.string().optional(),
    messages: z.array(messageSchema),
    turns: z.array(exportTurnSchema),
    files: z.array(exportFileSchema).describe("The conversation's files (its drive), each as a signed link."),
  })
  .strict()
  .meta({ id: 'EndUserExportConversation' });

const valueScope = {
  scope: z.enum(['endUser', 'conversation']).describe('`endUser`: stored for the end user (every conversation of theirs sees it); `conversation`: stored for one of their conversations.'),
  conversationId: z.string().optional().describe('With `scope: conversation`: which one.'),
  updatedAt: z.string(),
};

export const exportSecretSchema = z.object({ name: z.string(), ...valueScope }).strict().meta({ id: 'EndUserExportSecret' });

export const exportConnectionSchema = z
  .object({ provider: z.string(), ...valueScope, accountLabel: z.string().optional() })
  .strict()
  .meta({ id: 'EndUserExportConnection' });

export const endUserExportSchema = z
  .object({
    endUserId: z.string(),
    exportedAt: z.string(),
    conversations: z.array(exportConversationSchema).describe('Every conversation that carries the id: `agent.start({ endUser })`, public chat and test URLs, verified visitors and self-attested ones alike; newest first.'),
    secrets: z.array(exportSecretSchema).describe('Names only, never values.'),
    connections: z.array(exportConnectionSchema).describe('Providers only, never tokens.'),
    approvals: z.array(approvalSchema).describe("Tool calls of their conversations that waited for a person's decision."),
    feedback: z.array(z.never()).describe('Always empty: the service has no feedback feature yet.'),
  })
  .strict()
  .meta({
    id: 'EndUserExport',
    description: 'Everything stored about one end user of the workspace, as one document (docs/security.md, "End users\' data: export and erasure").',
  });
export type EndUserExport = z.infer<typeof endUserExportSchema>;
