import { createAnthropic } from '@ai-sdk/anthropic';
import { AiSdkModelProvider } from './ai-sdk-provider';
import { PLACEHOLDER_API_KEY } from './openai';

interface AnthropicProviderOptions {
  /** `ANTHROPIC_API_KEY`; a placeholder is sent to a keyless proxy. */
  apiKey?: string;
  /** `ANTHROPIC_BASE_URL`: the API root as the official SDK takes it (`https://api.anthropic.com`); a trailing `/v1` is accepted too. */
  baseURL?: string;
  fetch?: typeof globalThis.fetch;
  idleTimeoutMs?: number;
}

const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

/**
 * The official SDK's ANTHROPIC_BASE_URL is the root (it adds `/v1/messages`); the AI SDK's
 * `baseURL` includes `/v1`. Accept both spellings.
 */
function anthropicApiURL(baseURL: string = ANTHROPIC_DEFAULT_BASE_URL): string {
  const trimmed = baseURL.replace(/\/+$/, '');
  return /\/v1$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/**
 * Anthropic Messages (`POST {root}/v1/messages`, streamed). Fine-grained ("eager") tool-input
 * streaming, on by default in the AI SDK, is turned off: nothing here shows partial tool input, and
 * eager streaming may end in invalid JSON arguments.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions = {}): AiSdkModelProvider {
  const anthropic = createAnthropic({
    apiKey: options.apiKey ?? PLACEHOLDER_API_KEY,
    baseURL: anthropicApiURL(options.baseURL),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return new AiSdkModelProvider({
    id: 'anthropic',
    label: 'Anthropic',
    languageModel: (model) => anthropic.messages(model),
    providerOptions: { anthropic: { toolStreaming: false } },
    ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
  });
}
