import type { Member, Project } from '../domain/project';
import { DELEGATE_TOOL } from '../domain/runs/project-turn';
import type { ModelTool } from './model/types';

/**
 * What a project's manager is told and offered. One readable place, as `prompt.ts` is for agents:
 * the project's goal and manager instructions, the members as they are at this model call, the
 * conversation's parameter values and the project's files.
 */
export function buildManagerPrompt(input: { project: Project; parameters: Record<string, string>; files: string[]; now: Date }): string {
  const { project, parameters, files, now } = input;
  const parts: string[] = [];
  parts.push(
    project.managerInstructions?.trim() ||
      `You manage the project "${project.name}": plan the work, hand tasks to the project's agents, and write the final answer yourself.`,
  );
  parts.push(`The current time is ${now.toISOString()}.`);
  if (project.goal?.trim()) parts.push(`## Goal of the project\n\n${project.goal.trim()}`);
  parts.push(
    project.agents.length > 0
      ? [
          '## Agents of the project',
          `Hand a task to an agent with the tool \`${DELEGATE_TOOL}\` (its id and a self-contained task); its answer comes back to you. Files they write land in the project's files.`,
          ...project.agents.map((m) => `- ${m.name} (id ${m.agentId})`),
        ].join('\n')
      : '## Agents of the project\nThe project has no agents: answer on your own.',
  );
  const params = Object.entries(parameters);
  if (params.length > 0) parts.push(['## Parameters of this conversation', ...params.map(([k, v]) => `- ${k}: ${v}`)].join('\n'));
  if (files.length > 0) parts.push(['## Files of the project', ...files.map((p) => `- ${p}`)].join('\n'));
  return parts.join('\n\n');
}

/** The manager's one tool, offered only while the project has members; `agentId` is one of them. */
export function delegateTools(members: Member[]): ModelTool[] {
  if (members.length === 0) return [];
  return [
    {
      name: DELEGATE_TOOL,
      description: `Hand a task to one of the project's agents and get its answer: ${members.map((m) => `${m.name} (${m.agentId})`).join(', ')}.`,
      parameters: {
        type: 'object',
        properties: {
          agentId: { type: 'string', enum: members.map((m) => m.agentId), description: 'The id of the agent that does the task' },
          task: { type: 'string', description: 'The task, self-contained: the agent sees only this text' },
        },
        required: ['agentId', 'task'],
        additionalProperties: false,
      },
    },
  ];
}
