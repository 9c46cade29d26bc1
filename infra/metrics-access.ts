import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import { cameThroughProxy } from './proxied-sockets';

/**
 * Who may read `/metrics` (API and worker alike, docs/operations.md: Metrics): a caller on loopback, or any
 * caller that sends `Authorization: Bearer <METRICS_TOKEN>` when that is set.
 *
 * Loopback is judged by the socket, never by `X-Forwarded-For` — and a request that carries a
 * forwarding header came through a proxy, so it is not local even when the proxy runs on this
 * host (a reverse proxy on localhost would otherwise publish the metrics to the world); nor is a
 * connection that arrived with a PROXY protocol header, whatever address the header names.
 */
export function mayReadMetrics(req: IncomingMessage, token: string | undefined): boolean {
  if (token !== undefined && bearerIs(req.headers.authorization, token)) return true;
  return fromLoopbackPeer(req);
}

/** The peer is on this host, judged by the socket alone: no forwarding header, no PROXY protocol, a loopback address. */
export function fromLoopbackPeer(req: IncomingMessage): boolean {
  const proxied = req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined;
  return !proxied && !cameThroughProxy(req.socket) && isLoopback(req.socket.remoteAddress);
}

function isLoopback(address: string | undefined): boolean {
  if (address === undefined || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

/** Compared as digests in constant time: neither the token nor its length leaks through timing. */
function bearerIs(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(header ?? '')?.[1];
  if (given === undefined) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(token));
}
