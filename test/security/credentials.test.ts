import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { randomToken } from '../../domain/ids';
import { SecretBox, SecretBoxError } from '../../domain/secret-box';
import { secretBoxFromConfig } from '../../config/secret-box';
import { createCredentialSource } from '../../infra/credential-source';
import type { AgentConversation, AgentHandle, ConnectionInput, ConnectionStatus, CreateAgentFields } from '../../sdk/src';
import { useTestApi } from '../support/api';
import { runCli } from '../../harness/cli';
import { fixture } from '../support/fixture';
import { expectFailure, failureOf, newSdkWorkspace, type SdkWorkspace } from '../support/sdk';

/**
 * Secrets and connections through the SDK against the real server: bind/attach on agents and
 * conversations (both spec variants), scope and declaration rules, statuses, readiness, and
 * that values are encrypted at rest and never answered.
 */

const fields: CreateAgentFields = {
  name: 'Mailer',
  secrets: [
    { name: 'API_TOKEN', scope: 'fixed', required: true },
    { name: 'USER_PIN', scope: 'conversation', required: true },
    { name: 'OPTIONAL_KEY', scope: 'fixed' },
  ],
  connections: [
    { provider: 'gmail', scope: 'fixed', required: true },
    { provider: 'slack', scope: 'conversation', required: true },
    { provider: 'github', scope: 'fixed' },
  ],
};

/** Distinctive values, so a search of any answer for them is meaningful. */
const unique = (label: string) => `${label}-${randomToken(24)}`;
const future = () => new Date(Date.now() + 3600_000).toISOString();
const past = () => new Date(Date.now() - 60_000).toISOString();

