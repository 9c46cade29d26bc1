import type { Knex } from 'knex';
import type { Repositories } from '../db/repositories';
import type { WebhookRow } from '../db/repositories/webhooks';
import { iso } from '../db/rows';
import { AppError } from '../domain/errors';
import { newId } from '../domain/ids';
import type { SecretBox } from '../domain/secret-box';
import type { Trigger } from '../domain/trigger';
import { mintSigningSecret, mintWebhookToken, openWebhookToken, planWebhooks, type Webhook, webhookURL } from '../domain/webhooks';

const notFound = () => new AppError('webhook_not_found', 'no such webhook');

/**
 * The webhooks of agents' `webhook` triggers (docs/http-api.md: Webhooks): kept in step with the latest
 * version by every publish (in its transaction), shown on the agent record, their URL and
 * signing secret rotated on request.
 */
export class WebhooksService {
  constructor(private readonly deps: { repos: Repositories; box: SecretBox }) {}

  /**
   * Makes the agent's webhooks match `next` (the version being published), in the publish's
   * transaction; `previous` is the configuration it replaces (none on create). See `planWebhooks`.
   */
  async reconcile(trx: Knex.Transaction, input: { workspaceId: string; agentId: string; previous: Trigger[]; next: Trigger[] }): Promise<void> {
    const { repos, box } = this.deps;
    const rows = await repos.webhooks.ofAgent({ workspaceId: input.workspaceId, agentId: input.agentId }, trx);
    const standing = rows.map((r) => {
      const t = input.previous[r.trigger_index];
      return { id: r.id, trigger: t?.kind === 'webhook' ? t : undefined };
    });
    const plan = planWebhooks(standing, input.next);
    await repos.webhooks.remove({ ids: plan.remove }, trx);
    for (const k of plan.keep) await repos.webhooks.moveTo({ id: k.id, triggerIndex: k.index }, trx);
    for (const index of plan.create) {
      const id = newId('webhook');
      const token = mintWebhookToken(box, id);
      await repos.webhooks.insert(
        { id, workspaceId: input.workspaceId, agentId: input.agentId, triggerIndex: index, tokenHash: token.hash, tokenSealed: token.sealed },
        trx,
      );
    }
  }

  /**
   * The agent's webhooks (docs/http-api.md: Webhooks), one per `webhook` trigger of its latest version. They
   * belong to the agent, not to a version, so they are their own list rather than a field of the
   * versioned Agent record.
   */
  async list(workspaceId: string, agentId: string, baseURL: string): Promise<Webhook[]> {
    if (!(await this.deps.repos.agents.find({ workspaceId, agentId }))) throw new AppError('agent_not_found', 'no such agent');
    const rows = await this.deps.repos.webhooks.ofAgents({ workspaceId, agentIds: [agentId] });
    return rows.sort((a, b) => a.trigger_index - b.trigger_index).map((r) => this.view(r, baseURL));
  }

  /** A new inbound URL for the webhook; the old one answers 404 from now on. */
  async rotateUrl(workspaceId: string, agentId: string, webhookId: string, baseURL: string): Promise<Webhook> {
    const token = mintWebhookToken(this.deps.box, webhookId);
    const row = await this.deps.repos.webhooks.rotateToken({ workspaceId, agentId, id: webhookId, tokenHash: token.hash, tokenSealed: token.sealed });
    if (!row) throw notFound();
    return this.view(row, baseURL);
  }

  /** Mints the webhook's signing secret, replacing any before it; the only time it is shown. */
  async mintSigningSecret(workspaceId: string, agentId: string, webhookId: string): Promise<{ secret: string }> {
    const { secret, sealed } = mintSigningSecret(this.deps.box, webhookId);
    if (!(await this.deps.repos.webhooks.setSigningSecret({ workspaceId, agentId, id: webhookId, sealed }))) throw notFound();
    return { secret };
  }

  private view(row: WebhookRow, baseURL: string): Webhook {
    return {
      id: row.id,
      triggerIndex: row.trigger_index,
      url: webhookURL(baseURL, openWebhookToken(this.deps.box, row.id, row.token_sealed)),
      signingSecret: row.signing_secret_sealed !== null,
      createdAt: iso(row.created_at),
    };
  }
}
