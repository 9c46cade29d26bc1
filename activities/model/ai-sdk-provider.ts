import type {
  JSONSchema7,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  SharedV3ProviderOptions,
  SharedV3Warning,
} from '@ai-sdk/provider';
import { secureJsonParse } from '@ai-sdk/provider-utils';
import { isPlainObject, toModelError } from './ai-sdk-errors';
import {
  type ModelMessage,
  ModelError,
  type ModelProvider,
  type ModelRequest,
  type ModelResult,
  type ModelTool,
  type ModelToolCall,
} from './types';

/**
 * A ModelProvider on an AI SDK language model's own `doStream` (the provider spec, V3), shared by
 * the OpenAI and Anthropic providers. `streamText` is not used: its transform chain cost as much
 * CPU as the provider's SSE parsing, for features (retries, tool execution, steps) we do not use.
 *
 * - One request per call: `doStream` never retries (Temporal owns retries), and no tool is
 *   executed, so the call ends at the model's tool calls (the turn loop runs them).
 * - Failures: `doStream` rejects on an HTTP error before the stream; a failure mid-stream (a
 *   malformed chunk, a provider error frame) is an `error` part *followed by more parts*, so the
 *   first one ends the call; a dropped connection errors the stream itself. All become a `ModelError`.
 * - A stream that ends without the provider's finish reason (no `finish_reason`/`stop_reason`) is
 *   truncated: a retryable ModelError.
 * - Cancellation (`request.signal`) rejects with the signal's reason, so an activity reports its
 *   cancellation as such; the HTTP request is aborted whenever the call ends early.
 */
interface AiSdkProviderOptions {
  /** `openai` or `anthropic`. */
  id: string;
  /** Name in error messages, e.g. `OpenAI`. */
  label: string;
  /** The AI SDK model for a provider-specific model name. */
  languageModel: (model: string) => LanguageModelV3;
  /**
   * Fails the call (retryable) when no stream part arrives for this long. Off by default: the
   * model activity's heartbeat timeout already catches a hung stream, and reasoning models can be
   * silent for minutes before their first token.
   */
  idleTimeoutMs?: number;
  /** Provider-specific options for every call, e.g. `{ anthropic: { toolStreaming: false } }`. */
  providerOptions?: SharedV3ProviderOptions;
}

type Part = LanguageModelV3StreamPart;
type Finish = Extract<Part, { type: 'finish' }>;
type Reader = ReadableStreamDefaultReader<Part>;
type UserPart = Extract<LanguageModelV3Prompt[number], { role: 'user' }>['content'][number];

export class AiSdkModelProvider implements ModelProvider {
  readonly id: string;

  constructor(private readonly options: AiSdkProviderOptions) {
    this.id = options.id;
  }

  async stream(request: ModelRequest, onText: (delta: string) => void, onOutput?: (delta: string) => void): Promise<ModelResult> {
    const outer = request.signal;
    outer?.throwIfAborted();
    // Our own controller, so that leaving early (an error part, a throwing onText, the idle timer)
    // always tears down the HTTP request, and a caller's abort reaches it too.
    const controller = new AbortController();
    const forwardAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener('abort', forwardAbort, { once: true });
    const idle = this.options.idleTimeoutMs;
    let idleTimer: NodeJS.Timeout | undefined;
    let idled = false;
    let text = '';
    const toolCalls: ModelToolCall[] = [];
    let finish: Finish | undefined;
    let done = false;
    let reader: Reader | undefined;
    try {
      const options: LanguageModelV3CallOptions = {
        prompt: toPrompt(request.system, request.messages),
        ...(request.tools.length > 0 ? { tools: request.tools.map(toFunctionTool), toolChoice: { type: 'auto' } } : {}),
        abortSignal: controller.signal,
        ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
        ...(this.options.providerOptions ? { providerOptions: this.options.providerOptions } : {}),
      };
      const model = this.options.languageModel(request.model);
      let result: LanguageModelV3StreamResult;
      try {
        result = await model.doStream(options);
      } catch (error) {
        throw this.failure(error, outer);
      }
      reader = result.stream.getReader();
      for (;;) {
        let next: Awaited<ReturnType<Reader['read']>>;
        try {
          next = await reader.read();
        } catch (error) {
          if (idled && !outer?.aborted) throw new ModelError(`${this.options.label}: no data from the model for ${idle ?? 0} ms`, true);
          throw this.failure(error, outer);
        }
        if (next.done) break;
        if (idle !== undefined) {
          // As streamText's `chunkMs`: counted from the first part, which the provider sends as
          // soon as the response headers arrive. `refresh` re-arms the one timer.
          idleTimer ??= setTimeout(() => {
            idled = true;
            controller.abort();
          }, idle);
          idleTimer.refresh();
        }
        const part = next.value;
        switch (part.type) {
          case 'text-delta':
            if (part.delta.length > 0) {
              text += part.delta;
              onText(part.delta);
            }
            break;
          case 'tool-input-delta':
          case 'reasoning-delta':
            onOutput?.(part.delta);
            break;
          case 'tool-call':
            toolCalls.push(this.toolCall(part.toolCallId, part.toolName, part.input, request.tools));
            break;
          case 'error':
            throw this.failure(part.error, outer);
          case 'finish':
            finish = part;
            break;
          case 'stream-start':
            logWarnings(part.warnings, model);
            break;
          default:
            break;
        }
      }
      done = true;
    } finally {
      clearTimeout(idleTimer);
      outer?.removeEventListener('abort', forwardAbort);
      if (!done) {
        controller.abort();
        reader?.cancel().catch(() => undefined);
      }
    }

    if (outer?.aborted) throw outer.reason;
    if (!finish || (finish.finishReason.raw === undefined && (finish.finishReason.unified === 'other' || finish.finishReason.unified === 'error'))) {
      throw new ModelError(`${this.options.label}: the stream ended before the model finished (truncated response)`, true);
    }
    return {
      text,
      toolCalls,
      usage: {
        inputTokens: finish.usage.inputTokens.total ?? 0,
        outputTokens: finish.usage.outputTokens.total ?? 0,
      },
      finishReason: finish.finishReason.unified,
    };
  }

