import { DefaultLogger, Runtime } from '@temporalio/worker';

let installed = false;

/** Temporal's core runtime logs through one process-wide logger; keep it to warnings. Once per process. */
export function installTemporalRuntime(): void {
  if (installed) return;
  installed = true;
  Runtime.install({ logger: new DefaultLogger('WARN') });
}