describe('secrets and connections: bind/attach, statuses, readiness, encryption at rest', () => {
  const api = useTestApi();

  async function setup(agentFields: CreateAgentFields = fields): Promise<SdkWorkspace & { agent: AgentHandle; conversation: AgentConversation }> {
    const sdk = await newSdkWorkspace(api);
    const created = await sdk.ws.agents.create(agentFields);
    const agent = sdk.ws.agent(created.id);
    const conversation = await agent.start();
    return { ...sdk, agent, conversation };
  }

  const names = (c: { requires: Array<{ kind: string; name: string }> }) => c.requires.map((r) => `${r.kind} ${r.name}`);

  async function rowCount(ownerId: string): Promise<number> {
    const [s] = await api.db('secret_values').where({ owner_id: ownerId }).count<{ count: number }[]>('* as count');
    const [c] = await api.db('connection_values').where({ owner_id: ownerId }).count<{ count: number }[]>('* as count');
    return Number(s?.count ?? 0) + Number(c?.count ?? 0);
  }

  describe('readiness', () => {
    it('requires lists every required value until it is supplied where its scope says; then ready, and ask works', async () => {
      const { ws, agent, conversation } = await setup();
      assert.equal(conversation.ready, false);
      assert.deepEqual(conversation.requires, [
        { kind: 'secret', name: 'API_TOKEN', required: true },
        { kind: 'secret', name: 'USER_PIN', required: true },
        { kind: 'connection', name: 'gmail', required: true },
        { kind: 'connection', name: 'slack', required: true },
      ]);
      await expectFailure(conversation.ask('hello'), 409, 'conversation_not_ready');

      await agent.bind({ secrets: { API_TOKEN: unique('tok') } }); // variant 1 on the agent
      assert.deepEqual(names(await conversation.get()), ['secret USER_PIN', 'connection gmail', 'connection slack']);
      await agent.attach({ provider: 'gmail', accessToken: unique('at'), accountLabel: 'ada@example.com' }); // variant 2 on the agent
      assert.deepEqual(names(await conversation.get()), ['secret USER_PIN', 'connection slack']);
      await conversation.attach({ secrets: { USER_PIN: unique('pin') } }); // variant 2 on the conversation
      const almost = await conversation.get();
      assert.deepEqual([almost.ready, names(almost)], [false, ['connection slack']]);
      const stillRefused = await expectFailure(conversation.ask('hello'), 409, 'conversation_not_ready');
      assert.match(stillRefused.message, /connection slack/);

      await conversation.bind({ connections: [{ provider: 'slack', accessToken: unique('xoxb') }] }); // variant 1 on the conversation
      const ready = await ws.conversation(conversation.id).get();
      assert.deepEqual([ready.ready, ready.requires], [true, []]);
      assert.equal(await conversation.ask('hello'), '(offline model) You said: hello');
      const listed = await agent.conversations();
      assert.deepEqual(listed.map((c) => [c.id, c.ready]), [[conversation.id, true]]);

      // A new conversation has the agent's values already; it needs only its own.
      const next = await agent.start();
      assert.deepEqual(names(next), ['secret USER_PIN', 'connection slack']);
      assert.deepEqual(
        (await agent.conversations()).map((c) => [c.id, c.ready]),
        [[next.id, false], [conversation.id, true]],
      );
    });

    it('an expired connection counts as missing; replacing it with a fresh token makes the conversation ready again', async () => {
      const agentFields: CreateAgentFields = { name: 'Exp', connections: [{ provider: 'gmail', scope: 'fixed', required: true }] };
      const { agent, conversation } = await setup(agentFields);
      await agent.attach({ provider: 'gmail', accessToken: unique('at'), expiresAt: past() });
      assert.deepEqual(names(await conversation.get()), ['connection gmail']);
      await agent.attach({ provider: 'gmail', accessToken: unique('at'), expiresAt: new Date(Date.now() + 3600_000) });
      assert.equal((await conversation.get()).ready, true);
    });

    it('disconnecting the agent value makes conversations require it again; disconnect is idempotent', async () => {
      const agentFields: CreateAgentFields = { name: 'D', connections: [{ provider: 'gmail', scope: 'fixed', required: true }] };
      const { agent, conversation, ws } = await setup(agentFields);
      await agent.attach({ provider: 'gmail', accessToken: unique('at'), accountLabel: 'ada@example.com' });
      assert.equal((await conversation.get()).ready, true);
      assert.equal(await agent.disconnect('gmail'), undefined);
      assert.deepEqual(names(await conversation.get()), ['connection gmail']);
      assert.deepEqual(await agent.connections(), [{ provider: 'gmail', declared: true, required: true, scope: 'fixed', connected: false }]);
      await agent.disconnect('gmail');
      await agent.disconnect('never-stored');
      await expectFailure(ws.agent(`agt_${randomToken(20)}`).disconnect('gmail'), 404, 'agent_not_found');
    });
  });

  describe('rules', () => {
    it('a value supplied at the wrong level is a 400 naming the field; nothing of the request is written', async () => {
      const { agent, conversation } = await setup();
      const pin = unique('pin');
      const cases: Array<[() => Promise<unknown>, string]> = [
        [() => agent.bind({ secrets: { API_TOKEN: unique('ok'), USER_PIN: pin } }), 'body.secrets.USER_PIN: declared with scope conversation; supply it on a conversation'],
        [() => conversation.bind({ secrets: { API_TOKEN: unique('tok') } }), 'body.secrets.API_TOKEN: declared with scope fixed; supply it on the agent'],
        [
          () => agent.attach([{ provider: 'gmail', accessToken: unique('at') }, { provider: 'slack', accessToken: unique('at') }]),
          'body.connections[1].provider: "slack" is declared with scope conversation; supply it on a conversation',
        ],
        [() => conversation.attach({ provider: 'github', accessToken: unique('at') }), 'body.connections[0].provider: "github" is declared with scope fixed; supply it on the agent'],
      ];
      for (const [call, message] of cases) {
        const e = await expectFailure(call(), 400, 'invalid_request');
        assert.equal(e.message, message);
        assert.ok(!e.message.includes(pin), 'the value is not echoed');
      }
      assert.equal(await rowCount(agent.id), 0, 'the valid API_TOKEN and gmail of the refused requests were not written');
      assert.equal(await rowCount(conversation.id), 0);
      assert.equal((await conversation.get()).requires.length, 4);
    });

    it('undeclared names are a 400: the agent checks its latest version, a conversation its own version', async () => {
      const { agent, conversation } = await setup();
      let e = await expectFailure(agent.bind({ secrets: { NOPE: 'x' } }), 400, 'invalid_request');
      assert.equal(e.message, 'body.secrets.NOPE: the agent (version 1) declares no secret "NOPE"');
      e = await expectFailure(conversation.attach({ provider: 'dropbox', accessToken: 'x' }), 400, 'invalid_request');
      assert.equal(e.message, `body.connections[0].provider: version 1 of the agent (the conversation's) declares no connection "dropbox"`);

      // Version 2 declares NEW_PIN (conversation) and NEW_KEY (fixed): the agent may take NEW_KEY,
      // a conversation pinned to version 1 may not take NEW_PIN; one on version 2 may.
      await agent.update({ secrets: [...fields.secrets!, { name: 'NEW_PIN', scope: 'conversation' }, { name: 'NEW_KEY', scope: 'fixed' }] });
      await agent.bind({ secrets: { NEW_KEY: unique('k') } });
      e = await expectFailure(conversation.bind({ secrets: { NEW_PIN: 'x' } }), 400, 'invalid_request');
      assert.match(e.message, /^body\.secrets\.NEW_PIN: version 1 of the agent/);
      const onV2 = await agent.start();
      await onV2.bind({ secrets: { NEW_PIN: unique('p') } });
      assert.equal(await rowCount(conversation.id), 0);
    });

    it('malformed values are 400s naming the field', async () => {
      const { agent, conversation } = await setup();
      const cases: Array<[() => Promise<unknown>, RegExp]> = [
        [() => agent.bind({ secrets: { API_TOKEN: '' } }), /^body\.secrets\.API_TOKEN: a non-empty string/],
        [() => agent.attach({ provider: 'gmail', accessToken: 'x', expiresAt: 'tomorrow' }), /^body\.connections\[0\]\.expiresAt: an ISO 8601 date-time/],
        [() => agent.attach({ provider: 'gmail', accessToken: '' }), /^body\.connections\[0\]\.accessToken: a non-empty string/],
        [() => agent.attach({ provider: 'gmail', accessToken: 'x', scope: 'fixed' } as ConnectionInput), /^body\.connections\[0\]\.scope: unknown field/],
        [() => agent.attach([{ provider: 'gmail', accessToken: 'x' }, { provider: 'gmail', accessToken: 'y' }]), /^body\.connections\[1\]\.provider: duplicate connection "gmail"/],
        [() => conversation.bind({ secrets: { USER_PIN: 42 as unknown as string } }), /^body\.secrets\.USER_PIN: /],
      ];
      for (const [call, message] of cases) assert.match((await expectFailure(call(), 400, 'invalid_request')).message, message);
      assert.equal(await rowCount(agent.id), 0);
    });

    it('authorize answers 400 oauth_not_configured for a declared provider at its level, after the usual checks', async () => {
      const { ws, agent, conversation } = await setup();
      let e = await expectFailure(agent.authorize('gmail'), 400, 'oauth_not_configured');
      assert.match(e.message, /gmail.*agent\.bind\(\{ connections/);
      e = await expectFailure(conversation.authorize('slack'), 400, 'oauth_not_configured');
      assert.match(e.message, /conversation\.bind/);
      e = await expectFailure(agent.authorize('slack'), 400, 'invalid_request');
      assert.equal(e.message, 'body.provider: "slack" is declared with scope conversation; supply it on a conversation');
      e = await expectFailure(conversation.authorize('nope'), 400, 'invalid_request');
      assert.match(e.message, /^body\.provider: .*declares no connection "nope"/);
      await expectFailure(ws.agent(`agt_${randomToken(20)}`).authorize('gmail'), 404, 'agent_not_found');
      await expectFailure(ws.conversation(`cnv_${randomToken(20)}`).authorize('slack'), 404, 'conversation_not_found');
    });

    it("another workspace's agent and conversation do not exist for these calls", async () => {
      const { agent, conversation } = await setup();
      const other = await newSdkWorkspace(api, 'other');
      const foreignAgent = other.ws.agent(agent.id);
      const foreignConversation = other.ws.conversation(conversation.id);
      await expectFailure(foreignAgent.bind({ secrets: { API_TOKEN: 'x' } }), 404, 'agent_not_found');
      await expectFailure(foreignAgent.connections(), 404, 'agent_not_found');
      await expectFailure(foreignAgent.disconnect('gmail'), 404, 'agent_not_found');
      await expectFailure(foreignConversation.attach({ secrets: { USER_PIN: 'x' } }), 404, 'conversation_not_found');
      await expectFailure(foreignConversation.connections(), 404, 'conversation_not_found');
      assert.equal(await rowCount(agent.id), 0);
    });
  });

  describe('statuses', () => {
    it('agent.connections(): declared ones in order with suppliedBy, accountLabel and expiry, then stored undeclared ones', async () => {
      const { agent, conversation } = await setup();
      assert.deepEqual(await agent.connections(), [
        { provider: 'gmail', declared: true, required: true, scope: 'fixed', connected: false },
        { provider: 'slack', declared: true, required: true, scope: 'conversation', connected: false },
        { provider: 'github', declared: true, required: false, scope: 'fixed', connected: false },
      ]);
      await agent.bind({
        connections: [
          { provider: 'gmail', accessToken: unique('at'), refreshToken: unique('rt'), expiresAt: future(), accountLabel: 'ada@example.com' },
          { provider: 'github', accessToken: unique('gh'), expiresAt: past(), accountLabel: 'ada-gh' },
        ],
      });
      await conversation.attach({ provider: 'slack', accessToken: unique('xoxb'), accountLabel: 'ada (slack)' });
      const expected: ConnectionStatus[] = [
        { provider: 'gmail', declared: true, required: true, scope: 'fixed', connected: true, suppliedBy: 'agent', accountLabel: 'ada@example.com' },
        { provider: 'slack', declared: true, required: true, scope: 'conversation', connected: false },
        { provider: 'github', declared: true, required: false, scope: 'fixed', connected: false, suppliedBy: 'agent', accountLabel: 'ada-gh', error: 'token expired' },
      ];
      assert.deepEqual(await agent.connections(), expected, 'the agent view shows only agent values');
      assert.deepEqual(await conversation.connections(), [
        expected[0],
        { provider: 'slack', declared: true, required: true, scope: 'conversation', connected: true, suppliedBy: 'conversation', accountLabel: 'ada (slack)' },
        expected[2],
      ]);

      // github is no longer declared: its stored value is listed after the declared ones, unused.
      await agent.update({ connections: fields.connections!.filter((c) => c.provider !== 'github') });
      assert.deepEqual(await agent.connections(), [
        expected[0],
        expected[1],
        { provider: 'github', declared: false, required: false, connected: false, suppliedBy: 'agent', accountLabel: 'ada-gh', error: 'not declared by the agent; the value is not used' },
      ]);
    });

    it('a value left at the other level by a scope change is reported as not used, and does not satisfy the requirement', async () => {
      const { agent } = await setup({ name: 'S', connections: [{ provider: 'gmail', scope: 'fixed', required: true }] });
      await agent.attach({ provider: 'gmail', accessToken: unique('at'), accountLabel: 'shared' });
      await agent.update({ connections: [{ provider: 'gmail', scope: 'conversation', required: true }] });
      const conversation = await agent.start();
      assert.deepEqual(names(conversation), ['connection gmail']);
      assert.deepEqual(await conversation.connections(), [
        {
          provider: 'gmail', declared: true, required: true, scope: 'conversation', connected: false,
          suppliedBy: 'agent', accountLabel: 'shared', error: 'declared with scope conversation; the value on the agent is not used',
        },
      ]);
    });
  });

  describe('values stay secret', () => {
    it('no API answer carries a value: agent, versions, lists, conversations, messages, statuses, errors', async () => {
      const { ws, agent, conversation, apiKey } = await setup();
      const secrets = [unique('api'), unique('pin'), unique('at-gmail'), unique('rt-gmail'), unique('at-slack'), unique('opt')];
      const [apiToken, pin, gmailAt, gmailRt, slackAt, optional] = secrets as [string, string, string, string, string, string];
      await agent.bind({ secrets: { API_TOKEN: apiToken, OPTIONAL_KEY: optional }, connections: [{ provider: 'gmail', accessToken: gmailAt, refreshToken: gmailRt, accountLabel: 'ada' }] });
      await conversation.attach([{ provider: 'slack', accessToken: slackAt }]);
      await conversation.attach({ secrets: { USER_PIN: pin } });
      assert.equal(await conversation.ask('what are my secrets?'), '(offline model) You said: what are my secrets?');
      // A refused request carrying a value does not echo it.
      const refused = await failureOf(agent.bind({ secrets: { USER_PIN: pin } }));

      const paths = [
        `/v1/agents/${agent.id}`,
        `/v1/agents/${agent.id}?version=1`,
        `/v1/agents`,
        `/v1/agents/${agent.id}/versions`,
        `/v1/agents/${agent.id}/deployments`,
        `/v1/agents/${agent.id}/conversations`,
        `/v1/agents/${agent.id}/connections`,
        `/v1/conversations/${conversation.id}`,
        `/v1/conversations/${conversation.id}/messages`,
        `/v1/conversations/${conversation.id}/connections`,
        `/v1/conversations/${conversation.id}/files`,
        `/v1/workspace`,
        `/v1/openapi.json`,
      ];
      const answers: string[] = [JSON.stringify(refused), refused.message];
      for (const path of paths) {
        const res = await fetch(`${api.baseURL}${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
        assert.equal(res.status, 200, path);
        answers.push(`${path}: ${await res.text()}`);
      }
      answers.push(JSON.stringify(await agent.connections()), JSON.stringify(await ws.conversation(conversation.id).get()));
      for (const answer of answers) {
        for (const secret of secrets) assert.ok(!answer.includes(secret), `a value appears in ${answer.slice(0, 120)}`);
      }
      assert.ok(answers.some((a) => a.includes('"accountLabel":"ada"')), 'the account label (not secret) is answered');
    });

    it('values are encrypted at rest: no plaintext in the rows, a fresh IV per value, nothing readable but metadata', async () => {
      const { agent, conversation } = await setup();
      const same = unique('same');
      const at = unique('at');
      const rt = unique('rt');
      await agent.bind({ secrets: { API_TOKEN: same, OPTIONAL_KEY: same }, connections: [{ provider: 'gmail', accessToken: at, refreshToken: rt, accountLabel: 'ada' }] });
      await conversation.bind({ secrets: { USER_PIN: same } });
      const secretRows = await api.db('secret_values').whereIn('owner_id', [agent.id, conversation.id]).orderBy('name');
      const connectionRows = await api.db('connection_values').where({ owner_id: agent.id });
      assert.equal(secretRows.length, 3);
      assert.equal(connectionRows.length, 1);
      const raw = [...secretRows, ...connectionRows] as Array<Record<string, unknown> & { value: Buffer }>;
      for (const row of raw) {
        assert.ok(Buffer.isBuffer(row.value));
        assert.equal(row.value[0], 1, 'format version byte');
        const forms = [row.value.toString('utf8'), row.value.toString('latin1'), row.value.toString('hex'), row.value.toString('base64'), JSON.stringify(row)];
        for (const plain of [same, at, rt]) {
          for (const form of forms) assert.ok(!form.includes(plain) && !form.includes(Buffer.from(plain).toString('hex')), 'plaintext at rest');
        }
      }
      const ciphertexts = secretRows.map((r: { value: Buffer }) => r.value.toString('hex'));
      assert.equal(new Set(ciphertexts).size, 3, 'one value stored three times gives three ciphertexts');
      assert.equal(connectionRows[0].account_label, 'ada');
      assert.deepEqual(
        secretRows.map((r: { owner_kind: string; name: string }) => `${r.owner_kind} ${r.name}`),
        ['agent API_TOKEN', 'agent OPTIONAL_KEY', 'conversation USER_PIN'],
      );
    });

    it('bind merges: given names replace their values, others stay', async () => {
      const { agent, workspaceId, conversation } = await setup();
      const source = createCredentialSource({ db: api.db, providers: {}, refreshMarginSeconds: 60, repos: api.repos, box: secretBoxFromConfig(fixture().config) });
      await agent.bind({ secrets: { API_TOKEN: 'one', OPTIONAL_KEY: 'two' } });
      await agent.attach({ secrets: { API_TOKEN: 'three' } });
      await agent.attach({ provider: 'gmail', accessToken: 'a1', refreshToken: 'r1', accountLabel: 'first' });
      await agent.attach({ provider: 'gmail', accessToken: 'a2' });
      const got = await source.load({ workspaceId, agentId: agent.id, conversationId: conversation.id });
      assert.deepEqual(got, { secrets: { API_TOKEN: 'three', OPTIONAL_KEY: 'two' }, connections: { gmail: { accessToken: 'a2' } } });
      assert.deepEqual((await agent.connections())[0], { provider: 'gmail', declared: true, required: true, scope: 'fixed', connected: true, suppliedBy: 'agent' });
    });
  });

  describe('CredentialSource', () => {
    it('load decrypts the agent values and the conversation values; a conversation value wins a name clash', async () => {
      const agentFields: CreateAgentFields = {
        name: 'Src',
        secrets: [{ name: 'SHARED', scope: 'fixed' }, { name: 'API_TOKEN', scope: 'fixed' }, { name: 'PIN', scope: 'conversation' }],
        connections: [{ provider: 'gmail', scope: 'fixed' }, { provider: 'slack', scope: 'conversation' }],
      };
      const { agent, conversation, workspaceId } = await setup(agentFields);
      const expiresAt = '2031-05-06T07:08:09.000Z';
      await agent.bind({
        secrets: { SHARED: 'agent-value', API_TOKEN: 'tok' },
        connections: [{ provider: 'gmail', accessToken: 'g-at', refreshToken: 'g-rt', expiresAt: '2031-05-06T09:08:09+02:00', accountLabel: 'ada@example.com' }],
      });
      await conversation.bind({ secrets: { PIN: '1234' }, connections: [{ provider: 'slack', accessToken: 's-at' }] });
      // SHARED becomes conversation-scoped: a conversation on the new version supplies its own.
      await agent.update({ secrets: [{ name: 'SHARED', scope: 'conversation' }, { name: 'API_TOKEN', scope: 'fixed' }, { name: 'PIN', scope: 'conversation' }] });
      const onV2 = await agent.start();
      await onV2.attach({ secrets: { SHARED: 'conversation-value' } });

      const source = createCredentialSource({ db: api.db, providers: {}, refreshMarginSeconds: 60, repos: api.repos, box: secretBoxFromConfig(fixture().config) });
      assert.deepEqual(await source.load({ workspaceId, agentId: agent.id, conversationId: conversation.id }), {
        secrets: { SHARED: 'agent-value', API_TOKEN: 'tok', PIN: '1234' },
        connections: {
          gmail: { accessToken: 'g-at', refreshToken: 'g-rt', expiresAt, accountLabel: 'ada@example.com' },
          slack: { accessToken: 's-at' },
        },
      });
      assert.deepEqual(await source.load({ workspaceId, agentId: agent.id, conversationId: onV2.id }), {
        secrets: { SHARED: 'conversation-value', API_TOKEN: 'tok' },
        connections: { gmail: { accessToken: 'g-at', refreshToken: 'g-rt', expiresAt, accountLabel: 'ada@example.com' } },
      });
      const otherWorkspace = `ws_${randomToken(20)}`;
      assert.deepEqual(await source.load({ workspaceId: otherWorkspace, agentId: agent.id, conversationId: conversation.id }), { secrets: {}, connections: {} });
    });

    it('another SECRETS_KEY, an altered value or a value moved to another owner fail to decrypt, saying which', async () => {
      const { agent, conversation, workspaceId } = await setup();
      await agent.bind({ secrets: { API_TOKEN: unique('tok') } });
      const ref = { workspaceId, agentId: agent.id, conversationId: conversation.id };

      const wrong = createCredentialSource({ db: api.db, providers: {}, refreshMarginSeconds: 60, repos: api.repos, box: new SecretBox(randomBytes(32)) });
      const e1 = await wrong.load(ref).then(() => undefined, (e: unknown) => e);
      assert.ok(e1 instanceof SecretBoxError, String(e1));
      assert.match(e1.message, new RegExp(`^a stored secret API_TOKEN of agent ${agent.id} was encrypted with another SECRETS_KEY \\(key id [0-9a-f]{8}; this process has [0-9a-f]{8}\\)`));

      const right = createCredentialSource({ db: api.db, providers: {}, refreshMarginSeconds: 60, repos: api.repos, box: secretBoxFromConfig(fixture().config) });
      const row = (await api.db('secret_values').where({ owner_id: agent.id, name: 'API_TOKEN' }).first()) as { value: Buffer };
      // The same sealed bytes under another agent's row: bound to their owner, they do not open there.
      const other = await setup();
      await other.agent.bind({ secrets: { API_TOKEN: 'placeholder' } });
      await api.db('secret_values').where({ owner_id: other.agent.id, name: 'API_TOKEN' }).update({ value: row.value });
      const otherRef = { workspaceId: other.workspaceId, agentId: other.agent.id, conversationId: other.conversation.id };
      const e2 = await right.load(otherRef).then(() => undefined, (e: unknown) => e);
      assert.ok(e2 instanceof SecretBoxError);
      assert.match(e2.message, /failed authentication/);

      const altered = Buffer.from(row.value);
      altered[altered.length - 1]! ^= 0xff;
      await api.db('secret_values').where({ owner_id: agent.id, name: 'API_TOKEN' }).update({ value: altered });
      const e3 = await right.load(ref).then(() => undefined, (e: unknown) => e);
      assert.ok(e3 instanceof SecretBoxError);
      assert.match(e3.message, /^a stored secret API_TOKEN of agent .* failed authentication/);
    });
  });

  it('deleting an agent deletes its values and those of its conversations', async () => {
    const { agent, conversation } = await setup();
    await agent.bind({ secrets: { API_TOKEN: 'x' }, connections: [{ provider: 'gmail', accessToken: 'y' }] });
    await conversation.bind({ secrets: { USER_PIN: 'z' }, connections: [{ provider: 'slack', accessToken: 'w' }] });
    assert.equal(await rowCount(agent.id), 2);
    assert.equal(await rowCount(conversation.id), 2);
    await agent.delete();
    assert.equal(await rowCount(agent.id), 0);
    assert.equal(await rowCount(conversation.id), 0);
  });

  describe('hosted-agents api and worker without SECRETS_KEY', () => {
    for (const command of ['api', 'worker']) {
      it(`\`hosted-agents ${command}\` refuses to start, naming SECRETS_KEY; a malformed key is refused without being echoed`, async () => {
        const base = { DATABASE_URL: fixture().databaseUrl, TEMPORAL_ADDRESS: fixture().temporalAddress, URL_SIGNING_KEY: randomToken(40), LOG_LEVEL: 'silent' };
        const missing = await runCli([command], base);
        assert.equal(missing.code, 2, missing.stderr);
        assert.match(missing.stderr, new RegExp(`configuration error: SECRETS_KEY: required by \`hosted-agents ${command}\``));
        const bad = 'not-a-key-but-almost-secret';
        const malformed = await runCli([command], { ...base, SECRETS_KEY: bad });
        assert.equal(malformed.code, 2, malformed.stderr);
        assert.match(malformed.stderr, /configuration error: SECRETS_KEY: 32 random bytes as base64, base64url or 64 hex characters/);
        assert.ok(!malformed.stderr.includes(bad), 'the key text is not echoed');
      });
    }
  });
});
