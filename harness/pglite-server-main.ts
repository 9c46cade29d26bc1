import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * The child process of `startPgliteServer` (harness/pglite-server.ts): an in-memory PGlite with
 * pgvector behind the PostgreSQL wire protocol on 127.0.0.1, on a port of the kernel's choosing.
 * Prints `pglite listening on 127.0.0.1:PORT` once it accepts connections; exits on SIGTERM/SIGINT
 * and when its parent is gone (so a crashed test leaves nothing running).
 */
async function main(): Promise<void> {
  const maxConnections = Number(process.argv[2] ?? '1');
  const parent = process.ppid;
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
  await server.start();
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // Bounded: a handler stuck on a query must not keep the process alive.
    setTimeout(() => process.exit(0), 2000).unref();
    void server
      .stop()
      .then(() => db.close())
      .finally(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // Re-parented (to init or a subreaper) once the parent died without stopping us.
  setInterval(() => {
    if (process.ppid !== parent) stop();
  }, 500).unref();
  // The socket server keeps the event loop alive; this line is what the parent waits for.
  process.stdout.write(`pglite listening on ${server.getServerConn()}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`pglite server failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
