import type { Grade } from './agent.js';

/**
 * Projects: the record, its members, and the fields of `create` and `update`. The server's
 * schemas are in `domain/project.ts`.
 */

/** An agent belonging to a project. */
export interface Member {
  /** The agent's id. */
  agentId: string;
  /** The agent's name. */
  name: string;
  /** When the agent joined the project. */
  addedAt: string;
}

/**
 * A project: agents grouped under a goal and manager instructions. The plain data the service
 * returns; the SDK hands it out as a `Project`, which adds the methods of `ProjectHandle`.
 */
export interface ProjectRecord {
  /** Project id (prefix `prj_`). */
  id: string;
  /** Display name. */
  name: string;
  /** What the project is for, or null. */
  goal: string | null;
  /** Instructions of the project's manager, or null. */
  managerInstructions: string | null;
  /** Model tier of the manager. */
  grade: Grade;
  /** `archived` after `project.archive()`. */
  status: 'active' | 'archived';
  /** Member agents. */
  agents: Member[];
  /** When the project was created. */
  createdAt: string;
  /** When the project last changed. */
  updatedAt: string;
}

/** Fields of `ws.projects.create(fields)`. Only `name` is required. */
export interface CreateProjectFields {
  /** Display name, 1 to 200 characters. */
  name: string;
  /** What the project is for (up to 10,000 characters). */
  goal?: string | null;
  /** Instructions of the project's manager (up to 100,000 characters). */
  managerInstructions?: string | null;
  /** Model tier of the manager; default `standard`. */
  grade?: Grade;
  /** Ids of workspace agents to add as the first members. */
  agents?: string[];
}

/** Fields of `project.update(fields)`; `null` clears `goal` or `managerInstructions`. Members change through `addAgent`/`removeAgent`. */
export type UpdateProjectFields = Partial<Omit<CreateProjectFields, 'agents'>>;
