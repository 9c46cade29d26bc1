import type { Repositories } from '../db/repositories';
import type { AttachmentRef, ConversationRow, MessageRow } from '../db/repositories/conversations';
import { conversationDrive, knowledgeSpace } from '../db/repositories/files';
import type { AgentConfig } from '../domain/agent';
import type { Project } from '../domain/project';
import type { TranscriptItem } from '../domain/turn-transcript';
import { attachmentNote, charsOfTokens, droppedNote, estimateTokens, historyWindow } from './history-window';
import { buildManagerPrompt, delegateTools } from './manager';
import type { ModelContentPart, ModelMessage, ModelTool } from './model/types';
import type { ToolRunner } from './tools/types';
import { type AgentTurnContext, toolContext, type TurnContext } from './turn-context';

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

/*
 * What a model step sends beside that text: the tools, the files listed in the prompt, and the
 * conversation as model messages within the grade's history budget. Assembled here, next to the
 * prompt's text, so everything the model is told is read in one file.
 */

/** How much history a step may send and load (docs/http-api.md: Conversations and turns, "Bounded history"). */
export interface HistoryBudget {
  /** Estimated tokens of system prompt, earlier messages and this turn's steps, by grade. */
  tokens: Record<AgentConfig['grade'], number>;
  /** Bytes of this turn's images sent as image parts; the rest are referenced by path. */
  maxImageBytes: number;
}

interface StepPromptDeps {
  repos: Pick<Repositories, 'files'>;
  tools: ToolRunner;
  historyBudget: HistoryBudget;
}

/** The step being assembled: its turn and the calls and results of this turn's earlier steps. */
interface StepSoFar {
  turnId: string;
  transcript: TranscriptItem[];
}

/** A step's system prompt, the tools it offers, and the name each tool shows as in the turn's events. */
export interface StepPrompt {
  system: string;
  tools: ModelTool[];
  shownAs: Map<string, string>;
}

/** At most this many paths of each space are listed in the prompt. */
const MAX_LISTED_FILES = 100;

/** The files the agent can see: the drive (with `filesystem: drive`) and its knowledge (with `knowledge.search`). */
async function visibleFiles(deps: StepPromptDeps, config: AgentConfig, conversation: ConversationRow, agentId: string) {
  const paths = async (space: string) => (await deps.repos.files.paths({ space, limit: MAX_LISTED_FILES }));
  return {
    drive: config.filesystem === 'drive' ? await paths(conversationDrive(conversation)) : [],
    knowledge: config.tools.includes('knowledge.search') ? await paths(knowledgeSpace(agentId)) : [],
  };
}

/** An agent's system prompt and tools, from its pinned version. */
async function agentPrompt(deps: StepPromptDeps, context: AgentTurnContext): Promise<StepPrompt> {
  const { config, conversation, agentId } = context;
  const [offered, files] = await Promise.all([deps.tools.available(toolContext(context)), visibleFiles(deps, config, conversation, agentId)]);
  return {
    system: buildSystemPrompt({ agent: config, parameters: conversation.parameters, files, now: new Date() }),
    tools: offered.map((t) => t.definition),
    shownAs: new Map(offered.map((t) => [t.definition.name, t.displayName])),
  };
}

/** The manager's system prompt and its delegation tool, from the project and its members now (a removed member is no longer offered). */
async function managerPrompt(deps: StepPromptDeps, project: Project, conversation: ConversationRow): Promise<StepPrompt> {
  const files = await deps.repos.files.paths({ space: conversationDrive(conversation), limit: MAX_LISTED_FILES });
  return { system: buildManagerPrompt({ project, parameters: conversation.parameters, files, now: new Date() }), tools: delegateTools(project.agents), shownAs: new Map<string, string>() };
}

/** The system prompt and tools of a turn's step: its agent's, or its project manager's. */
export function stepPrompt(deps: StepPromptDeps, context: TurnContext): Promise<StepPrompt> {
  return context.kind === 'agent' ? agentPrompt(deps, context) : managerPrompt(deps, context.project, context.conversation);
}

/** Tokens of this turn's steps so far: spent from the history budget before any earlier message. */
const transcriptTokens = (step: StepSoFar) => estimateTokens(JSON.stringify(step.transcript));

/**
 * Characters of earlier messages a step may load, by grade: what each grade's budget leaves once
 * this turn's steps are in it. `stepMessages` cuts the window to what fits once the prompt's size is known.
 */
export function recentChars(budget: HistoryBudget, step: StepSoFar): Record<AgentConfig['grade'], number> {
  const spent = transcriptTokens(step);
  const chars = (tokens: number) => charsOfTokens(Math.max(0, tokens - spent));
  const { standard, premium } = budget.tokens;
  return { standard: chars(standard), premium: chars(premium) };
}

/**
 * A user message as the model sees it. Only this turn's images are read and sent as image parts
 * (within the byte budget): an earlier turn's, or one over the budget, is referenced by its path,
 * so a long conversation does not re-read and re-encode every image at every step.
 */
async function userContent(
  deps: StepPromptDeps,
  conversation: ConversationRow,
  row: MessageRow,
  current: boolean,
  imageBytes: { left: number },
): Promise<string | ModelContentPart[]> {
  const refs: AttachmentRef[] = row.attachments ?? [];
  if (refs.length === 0) return row.content;
  const parts: ModelContentPart[] = [];
  if (row.content) parts.push({ type: 'text', text: row.content });
  for (const ref of refs) {
    const file = current && ref.kind === 'image' ? await deps.repos.files.read({ space: conversationDrive(conversation), path: ref.path }) : undefined;
    if (file && file.content.length <= imageBytes.left) {
      imageBytes.left -= file.content.length;
      parts.push({ type: 'image', mimeType: ref.mimeType, data: file.content.toString('base64') });
    } else {
      parts.push({ type: 'text', text: attachmentNote(ref, !current) });
    }
  }
  return parts;
}

/** Prefixes the note that earlier messages were left out to the first (user) message of the window. */
function withDroppedNote(message: ModelMessage, dropped: number): ModelMessage {
  if (dropped === 0 || message.role !== 'user') return message;
  const note = droppedNote(dropped);
  if (typeof message.content === 'string') return { role: 'user', content: `${note}\n\n${message.content}` };
  return { role: 'user', content: [{ type: 'text', text: note }, ...message.content] };
}

/**
 * The conversation as model messages: the newest earlier messages that fit the grade's budget
 * (after the system prompt and this turn's steps), this turn's user message, then its steps.
 */
export async function stepMessages(
  deps: StepPromptDeps,
  conversation: ConversationRow,
  step: StepSoFar,
  loaded: { rows: MessageRow[]; total: number },
  budgetTokens: number,
  system: string,
): Promise<ModelMessage[]> {
  const spent = estimateTokens(system) + transcriptTokens(step);
  const budgetChars = charsOfTokens(Math.max(0, budgetTokens - spent));
  const window = historyWindow(loaded.rows, loaded.total, budgetChars);
  const imageBytes = { left: deps.historyBudget.maxImageBytes };
  const out: ModelMessage[] = [];
  for (const row of window.rows) {
    if (row.role === 'assistant') out.push({ role: 'assistant', content: row.content });
    else out.push({ role: 'user', content: await userContent(deps, conversation, row, row.turn_id === step.turnId, imageBytes) });
  }
  if (out[0]) out[0] = withDroppedNote(out[0], window.dropped);
  return [...out, ...step.transcript];
}
