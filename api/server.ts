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
  const server = createServer(createApp(deps).callback());
  // Streams (SSE) are long-lived: no request timeout; idle keep-alive sockets close after 65 s.
  server.requestTimeout = 0;
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
