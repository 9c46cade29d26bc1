import { createServer, type Server } from 'node:http';
import type { ApiDeps } from './context';
import { createApp } from './app';

interface ApiServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/** Serves the app on HOST:PORT; `close` stops accepting and ends idle keep-alive sockets. */
export async function startApiServer(deps: ApiDeps, port = deps.config.PORT, host = deps.config.HOST): Promise<ApiServer> {
  const requestTimeout = deps.config.REQUEST_TIMEOUT_MS;
  const server = createServer(
    {
      // `requestTimeout` bounds receiving the request (headers and body), not the response: an
      // event stream stays open as long as its turn runs, while a body that trickles in is cut
      // with 408. Connections are checked this often, so a cut comes within this much after it.
      requestTimeout,
      headersTimeout: Math.min(60_000, requestTimeout),
      connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(requestTimeout / 4))),
    },
    createApp(deps).callback(),
  );
  // Idle keep-alive sockets close after 65 s (longer than common load balancers' 60 s).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  return {
    server,
    port: boundPort,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Streams still open after 5 s are cut so shutdown never hangs.
        setTimeout(() => server.closeAllConnections(), 5000).unref();
      }),
  };
}
