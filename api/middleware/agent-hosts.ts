import type { Next } from 'koa';
import type { DeploymentsRepository } from '../../db/repositories/deployments';
import { AppError } from '../../domain/errors';
import { classifyHost } from '../../domain/publishing';
import type { ApiContext } from '../context';
import type { DomainDirectory } from '../server/domain-directory';
import type { AuthFailures } from '../limits';
import { presentedHost } from '../limits/auth-failures';
import { sendNotFoundPage } from '../pages/not-found-page';
import { isPublicPath } from './public-cors';

/** What an agent's host serves besides its page: the page's assets and the public API. */
const servedOnAgentHosts = (path: string) => path === '/' || path.startsWith('/embed/assets/') || isPublicPath(path);

/**
 * Routing by `Host`: `<slug>.AGENTS_DOMAIN` is an agent's production, `<label>.test.AGENTS_DOMAIN`
 * a live test deployment. There `ctx.state.site` names what is served, and only the hosted page,
 * its assets and the public API answer — never key-authenticated routes or signed files, so
 * nothing but the chat runs on an agent's origin. Every other name at or under AGENTS_DOMAIN
 * (the bare domain, deeper names, an unknown slug, an expired test label) answers 404 on every
 * path: the API is served only on hosts outside it. A served custom domain (README: Custom
 * domains) is its agent's production host too. Unknown hosts are failures of the client's
 * address (limits/auth-failures.ts): past its limit, no lookup at all, except of a host this
 * process found served lately.
 */
export function agentHosts(deployments: DeploymentsRepository, agentsDomain: string, domains: DomainDirectory, failures: AuthFailures) {
  return async function routeByHost(ctx: ApiContext, next: Next): Promise<void> {
    const host = classifyHost(ctx.hostname, agentsDomain);
    if (host.kind === 'none') return routeCustomDomain(ctx, next);
    if (host.kind === 'reserved') return notFound(ctx, 'no agent is served at this address');
    if (!servedOnAgentHosts(ctx.path)) throw new AppError('not_found', 'no such route on an agent host');
    const presented = presentedHost(ctx.hostname);
    await failures.check(ctx.ip, presented);
    const site =
      host.kind === 'prod' ? await deployments.servedBySlug({ slug: host.slug }) : await deployments.servedByTestHost({ label: host.label });
    if (!site) {
      failures.failed(ctx.ip, presented);
      return notFound(ctx, host.kind === 'test' ? 'this test deployment has expired or never existed' : 'no agent is deployed at this address');
    }
    failures.found(presented);
    ctx.state.site = site;
    return next();
  };

  async function routeCustomDomain(ctx: ApiContext, next: Next): Promise<void> {
    const presented = presentedHost(ctx.hostname);
    const served = await domains.lookup(ctx.hostname, {
      beforeQuery: () => failures.check(ctx.ip, presented),
      missed: () => failures.failed(ctx.ip, presented, { oncePerWindow: true }),
    });
    if (!served) return next();
    failures.found(presented);
    if (!servedOnAgentHosts(ctx.path)) throw new AppError('not_found', 'no such route on an agent host');
    const site = await deployments.servedById({ agentId: served.agentId });
    if (!site) throw new AppError('not_found', 'no agent is deployed at this address');
    ctx.state.site = site;
    return next();
  }
}

/** A browser opening the host gets the HTML 404 page; anything else the JSON one. */
function notFound(ctx: ApiContext, message: string): void {
  if (ctx.path === '/' && (ctx.method === 'GET' || ctx.method === 'HEAD')) return sendNotFoundPage(ctx);
  throw new AppError('not_found', message);
}
