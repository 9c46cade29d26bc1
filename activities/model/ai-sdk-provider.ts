import {
  jsonSchema,
  type JSONSchema7,
  type LanguageModel,
  type ModelMessage as SdkMessage,
  streamText,
  type TextStreamPart,
  type Tool,
  type ToolSet,
} from 'ai';
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
 * A ModelProvider on the Vercel AI SDK's `streamText`, shared by the OpenAI and Anthropic providers.
 *
 * - One request per call: `maxRetries: 0` (Temporal owns retries) and tools without `execute`, so
 *   the call ends at the model's tool calls (the turn loop runs them).
 * - `streamText` never rejects: failures arrive as `error` parts of `fullStream` (and through
 *   `onError`, which by default logs to the console — silenced here). A failure mid-stream
 *   (a malformed chunk) is an `error` part *followed by more parts*, so the first one ends the call.
 *   A dropped connection errors the stream itself. Both become a `ModelError`.
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
  languageModel: (model: string) => LanguageModel;
  /**
   * Fails the call (retryable) when no stream part arrives for this long. Off by default: the
   * model activity's heartbeat timeout already catches a hung stream, and reasoning models can be
   * silent for minutes before their first token.
   */
  idleTimeoutMs?: number;
  /** Provider-specific options for every call, e.g. `{ anthropic: { toolStreaming: false } }`. */
  providerOptions?: ProviderOptions;
}

type ProviderOptions = NonNullable<Parameters<typeof streamText>[0]['providerOptions']>;
type Part = TextStreamPart<ToolSet>;
type Finish = Extract<Part, { type: 'finish' }>;

export class AiSdkModelProvider implements ModelProvider {
  readonly id: string;

  constructor(private readonly options: AiSdkProviderOptions) {
    this.id = options.id;
  }

  async stream(request: ModelRequest, onText: (delta: string) => void, onOutput?: (delta: string) => void): Promise<ModelResult> {
    const outer = request.signal;
    outer?.throwIfAborted();
    // Our own controller, so that leaving early (an error part, a throwing onText) always tears
    // down the HTTP request, and a caller's abort reaches it too.
    const controller = new AbortController();
    const forwardAbort = () => controller.abort(outer?.reason);
    outer?.addEventListener('abort', forwardAbort, { once: true });
    const idle = this.options.idleTimeoutMs;
    let text = '';
    const toolCalls: ModelToolCall[] = [];
    let finish: Finish | undefined;
    let done = false;
    let iterator: AsyncIterator<Part> | undefined;
    try {
      const result = streamText({
        model: this.options.languageModel(request.model),
        ...(request.system ? { system: request.system } : {}),
        messages: toSdkMessages(request.messages),
        ...(request.tools.length > 0 ? { tools: toSdkTools(request.tools) } : {}),
        maxRetries: 0,
        abortSignal: controller.signal,
        ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
        ...(idle !== undefined ? { timeout: { chunkMs: idle } } : {}),
        ...(this.options.providerOptions ? { providerOptions: this.options.providerOptions } : {}),
        onError: () => {
          // Read from the `error` parts below instead of being logged here.
        },
      });
      iterator = result.fullStream[Symbol.asyncIterator]();
      for (;;) {
        let next: IteratorResult<Part>;
        try {
          next = await iterator.next();
        } catch (error) {
          throw this.failure(error, outer);
        }
        if (next.done) break;
        const part = next.value;
        switch (part.type) {
          case 'text-delta':
            if (part.text.length > 0) {
              text += part.text;
              onText(part.text);
            }
            break;
          case 'tool-input-delta':
            onOutput?.(part.delta);
            break;
          case 'reasoning-delta':
            onOutput?.(part.text);
            break;
          case 'tool-call':
            toolCalls.push(this.toolCall(part.toolCallId, part.toolName, part.input));
            break;
          case 'error':
            throw this.failure(part.error, outer);
          case 'abort':
            if (outer?.aborted) throw outer.reason;
            throw new ModelError(`${this.options.label}: no data from the model for ${idle ?? 0} ms`, true);
          case 'finish':
            finish = part;
            break;
          default:
            break;
        }
      }
      done = true;
    } finally {
      outer?.removeEventListener('abort', forwardAbort);
      if (!done) {
        controller.abort();
        iterator?.return?.().catch(() => undefined);
      }
    }

    if (outer?.aborted) throw outer.reason;
    if (!finish || (finish.rawFinishReason === undefined && (finish.finishReason === 'other' || finish.finishReason === 'error'))) {
      throw new ModelError(`${this.options.label}: the stream ended before the model finished (truncated response)`, true);
    }
    return {
      text,
      toolCalls,
      usage: {
        inputTokens: finish.totalUsage.inputTokens ?? 0,
        outputTokens: finish.totalUsage.outputTokens ?? 0,
      },
      finishReason: finish.finishReason,
    };
  }

  private toolCall(id: string, name: string, input: unknown): ModelToolCall {
    // An unparsable argument string arrives as the raw string (an "invalid" tool call).
    if (!isPlainObject(input)) {
      throw new ModelError(`${this.options.label}: the model sent malformed arguments for tool ${name}`, true);
    }
    return { id, name, args: input };
  }

  private failure(error: unknown, outer: AbortSignal | undefined): unknown {
    if (outer?.aborted) return outer.reason;
    return toModelError(error, this.options.label);
  }
}

/** Maps our messages to the AI SDK's; consecutive tool results share one tool message. */
function toSdkMessages(messages: ModelMessage[]): SdkMessage[] {
  const out: SdkMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        out.push({
          role: 'user',
          content:
            typeof message.content === 'string'
              ? message.content
              : message.content.map((part) =>
                  part.type === 'text'
                    ? { type: 'text' as const, text: part.text }
                    : { type: 'image' as const, image: part.data, mediaType: part.mimeType },
                ),
        });
        break;
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        // Providers reject an assistant message with no content at all.
        if (message.content === '' && calls.length === 0) break;
        out.push({
          role: 'assistant',
          content: [
            ...(message.content === '' ? [] : [{ type: 'text' as const, text: message.content }]),
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
        const last = out[out.length - 1];
        if (last?.role === 'tool') last.content.push(part);
        else out.push({ role: 'tool', content: [part] });
        break;
      }
      default: {
        const exhaustive: never = message;
        throw new Error(`unknown message role ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  return out;
}

/** Tools without `execute`: the call stops at the model's tool calls. Arguments are parsed, not validated. */
function toSdkTools(tools: ModelTool[]): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) {
    const definition: Tool = {
      description: t.description,
      inputSchema: jsonSchema<Record<string, unknown>>(t.parameters as JSONSchema7),
    };
    set[t.name] = definition;
  }
  return set;
}
