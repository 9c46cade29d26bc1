import type { ModelMessage, ModelProvider, ModelRequest, ModelResult, ModelToolCall } from './types';

interface LocalProviderOptions {
  /** Pause before each streamed delta, in ms (`LOCAL_MODEL_DELAY_MS`); default 0. */
  delayMs?: number;
}

const OFFLINE_PREFIX = '(offline model) ';
const TOOL_LINE = /^\s*\/tool\s+(\S+)(?:\s+(.*?))?\s*$/;
const RESULT_PREVIEW_CHARS = 200;

/**
 * The built-in offline model `local`: deterministic, no network, no key. The model name after
 * `local:` is ignored (`local:offline` by convention).
 *
 * - Every reply starts with `(offline model) `.
 * - A user message is echoed: "hello" → `(offline model) You said: hello` (the text of the last
 *   user message, trimmed; image parts add ` [N image(s) attached]`).
 * - Tool calls: each line of the last user message of the form `/tool <name> <json-object>`
 *   (e.g. `/tool files_write {"path":"notes.md","content":"hi"}`; the JSON may be omitted for `{}`)
 *   becomes a tool call, in order, with ids `call_1`, `call_2`… (numbering continues after the tool
 *   calls already in the conversation, so ids stay unique), no text and finish reason `tool-calls`.
 *   `<name>` is the name the model calls the tool by (`files_write`, `catalog__search`) or the name
 *   events show, which the naming rule turns into it (docs/tools.md: `files.write` → `files_write`,
 *   `catalog.search` → `catalog__search`). Other lines are then ignored. If any such line names a
 *   tool that is not offered or has arguments that are not a JSON object, nothing is called and
 *   the reply says so, e.g. `(offline model) Unknown tool "nope". Available tools: files_write.`
 * - When the conversation ends with tool results, the reply summarises them:
 *   `(offline model) Tool results: <name>: <first 200 chars of content>; <name>: …`
 *   (a failed tool shows as `<name> (error): …`).
 * - Text is streamed word by word (each delta a word with its following whitespace), so a reply of
 *   N words arrives as N deltas, each after `delayMs`.
 * - `maxOutputTokens` cuts the text at 4 × maxOutputTokens characters (finish reason `length`).
 * - Usage is estimated as ceil(characters / 4): input counts the system prompt, message texts, tool
 *   calls and results (not images); output counts the reply text and tool calls.
 */
export class LocalModelProvider implements ModelProvider {
  readonly id = 'local';
  private readonly delayMs: number;

  constructor(options: LocalProviderOptions = {}) {
    this.delayMs = options.delayMs ?? 0;
  }

  async stream(request: ModelRequest, onText: (delta: string) => void): Promise<ModelResult> {
    request.signal?.throwIfAborted();
    const answer = this.answer(request);
    let text = answer.text;
    let finishReason: ModelResult['finishReason'] = answer.toolCalls.length > 0 ? 'tool-calls' : 'stop';
    if (request.maxOutputTokens !== undefined && text.length > request.maxOutputTokens * 4) {
      text = text.slice(0, Math.max(0, request.maxOutputTokens * 4));
      finishReason = 'length';
    }
    for (const delta of text.match(/\S+\s*|\s+/g) ?? []) {
      if (this.delayMs > 0) await sleep(this.delayMs, request.signal);
      request.signal?.throwIfAborted();
      onText(delta);
    }
    const outputChars = text.length + answer.toolCalls.reduce((n, c) => n + c.name.length + JSON.stringify(c.args).length, 0);
    return {
      text,
      toolCalls: answer.toolCalls,
      usage: { inputTokens: estimateTokens(inputChars(request)), outputTokens: estimateTokens(outputChars) },
      finishReason,
    };
  }

  private answer(request: ModelRequest): { text: string; toolCalls: ModelToolCall[] } {
    const { messages } = request;
    const results: Array<Extract<ModelMessage, { role: 'tool' }>> = [];
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      if (m?.role !== 'tool') break;
      results.unshift(m);
    }
    if (results.length > 0) {
      const summary = results.map((r) => `${r.toolName}${r.isError ? ' (error)' : ''}: ${r.content.slice(0, RESULT_PREVIEW_CHARS)}`).join('; ');
      return { text: `${OFFLINE_PREFIX}Tool results: ${summary}`, toolCalls: [] };
    }
    const last = messages[messages.length - 1];
    if (last?.role !== 'user') {
      return { text: `${OFFLINE_PREFIX}There is no user message to answer.`, toolCalls: [] };
    }
    const { text, images } = userText(last);
    const toolLines = text.split(/\r?\n/).flatMap((line) => {
      const match = TOOL_LINE.exec(line);
      return match ? [{ name: match[1] ?? '', json: match[2] ?? '' }] : [];
    });
    if (toolLines.length === 0) {
      const attached = images > 0 ? ` [${images} image${images === 1 ? '' : 's'} attached]` : '';
      return { text: `${OFFLINE_PREFIX}You said: ${text.trim()}${attached}`, toolCalls: [] };
    }
    const offered = request.tools.map((t) => t.name);
    const problems: string[] = [];
    const toolCalls: ModelToolCall[] = [];
    let nextId = messages.reduce((n, m) => n + (m.role === 'assistant' ? (m.toolCalls?.length ?? 0) : 0), 0) + 1;
    for (const line of toolLines) {
      const name = offeredName(line.name, offered);
      const { json } = line;
      if (name === undefined) {
        problems.push(`Unknown tool "${line.name}". Available tools: ${offered.length > 0 ? offered.join(', ') : 'none'}.`);
        continue;
      }
      const args = parseObject(json);
      if (args === undefined) {
        problems.push(`Bad arguments for tool "${name}": expected a JSON object, got ${JSON.stringify(json)}.`);
        continue;
      }
      toolCalls.push({ id: `call_${nextId++}`, name, args });
    }
    if (problems.length > 0) return { text: `${OFFLINE_PREFIX}${problems.join(' ')}`, toolCalls: [] };
    return { text: '', toolCalls };
  }
}

/**
 * The offered name a `/tool` line means: itself, or a name as events show it under the naming
 * rule — a built-in's dot becomes `_` (`files.write`), an MCP tool's `server.tool` becomes
 * `server__tool`. Undefined when none is offered.
 */
function offeredName(name: string, offered: readonly string[]): string | undefined {
  const candidates = [name, name.replace('.', '_'), name.replace('.', '__')];
  return candidates.find((c) => offered.includes(c));
}

function userText(message: Extract<ModelMessage, { role: 'user' }>): { text: string; images: number } {
  if (typeof message.content === 'string') return { text: message.content, images: 0 };
  const texts: string[] = [];
  let images = 0;
  for (const part of message.content) {
    if (part.type === 'text') texts.push(part.text);
    else images++;
  }
  return { text: texts.join('\n'), images };
}

function parseObject(json: string): Record<string, unknown> | undefined {
  if (json.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function inputChars(request: ModelRequest): number {
  let chars = request.system.length;
  for (const m of request.messages) {
    if (m.role === 'user') chars += userText(m).text.length;
    else if (m.role === 'assistant') {
      chars += m.content.length;
      for (const c of m.toolCalls ?? []) chars += c.name.length + JSON.stringify(c.args).length;
    } else chars += m.content.length;
  }
  return chars;
}

function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
