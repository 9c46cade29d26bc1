import assert from 'node:assert/strict';
import {
  Command,
  INETProtocol,
  IPv4Address,
  IPv4ProxyAddress,
  IPv6Address,
  IPv6ProxyAddress,
  Peer,
  TransportProtocol,
  UnspecProxyAddress,
  V1ProxyProtocol,
  V2ProxyProtocol,
} from 'proxy-protocol-js';
import { parseHeader } from '../../api/server/proxy-header';

const after = Buffer.from('\x16\x03\x01 then TLS');

describe('PROXY protocol header (what HTTPS_PORT and PORT read first with PROXY_PROTOCOL)', () => {
  it('v1: the source address and port, and the bytes after the line', () => {
    const line = new V1ProxyProtocol(INETProtocol.TCP4, new Peer('198.51.100.7', 40123), new Peer('10.0.0.1', 443)).build();
    const header = parseHeader(Buffer.concat([Buffer.from(line), after]));
    assert.deepEqual(header?.peer, { address: '198.51.100.7', port: 40123, family: 'IPv4' });
    assert.deepEqual(header?.rest, after);
    const six = parseHeader(Buffer.from('PROXY TCP6 2001:db8::1 2001:db8::2 5000 443\r\n'));
    assert.deepEqual(six?.peer, { address: '2001:db8::1', port: 5000, family: 'IPv6' });
    assert.equal(parseHeader(Buffer.from('PROXY UNKNOWN\r\n'))?.peer, undefined, "UNKNOWN: the proxy's own connection");
  });

  it('v2: IPv4 and IPv6 sources, LOCAL and UNSPEC name no client', () => {
    const v4 = new V2ProxyProtocol(Command.PROXY, TransportProtocol.STREAM, new IPv4ProxyAddress(IPv4Address.createFrom([127, 0, 0, 2]), 5555, IPv4Address.createFrom([127, 0, 0, 1]), 443)).build();
    const header = parseHeader(Buffer.concat([Buffer.from(v4), after]));
    assert.deepEqual(header?.peer, { address: '127.0.0.2', port: 5555, family: 'IPv4' });
    assert.deepEqual(header?.rest, after);
    const bytes = [0x20, 0x01, 0x0d, 0xb8, ...Array<number>(11).fill(0), 0x09];
    const v6 = new V2ProxyProtocol(Command.PROXY, TransportProtocol.STREAM, new IPv6ProxyAddress(IPv6Address.createFrom(bytes), 6000, IPv6Address.createFrom(bytes), 443)).build();
    assert.deepEqual(parseHeader(Buffer.from(v6))?.peer, { address: '2001:db8::9', port: 6000, family: 'IPv6' });
    const local = new V2ProxyProtocol(Command.LOCAL, TransportProtocol.UNSPEC, new UnspecProxyAddress()).build();
    assert.equal(parseHeader(Buffer.from(local))?.peer, undefined);
  });

  it('waits for a header split across reads', () => {
    const v4 = Buffer.from(new V2ProxyProtocol(Command.PROXY, TransportProtocol.STREAM, new IPv4ProxyAddress(IPv4Address.createFrom([10, 1, 2, 3]), 1, IPv4Address.createFrom([10, 0, 0, 1]), 2)).build());
    for (const cut of [1, 11, 15, 20]) assert.equal(parseHeader(v4.subarray(0, cut)), undefined, `${cut} bytes`);
    assert.equal(parseHeader(Buffer.from('PROXY TCP4 10.1.2.3 10.0.0.1 1')), undefined);
  });

  it('refuses anything else: plain HTTP, a TLS hello, a malformed or overlong line, a bad address', () => {
    for (const text of ['GET / HTTP/1.1\r\n', '\x16\x03\x01\x02\x00', 'PROXY TCP4 nowhere 10.0.0.1 1 2\r\n', 'PROXY TCP4 10.1.2.3 10.0.0.1 99999 2\r\n', `PROXY ${'x'.repeat(120)}`]) {
      assert.throws(() => parseHeader(Buffer.from(text, 'latin1')), () => true, JSON.stringify(text));
    }
  });
});
