import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Service } from '../../sdk/src';
import { createDb } from '../../db/connect';
import { migrateLatest } from '../../db/migrate';
import { oidcSignInSealContext } from '../../db/repositories/oidc-sign-ins';
import { sealedColumns } from '../../db/repositories/sealed-values';
import { acmeAccountKeyContext, tlsKeyContext } from '../../domain/custom-domains';
import { randomToken } from '../../domain/ids';
import { mintPublicToken } from '../../domain/public-token';
import { SecretBox, sealContext } from '../../domain/secret-box';
import { type RunningApi, startTestApi } from '../support/api';
import { runCli } from '../../harness/cli';
import { fixture } from '../support/fixture';
import { useIsolatedStack } from '../support/isolated-stack';
import { isolatedConfig } from '../support/workers';

/** A fresh, migrated database on the fixture's server; `drop` removes it. */
async function ownDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ha_rekey_${randomToken(8)}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = createDb({ url: url.toString(), poolMax: 2 });
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** Every sealed value in the database, by column, with its key id (hex). */
async function sealedValues(api: RunningApi): Promise<Array<{ column: string; key: string; keyId: string; fields: Record<string, string>; sealed: Buffer }>> {
  const out = [];
  for (const c of sealedColumns) {
    const rows = (await api.db(c.table).whereNotNull(c.column).select([...new Set([...c.key, ...c.reads, c.column])])) as Array<Record<string, string | Buffer>>;
    for (const r of rows) {
      const sealed = r[c.column] as Buffer;
      const fields = Object.fromEntries(Object.entries(r).filter(([k]) => k !== c.column).map(([k, v]) => [k, String(v)]));
      out.push({ column: c.name, key: c.key.map((k) => fields[k]).join('/'), keyId: sealed.subarray(1, 5).toString('hex'), fields, sealed });
    }
  }
  return out;
}

