import type { AgentConfig } from '../domain/agent';

/**
 * The system prompt of a turn, assembled from the agent's version: its instructions, the
 * playbooks (its `workflows` field) it follows when their `when` applies, and the conversation's parameter
 * values. One readable function so what the model is told can be reviewed in one place.
 */
interface PromptInput {
  agent: AgentConfig;
  parameters: Record<string, string>;
  /** Files the agent can see (conversation drive and knowledge), by path. */
  files?: { drive: string[]; knowledge: string[] };
  now: Date;
}

export function buildSystemPrompt({ agent, parameters, files, now }: PromptInput): string {
  const parts: string[] = [];
  parts.push(agent.instructions.trim() || `You are ${agent.name}, a helpful assistant.`);
  parts.push(`Your name is ${agent.name}. The current time is ${now.toISOString()}.`);
  if (agent.workflows.length > 0) {
    parts.push(
      [
        '## Playbooks',
        'Follow a playbook when its "when" applies to the conversation.',
        ...agent.workflows.map((p) => `### ${p.name}\nWhen: ${p.when}\n\n${p.content.trim()}`),
      ].join('\n\n'),
    );
  }
  const params = Object.entries(parameters);
  if (params.length > 0) {
    parts.push(['## Parameters of this conversation', ...params.map(([k, v]) => `- ${k}: ${v}`)].join('\n'));
  }
  if (files && (files.drive.length > 0 || files.knowledge.length > 0)) {
    const lines = ['## Files you can see'];
    if (files.drive.length) lines.push('Conversation drive:', ...files.drive.map((p) => `- ${p}`));
    if (files.knowledge.length) lines.push('Knowledge:', ...files.knowledge.map((p) => `- ${p}`));
    parts.push(lines.join('\n'));
  }
  return parts.join('\n\n');
}
