import { createOpenAI } from '@ai-sdk/openai';
import { AiSdkModelProvider } from './ai-sdk-provider';

interface OpenAIProviderOptions {
  /** `OPENAI_API_KEY`; a placeholder is sent when a keyless OpenAI-compatible server is used. */
  apiKey?: string;
  /** `OPENAI_BASE_URL`, including the `/v1` (e.g. `http://localhost:11434/v1` for Ollama). */
  baseURL?: string;
  fetch?: typeof globalThis.fetch;
  idleTimeoutMs?: number;
}

const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Sent when OPENAI_BASE_URL is set without a key: most local servers ignore the header. */
export const PLACEHOLDER_API_KEY = 'not-needed';

/**
 * OpenAI **Chat Completions** (`POST {baseURL}/chat/completions`, streamed), not the Responses
 * API, so the same provider serves every OpenAI-compatible server (Ollama, vLLM, LM Studio,
 * OpenRouter…). The AI SDK asks for usage in the stream (`stream_options.include_usage`) itself.
 */
export function createOpenAIProvider(options: OpenAIProviderOptions = {}): AiSdkModelProvider {
  // Explicit values throughout: the SDK would otherwise read OPENAI_* from process.env itself.
  const openai = createOpenAI({
    apiKey: options.apiKey ?? PLACEHOLDER_API_KEY,
    baseURL: options.baseURL ?? OPENAI_DEFAULT_BASE_URL,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return new AiSdkModelProvider({
    id: 'openai',
    label: 'OpenAI',
    languageModel: (model) => openai.chat(model),
    ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
  });
}
