/**
 * Runs `stop` once on the first SIGINT or SIGTERM, then exits 0 (1 if stopping failed).
 * A second signal while stopping exits at once.
 */
export function stopOnSignals(stop: () => Promise<void>, say: (line: string) => void): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      say(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
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
