import type { ApiContext, ApiDeps } from './context';
import type { AnyRouteDef, RouteOutcome } from './routing';

/** Writes one audit row per call of an audited route (issue 50, item 6). Being built. */
export function auditRecorder(_deps: Pick<ApiDeps, 'repos' | 'logger'>): (ctx: ApiContext, def: AnyRouteDef, outcome: RouteOutcome) => Promise<void> {
  return async () => {};
}
