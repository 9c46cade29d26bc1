/**
 * A signal this soon after the first is the same Ctrl-C: under `npm start` the terminal signals the
 * whole group and npm forwards it to its script too. A person's second Ctrl-C comes later.
 */
const SAME_SIGNAL_MS = 1000;

/**
 * Runs `stop` once on the first SIGINT or SIGTERM, then exits 0 (1 if stopping failed).
 * A second signal while stopping exits at once.
 */
export function stopOnSignals(stop: () => Promise<void>, say: (line: string) => void): void {
  let stoppingSince: number | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (stoppingSince !== undefined) {
      if (performance.now() - stoppingSince < SAME_SIGNAL_MS) return;
      say(`${signal} again: exiting now`);
      process.exit(1);
    }
    stoppingSince = performance.now();
    say(`${signal}: shutting down…`);
    stop().then(
      () => {
        say('stopped cleanly');
        process.exit(0);
      },
      (e: unknown) => {
        say(`shutdown failed: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/**
 * An error nothing handled is a bug, not an outage (those are handled where they happen): log it
 * with its stack, then stop the way a signal does — drain the worker, close the server — and exit
 * 1 so a supervisor restarts the process. Nothing is left half-claimed by an abrupt exit.
 */
export function stopOnUnexpectedErrors(stop: () => Promise<void>, log: (err: unknown, what: string) => void): void {
  let stopping = false;
  const handler = (what: string) => (err: unknown) => {
    log(err, what);
    if (stopping) return;
    stopping = true;
    const deadline = setTimeout(() => process.exit(1), 30_000);
    deadline.unref();
    void stop()
      .catch(() => undefined)
      .finally(() => process.exit(1));
  };
  process.on('unhandledRejection', handler('unhandled promise rejection'));
  process.on('uncaughtException', handler('uncaught exception'));
}
