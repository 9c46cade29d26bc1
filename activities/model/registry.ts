import { type ModelEnv, type ModelGrade, type ModelProviderId, resolveModelSpecs } from '../../config/env';
import { createAnthropicProvider } from './anthropic';
import { LocalModelProvider } from './local';
import { createOpenAIProvider } from './openai';
import type { ModelProvider } from './types';

interface ResolvedModel {
  provider: ModelProvider;
  /** Provider-specific model name for `ModelRequest.model`. */
  model: string;
}

type ModelResolver = (grade: ModelGrade) => ResolvedModel;

/**
 * The provider and model of each grade, from `MODEL_STANDARD`/`MODEL_PREMIUM` (`provider:model`) or
 * the defaults (see `resolveModelSpecs`). Throws ConfigError up front for a grade whose provider
 * has no key. Providers are built once and shared by the grades.
 */
export function createModelResolver(config: ModelEnv): ModelResolver {
  const specs = resolveModelSpecs(config);
  const providers = new Map<ModelProviderId, ModelProvider>();
  const providerFor = (id: ModelProviderId): ModelProvider => {
    let provider = providers.get(id);
    if (!provider) {
      provider = build(id, config);
      providers.set(id, provider);
    }
    return provider;
  };
  const resolved: Record<ModelGrade, ResolvedModel> = {
    standard: { provider: providerFor(specs.standard.provider), model: specs.standard.model },
    premium: { provider: providerFor(specs.premium.provider), model: specs.premium.model },
  };
  return (grade) => resolved[grade];
}

function build(id: ModelProviderId, config: ModelEnv): ModelProvider {
  switch (id) {
    case 'openai':
      return createOpenAIProvider({
        ...(config.OPENAI_API_KEY ? { apiKey: config.OPENAI_API_KEY } : {}),
        ...(config.OPENAI_BASE_URL ? { baseURL: config.OPENAI_BASE_URL } : {}),
      });
    case 'anthropic':
      return createAnthropicProvider({
        ...(config.ANTHROPIC_API_KEY ? { apiKey: config.ANTHROPIC_API_KEY } : {}),
        ...(config.ANTHROPIC_BASE_URL ? { baseURL: config.ANTHROPIC_BASE_URL } : {}),
      });
    case 'local':
      return new LocalModelProvider({ delayMs: config.LOCAL_MODEL_DELAY_MS });
    default: {
      const exhaustive: never = id;
      throw new Error(`unknown model provider ${String(exhaustive)}`);
    }
  }
}