  /** The model's JSON argument string, parsed as streamText parsed it (prototype keys rejected). */
  private toolCall(id: string, name: string, input: string, offered: ModelTool[]): ModelToolCall {
    // streamText read empty arguments as `{}` for an offered tool only (another is an invalid call).
    const args = input.trim() === '' && offered.some((t) => t.name === name) ? {} : parseJson(input);
    if (!isPlainObject(args)) {
      throw new ModelError(`${this.options.label}: the model sent malformed arguments for tool ${name}`, true);
    }
    return { id, name, args };
  }

  private failure(error: unknown, outer: AbortSignal | undefined): unknown {
    if (outer?.aborted) return outer.reason;
    return toModelError(error, this.options.label);
  }
}

function parseJson(text: string): unknown {
  try {
    return secureJsonParse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A call's warnings (e.g. a setting the model does not support) to the AI SDK's warning hook, as
 * streamText did: the worker sets it to write them to its log (see temporal-runtime.ts).
 */
function logWarnings(warnings: SharedV3Warning[], model: LanguageModelV3): void {
  const hook = globalThis.AI_SDK_LOG_WARNINGS;
  if (warnings.length === 0 || hook === false) return;
  if (typeof hook === 'function') {
    hook({ warnings, provider: model.provider, model: model.modelId });
    return;
  }
  for (const w of warnings) {
    const text = w.type === 'other' ? w.message : `The feature "${w.feature}" is ${w.type === 'unsupported' ? 'not supported' : 'used in a compatibility mode'}.${w.details ? ` ${w.details}` : ''}`;
    console.warn(`AI SDK Warning (${model.provider} / ${model.modelId}): ${text}`);
  }
}

/**
 * Our messages as the provider's prompt, as streamText's conversion built it: the system prompt
 * first, a user string as one text part, empty text parts of a user's list left out, consecutive
 * tool results in one tool message.
 */
function toPrompt(system: string, messages: ModelMessage[]): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = system ? [{ role: 'system', content: system }] : [];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        prompt.push({
          role: 'user',
          content:
            typeof message.content === 'string'
              ? [{ type: 'text', text: message.content }]
              : message.content.flatMap((part): UserPart[] => {
                  if (part.type === 'image') return [{ type: 'file', mediaType: imageType(part.data) ?? part.mimeType, data: part.data }];
                  return part.text === '' ? [] : [{ type: 'text', text: part.text }];
                }),
        });
        break;
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        // Providers reject an assistant message with no content at all.
        if (message.content === '' && calls.length === 0) break;
        prompt.push({
          role: 'assistant',
          content: [
            ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
            // The prompt takes the arguments as an object; each provider serialises them itself.
            ...calls.map((call) => ({ type: 'tool-call' as const, toolCallId: call.id, toolName: call.name, input: call.args })),
          ],
        });
        break;
      }
      case 'tool': {
        const part = {
          type: 'tool-result' as const,
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          output: message.isError ? { type: 'error-text' as const, value: message.content } : { type: 'text' as const, value: message.content },
        };
        const last = prompt[prompt.length - 1];
        if (last?.role === 'tool') last.content.push(part);
        else prompt.push({ role: 'tool', content: [part] });
        break;
      }
      default: {
        const exhaustive: never = message;
        throw new Error(`unknown message role ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  return prompt;
}

/** A tool the model may call (nothing runs it here); its arguments are parsed, not validated against the schema. */
function toFunctionTool(tool: ModelTool): LanguageModelV3FunctionTool {
  return { type: 'function', name: tool.name, description: tool.description, inputSchema: tool.parameters as JSONSchema7 };
}

/** The image signatures streamText's conversion knew (the `ai` package's `detectMediaType`); `null`: any byte. */
const IMAGE_SIGNATURES: Array<[mediaType: string, prefix: Array<number | null>]> = [
  ['image/gif', [0x47, 0x49, 0x46]],
  ['image/png', [0x89, 0x50, 0x4e, 0x47]],
  ['image/jpeg', [0xff, 0xd8]],
  ['image/webp', [0x52, 0x49, 0x46, 0x46, null, null, null, null, 0x57, 0x45, 0x42, 0x50]],
  ['image/bmp', [0x42, 0x4d]],
  ['image/tiff', [0x49, 0x49, 0x2a, 0x00]],
  ['image/tiff', [0x4d, 0x4d, 0x00, 0x2a]],
  ['image/avif', [0x00, 0x00, 0x00, 0x20, 0x66, 0x74, 0x79, 0x70, 0x61, 0x76, 0x69, 0x66]],
  ['image/heic', [0x00, 0x00, 0x00, 0x20, 0x66, 0x74, 0x79, 0x70, 0x68, 0x65, 0x69, 0x63]],
];

/**
 * The image type the base64 data's first bytes show. streamText's conversion sent it in place of
 * the declared type (an upload's type is the client's word), and a provider may reject a mismatch.
 */
function imageType(base64: string): string | undefined {
  const head = Buffer.from(base64.slice(0, 16), 'base64');
  return IMAGE_SIGNATURES.find(([, prefix]) => head.length >= prefix.length && prefix.every((byte, i) => byte === null || head[i] === byte))?.[0];
}
