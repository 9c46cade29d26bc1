import { conceptVector, tokenCount } from './concept-embeddings';
import {
  argumentFragments,
  type JsonAnswer,
  type EncodedStream,
  estimate,
  type ModelServer,
  type Protocol,
  type ScriptedResponse,
  scriptedUsage,
  startScriptedServer,
  textChunks,
} from './scripted-server';

export type { ModelServer } from './scripted-server';

/** How the test server's `/v1/embeddings` answers: its vectors come from concept-embeddings.ts. */
interface EmbeddingsControl {
  /** Answer the next this many embeddings requests with HTTP 500. */
  failNext: number;
  /** Wait this long before each answer (a slow provider, to kill a worker mid-call). */
  delayMs: number;
  /** Texts embedded so far, in order. */
  readonly inputs: string[];
}

export interface OpenAIServer extends ModelServer {
  embeddings: EmbeddingsControl;
}

/**
 * A fake OpenAI Chat Completions server speaking the real streaming wire protocol:
 * `POST /v1/chat/completions` with `stream: true` answers `text/event-stream` lines
 * `data: {chat.completion.chunk}` — a role delta, content deltas, tool-call deltas (id and name
 * first, then argument fragments), a chunk with `finish_reason`, a usage chunk when
 * `stream_options.include_usage` — ending with `data: [DONE]`. Errors answer OpenAI's
 * `{"error":{message,type,param,code}}`. Point `OPENAI_BASE_URL` at `${url}/v1`.
 */
export async function startOpenAIServer(): Promise<OpenAIServer> {
  const embeddings: EmbeddingsControl = { failNext: 0, delayMs: 0, inputs: [] };
  const server = await startScriptedServer({ ...openaiProtocol, jsonRoutes: embeddingsRoutes(embeddings) });
  return Object.assign(server, { embeddings });
}

/**
 * OpenAI's `POST /v1/embeddings`: `{ model, input: string | string[] }` answered with
 * `{ object: 'list', data: [{ object: 'embedding', index, embedding }], model, usage }`.
 */
function embeddingsRoutes(control: EmbeddingsControl): Record<string, (body: Record<string, unknown>) => Promise<JsonAnswer>> {
  const answer = async (body: Record<string, unknown>): Promise<JsonAnswer> => {
    if (control.delayMs > 0) await new Promise((r) => setTimeout(r, control.delayMs));
    if (control.failNext > 0) {
      control.failNext--;
      return { status: 500, body: openaiProtocol.errorBody(500, 'scripted embeddings failure') };
    }
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || input.length === 0 || !input.every((t): t is string => typeof t === 'string')) {
      return { status: 400, body: openaiProtocol.errorBody(400, "'input' must be a string or a non-empty array of strings") };
    }
    control.inputs.push(...input);
    const tokens = tokenCount(input);
    return {
      status: 200,
      body: {
        object: 'list',
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: conceptVector(text) })),
        model: typeof body.model === 'string' ? body.model : 'unknown',
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      },
    };
  };
  return { '/v1/embeddings': answer, '/embeddings': answer };
}

const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_exceeded',
};

const openaiProtocol: Protocol = {
  paths: ['/v1/chat/completions', '/chat/completions'],
  errorBody: (status, message) => ({
    error: { message, type: ERROR_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error'), param: null, code: null },
  }),
  events(script: ScriptedResponse, body: Record<string, unknown>, counter: number): EncodedStream {
    const base = {
      id: `chatcmpl-test${counter}`,
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: typeof body.model === 'string' ? body.model : 'unknown',
      system_fingerprint: null,
    };
    const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
      data({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });

    const events = [chunk({ role: 'assistant', content: '', refusal: null })];
    const texts = textChunks(script);
    for (const text of texts) events.push(chunk({ content: text }));
    let argChars = 0;
    (script.toolCalls ?? []).forEach((call, index) => {
      const { text, fragments } = argumentFragments(call, script.argsChunkSize);
      argChars += text.length + call.name.length;
      events.push(
        chunk({
          tool_calls: [{ index, id: call.id ?? `call_test${counter}_${index}`, type: 'function', function: { name: call.name, arguments: '' } }],
        }),
      );
      for (const fragment of fragments) events.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    });
    const hasTools = (script.toolCalls ?? []).length > 0;
    events.push(chunk({}, script.finishReason ?? (hasTools ? 'tool_calls' : 'stop')));
    const options = body.stream_options;
    if (typeof options === 'object' && options !== null && (options as Record<string, unknown>).include_usage === true) {
      const usage = scriptedUsage(script, body, () => ({
        inputTokens: estimate(JSON.stringify(body.messages ?? []).length),
        outputTokens: estimate((script.text ?? '').length + argChars),
      }));
      events.push(
        data({
          ...base,
          choices: [],
          usage: { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens },
        }),
      );
    }
    events.push('data: [DONE]\n\n');
    return {
      events,
      firstTextIndex: 1,
      malformed: `data: {"id":"${base.id}","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"bro\n\n`,
      errorFrame: (message) => data({ error: { message, type: 'server_error', param: null, code: null } }),
    };
  },
};
