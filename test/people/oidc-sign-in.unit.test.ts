import assert from 'node:assert/strict';
import { loadConfig } from '../../config/env';
import { oidcSettings, sameOriginPath } from '../../services/oidc-sign-in';

/** The parts of OIDC sign-in that need no provider: where a signed-in browser may be sent, and the three variables. */
describe('OIDC sign-in settings and returnTo', () => {
  it('returnTo is kept only as a path on this origin', () => {
    assert.equal(sameOriginPath('/console'), '/console');
    assert.equal(sameOriginPath('/console/agents?tab=all#top'), '/console/agents?tab=all#top');
    assert.equal(sameOriginPath('/a/../b'), '/b');
    for (const bad of ['https://evil.example/', '//evil.example', '/\\evil.example', '\\\\evil.example', 'console', '', '/\tx', '/\nx', 'javascript:alert(1)']) {
      assert.equal(sameOriginPath(bad), undefined, JSON.stringify(bad));
    }
  });

  it('OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set all three or none, naming the one missing', () => {
    const all = { OIDC_ISSUER: 'https://idp.example.com', OIDC_CLIENT_ID: 'agents', OIDC_CLIENT_SECRET: 'shh' };
    assert.deepEqual(oidcSettings(loadConfig(all)), { issuer: 'https://idp.example.com', clientId: 'agents', clientSecret: 'shh' });
    assert.equal(oidcSettings(loadConfig({})), undefined);
    assert.throws(() => loadConfig({ ...all, OIDC_CLIENT_SECRET: '' }), /OIDC_CLIENT_SECRET: set together with/);
    assert.throws(() => loadConfig({ OIDC_CLIENT_ID: 'agents' }), /OIDC_ISSUER: set together with/);
  });
});
