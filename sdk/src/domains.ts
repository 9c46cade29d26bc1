import type { HttpClient } from './http.js';
import type { CallOptions } from './options.js';
import { bodyId, segment } from './paths.js';
import type { CustomDomain } from './types/domain.js';

/**
 * The workspace's custom domains (`ws.domains`): a host name of yours served over HTTPS by a
 * deployed agent, with a certificate the service obtains and renews.
 */
export class DomainsResource {
  readonly #http: HttpClient;

  /** @internal Built by `WorkspaceClient`; not part of the public API. */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * Attaches `domain` to the agent `agentId` (`POST /v1/domains`) and resolves at once to the
   * domain, `pending_dns`. First make the domain a CNAME of the agent's production host (the
   * `target` field; the host of `deployToProd`'s URL), or for an apex name publish the TXT record
   * of `verification`: once that DNS proof is seen, the service obtains a certificate and
   * serves the agent's page and public chat on `https://<domain>`, usually within a minute; follow
   * it with `get`. Adding a domain already attached to the same agent answers the same (a failed
   * one starts over). Rejects with 400 `invalid_domain` (an IP, a wildcard, a host under the
   * agents domain), 400 `domains_not_configured` (this server has custom domains off), 404
   * `agent_not_found`, 409 `agent_not_deployed`, 409 `domain_in_use` (attached to another agent of
   * this workspace). Other workspaces' claims on the name are never reported: DNS decides.
   */
  add(input: { domain: string; agentId: string }, options: CallOptions = {}): Promise<CustomDomain> {
    const body = { domain: input.domain, agentId: bodyId(input.agentId, 'agent id') };
    return this.#http.request<CustomDomain>('POST', '/v1/domains', { body, signal: options.signal, expect: 'object' });
  }

  /** Every custom domain of the workspace with its status (`GET /v1/domains`). */
  list(options: CallOptions = {}): Promise<CustomDomain[]> {
    return this.#http.request<CustomDomain[]>('GET', '/v1/domains', { signal: options.signal, expect: 'list' });
  }

  /** One custom domain (`GET /v1/domains/:domain`); 404 `domain_not_found`. */
  get(domain: string, options: CallOptions = {}): Promise<CustomDomain> {
    return this.#http.request<CustomDomain>('GET', `/v1/domains/${segment(domain, 'domain')}`, { signal: options.signal, expect: 'object' });
  }

  /** Stops serving the domain and deletes its certificate (`DELETE /v1/domains/:domain`; 204); 404 `domain_not_found`. */
  async remove(domain: string, options: CallOptions = {}): Promise<void> {
    await this.#http.request<void>('DELETE', `/v1/domains/${segment(domain, 'domain')}`, { signal: options.signal });
  }
}
