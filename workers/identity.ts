import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * How this process names itself to Temporal, in probe rows and in liveness stamps:
 * `pid@host/random`. The random part keeps two processes apart even when a container runtime
 * gives each the same pid and host name — liveness must never mistake a new worker for a dead one.
 */
export function workerIdentity(): string {
  return `${process.pid}@${hostname()}/${randomBytes(3).toString('hex')}`;
}
