import assert from 'node:assert/strict';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { ConfigError, loadConfig } from '../../config/env';
import { capText, httpToolTimeout, toolLimits } from '../../activities/tools/limits';
import { blockedRange } from '../../activities/outbound/address-policy';
import { readCapped } from '../../activities/outbound/capped-body';
import { OutboundError, OutboundRefusedError } from '../../activities/outbound/errors';
import { createSafeFetch } from '../../activities/outbound/safe-fetch';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface TestServer {
  url: string;
  port: number;
  requests: Seen[];
  connections: () => number;
  close: () => Promise<void>;
}

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void, host = '127.0.0.1'): Promise<TestServer> {
  const requests: Seen[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function isRefusal(host: string, address?: string) {
  return (e: unknown) => {
    assert.ok(e instanceof OutboundRefusedError, `expected OutboundRefusedError, got ${String(e)}`);
    assert.ok(e.message.includes(host), `message names ${host}: ${e.message}`);
    if (address) assert.ok(e.message.includes(address), `message names ${address}: ${e.message}`);
    assert.match(e.message, /OUTBOUND_ALLOW_PRIVATE/);
    return true;
  };
}

describe('outbound: safe fetch', () => {
  let target: TestServer;
  before(async () => {
    target = await serve((_req, res) => res.end('hello'));
  });
  after(() => target.close());

  describe('with the default configuration, refuses before connecting', () => {
    const safeFetch = createSafeFetch({ allowPrivate: false });
    const cases: Array<[string, string, string | undefined]> = [
      ['http://127.0.0.1:PORT/', '127.0.0.1', undefined],
      ['http://localhost:PORT/', 'localhost', '127.0.0.1'],
      ['http://LocalHost:PORT/x', 'localhost', '127.0.0.1'],
      ['http://10.0.0.1:PORT/', '10.0.0.1', undefined],
      ['http://192.168.1.1/', '192.168.1.1', undefined],
      ['http://172.16.5.4/', '172.16.5.4', undefined],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', undefined],
      ['http://[::1]:PORT/', '::1', undefined],
      ['http://[::ffff:127.0.0.1]:PORT/', '::ffff:7f00:1', undefined],
      ['http://[fd00::1]/', 'fd00::1', undefined],
      ['http://[fe80::1]/', 'fe80::1', undefined],
      ['http://100.64.0.1/', '100.64.0.1', undefined],
      ['http://0.0.0.0:PORT/', '0.0.0.0', undefined],
      ['http://255.255.255.255/', '255.255.255.255', undefined],
      ['http://224.0.0.1/', '224.0.0.1', undefined],
      ['http://2130706433:PORT/', '127.0.0.1', undefined],
      ['http://0x7f.1:PORT/', '127.0.0.1', undefined],
      ['http://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1', undefined],
      // Local-use NAT64 (RFC 8215) reaches the operator's own IPv4 networks, whatever the low bits say.
      ['http://[64:ff9b:1::808:808]/', '64:ff9b:1::808:808', undefined],
      ['http://metadata.google.internal/computeMetadata/v1/', 'metadata.google.internal', undefined],
      ['http://Metadata.Google.Internal./', 'metadata.google.internal', undefined],
    ];
    for (const [template, host, address] of cases) {
      it(template.replace(':PORT', ''), async () => {
        const before = target.connections();
        await assert.rejects(safeFetch(template.replace('PORT', String(target.port))), isRefusal(host, address));
        assert.equal(target.connections(), before, 'no connection was made');
      });
    }
  });

  it('classifies addresses: public unicast passes, everything internal is named', () => {
    for (const ok of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '64:ff9b::808:808', '2002:808:808::1']) assert.equal(blockedRange(ok), undefined, ok);
    const blocked: Array<[string, RegExp]> = [
      ['127.0.0.1', /loopback/],
      ['10.1.2.3', /private/],
      ['169.254.169.254', /linkLocal/],
      ['100.100.100.100', /carrierGradeNat/],
      ['::ffff:10.0.0.1', /private/],
      ['::7f00:1', /ipv4Compatible/],
      ['fc00::1', /uniqueLocal/],
      ['::', /unspecified/],
      ['2002:7f00:1::1', /6to4.*loopback/],
      ['ff02::1', /multicast/],
      ['240.0.0.1', /reserved/],
      ['64:ff9b:1::808:808', /localUseNat64/],
      ['64:ff9b:1:ffff:ffff::1', /localUseNat64/],
    ];
    for (const [address, reason] of blocked) assert.match(blockedRange(address) ?? '', reason, address);
  });

  it('reaches allowed private ranges: a CIDR list or true', async () => {
    for (const allowPrivate of [['127.0.0.0/8'], true] as const) {
      const res = await createSafeFetch({ allowPrivate })(`${target.url}/ok`);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'hello');
    }
    await assert.rejects(createSafeFetch({ allowPrivate: ['10.0.0.0/8'] })(`${target.url}/`), isRefusal('127.0.0.1'));
    // localhost resolves to 127.0.0.1, which the list allows.
    const viaName = await createSafeFetch({ allowPrivate: ['127.0.0.1/32'] })(`http://localhost:${target.port}/name`);
    assert.equal(viaName.status, 200);
    await viaName.text();
  });

  it('sends a User-Agent unless the request sets one', async () => {
    const f = createSafeFetch({ allowPrivate: true, userAgent: 'test-agent/1' });
    await (await f(`${target.url}/ua1`)).text();
    await (await f(`${target.url}/ua2`, { headers: { 'User-Agent': 'mine' } })).text();
    assert.equal(target.requests.find((r) => r.url === '/ua1')?.headers['user-agent'], 'test-agent/1');
    assert.equal(target.requests.find((r) => r.url === '/ua2')?.headers['user-agent'], 'mine');
  });

  it('rejects a bad CIDR and non-HTTP URLs', async () => {
    assert.throws(() => createSafeFetch({ allowPrivate: ['10.0.0.0/99'] }), /"10\.0\.0\.0\/99" is not a CIDR/);
    const f = createSafeFetch({ allowPrivate: true });
    await assert.rejects(f('file:///etc/passwd'), (e: unknown) => e instanceof OutboundError && /only http/.test(e.message));
    await assert.rejects(f('not a url'), (e: unknown) => e instanceof OutboundError && /not a valid URL/.test(e.message));
  });

  describe('checks the addresses DNS gives at connect time', () => {
    const original = dns.lookup;
    afterEach(() => {
      dns.lookup = original;
    });
    /** Answers every lookup of `name` with `addresses` (each lookup asks again: no caching of a first, public answer). */
    function fakeDns(name: string, addresses: string[]): { calls: () => number } {
      let calls = 0;
      const fake = (hostname: string, options: dns.LookupOptions, callback: (err: NodeJS.ErrnoException | null, result: dns.LookupAddress[]) => void) => {
        if (hostname !== name) {
          (original as unknown as typeof fake)(hostname, options, callback);
          return;
        }
        calls++;
        callback(
          null,
          addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        );
      };
      dns.lookup = fake as unknown as typeof dns.lookup;
      return { calls: () => calls };
    }

    it('a name that resolves to a private address is refused, naming both', async () => {
      const lookups = fakeDns('rebind.example', ['127.0.0.1']);
      const before = target.connections();
      await assert.rejects(createSafeFetch({ allowPrivate: false })(`http://rebind.example:${target.port}/`), isRefusal('rebind.example', '127.0.0.1'));
      assert.equal(lookups.calls(), 1);
      assert.equal(target.connections(), before);
    });

    it('private answers are dropped and allowed ones used', async () => {
      fakeDns('mixed.example', ['10.9.9.9', '127.0.0.1']);
      const res = await createSafeFetch({ allowPrivate: ['127.0.0.0/8'] })(`http://mixed.example:${target.port}/mixed`);
      assert.equal(res.status, 200);
      await res.text();
    });
  });

  describe('redirects', () => {
    let chain: TestServer;
    let other: TestServer;
    const f = createSafeFetch({ allowPrivate: ['127.0.0.0/8'] });
    before(async () => {
      other = await serve((_req, res, body) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ body }));
      });
      chain = await serve((req, res, body) => {
        const url = new URL(req.url ?? '/', 'http://x');
        const hops = /^\/hops\/(\d+)$/.exec(url.pathname);
        if (hops) {
          const n = Number(hops[1]);
          if (n === 0) res.end('arrived');
          else {
            res.writeHead(302, { location: `/hops/${n - 1}` });
            res.end();
          }
          return;
        }
        const status = /^\/status\/(\d+)$/.exec(url.pathname);
        if (status) {
          res.writeHead(Number(status[1]), { location: url.searchParams.get('to') ?? '/echo' });
          res.end('redirecting');
          return;
        }
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null, key: req.headers['x-api-key'] ?? null }));
      });
    });
    after(async () => {
      await chain.close();
      await other.close();
    });

    it('follows up to 5 redirects by default; a 6th is an error', async () => {
      const res = await f(`${chain.url}/hops/5`);
      assert.equal(await res.text(), 'arrived');
      assert.equal(res.url, `${chain.url}/hops/0`);
      await assert.rejects(f(`${chain.url}/hops/6`), (e: unknown) => e instanceof OutboundError && /too many redirects: more than 5/.test(e.message));
    });

    it('maxRedirects sets the limit (0: none)', async () => {
      assert.equal(await (await f(`${chain.url}/hops/2`, { maxRedirects: 2 })).text(), 'arrived');
      await assert.rejects(f(`${chain.url}/hops/3`, { maxRedirects: 2 }), /more than 2/);
      await assert.rejects(f(`${chain.url}/hops/1`, { maxRedirects: 0 }), /more than 0/);
      const manual = await f(`${chain.url}/hops/1`, { redirect: 'manual' });
      assert.equal(manual.status, 302);
      await manual.text();
    });

    it('303 and 301/302 after POST become GET without a body; 307 and 308 keep method and body', async () => {
      const cases: Array<[number, string, string, string]> = [
        [303, 'POST', 'GET', ''],
        [303, 'PUT', 'GET', ''],
        [302, 'POST', 'GET', ''],
        [301, 'POST', 'GET', ''],
        [302, 'PUT', 'PUT', 'payload'],
        [307, 'POST', 'POST', 'payload'],
        [308, 'PUT', 'PUT', 'payload'],
      ];
      for (const [status, method, expectedMethod, expectedBody] of cases) {
        const res = await f(`${chain.url}/status/${status}`, { method, body: 'payload', headers: { 'content-type': 'text/plain' } });
        const seen = (await res.json()) as { method: string; body: string };
        assert.deepEqual(seen, { ...seen, method: expectedMethod, body: expectedBody }, `${status} after ${method}`);
      }
    });

    it('credentials go on to the same origin only', async () => {
      const headers = { authorization: 'Bearer s3cret', 'x-api-key': 'k3y' };
      const same = (await (await f(`${chain.url}/status/302?to=/echo`, { headers })).json()) as { auth: string | null; key: string | null };
      assert.equal(same.auth, 'Bearer s3cret');
      assert.equal(same.key, 'k3y');
      await (await f(`${chain.url}/status/303?to=${encodeURIComponent(`${other.url}/elsewhere`)}`, { method: 'POST', body: 'b', headers })).text();
      const seen = other.requests.at(-1);
      assert.equal(seen?.url, '/elsewhere');
      assert.equal(seen?.body, '');
      assert.equal(seen?.headers.authorization, undefined);
      assert.equal(seen?.headers['x-api-key'], undefined);
    });

    it('only to http and https', async () => {
      await assert.rejects(f(`${chain.url}/status/302?to=${encodeURIComponent('file:///etc/passwd')}`), /non-HTTP URL \(file:\/\/\)/);
      await assert.rejects(f(`${chain.url}/status/302?to=${encodeURIComponent('ftp://example.com/x')}`), /non-HTTP URL/);
    });

    it('a redirect to a private address is refused at the redirect', async () => {
      // The first hop (127.0.0.2) is allowed; the redirect to 127.0.0.1 is not.
      const first = await serve((req, res) => {
        res.writeHead(302, { location: req.url === '/by-name' ? `http://localhost:${target.port}/` : `${target.url}/secret` });
        res.end();
      }, '127.0.0.2');
      try {
        const g = createSafeFetch({ allowPrivate: ['127.0.0.2/32'] });
        const before = target.connections();
        await assert.rejects(g(`${first.url}/`), isRefusal('127.0.0.1'));
        await assert.rejects(g(`${first.url}/by-name`), isRefusal('localhost', '127.0.0.1'));
        assert.equal(first.requests.length, 2, 'the first hop was reached');
        assert.equal(target.connections(), before, 'the private target was never connected to');
      } finally {
        await first.close();
      }
    });
  });

  describe('readCapped', () => {
    let big: TestServer;
    const MiB = 1024 * 1024;
    let gzipBomb: Buffer;
    let brBomb: Buffer;
    before(async () => {
      // Bombs: 64 MiB inflated from 64 gzip members of about 1 KiB, and 16 MiB from about 100 bytes of brotli.
      const member = zlib.gzipSync(Buffer.alloc(MiB, 'x'), { level: 9 });
      gzipBomb = Buffer.concat(Array.from({ length: 64 }, () => member));
      brBomb = zlib.brotliCompressSync(Buffer.alloc(16 * MiB, 'x'), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
      big = await serve((req, res) => {
        if (req.url === '/gzip-bomb' || req.url === '/br-bomb') {
          res.setHeader('content-type', 'text/plain');
          res.setHeader('content-encoding', req.url === '/gzip-bomb' ? 'gzip' : 'br');
          res.end(req.url === '/gzip-bomb' ? gzipBomb : brBomb);
          return;
        }
        if (req.url === '/latin1') {
          res.setHeader('content-type', 'text/plain; charset=iso-8859-1');
          res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
          return;
        }
        res.setHeader('content-type', 'text/plain');
        // 3 MiB in 64 KiB chunks.
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let sent = 0;
        const write = () => {
          while (sent < 48) {
            sent++;
            if (!res.write(chunk)) {
              res.once('drain', write);
              return;
            }
          }
          res.end();
        };
        write();
      });
    });
    after(() => big.close());
    const f = createSafeFetch({ allowPrivate: true });

    it('stops at the cap and says so', async () => {
      const body = await readCapped(await f(`${big.url}/big`), 100_000);
      assert.equal(body.bytes.byteLength, 100_000);
      assert.equal(body.text.length, 100_000);
      assert.equal(body.truncated, true);
      const whole = await readCapped(await f(`${big.url}/big`), 4 * 1024 * 1024);
      assert.equal(whole.bytes.byteLength, 3 * 1024 * 1024);
      assert.equal(whole.truncated, false);
      const exact = await readCapped(await f(`${big.url}/big`), 3 * 1024 * 1024);
      assert.equal(exact.truncated, false);
    });

    it('counts inflated bytes: a gzip or brotli bomb stops at the cap', async () => {
      for (const bomb of ['gzip-bomb', 'br-bomb']) {
        const body = await readCapped(await f(`${big.url}/${bomb}`), MiB);
        assert.equal(body.truncated, true, bomb);
        assert.equal(body.bytes.byteLength, MiB, bomb);
        assert.ok(
          body.bytes.every((b) => b === 0x78),
          `${bomb}: the bytes read are the inflated ones`,
        );
      }
    });

    it('decodes with the charset of the response', async () => {
      const body = await readCapped(await f(`${big.url}/latin1`));
      assert.equal(body.text, 'café');
      assert.equal(body.truncated, false);
    });
  });
});

