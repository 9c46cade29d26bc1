import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../config/env';

describe('Messages that leak nothing: start-up errors', () => {
  const failure = (env: Record<string, string>): ConfigError => {
    try {
      loadConfig(env);
    } catch (e) {
      if (e instanceof ConfigError) return e;
      throw e;
    }
    return assert.fail('expected a ConfigError');
  };

  it('a URL-typed value is echoed without its password or query', () => {
    const e = failure({ DATABASE_URL: 'mysql://app:hunter2-secret@db.internal:3306/agents?sslpassword=s3cr3t' });
    assert.equal(e.variable, 'DATABASE_URL');
    assert.ok(!e.message.includes('hunter2') && !e.message.includes('s3cr3t'), e.message);
    assert.match(e.message, /"mysql:\/\/\*\*\*@db\.internal:3306\/agents\?\*\*\*"/);
  });

  it('also when the value does not parse as a URL, and for the other URL variables', () => {
    for (const [variable, value] of [
      ['DATABASE_LISTEN_URL', 'postgres//app:hunter2@db/agents'],
      ['PUBLIC_BASE_URL', 'https//admin:hunter2@agents.example.com'],
      ['OPENAI_BASE_URL', 'ftp://user:hunter2@proxy.example.com'],
    ] as const) {
      const e = failure({ [variable]: value });
      assert.equal(e.variable, variable);
      assert.ok(!e.message.includes('hunter2'), e.message);
      assert.match(e.message, /\*\*\*@/);
    }
  });

  it('other values are still shown as they are', () => {
    assert.match(failure({ LOG_LEVEL: 'loud' }).message, /\(got "loud"\)/);
  });
});
