import { AsyncLocalStorage } from 'node:async_hooks';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { markProxied } from '../../infra/proxied-sockets';
import { type ProxiedPeer, readProxyHeader } from './proxy-header';

/**
 * The client of the TLS connection being set up, for the SNI callback and the handshake's end: a
 * TLS socket over a wrapped stream has no address of its own, and Node hands neither callback the
 * raw socket. Carried by the connection's async context from when it is handed to the TLS server.
 */
const tlsPeers = new AsyncLocalStorage<ProxiedPeer>();

/** The client address of the TLS connection whose handshake runs now, when it came with a PROXY header. */
export function proxiedTlsPeer(): ProxiedPeer | undefined {
  return tlsPeers.getStore();
}

/** The socket's own peer: the proxy's, used when the header names none (the proxy's own connections). */
function socketPeer(socket: Socket): ProxiedPeer {
  return { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0, family: socket.remoteFamily === 'IPv6' ? 'IPv6' : 'IPv4' };
}

/** What Node and Koa read as the client's address (`req.socket.remoteAddress`, `ctx.ip`) becomes the header's. */
function takeAddress(socket: Socket, peer: ProxiedPeer): void {
  for (const [name, value] of [['remoteAddress', peer.address], ['remotePort', peer.port], ['remoteFamily', peer.family]] as const) {
    Object.defineProperty(socket, name, { value, configurable: true });
  }
  markProxied(socket);
}

/**
 * A stream over `socket` that starts with `first` (bytes read past the header). Node's TLS takes a
 * connected socket's handle over and would lose them, so it is given this stream instead.
 */
function streamAfterHeader(socket: Socket, first: Buffer): Duplex {
  const stream = new Duplex({
    read: () => void socket.resume(),
    write: (chunk: Buffer, _encoding, done) => void socket.write(chunk, (err) => done(err ?? null)),
    final: (done) => void socket.end(() => done()),
    destroy: (err, done) => {
      socket.destroy();
      done(err);
    },
  });
  if (first.length > 0) stream.push(first);
  socket.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause();
  });
  socket.on('end', () => stream.push(null));
  socket.on('error', (err) => stream.destroy(err));
  socket.on('close', () => stream.destroy());
  socket.resume();
  return stream;
}

/**
 * Makes `server` (listening or about to) expect the PROXY protocol: each new connection must start
 * with a v1 or v2 header (readProxyHeader), else it is closed; the header's client becomes the
 * connection's address, then the server's own connection handling (HTTP, or TLS first) takes it.
 * Answers a function that closes the connections still waiting for their header.
 */
export function expectProxyProtocol(server: Server, kind: 'http' | 'tls'): () => void {
  const handlers = server.listeners('connection') as Array<(socket: Socket | Duplex) => void>;
  server.removeAllListeners('connection');
  const waiting = new Set<Socket>();
  if (kind === 'tls') {
    // First, before the HTTP handling registered on the same event reads the socket.
    server.prependListener('secureConnection', (socket: TLSSocket) => {
      const peer = tlsPeers.getStore();
      if (peer) takeAddress(socket, peer);
    });
  }
  server.on('connection', (socket: Socket) => {
    waiting.add(socket);
    readProxyHeader(socket).then(
      ({ peer, rest }) => {
        waiting.delete(socket);
        const client = peer ?? socketPeer(socket);
        if (kind === 'tls') {
          const stream = streamAfterHeader(socket, rest);
          tlsPeers.run(client, () => handlers.forEach((handle) => handle.call(server, stream)));
          return;
        }
        takeAddress(socket, client);
        if (rest.length > 0) socket.unshift(rest);
        handlers.forEach((handle) => handle.call(server, socket));
        socket.resume();
      },
      () => {
        waiting.delete(socket);
        socket.on('error', () => undefined);
        socket.destroy();
      },
    );
  });
  return () => {
    for (const socket of waiting) socket.destroy();
  };
}
