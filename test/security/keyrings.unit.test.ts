import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { ConfigError, loadConfig } from '../../config/env';
import { secretBoxFromConfig } from '../../config/secret-box';
import { parseKeyring } from '../../domain/keyring';
import { SecretBox, SecretBoxError, sealContext } from '../../domain/secret-box';
import { parseUrlSigningKeys, signFileGrant, verifyFileGrant } from '../../domain/signed-url';
import { boundTranscript, type TranscriptItem } from '../../domain/turn-transcript';
import { EncryptionCodec, KEY_ID_METADATA, payloadCodecFromConfig } from '../../infra/payload-codec';

const b64 = () => randomBytes(32).toString('base64');

describe('key rings (SECRETS_KEY, PAYLOAD_KEY, URL_SIGNING_KEY) across a rotation', () => {
  const [k0, k1] = [b64(), b64()];
  const ctx = sealContext('secret', 'agent', 'agt_1', 'API_TOKEN');

  it('parses `label:key,label:key` (current first) and a bare key, labels optional', () => {
    assert.deepEqual(parseKeyring(`2026b:${k1}, 2026a:${k0}`), [{ label: '2026b', text: k1 }, { label: '2026a', text: k0 }]);
    assert.deepEqual(parseKeyring(k0), [{ text: k0 }]);
    assert.deepEqual(parseKeyring(`${k1},old:${k0}`), [{ text: k1 }, { label: 'old', text: k0 }]);
  });

  it('config accepts a ring for each variable, and names the bad entry without echoing it', () => {
    assert.doesNotThrow(() => loadConfig({ SECRETS_KEY: `b:${k1},a:${k0}`, PAYLOAD_KEY: `${k1},${k0}`, URL_SIGNING_KEY: `n:${'x'.repeat(40)},o:${'y'.repeat(32)}` }));
    assert.doesNotThrow(() => loadConfig({ SECRETS_KEY: k0 }), 'a single key stays valid');
    const bad = 'nearly-a-key-but-not';
    assert.throws(
      () => loadConfig({ SECRETS_KEY: `b:${k1},a:${bad}` }),
      (e: unknown) => e instanceof ConfigError && /^SECRETS_KEY: key 2 of 2 \(a\): 32 random bytes/.test(e.message) && !e.message.includes(bad),
    );
    assert.throws(() => loadConfig({ URL_SIGNING_KEY: `n:${'x'.repeat(40)},o:short` }), /URL_SIGNING_KEY: key 2 of 2 \(o\): at least 32 characters/);
    assert.throws(() => loadConfig({ PAYLOAD_KEY: 'nope' }), /PAYLOAD_KEY: 32 random bytes/);
  });

  it('a value sealed under the previous key opens with the rotated ring, new values go under the new key, and a ring without the old key says so', () => {
    const before = secretBoxFromConfig({ SECRETS_KEY: k0 });
    const rotated = secretBoxFromConfig({ SECRETS_KEY: `new:${k1},old:${k0}` });
    const onlyNew = secretBoxFromConfig({ SECRETS_KEY: k1 });
    const old = before.seal('s3cret', ctx);
    assert.equal(rotated.open(old, ctx), 's3cret');
    assert.equal(rotated.isCurrent(old), false);
    const fresh = rotated.seal('s3cret', ctx);
    assert.equal(rotated.sealedKeyId(fresh), onlyNew.keyId);
    assert.equal(rotated.isCurrent(fresh), true);
    assert.equal(onlyNew.open(fresh, ctx), 's3cret');
    assert.throws(() => onlyNew.open(old, ctx), (e: unknown) => e instanceof SecretBoxError && /another SECRETS_KEY/.test(e.message));
    // The key id is derived from the key, not from its label: relabelling changes nothing.
    assert.equal(secretBoxFromConfig({ SECRETS_KEY: `renamed:${k1}` }).keyId, onlyNew.keyId);
  });

  it('Temporal payloads: encrypted whole (metadata too) with the key id in metadata; the rotated ring decodes old payloads, a ring without the old key refuses', async () => {
    const original = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify({ text: 'hello secret' })) };
    const [sealed] = await new EncryptionCodec(new SecretBox(Buffer.from(k0, 'base64'))).encode([original]);
    assert.ok(sealed?.data && !Buffer.from(sealed.data).includes(Buffer.from('hello secret')));
    assert.equal(Buffer.from(sealed.metadata?.encoding ?? []).toString(), 'binary/encrypted');
    const rotated = payloadCodecFromConfig({ PAYLOAD_KEY: `k1:${k1},k0:${k0}` });
    assert.ok(rotated);
    const [back] = await rotated.decode([sealed]);
    assert.deepEqual(temporal.api.common.v1.Payload.encode(back ?? {}).finish(), temporal.api.common.v1.Payload.encode(original).finish());
    const [again] = await rotated.encode([original]);
    assert.notEqual(Buffer.from(again?.metadata?.[KEY_ID_METADATA] ?? []).toString(), Buffer.from(sealed.metadata?.[KEY_ID_METADATA] ?? []).toString());
    await assert.rejects(payloadCodecFromConfig({ PAYLOAD_KEY: k1 })?.decode([sealed]) ?? Promise.resolve(), SecretBoxError);
    const [plain] = await rotated.decode([original]);
    assert.equal(plain, original, 'a payload written before the codec passes through');
  });

  it('signed URLs: signed with the first key, verified under any key of the ring', () => {
    const [cur, prev] = ['c'.repeat(40), 'p'.repeat(40)];
    const grant = { workspaceId: 'ws_1', space: 's', path: 'a.md', download: false, exp: Date.now() / 1000 + 60 };
    const old = signFileGrant([prev], grant);
    const ring = parseUrlSigningKeys(`cur:${cur},prev:${prev}`);
    assert.ok('keys' in ring);
    assert.deepEqual(verifyFileGrant(ring.keys, old), grant);
    assert.equal(verifyFileGrant([cur], old), undefined);
    assert.deepEqual(verifyFileGrant([cur], signFileGrant(ring.keys, grant)), grant);
  });
});

describe('turn transcript size budget', () => {
  it('keeps a transcript of many large tool results under the budget, trimming the oldest first and keeping the newest whole', () => {
    const big = '𝄞'.repeat(16_000); // 4 UTF-8 bytes a character: a tool result at its cap
    const transcript: TranscriptItem[] = [];
    for (let step = 0; step < 60; step++) {
      transcript.push({ role: 'assistant', content: `step ${step}`, toolCalls: [{ id: `c${step}`, name: 'web.fetch', args: { url: 'https://example.com' } }] });
      transcript.push({ role: 'tool', toolCallId: `c${step}`, toolName: 'web.fetch', content: big });
      boundTranscript(transcript);
    }
    const bytes = Buffer.byteLength(JSON.stringify(transcript));
    assert.ok(bytes <= 1024 * 1024, `${bytes} bytes`);
    assert.equal(transcript.length, 120, 'no item is dropped: ids stay paired');
    assert.equal((transcript.at(-1) as { content: string }).content, big, 'the newest result is whole');
    assert.match((transcript[1] as { content: string }).content, /^\[trimmed: 32000 characters/);
  });

  it('leaves a transcript within the budget untouched', () => {
    const transcript: TranscriptItem[] = [{ role: 'tool', toolCallId: 'c', toolName: 't', content: 'x'.repeat(1000) }];
    const copy = structuredClone(transcript);
    boundTranscript(transcript);
    assert.deepEqual(transcript, copy);
  });
});
