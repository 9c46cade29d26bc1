import { z } from 'zod';
import { identifier } from './agent-fields';
import { parameterValue, requirementSchema } from './conversation';

/**
 * Conversations of a project, run by its manager, and the manager's one tool, `delegate`. The
 * workflow's shared declarations are in `project-runs.ts`.
 */

export const projectConversationSchema = z
  .object({
    id: z.string().startsWith('cnv_'),
    projectId: z.string(),
    startedAt: z.string(),
    title: z.string().optional(),
    ready: z.boolean(),
    requires: z.array(requirementSchema),
    endedAt: z.string().optional(),
  })
  .strict()
  .meta({
    id: 'ProjectConversation',
    description:
      'A conversation with the project\'s manager. It requires nothing of its own, so `ready` is true and `requires` empty; `endedAt` is set once ended.',
  });
export type ProjectConversation = z.infer<typeof projectConversationSchema>;

/** At most this many parameter values a project conversation. */
const MAX_PROJECT_PARAMETERS = 100;

/**
 * `POST /v1/projects/:projectId/conversations`. A project declares no parameters: the values are
 * free (names as agents' parameter names), shown to the manager, and handed to each member whose
 * version declares a parameter of that name.
 */
export const startProjectConversationSchema = z
  .object({
    parameters: z
      .record(identifier, parameterValue)
      .refine((p) => Object.keys(p).length <= MAX_PROJECT_PARAMETERS, `at most ${MAX_PROJECT_PARAMETERS} values`)
      .optional(),
  })
  .strict()
  .meta({ id: 'StartProjectConversation' });
export type StartProjectConversationInput = z.infer<typeof startProjectConversationSchema>;

/** The arguments of a `delegate` call, checked when it runs (a model may send anything). */
export const delegateArgsSchema = z.object({
  agentId: z.string().min(1).max(100),
  task: z.string().trim().min(1).max(100_000),
});
