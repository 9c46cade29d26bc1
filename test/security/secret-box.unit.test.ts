import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../config/env';
import { decodeSecretsKey, SecretBox, SecretBoxError, sealContext } from '../../domain/secret-box';
import { ensureKeyFile } from '../../infra/key-file';
import { secretBoxFromConfig } from '../../config/secret-box';

describe('secret box (AES-256-GCM) and SECRETS_KEY', () => {
  const key = randomBytes(32);

  describe('SECRETS_KEY formats', () => {
    it('accepts 32 bytes as base64 (padded or not), base64url and 64 hex characters, all decoding to the key', () => {
      const b64 = key.toString('base64');
      for (const text of [b64, b64.replace(/=+$/, ''), key.toString('base64url'), key.toString('hex'), key.toString('hex').toUpperCase(), ` ${b64}\n`]) {
        assert.deepEqual(decodeSecretsKey(text), key, text);
      }
    });

    it('refuses other lengths, other characters and mixed alphabets', () => {
      const refused = [
        '',
        randomBytes(31).toString('base64'),
        randomBytes(33).toString('base64'),
        randomBytes(16).toString('hex'),
        `${key.toString('hex').slice(0, 63)}g`,
        'x'.repeat(42),
        `${key.toString('base64url').slice(0, 40)}+/-`,
        `${key.toString('base64').slice(0, 40)}!!!`,
        'required-secrets_key-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
      ];
      for (const text of refused) assert.equal(decodeSecretsKey(text), undefined, text);
    });

    it('config: a malformed SECRETS_KEY stops start-up naming it, without echoing it; unset is allowed (npm start makes one)', () => {
      const bad = 'almost-the-real-key-but-not-quite';
      assert.throws(
        () => loadConfig({ SECRETS_KEY: bad }),
        (e: unknown) => e instanceof ConfigError && e.variable === 'SECRETS_KEY' && /32 random bytes/.test(e.message) && !e.message.includes(bad),
      );
      assert.equal(loadConfig({}).SECRETS_KEY, undefined);
      assert.equal(loadConfig({ SECRETS_KEY: key.toString('hex') }).SECRETS_KEY, key.toString('hex'));
      assert.throws(() => secretBoxFromConfig({ SECRETS_KEY: undefined }), (e: unknown) => e instanceof ConfigError && e.variable === 'SECRETS_KEY');
    });

    it('the key file npm start makes (DATA_DIR/secrets.key) is a valid key, mode 600, kept across starts', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'ha-keyfile-'));
      try {
        const first = await ensureKeyFile(dir, 'secrets.key');
        assert.equal(decodeSecretsKey(first)?.length, 32);
        assert.equal(await ensureKeyFile(dir, 'secrets.key'), first);
        assert.equal((await readFile(path.join(dir, 'secrets.key'), 'utf8')).trim(), first);
        assert.equal((await stat(path.join(dir, 'secrets.key'))).mode & 0o777, 0o600);
        assert.doesNotThrow(() => loadConfig({ SECRETS_KEY: first }));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('seal and open', () => {
    const box = new SecretBox(key);
    const ctx = sealContext('secret', 'agent', 'agt_1', 'API_TOKEN');

    it('round-trips text (unicode included) and never contains the plaintext', () => {
      for (const text of ['s3cret', 'ünïcødé ✓ 🔑', 'x'.repeat(10_000)]) {
        const sealed = box.seal(text, ctx);
        assert.equal(box.open(sealed, ctx), text);
        assert.ok(!sealed.includes(Buffer.from(text)));
        assert.equal(sealed.length, 1 + 4 + 12 + 16 + Buffer.byteLength(text));
      }
    });

    it('uses a fresh 12-byte IV each time: one value sealed twice differs', () => {
      const a = box.seal('same', ctx);
      const b = box.seal('same', ctx);
      assert.notDeepEqual(a, b);
      assert.notDeepEqual(a.subarray(5, 17), b.subarray(5, 17));
    });

    it('another key is told apart from an altered value, and a value bound to another owner does not open', () => {
      const sealed = box.seal('s3cret', ctx);
      const other = new SecretBox(randomBytes(32));
      assert.throws(() => other.open(sealed, ctx), (e: unknown) => e instanceof SecretBoxError && /another SECRETS_KEY/.test(e.message) && /secret API_TOKEN of agent agt_1/.test(e.message));
      const altered = Buffer.from(sealed);
      altered[altered.length - 1]! ^= 1;
      assert.throws(() => box.open(altered, ctx), (e: unknown) => e instanceof SecretBoxError && /failed authentication/.test(e.message));
      assert.throws(() => box.open(sealed, sealContext('secret', 'agent', 'agt_2', 'API_TOKEN')), /failed authentication/);
      assert.throws(() => box.open(Buffer.from([9, 9, 9]), ctx), /not in a format/);
      for (const e of [() => other.open(sealed, ctx), () => box.open(altered, ctx)]) {
        assert.throws(e, (err: unknown) => err instanceof Error && !err.message.includes('s3cret'));
      }
    });
  });
});
