import { isIP, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Command, IPv4ProxyAddress, IPv6ProxyAddress, V1ProxyProtocol, V2ProxyProtocol } from 'proxy-protocol-js';

/** The client a PROXY header names: the address and port its proxy accepted the connection from. */
export interface ProxiedPeer {
  address: string;
  port: number;
  family: 'IPv4' | 'IPv6';
}

/** What came first on a connection: the client it names (none: the proxy's own, e.g. a health check) and the bytes after it. */
interface ProxyHeader {
  peer: ProxiedPeer | undefined;
  rest: Buffer;
}

const V1_PREFIX = Buffer.from('PROXY ');
const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
/** The protocol's own bound for a v1 line (CRLF included). */
const V1_MAX = 107;
/** A v2 header's addresses and TLVs: HAProxy's are well under this; a longer one is refused, not buffered. */
const V2_MAX = 16 + 2048;

/** How long a header takes to arrive at most (a proxy sends it at once). */
const HEADER_TIMEOUT_MS = 10_000;

/**
 * Reads the PROXY protocol header (v1 or v2) off a new connection, before TLS or HTTP sees a byte;
 * parsed with proxy-protocol-js. Rejects when the connection starts with anything else, sends a
 * malformed header, or sends none within HEADER_TIMEOUT_MS: the caller closes it.
 */
export function readProxyHeader(socket: Socket): Promise<ProxyHeader> {
  return new Promise<ProxyHeader>((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const finish = (outcome: { header: ProxyHeader } | { error: Error }) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onError);
      socket.pause();
      if ('header' in outcome) resolve(outcome.header);
      else reject(outcome.error);
    };
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      try {
        const header = parseHeader(buffered);
        if (header) finish({ header });
      } catch (err) {
        finish({ error: err instanceof Error ? err : new Error(String(err)) });
      }
    };
    const onEnd = () => finish({ error: new Error('the connection ended before a PROXY header') });
    const onError = (err: Error) => finish({ error: err });
    const timer = setTimeout(() => finish({ error: new Error('no PROXY header in time') }), HEADER_TIMEOUT_MS);
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('error', onError);
  });
}

/** The header at the start of `bytes`, undefined while more bytes are needed; throws when it is not one. */
export function parseHeader(bytes: Buffer): ProxyHeader | undefined {
  const started = (signature: Buffer) => bytes.subarray(0, signature.length).equals(signature.subarray(0, Math.min(bytes.length, signature.length)));
  if (started(V1_PREFIX)) return bytes.length < V1_PREFIX.length ? undefined : v1(bytes);
  if (started(V2_SIGNATURE)) return bytes.length < 16 ? undefined : v2(bytes);
  throw new Error('the connection did not start with a PROXY header');
}

function v1(bytes: Buffer): ProxyHeader | undefined {
  const end = bytes.indexOf('\r\n');
  if (end === -1) {
    if (bytes.length >= V1_MAX) throw new Error('PROXY v1 line too long');
    return undefined;
  }
  if (end + 2 > V1_MAX) throw new Error('PROXY v1 line too long');
  const line = bytes.subarray(0, end + 2).toString('latin1');
  const rest = bytes.subarray(end + 2);
  if (line.startsWith('PROXY UNKNOWN')) return { peer: undefined, rest };
  const parsed = V1ProxyProtocol.parse(line);
  const family = parsed.inetProtocol === 'TCP4' ? 'IPv4' : 'IPv6';
  if (isIP(parsed.source.ipAddress) !== (family === 'IPv4' ? 4 : 6) || !validPort(parsed.source.port)) throw new Error('PROXY v1 source is not an address and port');
  return { peer: { address: parsed.source.ipAddress, port: parsed.source.port, family }, rest };
}

function v2(bytes: Buffer): ProxyHeader | undefined {
  const length = 16 + bytes.readUInt16BE(14);
  if (length > V2_MAX) throw new Error('PROXY v2 header too long');
  if (bytes.length < length) return undefined;
  const parsed = V2ProxyProtocol.parse(new Uint8Array(bytes.subarray(0, length)));
  const rest = bytes.subarray(length);
  // LOCAL: the proxy's own connection (its health checks); the socket's address stands.
  if (parsed.command === Command.LOCAL) return { peer: undefined, rest };
  const address = parsed.proxyAddress;
  if (address instanceof IPv4ProxyAddress) {
    return { peer: { address: address.sourceAddress.address.join('.'), port: address.sourcePort, family: 'IPv4' }, rest };
  }
  if (address instanceof IPv6ProxyAddress) {
    const ip = ipaddr.fromByteArray([...address.sourceAddress.address]).toString();
    return { peer: { address: ip, port: address.sourcePort, family: 'IPv6' }, rest };
  }
  // UNSPEC or a Unix socket: no client address to give.
  return { peer: undefined, rest };
}

const validPort = (port: number) => Number.isInteger(port) && port >= 0 && port <= 65535;
