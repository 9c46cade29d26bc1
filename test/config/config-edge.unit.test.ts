import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../config/env';

describe('config: PROXY_PROTOCOL and the per-address failure limit', () => {
  it('defaults: no PROXY header expected, 30 failures a minute', () => {
    const config = loadConfig({});
    assert.equal(config.PROXY_PROTOCOL, 'off');
    assert.equal(config.AUTH_FAILURES_PER_ADDRESS, 30);
    assert.equal(config.AUTH_FAILURES_WINDOW_SECONDS, 60);
  });

  it('https needs HTTPS_PORT; an unknown mode is refused naming the variable', () => {
    assert.throws(() => loadConfig({ PROXY_PROTOCOL: 'https' }), (e: unknown) => e instanceof ConfigError && /PROXY_PROTOCOL/.test(e.message) && /HTTPS_PORT/.test(e.message));
    assert.equal(loadConfig({ PROXY_PROTOCOL: 'https', HTTPS_PORT: '8443' }).PROXY_PROTOCOL, 'https');
    assert.equal(loadConfig({ PROXY_PROTOCOL: 'all' }).PROXY_PROTOCOL, 'all');
    assert.throws(() => loadConfig({ PROXY_PROTOCOL: 'on' }), (e: unknown) => e instanceof ConfigError && /PROXY_PROTOCOL: off, https or all/.test(e.message));
    assert.throws(() => loadConfig({ AUTH_FAILURES_PER_ADDRESS: '0' }), (e: unknown) => e instanceof ConfigError && /AUTH_FAILURES_PER_ADDRESS/.test(e.message));
  });
});
