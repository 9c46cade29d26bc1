import { z } from 'zod';

export const memberSchema = z
  .object({ agentId: z.string(), name: z.string(), addedAt: z.string() })
  .strict()
  .meta({ id: 'Member' });

export const projectSchema = z
  .object({
    id: z.string().startsWith('prj_'),
    name: z.string(),
    goal: z.string().nullable(),
    managerInstructions: z.string().nullable(),
    grade: z.enum(['standard', 'premium']),
    status: z.enum(['active', 'archived']),
    agents: z.array(memberSchema),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .strict()
  .meta({ id: 'Project' });
export type Project = z.infer<typeof projectSchema>;
export type Member = z.infer<typeof memberSchema>;

const name = z.string().trim().min(1).max(200);
const goal = z.string().max(10_000).nullable();
const managerInstructions = z.string().max(100_000).nullable();
const grade = z.enum(['standard', 'premium']);

/** A member's id, wherever one is given (the body of an add, the path of a remove, the members of a create). */
export const memberAgentId = z.string().regex(/^agt_[0-9a-z]{1,60}$/, 'an agent id (agt_…)');

/** `POST /v1/projects`. `agents` (ids) may seed the members; each must be an agent of the workspace. */
export const createProjectSchema = z
  .object({
    name,
    goal: goal.default(null),
    managerInstructions: managerInstructions.default(null),
    grade: grade.default('standard'),
    agents: z.array(memberAgentId).max(100).default([]),
  })
  .strict()
  .meta({ id: 'CreateProject' });
export type CreateProjectInput = z.infer<typeof createProjectSchema>;

/** `PATCH /v1/projects/:projectId`: `name`, `goal`, `managerInstructions`, `grade`; null clears goal and instructions. */
export const updateProjectSchema = z
  .object({ name: name.optional(), goal: goal.optional(), managerInstructions: managerInstructions.optional(), grade: grade.optional() })
  .strict()
  .meta({ id: 'UpdateProject' });
export type UpdateProjectInput = z.infer<typeof updateProjectSchema>;

export const addMemberSchema = z
  .object({ agentId: memberAgentId })
  .strict()
  .meta({ id: 'AddMember' });
