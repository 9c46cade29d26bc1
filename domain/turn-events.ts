import { z } from 'zod';

export const stepSchema = z
  .object({
    id: z.string(),
    label: z.string(),
    kind: z.enum(['read', 'write', 'edit', 'search', 'shell', 'web', 'data', 'task', 'plan', 'other']),
    status: z.enum(['active', 'done', 'error']),
  })
  .strict()
  .meta({ id: 'Step' });
export type Step = z.infer<typeof stepSchema>;

/**
 * Why a turn stopped, on its `error` event, when a client may act on it: the workspace ran out of
 * credits, or the agent reached its credit cap, before a model step. The meanings are the
 * reference's (the OpenAPI document, docs/http-api.md: Error codes).
 */
export const turnErrorCodes = {
  credits_exhausted: "The workspace's balance could not cover the turn's next model step; top up and ask again.",
  credit_cap_reached: "The agent's credit cap was reached before the turn's next model step; raise the cap and ask again.",
} as const;
export const turnErrorCodeSchema = z.enum(Object.keys(turnErrorCodes) as [keyof typeof turnErrorCodes, ...Array<keyof typeof turnErrorCodes>]);
export type TurnErrorCode = z.infer<typeof turnErrorCodeSchema>;

/** One event type: `id` names its schema in the OpenAPI document, `description` says when it comes. */
const event = (id: string, description: string) => ({ id, title: id, description });

/**
 * The TurnEvent types a turn streams (docs/http-api.md: SSE wire format), each described for the
 * OpenAPI document. `text.reset` is never set on the first attempt of a model call: it tells a
 * consumer to drop the text received since the last `tool` event or the turn's start, because a
 * retried model call produced a different reply than it had streamed.
 */
export const turnEventSchema = z
  .discriminatedUnion('type', [
    z
      .object({ type: z.literal('start'), turnId: z.string().describe('The turn; `GET /v1/turns/{turnId}/events` follows it again.') })
      .strict()
      .meta(event('StartEvent', 'The first event: the turn began.')),
    z
      .object({ type: z.literal('progress'), steps: z.array(stepSchema).describe("The turn's steps as they stand now, the whole list each time.") })
      .strict()
      .meta(event('ProgressEvent', "The agent's plan and its tool calls as steps (`active`, `done`, `error`): sent whenever one changes.")),
    z
      .object({
        type: z.literal('tool'),
        name: z.string().describe('The tool as the agent\'s `tools` name it: `files.write`, an HTTP tool\'s name, `server.tool` for an MCP tool.'),
        state: z.enum(['start', 'end']),
        ok: z.boolean().optional().describe('On `end`: whether the call succeeded (a failed call is a result the model sees, not a failed turn).'),
      })
      .strict()
      .meta(event('ToolEvent', 'A tool call starts, then ends.')),
    z
      .object({
        type: z.literal('text'),
        text: z.string().describe('The next piece of the reply.'),
        reset: z.literal(true).optional().describe('Drop the text received since the last `tool` event (or the turn\'s start) and show this instead: a retried model call said something different.'),
      })
      .strict()
      .meta(event('TextEvent', 'The reply as the model writes it, in pieces (up to 20 a second).')),
    z
      .object({ type: z.literal('file'), path: z.string().describe("The file's path in the conversation's files.") })
      .strict()
      .meta(event('FileEvent', 'The turn wrote a file.')),
    z
      .object({
        type: z.literal('approval'),
        approvalId: z.string().describe('Decide it with `POST /v1/approvals/{approvalId}` (or, when `approver` is `visitor`, the public route).'),
        tool: z.string().describe('The tool as `tool` events name it.'),
        arguments: z.record(z.string(), z.unknown()).describe('The arguments the model gave, secret values masked.'),
        approver: z.enum(['visitor', 'workspace']).describe('Who may decide: `workspace` (an API key) or `visitor` (also the public conversation\'s visitor).'),
        status: z.enum(['pending', 'approved', 'denied', 'expired']).describe('`pending` when the call starts waiting; then once more with the outcome when the turn resumes.'),
        note: z.string().optional().describe('The decision\'s note, on an `approved` or `denied` event.'),
      })
      .strict()
      .meta(event('ApprovalEvent', 'A tool call waits for a person (`pending`), then how it was settled: `approved` (the call runs), `denied` or `expired` (the model is told it did not run).')),
    z
      .object({ type: z.literal('done'), reply: z.string().describe('All the text of the turn, text streamed before a tool call included.') })
      .strict()
      .meta(event('DoneEvent', 'The last event of a turn that answered.')),
    z
      .object({
        type: z.literal('error'),
        message: z.string().describe('What went wrong, for people. The public routes show visitors a fixed sentence instead (docs/publishing.md: Public chat).'),
        retryable: z.boolean().describe('Whether asking again may work (a deadline or an unavailable model: true; a cancel or a refused request: false).'),
        code: turnErrorCodeSchema.optional().describe('Only when the turn stopped for its credits, and only to the workspace: the public routes never carry it.'),
      })
      .strict()
      .meta(event('ErrorEvent', 'The last event of a turn that failed, was cancelled or ran out of time.')),
  ])
  .meta({ id: 'TurnEvent', description: 'One event of a turn, by `type`. Every stream ends with exactly one `done` or `error`.' });
export type TurnEvent = z.infer<typeof turnEventSchema>;

export const isTerminal = (e: Pick<TurnEvent, 'type'>) => e.type === 'done' || e.type === 'error';
