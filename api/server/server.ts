import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { cameThroughProxy } from '../../infra/proxied-sockets';
import type { ApiDeps } from '../context';
import { createApp, domainDirectory, limitsOf } from '../app';
import type { DomainDirectory } from './domain-directory';
import type { AuthFailures } from '../limits';
import { presentedHost } from '../limits/auth-failures';
import { admitNewConnections, type RequestListener } from '../limits/connection-admission';
import { expectProxyProtocol, proxiedTlsPeer } from './proxy-listener';

interface ApiServer {
  server: Server;
  port: number;
  /** The HTTPS listener's port (custom domains), when HTTPS_PORT is set. */
  httpsPort?: number;
  close(): Promise<void>;
}

/**
 * `requestTimeout` bounds receiving the request (headers and body), not the response: an event
 * stream stays open as long as its turn runs, while a body that trickles in is cut with 408.
 * Connections are checked this often, so a cut comes within this much after it.
 */
function timeouts(requestTimeout: number) {
  return {
    requestTimeout,
    headersTimeout: Math.min(60_000, requestTimeout),
    connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(requestTimeout / 4))),
  };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  // Idle keep-alive sockets close after 65 s (longer than common load balancers' 60 s).
  server.keepAliveTimeout = 65_000;
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // Streams still open after 5 s are cut so shutdown never hangs.
    setTimeout(() => server.closeAllConnections(), 5000).unref();
  });
}

/**
 * The HTTPS listener of custom domains: the certificate is chosen by SNI from the domains this
 * replica serves (read from PostgreSQL, cached seconds), so a new or renewed certificate needs no
 * restart. A name with no certificate fails the handshake; so does any name from a client address
 * past its failures (limits/auth-failures.ts), before a query — but one this replica found served lately.
 */
function httpsServer(directory: DomainDirectory, failures: AuthFailures, handler: RequestListener, requestTimeout: number): Server {
  return createHttpsServer(
    {
      ...timeouts(requestTimeout),
      // Node calls it on the TLS socket; behind a PROXY header, that socket's client is the header's.
      SNICallback(this: TLSSocket, servername, done) {
        const address = proxiedTlsPeer()?.address ?? this.remoteAddress ?? '';
        const presented = presentedHost(servername);
        const guard = { beforeQuery: () => failures.check(address, presented), missed: () => failures.failed(address, presented, { oncePerWindow: true }) };
        directory.lookup(servername, guard).then(
          (served) => {
            if (!served) return done(new Error(`no certificate for ${servername}`));
            failures.found(presented);
            done(null, served.context);
          },
          (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
        );
      },
    },
    handler,
  );
}

/** Forwarding headers on a connection that came with a PROXY header are the client's own words: dropped. */
const FORWARDING_HEADERS = ['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'forwarded'];

function dropForwardingHeaders(handler: RequestListener): RequestListener {
  return (req: IncomingMessage, res) => {
    if (cameThroughProxy(req.socket)) for (const name of FORWARDING_HEADERS) delete req.headers[name];
    handler(req, res);
  };
}

/**
 * Serves the app on HOST:PORT, and on HOST:HTTPS_PORT over TLS when set; `close` stops accepting
 * and ends idle keep-alive sockets.
 */
export async function startApiServer(
  deps: ApiDeps,
  port = deps.config.PORT,
  host = deps.config.HOST,
  httpsPort = deps.config.HTTPS_PORT,
): Promise<ApiServer> {
  const directory = domainDirectory(deps);
  const limits = limitsOf(deps);
  // Under a storm of new connections, their first requests start a few per turn (limits/connection-admission.ts).
  const handler = dropForwardingHeaders(admitNewConnections(createApp(deps, directory, limits).callback()));
  const server = createServer(timeouts(deps.config.REQUEST_TIMEOUT_MS), handler);
  // PROXY_PROTOCOL (README: Production layout): the listeners behind a TCP pass-through proxy.
  const proxied = deps.config.PROXY_PROTOCOL;
  const closeWaiting: Array<() => void> = [];
  if (proxied === 'all') closeWaiting.push(expectProxyProtocol(server, 'http'));
  const boundPort = await listen(server, port, host);
  const tls = httpsPort === undefined ? undefined : httpsServer(directory, limits.failures, handler, deps.config.REQUEST_TIMEOUT_MS);
  if (tls && proxied !== 'off') closeWaiting.push(expectProxyProtocol(tls, 'tls'));
  let boundHttps: number | undefined;
  try {
    if (tls && httpsPort !== undefined) boundHttps = await listen(tls, httpsPort, host);
  } catch (err) {
    await closeServer(server);
    throw err;
  }
  return {
    server,
    port: boundPort,
    ...(boundHttps !== undefined ? { httpsPort: boundHttps } : {}),
    close: async () => {
      const closing = Promise.all([closeServer(server), ...(tls ? [closeServer(tls)] : [])]);
      closeWaiting.forEach((close) => close());
      await closing;
    },
  };
}
