import { type Client, WorkflowIdConflictPolicy, WorkflowNotFoundError } from '@temporalio/client';
import type { Repositories } from '../db/repositories';
import type { CustomDomainRow } from '../db/repositories/custom-domains';
import { iso } from '../db/rows';
import { type CustomDomain, normalizeDomain } from '../domain/custom-domains';
import { type DomainRunInput, domainWorkflowId, verificationRecordName } from '../domain/runs/custom-domain';
import { AppError } from '../domain/errors';
import { notPublishableMessage } from '../domain/publishing';
import type { domainWorkflow } from '../workflows/domain';
import { AgentIdKey, WorkspaceIdKey } from '../domain/runs/search-attributes';

interface CustomDomainsDeps {
  repos: Repositories;
  temporal: Client;
  opsQueue: string;
  agentsDomain: string;
  /** Why custom domains are off on this server; undefined when they are on. */
  disabled: string | undefined;
  dnsDeadlineSeconds: number;
  /** Called with a removed domain, so this replica stops serving it at once. */
  forget(domain: string): void;
}

const notFound = () => new AppError('domain_not_found', 'no such custom domain in this workspace');

/**
 * Custom domains of deployed agents (docs/publishing.md: Custom domains): a claim starts its workflow on
 * `ops` (DNS proof, certificate, renewals); removal deletes the row — every replica stops
 * serving it within seconds — and ends the workflow.
 */
export class CustomDomainsService {
  constructor(private readonly deps: CustomDomainsDeps) {}

  private view(row: CustomDomainRow, slug: string): CustomDomain {
    return {
      domain: row.domain,
      agentId: row.agent_id,
      status: row.status,
      target: `${slug}.${this.deps.agentsDomain}`,
      verification: { type: 'TXT', name: verificationRecordName(row.domain), value: row.verification_token },
      failure: row.failure,
      certificateExpiresAt: row.not_after ? iso(row.not_after) : null,
      createdAt: iso(row.created_at),
    };
  }

  private name(input: string): string {
    const parsed = normalizeDomain(input, this.deps.agentsDomain);
    if ('problem' in parsed) throw new AppError('invalid_domain', parsed.problem);
    return parsed.domain;
  }

  /**
   * Claims the domain for a deployed agent and starts its workflow, which waits for the claim's
   * DNS proof; the same answer for a domain already claimed for this agent (a failed one starts
   * over). Any number of workspaces may claim a name: DNS decides, never who asked first.
   */
  async add(workspaceId: string, input: { domain: string; agentId: string }): Promise<CustomDomain> {
    if (this.deps.disabled) throw new AppError('domains_not_configured', this.deps.disabled);
    const domain = this.name(input.domain);
    const agent = await this.deps.repos.customDomains.agent({ workspaceId, agentId: input.agentId });
    if (!agent) throw new AppError('agent_not_found', 'no such agent');
    if (agent.role !== 'freelancer') throw new AppError('agent_not_publishable', notPublishableMessage(input.agentId, 'are served on domains'));
    if (agent.prodVersion === null || !agent.slug) throw new AppError('agent_not_deployed', 'the agent has no production version: deploy one with deployToProd first, then add its domain');
    const attached = await this.deps.repos.customDomains.attach({ domain, workspaceId, agentId: input.agentId });
    let row = attached.row;
    // Only this workspace's own claims are looked at: whether another workspace claims the name is never said.
    if (row.agent_id !== input.agentId) throw new AppError('domain_in_use', `${domain} is attached to another agent of this workspace; remove it there first`);
    if (!attached.created && row.status === 'failed') row = (await this.deps.repos.customDomains.restart({ id: row.id })) ?? row;
    await this.start(row);
    return this.view(row, agent.slug);
  }

  private async start(row: CustomDomainRow): Promise<void> {
    const input: DomainRunInput = { domainId: row.id, domain: row.domain, dnsDeadlineSeconds: this.deps.dnsDeadlineSeconds };
    await this.deps.temporal.workflow.start<typeof domainWorkflow>('domainWorkflow', {
      workflowId: domainWorkflowId(row.id),
      taskQueue: this.deps.opsQueue,
      args: [input],
      // A run already at work on this domain (an earlier add started it) goes on; removal ends runs.
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      typedSearchAttributes: [
        { key: WorkspaceIdKey, value: row.workspace_id },
        { key: AgentIdKey, value: row.agent_id },
      ],
    });
  }

  async list(workspaceId: string): Promise<CustomDomain[]> {
    const rows = await this.deps.repos.customDomains.list({ workspaceId });
    return Promise.all(rows.map((row) => this.withTarget(workspaceId, row)));
  }

  async get(workspaceId: string, domainText: string): Promise<CustomDomain> {
    const parsed = normalizeDomain(domainText, this.deps.agentsDomain);
    const row = 'domain' in parsed ? await this.deps.repos.customDomains.get({ workspaceId, domain: parsed.domain }) : undefined;
    if (!row) throw notFound();
    return this.withTarget(workspaceId, row);
  }

  private async withTarget(workspaceId: string, row: CustomDomainRow): Promise<CustomDomain> {
    const agent = await this.deps.repos.customDomains.agent({ workspaceId, agentId: row.agent_id });
    return this.view(row, agent?.slug ?? '');
  }

  /** Stops serving the domain and ends its workflow; its certificate and key are deleted. */
  async remove(workspaceId: string, domainText: string): Promise<void> {
    const parsed = normalizeDomain(domainText, this.deps.agentsDomain);
    const row = 'domain' in parsed ? await this.deps.repos.customDomains.remove({ workspaceId, domain: parsed.domain }) : undefined;
    if (!row) throw notFound();
    this.deps.forget(row.domain);
    try {
      await this.deps.temporal.workflow.getHandle(domainWorkflowId(row.id)).terminate('the domain was removed');
    } catch (err) {
      // Ended already (failed, or never started): nothing runs for this row.
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
  }
}
