import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomToken } from '../../domain/ids';
import { ENCRYPTED_ENCODING, payloadCodecFromConfig } from '../../infra/payload-codec';
import { useTestApi } from '../support/api';
import { startCaddy, type RunningCaddy } from '../support/caddy';
import { fixture } from '../support/fixture';

/**
 * The authenticating-proxy recipe of docs/temporal-cluster.md (Decoded payloads in the UI): on a
 * cluster, the Temporal UI and our codec endpoint sit behind one Caddy origin that asks the
 * operator to log in (basic auth here; forward_auth to an SSO proxy in the recipe's variant), and
 * the proxy — not the browser — adds `Authorization: Bearer <CODEC_TOKEN>` on `/codec/` calls.
 * The browser never holds the codec token, and nobody reaches the codec without the login.
 */
describe('the codec behind an authenticating proxy (the cluster recipe)', function () {
  this.timeout(60_000);
  const codecToken = randomToken(40);
  const api = useTestApi(() => ({ config: { ...fixture().config, CODEC_TOKEN: codecToken } }));
  let caddy: RunningCaddy;
  const login = `Basic ${Buffer.from('operator:correct horse').toString('base64')}`;

  before(async () => {
    const hash = execFileSync(process.env.CADDY_PATH ?? '/usr/bin/caddy', ['hash-password', '--plaintext', 'correct horse'], { encoding: 'utf8' }).trim();
    const apiPort = new URL(api.baseURL).port;
    caddy = await startCaddy({
      upstreams: [],
      routes: [
        'basicauth {',
        `  operator ${hash}`,
        '}',
        'handle_path /codec/* {',
        '  rewrite * /v1/codec{uri}',
        `  reverse_proxy 127.0.0.1:${apiPort} {`,
        `    header_up Authorization "Bearer ${codecToken}"`,
        '  }',
        '}',
        // Where the Temporal UI server would be (TEMPORAL_CODEC_ENDPOINT=<this origin>/codec).
        'handle {',
        '  respond "the Temporal UI" 200',
        '}',
      ],
    });
  });
  after(async () => {
    await caddy?.stop();
  });

  async function encryptedPayload(text: string) {
    const codec = payloadCodecFromConfig(fixture().config);
    assert.ok(codec, 'the test config sets PAYLOAD_KEY');
    const [sealed] = await codec.encode([{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(text)) }]);
    const metadata = Object.fromEntries(Object.entries(sealed!.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v as Uint8Array).toString('base64')]));
    assert.equal(Buffer.from(metadata.encoding!, 'base64').toString(), ENCRYPTED_ENCODING);
    return { metadata, data: Buffer.from(sealed!.data as Uint8Array).toString('base64') };
  }

  const decode = (headers: Record<string, string>, body: unknown) =>
    caddy.fetch(`${caddy.url}/codec/decode`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('the logged-in operator gets payloads decoded; the codec token never leaves the proxy', async () => {
    const secret = `card ending ${randomToken(4)}`;
    const res = await decode({ authorization: login }, { payloads: [await encryptedPayload(secret)] });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { payloads: Array<{ data: string }> };
    assert.equal(JSON.parse(Buffer.from(body.payloads[0]!.data, 'base64').toString('utf8')), secret);
    assert.ok(![...res.headers.values()].some((v) => v.includes(codecToken)), 'no answer header carries the token');
  });

  it('without the login, or with a wrong one, the proxy refuses before the API sees the call', async () => {
    const payloads = [await encryptedPayload('not for you')];
    const attempts: Array<Record<string, string>> = [{}, { authorization: `Basic ${Buffer.from('operator:guess').toString('base64')}` }, { authorization: `Bearer ${randomToken(40)}` }];
    for (const headers of attempts) {
      const res = await decode(headers, { payloads });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.doesNotMatch(await res.text(), /not for you/);
    }
  });

  it('the API itself still wants the token: the proxy is the only way in without it', async () => {
    const res = await fetch(`${api.baseURL}/v1/codec/decode`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: login }, body: JSON.stringify({ payloads: [] }) });
    assert.equal(res.status, 401);
  });
});
