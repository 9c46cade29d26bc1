import { addDomainBodySchema, customDomainSchema, domainParamSchema } from '../../domain/custom-domains';
import type { CustomDomainsService } from '../../services/custom-domains';
import { workspaceOf } from '../context';
import { type ApiRouter, listOf, listSchema } from '../routing';

/** Custom domains of deployed agents (SDK: `ws.domains.*`). */
export function domainRoutes(r: ApiRouter, domains: CustomDomainsService): void {
  r.add(
    {
      method: 'post', path: '/v1/domains', operationId: 'addDomain', tag: 'Domains', role: 'owner',
      summary: 'Attach a custom domain (a CNAME of the agent\'s production host) and provision its certificate',
      body: addDomainBodySchema,
      response: { status: 202, description: 'The domain, provisioning (`pending_dns`, then `issuing`, then `active`)', schema: customDomainSchema },
      errors: ['domains_not_configured', 'invalid_domain', 'agent_not_found', 'agent_not_publishable', 'agent_not_deployed', 'domain_in_use', 'temporal_unavailable'],
    },
    (ctx, { body }) => domains.add(workspaceOf(ctx), body),
  );
  r.add(
    {
      method: 'get', path: '/v1/domains', operationId: 'listDomains', tag: 'Domains', role: 'viewer',
      summary: 'Every custom domain of the workspace with its status',
      response: { status: 200, description: 'The domains', schema: listSchema(customDomainSchema, { id: 'CustomDomainList' }) },
    },
    async (ctx) => listOf(await domains.list(workspaceOf(ctx))),
  );
  r.add(
    {
      method: 'get', path: '/v1/domains/:domain', operationId: 'getDomain', tag: 'Domains', role: 'viewer',
      summary: 'A custom domain with its status, failure and certificate expiry',
      params: domainParamSchema,
      response: { status: 200, description: 'The domain', schema: customDomainSchema },
      errors: ['domain_not_found'],
    },
    (ctx, { params }) => domains.get(workspaceOf(ctx), params.domain),
  );
  r.add(
    {
      method: 'delete', path: '/v1/domains/:domain', operationId: 'removeDomain', tag: 'Domains', role: 'owner',
      summary: 'Stop serving a custom domain and delete its certificate',
      params: domainParamSchema,
      response: { status: 204, description: 'Removed' },
      errors: ['domain_not_found'],
    },
    (ctx, { params }) => domains.remove(workspaceOf(ctx), params.domain),
  );
}
