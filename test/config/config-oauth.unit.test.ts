import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../config/env';

const provider = {
  clientId: 'id',
  clientSecret: 'secret',
  authorizeUrl: 'https://id.example.com/authorize',
  tokenUrl: 'https://id.example.com/token',
  scopes: ['openid', 'email'],
};

/** Why loading fails, as the operator reads it. */
function failure(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    return e.message;
  }
  assert.fail('the configuration loaded');
}

describe('configuration: OAuth providers', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'ha-oauth-config-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads providers from the file and the variable (the variable wins a name), with defaults, and derives the redirect URI', async () => {
    const file = path.join(dir, 'providers.json');
    await writeFile(file, JSON.stringify({ acme: provider, other: { ...provider, clientId: 'from-file' } }));
    const config = loadConfig({
      OAUTH_PROVIDERS_FILE: file,
      OAUTH_PROVIDERS: JSON.stringify({ other: { ...provider, clientId: 'from-variable' } }),
      PUBLIC_BASE_URL: 'https://api.example.com/',
    });
    assert.deepEqual(Object.keys(config.oauthProviders).sort(), ['acme', 'other']);
    assert.equal(config.oauthProviders.other?.clientId, 'from-variable');
    assert.equal(config.oauthProviders.acme?.tokenEndpointAuthMethod, 'client_secret_basic');
    assert.equal(config.oauthRedirectURI, 'https://api.example.com/v1/oauth/callback');
    assert.deepEqual(loadConfig({}).oauthProviders, {});
  });

  it('a bad file or entry stops start-up naming the variable and the field', async () => {
    const bad = path.join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ acme: { ...provider, tokenUrl: 'http://id.example.com/token' } }));
    assert.match(failure({ OAUTH_PROVIDERS_FILE: bad }), /^OAUTH_PROVIDERS_FILE: acme\.tokenUrl: https/);
    await writeFile(bad, '{ not json');
    assert.match(failure({ OAUTH_PROVIDERS_FILE: bad }), /^OAUTH_PROVIDERS_FILE: not JSON/);
    assert.match(failure({ OAUTH_PROVIDERS_FILE: path.join(dir, 'missing.json') }), /^OAUTH_PROVIDERS_FILE: cannot read/);
    assert.match(failure({ OAUTH_PROVIDERS: JSON.stringify({ acme: { ...provider, clientSecret: undefined } }) }), /^OAUTH_PROVIDERS: acme\.clientSecret/);
    assert.match(failure({ OAUTH_PROVIDERS: JSON.stringify({ acme: { ...provider, extra: 1 } }) }), /^OAUTH_PROVIDERS: acme/);
    // Plain http is for a provider on this machine only.
    const local = loadConfig({ OAUTH_PROVIDERS: JSON.stringify({ acme: { ...provider, tokenUrl: 'http://127.0.0.1:9000/token' } }) });
    assert.equal(local.oauthProviders.acme?.tokenUrl, 'http://127.0.0.1:9000/token');
  });
});
