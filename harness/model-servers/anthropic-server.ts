import {
  argumentFragments,
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

/**
 * A fake Anthropic Messages server speaking the real streaming wire protocol:
 * `POST /v1/messages` with `stream: true` answers `event: message_start`, then per content block
 * `content_block_start` (text or tool_use), `content_block_delta` (`text_delta` /
 * `input_json_delta`), `content_block_stop`, then `message_delta` (stop_reason, usage) and
 * `message_stop`. Errors answer `{"type":"error","error":{type,message}}`.
 * Point `ANTHROPIC_BASE_URL` at `url` (or `${url}/v1`).
 */
export function startAnthropicServer(): Promise<ModelServer> {
  return startScriptedServer(anthropicProtocol);
}

const event = (name: string, value: unknown) => `event: ${name}\ndata: ${JSON.stringify(value)}\n\n`;

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const anthropicProtocol: Protocol = {
  paths: ['/v1/messages'],
  errorBody: (status, message) => ({
    type: 'error',
    error: { type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message },
  }),
  events(script: ScriptedResponse, body: Record<string, unknown>, counter: number): EncodedStream {
    const texts = textChunks(script);
    const calls = script.toolCalls ?? [];
    let argChars = 0;
    for (const call of calls) argChars += argumentFragments(call).text.length + call.name.length;
    const usage = scriptedUsage(script, body, () => ({
      inputTokens: estimate(JSON.stringify(body.messages ?? []).length + (typeof body.system === 'string' ? body.system.length : 0)),
      outputTokens: estimate((script.text ?? '').length + argChars),
    }));
    const events = [
      event('message_start', {
        type: 'message_start',
        message: {
          id: `msg_test${counter}`,
          type: 'message',
          role: 'assistant',
          model: typeof body.model === 'string' ? body.model : 'unknown',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: usage.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
        },
      }),
    ];
    let index = 0;
    if (texts.length > 0) {
      events.push(event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      for (const text of texts) events.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
      events.push(event('content_block_stop', { type: 'content_block_stop', index }));
      index++;
    }
    calls.forEach((call, n) => {
      events.push(
        event('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: call.id ?? `toolu_test${counter}_${n}`, name: call.name, input: {} },
        }),
      );
      for (const fragment of argumentFragments(call, script.argsChunkSize).fragments) {
        events.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: fragment } }));
      }
      events.push(event('content_block_stop', { type: 'content_block_stop', index }));
      index++;
    });
    events.push(
      event('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: script.finishReason ?? (calls.length > 0 ? 'tool_use' : 'end_turn'), stop_sequence: null },
        usage: { output_tokens: usage.outputTokens },
      }),
      event('message_stop', { type: 'message_stop' }),
    );
    return {
      events,
      // message_start, then content_block_start of the text block
      firstTextIndex: texts.length > 0 ? 2 : 1,
      malformed: `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_del\n\n`,
      errorFrame: (message) => event('error', { type: 'error', error: { type: 'overloaded_error', message } }),
    };
  },
};