describe('key rotation: SECRETS_KEY rings and secrets rekey, URL_SIGNING_KEY rings', function () {
  this.timeout(180_000);
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  const oldBox = new SecretBox(Buffer.from(oldKey, 'base64'));
  const newBox = new SecretBox(Buffer.from(newKey, 'base64'));
  let dropDatabase: (() => Promise<void>) | undefined;
  const stack = useIsolatedStack({
    worker: 'none',
    env: async () => {
      // A database of its own: rekey rewrites every sealed row, and other tests' rows are under the fixture's key.
      const own = await ownDatabase(fixture().databaseUrl);
      dropDatabase = own.drop;
      return { SECRETS_KEY: oldKey, DATABASE_URL: own.url };
    },
  });
  const { api } = stack;
  after(async () => {
    await dropDatabase?.();
  });

  it('every binary column of the schema is either listed as sealed (so rekey walks it) or known to hold no sealed value', async () => {
    const notSealed = ['files.content', 'activity_attempts.task_token', 'knowledge_chunks.embedding'];
    const rows = (await api.db('information_schema.columns').where({ table_schema: 'public', data_type: 'bytea' }).select('table_name', 'column_name')) as Array<{ table_name: string; column_name: string }>;
    const binary = rows.map((r) => `${r.table_name}.${r.column_name}`).sort();
    assert.deepEqual(binary, [...sealedColumns.map((c) => c.name), ...notSealed].sort());
  });

  it('rekey re-encrypts every kind of sealed value under the new key in batches, resumes after an interruption, and a further run changes nothing', async () => {
    // One value of every sealed column, written under the old key by the service itself where an API exists.
    const { apiKey, workspace } = await api.newWorkspace({ credits: 10 });
    const ws = new Service({ apiKey, baseURL: api.baseURL });
    const created = await ws.agents.create({
      name: 'Rotated',
      secrets: [{ name: 'API_TOKEN', scope: 'fixed' }],
      connections: [{ provider: 'gmail', scope: 'fixed' }],
      triggers: [{ kind: 'webhook' }],
    });
    const agent = ws.agent(created.id);
    await agent.bind({ secrets: { API_TOKEN: 'tok-123' } });
    await agent.attach({ provider: 'gmail', accessToken: 'at-456' });
    const [hook] = await agent.webhooks();
    assert.ok(hook);
    await agent.mintWebhookSigningSecret(hook.id);
    // Two rotations: a current visitor identity secret and the previous one, within its grace period.
    await agent.rotateVisitorSecret();
    await agent.rotateVisitorSecret({ graceSeconds: 600 });
    // Publishing and OAuth consent need a production deploy and a provider: seal those as their services do.
    await api.db('agents').where({ id: created.id }).update({ public_token_sealed: mintPublicToken(oldBox, created.id).sealed });
    const stateHash = randomToken(20);
    await api.repos.oauthStates.create({
      stateHash, workspaceId: workspace.id, owner: { kind: 'agent', id: created.id }, endUserId: null, provider: 'gmail',
      codeVerifier: oldBox.seal('verifier', sealContext('oauth-verifier', 'agent', created.id, stateHash)), expiresAt: new Date(Date.now() + 600_000),
    });
    // A pending OIDC sign-in's secrets, under the same state hash (a row of another table).
    await api.repos.oidcSignIns.create({ stateHash, secrets: oldBox.seal('{}', oidcSignInSealContext(stateHash)), workspaceId: null, returnTo: '/console', expiresAt: new Date(Date.now() + 600_000) });

    // A custom domain's TLS key and an ACME account key, sealed as the domain workflow seals them.
    const domain = `${created.id.replace(/_/g, '-')}.example.com`;
    const domainId = `dom_${created.id}`;
    await api.db('custom_domains').insert({
      domain, id: domainId, workspace_id: workspace.id, agent_id: created.id, status: 'active', verification_token: randomToken(20),
      key_sealed: oldBox.seal('-----BEGIN PRIVATE KEY-----', tlsKeyContext(domainId, domain)),
    });
    const directoryUrl = `https://acme.test/${created.id}/directory`;
    await api.db('acme_accounts').insert({ directory_url: directoryUrl, key_sealed: oldBox.seal('account key', acmeAccountKeyContext(directoryUrl)) });

    const mine = async () =>
      (await sealedValues(api)).filter((v) => v.key.includes(created.id) || v.key.includes(created.id.replace(/_/g, '-')) || v.key.includes(hook.id) || v.key === stateHash);
    const before = await mine();
    assert.deepEqual(new Set(before.map((v) => v.column)), new Set(sealedColumns.map((c) => c.name)), 'one value of every sealed column');
    assert.ok(before.every((v) => v.keyId === oldBox.keyId));
    const total = (await sealedValues(api)).length;

    const rotated = { ...stack.env, SECRETS_KEY: `k2:${newKey},k1:${oldKey}` };
    // Interrupted: batches of one, stopped after two values.
    const partial = await runCli(['secrets', 'rekey', '--batch-size', '1', '--limit', '2', '--json'], rotated);
    assert.equal(partial.code, 0, partial.stderr);
    const p = JSON.parse(partial.stdout) as { resealed: number; stoppedEarly: boolean; keyId: string };
    assert.deepEqual([p.resealed, p.stoppedEarly, p.keyId], [2, true, newBox.keyId]);
    assert.match(partial.stderr, /to re-encrypt/);
    assert.equal((await sealedValues(api)).filter((v) => v.keyId === newBox.keyId).length, 2);

    // Resumed: the rest, skipping the two already done.
    const rest = await runCli(['secrets', 'rekey', '--batch-size', '1'], rotated);
    assert.equal(rest.code, 0, rest.stderr);
    assert.match(rest.stdout, new RegExp(`^${total - 2} values re-encrypted under key ${newBox.keyId}; 2 were already under it`));

    const after = await sealedValues(api);
    assert.ok(after.every((v) => v.keyId === newBox.keyId), 'every value is under the new key');
    // Each opens with the new key alone, bound to the same place as before.
    for (const v of after) {
      const column = sealedColumns.find((c) => c.name === v.column);
      assert.ok(column);
      assert.doesNotThrow(() => newBox.openBytes(v.sealed, column.context(v.fields)), v.column);
    }
    // The service, with only the new key, reads them: the webhook URL is shown again (token opened).
    const onlyNew = await startTestApi({ config: isolatedConfig({ ...stack.env, SECRETS_KEY: newKey }) });
    try {
      const again = await new Service({ apiKey, baseURL: onlyNew.baseURL }).agent(created.id).webhooks();
      assert.equal(again[0] && new URL(again[0].url).pathname, new URL(hook.url).pathname);
    } finally {
      await onlyNew.stop();
    }

    // A further run does nothing.
    const third = await runCli(['secrets', 'rekey', '--json'], rotated);
    assert.equal(third.code, 0, third.stderr);
    assert.deepEqual(JSON.parse(third.stdout), { keyId: newBox.keyId, resealed: 0, alreadyCurrent: total, failed: [], stoppedEarly: false });
    assert.deepEqual((await sealedValues(api)).map((v) => v.sealed), after.map((v) => v.sealed), 'not one byte rewritten');
  });

  it('a signed file URL made under the previous URL_SIGNING_KEY still downloads after the rotation; without that key it does not', async () => {
    const oldUrlKey = randomToken(40);
    const newUrlKey = randomToken(40);
    const signer = await startTestApi({ config: isolatedConfig({ ...stack.env, URL_SIGNING_KEY: oldUrlKey }) });
    let url: string;
    try {
      const { apiKey } = await signer.newWorkspace({ credits: 10 });
      const ws = new Service({ apiKey, baseURL: signer.baseURL });
      const conversation = await ws.agent((await ws.agents.create({ name: 'Files' })).id).start();
      await conversation.writeFile('notes.md', new TextEncoder().encode('# kept'));
      url = await conversation.fileUrl('notes.md', { ttl: 600 });
    } finally {
      await signer.stop();
    }
    const fetchOn = async (keys: string) => {
      const served = await startTestApi({ config: isolatedConfig({ ...stack.env, URL_SIGNING_KEY: keys }) });
      try {
        const res = await fetch(`${served.baseURL}${new URL(url).pathname}`);
        return { status: res.status, text: await res.text() };
      } finally {
        await served.stop();
      }
    };
    assert.deepEqual(await fetchOn(`2026b:${newUrlKey},2026a:${oldUrlKey}`), { status: 200, text: '# kept' });
    assert.equal((await fetchOn(newUrlKey)).status, 404, 'the previous key, once removed from the ring, no longer verifies');
  });
});