describe('outbound: limits and configuration', () => {
  it('caps text for the model with a note of what was cut', () => {
    assert.equal(capText('short'), 'short');
    const long = 'x'.repeat(toolLimits.modelTextChars + 123);
    assert.equal(capText(long), `${'x'.repeat(toolLimits.modelTextChars)}\n[truncated: 123 more characters]`);
    assert.equal(toolLimits.responseBytes, 1024 * 1024);
    assert.equal(httpToolTimeout(undefined), 30_000);
    assert.equal(httpToolTimeout(1500), 1500);
    assert.equal(httpToolTimeout(900_000), 300_000);
  });

  it('OUTBOUND_ALLOW_PRIVATE: unset or empty allows nothing, true everything, else a list of CIDRs', () => {
    assert.equal(loadConfig({}).OUTBOUND_ALLOW_PRIVATE, false);
    assert.equal(loadConfig({ OUTBOUND_ALLOW_PRIVATE: '' }).OUTBOUND_ALLOW_PRIVATE, false);
    assert.equal(loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'true' }).OUTBOUND_ALLOW_PRIVATE, true);
    assert.deepEqual(loadConfig({ OUTBOUND_ALLOW_PRIVATE: '127.0.0.0/8, 10.1.0.0/16,::1/128' }).OUTBOUND_ALLOW_PRIVATE, [
      '127.0.0.0/8',
      '10.1.0.0/16',
      '::1/128',
    ]);
    for (const bad of ['10.0.0.0/33', 'banana', '127.0.0.0/8,10.0.0/8']) {
      assert.throws(
        () => loadConfig({ OUTBOUND_ALLOW_PRIVATE: bad }),
        (e: unknown) => e instanceof ConfigError && e.variable === 'OUTBOUND_ALLOW_PRIVATE' && e.message.includes(`"${bad.split(',').at(-1)}" is not a CIDR`),
      );
    }
  });
});
