/**
 * Connections whose client address came from a PROXY protocol header (api/server/proxy-listener.ts).
 * Their socket's address is the client's, set from the header, so it is never taken for a local
 * caller: a proxy on this host would otherwise make every visitor look like loopback.
 */
const proxied = new WeakSet<object>();

export function markProxied(socket: object): void {
  proxied.add(socket);
}

export function cameThroughProxy(socket: object): boolean {
  return proxied.has(socket);
}
