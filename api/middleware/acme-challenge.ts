import type { Next } from 'koa';
import type { CustomDomainsRepository } from '../../db/repositories/custom-domains';
import type { ApiContext } from '../context';

const PREFIX = '/.well-known/acme-challenge/';

/**
 * HTTP-01 answers (RFC 8555 §8.3) on port 80 of a custom domain: the worker running the ACME
 * order stores the key authorization in PostgreSQL, so whichever replica the CA reaches answers.
 * Only for the host the challenge was issued for; anything else there is a plain 404.
 */
export function acmeChallenge(repo: CustomDomainsRepository) {
  return async function answerChallenge(ctx: ApiContext, next: Next): Promise<void> {
    if (ctx.method !== 'GET' || !ctx.path.startsWith(PREFIX)) return next();
    const token = ctx.path.slice(PREFIX.length);
    const answer = /^[A-Za-z0-9_-]{1,200}$/.test(token)
      ? await repo.challenge({ token, domain: ctx.hostname.toLowerCase().replace(/\.$/, '') })
      : undefined;
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/plain';
    if (answer === undefined) {
      ctx.status = 404;
      ctx.body = 'no such challenge';
      return;
    }
    ctx.body = answer;
  };
}
