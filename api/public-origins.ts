import type { AllowedOriginsRepository } from '../db/repositories/allowed-origins';
import type { ServedAgent } from '../db/repositories/deployments';
import { AppError } from '../domain/errors';
import { classifyHost } from '../domain/publishing';
import type { ApiContext } from './context';
import type { DomainDirectory } from './server/domain-directory';

interface PublicOriginsDeps {
  repo: AllowedOriginsRepository;
  /** PUBLIC_BASE_URL and EMBED_BASE_URL (or their defaults): where our hosted page may be served from. */
  ownURLs: string[];
  agentsDomain: string;
  directory: DomainDirectory;
}

/**
 * Allowed origins on the public routes that act for a visitor (chat, history, resuming), decided
 * once the agent is known (the token or test host names it, so this cannot run before the route).
 * An empty list keeps the `*` of middleware/public-cors.ts. Otherwise a listed origin, or one of
 * our own hosts (the hosted page calls from there), gets itself echoed with `Vary: Origin`; any
 * other `Origin` loses the grant and is refused before anything is read or written.
 * A request with no `Origin` is not a browser's cross-origin call: nothing to decide.
 */
export class PublicOrigins {
  readonly #own: Set<string>;

  constructor(private readonly deps: PublicOriginsDeps) {
    this.#own = new Set(deps.ownURLs.map((url) => new URL(url).origin));
  }

  /** The agent's list, for its public metadata (the embed reads it there). */
  of(agentId: string): Promise<string[]> {
    return this.deps.repo.of({ agentId });
  }

  async admit(ctx: ApiContext, agent: ServedAgent): Promise<void> {
    const origin = ctx.get('Origin');
    if (!origin) return;
    ctx.vary('Origin');
    const allowed = await this.deps.repo.of({ agentId: agent.agentId });
    if (allowed.length === 0) return;
    if (allowed.includes(origin) || (await this.isOurs(ctx, origin, agent))) {
      ctx.set('Access-Control-Allow-Origin', origin);
      return;
    }
    ctx.remove('Access-Control-Allow-Origin');
    ctx.remove('Access-Control-Expose-Headers');
    throw new AppError('origin_not_allowed', `requests from ${origin} are not allowed by this agent (its allowed origins)`);
  }

  /**
   * Our own pages: same-origin calls, the API and embed addresses, the agents' hosts (only our
   * hosted page runs there) and this agent's custom domains.
   */
  private async isOurs(ctx: ApiContext, origin: string, agent: ServedAgent): Promise<boolean> {
    if (this.#own.has(origin)) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // `null` (sandboxed frames, file:) and anything malformed
    }
    if (url.host === ctx.host) return true;
    if (classifyHost(url.hostname, this.deps.agentsDomain).kind !== 'none') return true;
    const domain = await this.deps.directory.lookup(url.hostname);
    return domain?.agentId === agent.agentId;
  }
}
