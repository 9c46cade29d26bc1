import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { secretBoxFromConfig } from '../../config/secret-box';
import { createCredentialSource } from '../../infra/credential-source';
import type { AgentHandle, CreateAgentFields } from '../../sdk/src';
import { consentAs, CookieJar, type OidcServer, startOidcServer } from '../support/oidc-server';
import { expectFailure, newSdkWorkspace, type SdkWorkspace } from '../support/sdk';
import { useIsolatedStack } from '../support/isolated-stack';

/**
 * OAuth connections against a real OpenID Connect server (oidc-provider, in this process): the
 * consent flow with PKCE and a single-use state, the tokens reaching an HTTP tool, refresh after
 * expiry, a revoked grant, disconnect with revocation, and end users kept apart.
 */

const ACCESS_TTL_SECONDS = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('OAuth connections and end users against a real OIDC server', function () {
  this.timeout(120_000);
  let oidc: OidcServer;
  const stack = useIsolatedStack({
    worker: 'inline',
    publicBaseURL: true,
    // The OIDC server first: its redirect URI is the API's, and the env names the server.
    env: async ({ baseURL }) => {
      oidc = await startOidcServer({ redirectUri: `${baseURL}/v1/oauth/callback`, accessTokenTtlSeconds: ACCESS_TTL_SECONDS });
      return {
        OAUTH_PROVIDERS: JSON.stringify({ acme: oidc.providerConfig() }),
        // Refresh only once a token has expired, so the test sees an expired token being replaced.
        OAUTH_REFRESH_MARGIN_SECONDS: '0',
        // The HTTP tool calls the provider's userinfo endpoint on this machine.
        OUTBOUND_ALLOW_PRIVATE: '127.0.0.1/32',
      };
    },
  });
  after(async () => {
    await oidc?.close();
  });
  const { api } = stack;

  /** Reads the stored tokens as a tool would, without refreshing them. */
  const storedTokens = async (workspaceId: string, agentId: string, conversationId = '') => {
    const source = createCredentialSource({ db: api.db, repos: api.repos, box: secretBoxFromConfig(stack.config), providers: {}, refreshMarginSeconds: 0 });
    return (await source.load({ workspaceId, agentId, conversationId })).connections.acme;
  };

  const whoami = (scope: 'fixed' | 'conversation', required = false): CreateAgentFields => ({
    name: 'Acme helper',
    connections: [{ provider: 'acme', scope, required }, { provider: 'gmail', scope }],
    httpTools: [
      {
        name: 'whoami',
        description: 'Who the connected account is',
        method: 'GET',
        url: `${oidc.issuer}/me`,
        headers: { Authorization: 'Bearer {{connections.acme}}' },
      },
    ],
  });

  async function agentWith(fields: CreateAgentFields): Promise<SdkWorkspace & { agent: AgentHandle }> {
    const sdk = await newSdkWorkspace(api);
    const created = await sdk.ws.agents.create(fields);
    return { ...sdk, agent: sdk.ws.agent(created.id) };
  }

  it('authorize → consent → callback stores the tokens; connections() reports connected with the account label; a reused or expired state is refused', async () => {
    const { agent, ws } = await agentWith(whoami('fixed'));
    const { url } = await agent.authorize('acme');
    // The link is our start step; it sends the browser on to the provider.
    assert.equal(new URL(url).origin + new URL(url).pathname, `${stack.config.baseURL}/v1/oauth/start`);
    const startRes = await fetch(url, { redirect: 'manual' });
    assert.equal(startRes.status, 302);
    const consent = new URL(startRes.headers.get('location') ?? '');
    assert.equal(consent.origin, oidc.issuer);
    assert.equal(consent.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(consent.searchParams.get('code_challenge'));
    assert.equal(consent.searchParams.get('redirect_uri'), `${stack.config.baseURL}/v1/oauth/callback`);

    const done = await consentAs(url, 'ada', stack.config.baseURL);
    assert.equal(done.status, 200, done.page);
    assert.match(done.page, /Connected/);
    assert.match(done.page, /ada@example\.test/);
    assert.match(done.page, /close this window/);

    const acme = (await agent.connections()).find((c) => c.provider === 'acme');
    assert.deepEqual(acme, { provider: 'acme', declared: true, required: false, scope: 'fixed', connected: true, suppliedBy: 'agent', accountLabel: 'ada@example.test' });
    // Tokens are stored sealed: the raw row holds neither token.
    const tokens = await storedTokens((await ws.get()).id, agent.id);
    assert.ok(tokens?.accessToken && tokens.refreshToken);
    const [row] = await api.db('connection_values').where({ owner_id: agent.id, provider: 'acme' });
    assert.equal(Buffer.from(row.value).includes(tokens.accessToken), false);

    // The same callback again: the state was used.
    // (sent with the state cookie the browser had, which the callback cleared).
    const replayedState = new URL(done.callbackUrl).searchParams.get('state') ?? '';
    const stateCookie = `ha_oauth_${createHash('sha256').update(replayedState).digest('hex').slice(0, 16)}=${replayedState}`;
    const again = await fetch(done.callbackUrl, { headers: { cookie: stateCookie } });
    assert.equal(again.status, 400);
    assert.match(await again.text(), /expired or was already used/);

    // A state past its expiry: refused too, and nothing is stored.
    const second = await agent.authorize('acme');
    await api.db('oauth_states').where({ workspace_id: (await ws.get()).id }).whereNull('used_at').update({ expires_at: api.db.raw("now() - interval '1 second'") });
    const late = await consentAs(second.url, 'mallory', stack.config.baseURL);
    assert.equal(late.status, 400);
    assert.match(late.page, /expired or was already used/);
    assert.equal((await agent.connections()).find((c) => c.provider === 'acme')?.accountLabel, 'ada@example.test');

    // A declared provider with no OAuth set-up keeps answering oauth_not_configured.
    await expectFailure(agent.authorize('gmail'), 400, 'oauth_not_configured');
  });

  it('consent is bound to the browser that opened the link: the provider URL completed in another browser connects nothing', async () => {
    const { agent } = await agentWith(whoami('fixed'));
    const { url } = await agent.authorize('acme');
    // Browser A opens the link: the start step leaves its state cookie and names the provider's page.
    const jarA = new CookieJar();
    const start = await fetch(url, { redirect: 'manual' });
    jarA.store(new URL(url), start);
    const cookie = start.headers.getSetCookie().join('\n');
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Path=\/v1\/oauth\/callback/);
    const providerUrl = start.headers.get('location') ?? '';
    // Browser B (the attacker's victim, or whoever finds the URL) consents with that URL: refused, nothing stored.
    const stolen = await consentAs(providerUrl, 'mallory', stack.config.baseURL);
    assert.equal(stolen.status, 400, stolen.page);
    assert.match(stolen.page, /started in another browser/);
    assert.equal((await agent.connections()).find((c) => c.provider === 'acme')?.connected, false);
    // The refusal consumed nothing: browser A still completes its own consent.
    const mine = await consentAs(providerUrl, 'ada', stack.config.baseURL, jarA);
    assert.equal(mine.status, 200, mine.page);
    assert.equal((await agent.connections()).find((c) => c.provider === 'acme')?.accountLabel, 'ada@example.test');
  });

  it('an HTTP tool gets a fresh token: after the access token expires it is refreshed, and the provider accepts the new one', async () => {
    const { agent, ws } = await agentWith(whoami('fixed'));
    const workspaceId = (await ws.get()).id;
    await consentAs((await agent.authorize('acme')).url, 'ada', stack.config.baseURL);
    const before = await storedTokens(workspaceId, agent.id);

    const conversation = await agent.start();
    const first = await conversation.ask('/tool whoami {}');
    assert.match(first, /HTTP 200/);
    assert.match(first, /ada@example\.test/);
    assert.equal((await storedTokens(workspaceId, agent.id))?.accessToken, before?.accessToken, 'a token still valid is not refreshed');

    await sleep((ACCESS_TTL_SECONDS + 1) * 1000);
    assert.equal((await oidc.provider.AccessToken.find(before!.accessToken))?.isExpired, true, 'the first token has expired at the provider');
    const second = await conversation.ask('/tool whoami {}');
    assert.match(second, /HTTP 200/, second);
    assert.match(second, /ada@example\.test/);
    const after = await storedTokens(workspaceId, agent.id);
    assert.notEqual(after?.accessToken, before?.accessToken);
    assert.equal((await oidc.provider.AccessToken.find(after!.accessToken))?.isExpired, false, 'the provider accepts the refreshed token');
    // Neither token reached the conversation's history.
    const history = JSON.stringify(await conversation.messages());
    assert.equal(history.includes(before!.accessToken) || history.includes(after!.accessToken), false);
    assert.equal((await agent.connections()).find((c) => c.provider === 'acme')?.connected, true);
  });

  it('a grant revoked at the provider: the refresh is refused and connections() says so; disconnect revokes and forgets', async () => {
    const { agent, ws } = await agentWith(whoami('fixed'));
    const workspaceId = (await ws.get()).id;
    await consentAs((await agent.authorize('acme')).url, 'ada', stack.config.baseURL);
    const tokens = await storedTokens(workspaceId, agent.id);
    const refresh = await oidc.provider.RefreshToken.find(tokens!.refreshToken!);
    const grant = await oidc.provider.Grant.find(refresh!.grantId!);
    await grant!.destroy();
    await refresh!.destroy();

    await sleep((ACCESS_TTL_SECONDS + 1) * 1000);
    const reply = await (await agent.start()).ask('/tool whoami {}');
    assert.match(reply, /not connected/);
    const acme = (await agent.connections()).find((c) => c.provider === 'acme');
    assert.equal(acme?.connected, false);
    assert.match(acme?.error ?? '', /invalid_grant/);

    // Connect again, then disconnect: the provider forgets the grant too.
    await consentAs((await agent.authorize('acme')).url, 'ada', stack.config.baseURL);
    assert.equal((await agent.connections()).find((c) => c.provider === 'acme')?.connected, true);
    const fresh = await storedTokens(workspaceId, agent.id);
    assert.ok(await oidc.provider.RefreshToken.find(fresh!.refreshToken!));
    await agent.disconnect('acme');
    assert.equal(await oidc.provider.RefreshToken.find(fresh!.refreshToken!), undefined, 'the refresh token was revoked');
    assert.deepEqual((await agent.connections()).find((c) => c.provider === 'acme'), { provider: 'acme', declared: true, required: false, scope: 'fixed', connected: false });
  });

  it("end users: a conversation's authorize belongs to its end user, serves their later conversations, and no other end user sees it", async () => {
    const { agent, ws } = await agentWith(whoami('conversation', true));
    const ada1 = await agent.start({ endUser: { id: 'user-ada', name: 'Ada' } });
    const bob = await agent.start({ endUser: { id: 'user-bob' } });
    assert.deepEqual([ada1.ready, bob.ready], [false, false]);

    const done = await consentAs((await ada1.authorize('acme')).url, 'ada', stack.config.baseURL);
    assert.equal(done.status, 200, done.page);

    const adaStatus = (await ws.endUser('user-ada').connections()).find((c) => c.provider === 'acme');
    assert.equal(adaStatus?.connected, true);
    assert.equal(adaStatus?.accountLabel, 'ada@example.test');
    assert.equal((await ws.endUser('user-bob').connections()).find((c) => c.provider === 'acme')?.connected, false);

    // Ada's conversations are ready (this one and a later one); Bob's is not, and sees no token.
    assert.equal((await ada1.get()).ready, true);
    const ada2 = await agent.start({ endUser: { id: 'user-ada' } });
    assert.equal(ada2.ready, true);
    assert.match(await ada2.ask('/tool whoami {}'), /ada@example\.test/);
    const bobView = await ws.conversation(bob.id).get();
    assert.deepEqual(bobView.requires, [{ kind: 'connection', name: 'acme', required: true }]);
    assert.equal((await bob.connections()).find((c) => c.provider === 'acme')?.connected, false);

    // Bob connects his own account; each end user's tool calls use their own.
    await consentAs((await ws.endUser('user-bob').authorize('acme')).url, 'bob', stack.config.baseURL);
    assert.match(await bob.ask('/tool whoami {}'), /bob@example\.test/);
    assert.match(await ada2.ask('/tool whoami {}'), /ada@example\.test/);

    const listed = await ws.endUser('user-ada').conversations();
    assert.deepEqual(listed.map((c) => c.id).sort(), [ada1.id, ada2.id].sort());
    assert.deepEqual((await ws.endUser('nobody').conversations()).map((c) => c.id), []);

    await ws.endUser('user-bob').disconnect('acme');
    assert.equal((await ws.endUser('user-bob').connections()).find((c) => c.provider === 'acme')?.connected, false);
    assert.equal((await ws.endUser('user-ada').connections()).find((c) => c.provider === 'acme')?.connected, true);
  });
});
