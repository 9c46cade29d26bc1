import assert from 'node:assert/strict';
import { LocalModelProvider } from '../../activities/model/local';
import { createModelResolver } from '../../activities/model/registry';
import { ConfigError, loadConfig } from '../../config/env';
import { startOpenAIServer } from '../../harness/model-servers/openai-server';

/** MODEL_STANDARD / MODEL_PREMIUM and the provider variables, from env to a working provider. */

const resolverFor = (env: Record<string, string>) => createModelResolver(loadConfig(env));
const pick = (env: Record<string, string>) => {
  const resolve = resolverFor(env);
  const s = resolve('standard');
  const p = resolve('premium');
  return { standard: `${s.provider.id}:${s.model}`, premium: `${p.provider.id}:${p.model}` };
};

describe('model registry', () => {
  it('defaults to the offline local model when no key is set', () => {
    assert.deepEqual(pick({}), { standard: 'local:offline', premium: 'local:offline' });
    assert.ok(resolverFor({})('standard').provider instanceof LocalModelProvider);
  });

  it('defaults to OpenAI models when OPENAI_API_KEY is set (even with an Anthropic key)', () => {
    assert.deepEqual(pick({ OPENAI_API_KEY: 'sk-1', ANTHROPIC_API_KEY: 'sk-ant' }), {
      standard: 'openai:gpt-4.1-mini',
      premium: 'openai:gpt-4.1',
    });
  });

  it('defaults to Anthropic models when only ANTHROPIC_API_KEY is set', () => {
    assert.deepEqual(pick({ ANTHROPIC_API_KEY: 'sk-ant' }), {
      standard: 'anthropic:claude-3-5-haiku-latest',
      premium: 'anthropic:claude-sonnet-4-5',
    });
  });

  it('MODEL_STANDARD / MODEL_PREMIUM choose provider and model (the model may contain colons)', () => {
    assert.deepEqual(pick({ OPENAI_API_KEY: 'sk-1', ANTHROPIC_API_KEY: 'sk-ant', MODEL_STANDARD: 'local:offline', MODEL_PREMIUM: 'anthropic:claude-opus-4-1' }), {
      standard: 'local:offline',
      premium: 'anthropic:claude-opus-4-1',
    });
    assert.deepEqual(pick({ OPENAI_BASE_URL: 'http://localhost:11434/v1', MODEL_STANDARD: 'openai:llama3.1:8b' }), {
      standard: 'openai:llama3.1:8b',
      premium: 'local:offline',
    });
  });

  it('one provider instance serves both grades', () => {
    const resolve = resolverFor({ OPENAI_API_KEY: 'sk-1' });
    assert.equal(resolve('standard').provider, resolve('premium').provider);
  });

  const badValues: Array<[Record<string, string>, string, RegExp]> = [
    [{ MODEL_STANDARD: 'gpt-4.1' }, 'MODEL_STANDARD', /provider:model with provider openai, anthropic or local/],
    [{ MODEL_PREMIUM: 'mistral:large' }, 'MODEL_PREMIUM', /provider:model/],
    [{ MODEL_STANDARD: 'openai:' }, 'MODEL_STANDARD', /provider:model/],
    [{ OPENAI_BASE_URL: 'localhost:11434' }, 'OPENAI_BASE_URL', /absolute http\(s\) URL/],
    [{ ANTHROPIC_BASE_URL: 'nope' }, 'ANTHROPIC_BASE_URL', /absolute http\(s\) URL/],
    [{ LOCAL_MODEL_DELAY_MS: '-5' }, 'LOCAL_MODEL_DELAY_MS', /at least 0/],
    [{ LOCAL_MODEL_DELAY_MS: 'slow' }, 'LOCAL_MODEL_DELAY_MS', /milliseconds/],
  ];
  for (const [env, variable, expectation] of badValues) {
    it(`${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')} stops start-up naming ${variable}`, () => {
      assert.throws(
        () => loadConfig(env),
        (e: unknown) => e instanceof ConfigError && e.variable === variable && expectation.test(e.message),
      );
    });
  }

  const missingKeys: Array<[Record<string, string>, string, RegExp]> = [
    [{ MODEL_STANDARD: 'openai:gpt-4.1-mini' }, 'MODEL_STANDARD', /openai:gpt-4\.1-mini needs OPENAI_API_KEY/],
    [{ MODEL_PREMIUM: 'openai:gpt-4.1' }, 'MODEL_PREMIUM', /needs OPENAI_API_KEY/],
    [{ MODEL_PREMIUM: 'anthropic:claude-sonnet-4-5' }, 'MODEL_PREMIUM', /needs ANTHROPIC_API_KEY/],
    [{ OPENAI_API_KEY: 'sk-1', MODEL_STANDARD: 'anthropic:claude-3-5-haiku-latest' }, 'MODEL_STANDARD', /needs ANTHROPIC_API_KEY/],
  ];
  for (const [env, variable, expectation] of missingKeys) {
    it(`${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')} without its key is a ConfigError naming ${variable}`, () => {
      const check = (e: unknown) => e instanceof ConfigError && e.variable === variable && expectation.test(e.message);
      assert.throws(() => loadConfig(env), check);
      const raw = { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, ...env, LOCAL_MODEL_DELAY_MS: 0 };
      assert.throws(() => createModelResolver(raw), check);
    });
  }

  it('LOCAL_MODEL_DELAY_MS reaches the local model', async () => {
    const { provider } = resolverFor({ LOCAL_MODEL_DELAY_MS: '30' })('standard');
    const started = Date.now();
    await provider.stream({ model: 'offline', system: '', messages: [{ role: 'user', content: 'hi' }], tools: [] }, () => undefined);
    assert.ok(Date.now() - started >= 4 * 25, `took ${Date.now() - started} ms`);
    assert.equal(loadConfig({ LOCAL_MODEL_DELAY_MS: '0' }).LOCAL_MODEL_DELAY_MS, 0);
  });

  it('OPENAI_BASE_URL without a key reaches a keyless OpenAI-compatible server (placeholder key)', async () => {
    const server = await startOpenAIServer();
    try {
      server.enqueue({ text: 'from the local server' });
      const { provider, model } = resolverFor({ OPENAI_BASE_URL: `${server.url}/v1`, MODEL_STANDARD: 'openai:llama3.1' })('standard');
      const result = await provider.stream({ model, system: '', messages: [{ role: 'user', content: 'hi' }], tools: [] }, () => undefined);
      assert.equal(result.text, 'from the local server');
      assert.equal((server.requests[0]?.body as { model?: unknown }).model, 'llama3.1');
      assert.equal(server.requests[0]?.headers.authorization, 'Bearer not-needed');
    } finally {
      await server.close();
    }
  });

  it('OPENAI_API_KEY is sent as the bearer token', async () => {
    const server = await startOpenAIServer();
    try {
      const { provider, model } = resolverFor({ OPENAI_API_KEY: 'sk-real', OPENAI_BASE_URL: `${server.url}/v1` })('premium');
      assert.equal(model, 'gpt-4.1');
      await provider.stream({ model, system: '', messages: [{ role: 'user', content: 'hi' }], tools: [] }, () => undefined);
      assert.equal(server.requests[0]?.headers.authorization, 'Bearer sk-real');
    } finally {
      await server.close();
    }
  });
});
