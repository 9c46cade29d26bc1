import { hostname } from 'node:os';

/** How this process names itself to Temporal (and in probe rows): `pid@host`. */
export function workerIdentity(): string {
  return `${process.pid}@${hostname()}`;
}
