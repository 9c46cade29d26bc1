import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Repositories } from '../db/repositories';
import type { AgentConfig } from '../domain/agent';
import { type Credentials, levelOfOwner, levelOfScope, missingRequirements } from '../domain/credentials';
import type { CredentialSource } from '../infra/credential-source';
import { DEPLOY_AGENT_GONE, type PromoteInput, type PromoteResult, type TestExpiryInput } from '../domain/runs/deploy';
import { mintPublicToken } from '../domain/public-token';
import { slugFromName } from '../domain/publishing';
import type { SecretBox } from '../domain/secret-box';
import { ModelError } from './model/types';
import type { ResolveModel } from './turn';
import { listMcpTools } from './tools/mcp/tools';
import { substituteCredentials } from './tools/substitute';
import type { SafeFetch } from './outbound/safe-fetch';

export interface DeployDeps {
  repos: Repositories;
  resolveModel: ResolveModel;
  credentials: CredentialSource;
  fetch: SafeFetch;
  box: SecretBox;
  /** How long the model may take to answer the health check's one-line request. */
  modelCheckTimeoutMs: number;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The promotion's health check. Everything a conversation of the version needs before its first
 * message: the fixed-scope secrets and connections it requires are supplied on the agent, its
 * grade's model answers a one-line request, and each MCP server lists its tools. Returns one line
 * per failed check (empty: healthy).
 */
async function checkVersion(deps: DeployDeps, input: PromoteInput, config: AgentConfig): Promise<string[]> {
  // Independent checks, in parallel: the whole check takes as long as the slowest one.
  const found = await Promise.all([checkCredentials(deps, input, config), checkModel(deps, config), checkMcpServers(deps, input, config)]);
  return found.flat();
}

async function checkCredentials(deps: DeployDeps, input: PromoteInput, config: AgentConfig): Promise<string[]> {
  const fixed = { secrets: config.secrets.filter((s) => s.scope === 'fixed'), connections: config.connections.filter((c) => c.scope === 'fixed') };
  const stored = await deps.repos.credentials.supplied({ owners: [{ kind: 'agent', id: input.agentId }] });
  const supplied = {
    secrets: stored.secrets.map((r) => ({ level: levelOfOwner(r.owner_kind), name: r.name })),
    connections: stored.connections.map((r) => ({
      level: levelOfOwner(r.owner_kind),
      provider: r.provider,
      ...(r.expires_at ? { expiresAt: r.expires_at } : {}),
      ...(r.refreshable ? { refreshable: true } : {}),
      ...(r.error !== null ? { error: r.error } : {}),
    })),
  };
  const missing = missingRequirements(fixed, supplied).map((r) => `required ${r.kind} ${r.name} (scope fixed) is not supplied on the agent`);
  // Visitors of the public chat cannot supply values: a required conversation-scope one would
  // leave every public conversation unable to answer.
  const perConversation = [
    ...config.secrets.filter((x) => x.required && x.scope === 'conversation').map((x) => `secret ${x.name}`),
    ...config.connections.filter((x) => x.required && x.scope === 'conversation').map((x) => `connection ${x.provider}`),
  ].map((what) => `required ${what} has scope conversation, which public visitors cannot supply`);
  return [...missing, ...perConversation];
}

async function checkModel(deps: DeployDeps, config: AgentConfig): Promise<string[]> {
  const { provider, model } = deps.resolveModel(config.grade);
  try {
    await provider.stream(
      {
        model,
        system: 'Health check of a deployment. Answer with one word.',
        messages: [{ role: 'user', content: 'ping' }],
        tools: [],
        maxOutputTokens: 16,
        signal: AbortSignal.timeout(deps.modelCheckTimeoutMs),
      },
      () => undefined,
    );
    return [];
  } catch (err) {
    // The provider's own message (an error body that may quote keys or account ids) goes to the
    // worker's log; the caller gets the status, which says what to fix.
    Context.current().log.warn('deploy check: the model did not answer', { provider: provider.id, model, error: message(err) });
    const status = err instanceof ModelError && err.status !== undefined ? ` (HTTP ${err.status})` : '';
    return [`model ${provider.id}:${model} did not answer${status}; the worker's log has the provider's message`];
  }
}

async function checkMcpServers(deps: DeployDeps, input: PromoteInput, config: AgentConfig): Promise<string[]> {
  if (config.mcpServers.length === 0) return [];
  let creds: Credentials = { secrets: {}, connections: {} };
  try {
    creds = await deps.credentials.load({ workspaceId: input.workspaceId, agentId: input.agentId, conversationId: '' });
  } catch (err) {
    return [`the agent's stored values could not be read: ${message(err)}`];
  }
  // Servers whose headers need a conversation's values cannot be reached without one: not checked.
  const conversationScoped = [
    ...config.secrets.filter((s) => levelOfScope(s.scope) === 'conversation').map((s) => `secrets.${s.name}`),
    ...config.connections.filter((c) => levelOfScope(c.scope) === 'conversation').map((c) => `connections.${c.provider}`),
  ];
  const checkable = config.mcpServers.filter((s) => !Object.values(s.headers ?? {}).some((h) => conversationScoped.some((ref) => h.includes(ref))));
  const headers = (server: AgentConfig['mcpServers'][number]) => {
    const out: Record<string, string> = {};
    for (const [name, template] of Object.entries(server.headers ?? {})) {
      const r = substituteCredentials(template, creds);
      out[name] = r.ok ? r.value : template;
    }
    return out;
  };
  // Each server within its own timeoutMs, all at once.
  const listings = await Promise.all(checkable.map((server) => listMcpTools([server], { headers, fetch: deps.fetch })));
  return listings.flatMap((listing, i) =>
    listing.problems.length > 0 ? [`MCP server ${checkable[i]!.name} did not list its tools: ${listing.problems.join('; ')}`] : [],
  );
}

/** Activities of the `ops` queue for deployments; the worker passes real dependencies. */
export function createDeployActivities(deps: DeployDeps) {
  const configOf = async (input: PromoteInput): Promise<AgentConfig> => {
    const config = await deps.repos.agents.versionConfig({ agentId: input.agentId, number: input.versionNumber });
    if (!config) throw ApplicationFailure.create({ type: DEPLOY_AGENT_GONE, message: 'the agent or version no longer exists', nonRetryable: true });
    return config;
  };
  return {
    /** Problems of the candidate version (empty: it may serve production). */
    async checkDeployCandidate(input: PromoteInput): Promise<string[]> {
      return checkVersion(deps, input, await configOf(input));
    },

    /** Points production at the version (one transaction); mints the token on the first deploy. */
    async switchProduction(input: PromoteInput): Promise<PromoteResult> {
      const config = await configOf(input);
      const result = await deps.repos.deployments.promote({
        agentId: input.agentId,
        number: input.versionNumber,
        slugBase: slugFromName(config.name),
        mint: () => mintPublicToken(deps.box, input.agentId),
      });
      if (!result) throw ApplicationFailure.create({ type: DEPLOY_AGENT_GONE, message: 'the agent no longer exists', nonRetryable: true });
      return result;
    },

    /** Retires the version's expired test URLs; when the next live one expires (ms since epoch), or null. */
    async retireExpiredTestDeployments(input: TestExpiryInput): Promise<number | null> {
      return deps.repos.deployments.retireExpiredTests({ versionId: input.versionId });
    },
  };
}
export type DeployActivities = ReturnType<typeof createDeployActivities>;
