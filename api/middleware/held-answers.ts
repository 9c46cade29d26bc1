import type { Next } from 'koa';
import type { ApiContext } from '../context';

/**
 * Sends a held refusal's answer once its hold is over (refusal-hold.ts; a connection's first
 * refusal: its later ones wait in the connection, connection-holds.ts). The refusal is rendered
 * by the error handler as soon as it is decided, and every handler inside this one has returned
 * by then, so during the hold only this frame, the ones outside it and the request itself stay
 * alive — not the whole middleware chain, which a flood's few hundred held refusals made every
 * young-generation GC copy.
 */
export async function answerAfterHold(ctx: ApiContext, next: Next): Promise<void> {
  await next();
  const after = ctx.state.answerAfter;
  if (after) await after;
}
