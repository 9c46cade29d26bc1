import { createOpenAI } from '@ai-sdk/openai';
import { embedMany } from 'ai';
import type { Config } from '../../config/env';
import { toModelError } from './ai-sdk-errors';
import { PLACEHOLDER_API_KEY } from './openai';

/** Texts per embeddings request: large enough to amortise the round trip, small enough to retry cheaply. */
export const EMBED_BATCH = 64;

interface Embeddings {
  /** Unit-length vectors, one per text, in order. */
  vectors: Float32Array[];
  /** Tokens the provider counted (estimated at four characters a token when it says none). */
  tokens: number;
}

/** Turns texts into vectors with the configured embeddings model (`EMBEDDINGS_MODEL`). */
export interface Embedder {
  /** `provider:model`, as configured: shown in search results and docs. */
  readonly model: string;
  embed(texts: string[], signal?: AbortSignal): Promise<Embeddings>;
}

/**
 * The embedder of `EMBEDDINGS_MODEL` (`openai:<model>`, through any OpenAI-compatible
 * `/v1/embeddings` at `OPENAI_BASE_URL`), or undefined when none is configured: knowledge search
 * is then full-text only. One request per call (`maxRetries: 0`): Temporal owns retries, and a
 * failure becomes a ModelError that says whether retrying can help.
 */
export function createEmbedder(config: Pick<Config, 'EMBEDDINGS_MODEL' | 'OPENAI_API_KEY' | 'OPENAI_BASE_URL'>, fetch?: typeof globalThis.fetch): Embedder | undefined {
  const spec = config.EMBEDDINGS_MODEL;
  if (!spec) return undefined;
  const name = spec.slice('openai:'.length);
  const openai = createOpenAI({
    apiKey: config.OPENAI_API_KEY ?? PLACEHOLDER_API_KEY,
    baseURL: config.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
    ...(fetch ? { fetch } : {}),
  });
  const model = openai.embedding(name);
  return {
    model: spec,
    async embed(texts, signal) {
      if (texts.length === 0) return { vectors: [], tokens: 0 };
      try {
        const result = await embedMany({ model, values: texts, maxRetries: 0, ...(signal ? { abortSignal: signal } : {}) });
        const tokens = result.usage?.tokens ?? Math.ceil(texts.reduce((n, t) => n + t.length, 0) / 4);
        return { vectors: result.embeddings.map(unit), tokens };
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        throw toModelError(e, 'Embeddings');
      }
    },
  };
}

/** The vector scaled to length 1, so cosine similarity is a dot product. */
export function unit(values: number[] | Float32Array): Float32Array {
  let sum = 0;
  for (const v of values) sum += v * v;
  const norm = Math.sqrt(sum) || 1;
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i]! / norm;
  return out;
}
