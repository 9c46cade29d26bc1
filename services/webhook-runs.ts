import { createHash } from 'node:crypto';
import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Db } from '../db/connect';
import type { Repositories } from '../db/repositories';
import type { WebhookRow } from '../db/repositories/webhooks';
import { AppError, RateLimitRefusal } from '../domain/errors';
import { randomToken } from '../domain/ids';
import type { TriggerRunSkip } from '../domain/runs/trigger-run';
import type { TurnLimits } from '../domain/runs/turn';
import { type WebhookDeliveryPolicy, type WebhookRunInput, webhookRunWorkflowId } from '../domain/runs/webhook-run';
import { hashWebhookToken, webhookPrompt, webhookTokenPattern } from '../domain/webhooks';
import { AgentIdKey, ConversationIdKey, WorkspaceIdKey } from '../domain/runs/search-attributes';
import type { webhookRunWorkflow } from '../workflows/webhook-run';
import { startTriggerConversation } from '../turns/trigger-start';

interface WebhookRunsDeps {
  db: Db;
  repos: Repositories;
  temporal: Client;
  opsQueue: string;
  turnsQueue: string;
  limits: TurnLimits;
  delivery: WebhookDeliveryPolicy;
  /** `WORKSPACE_RUNNING_TURNS_MAX`: a request while the workspace runs this many turns is refused with 429. */
  maxRunningTurns: number;
}

const notFound = () => new AppError('webhook_not_found', 'no such webhook (unknown or rotated URL, or its trigger is gone)');

/** A run that started nothing, as the sender is told. */
function refusal(skip: TriggerRunSkip): AppError {
  switch (skip.skipped) {
    case 'insufficient_credits':
      return new AppError('insufficient_credits', skip.detail ?? 'the workspace has no credits left');
    case 'running_turns_limit':
      // As `ask` answers it: the sender may try again once a turn has ended.
      return new RateLimitRefusal('workspace-running-turns', skip.detail ?? 'the workspace runs as many turns as it may', RUNNING_TURNS_RETRY_AFTER_SECONDS);
    case 'conversation_not_ready':
      return new AppError('conversation_not_ready', `the agent cannot run: ${skip.detail ?? 'a requirement is not supplied'}`);
    case 'agent_gone':
    case 'trigger_changed':
      return notFound();
  }
}

/** When a running turn of the workspace ends is unknown: come back after a few seconds (as `ask` says). */
const RUNNING_TURNS_RETRY_AFTER_SECONDS = 5;

const isUniqueViolation = (e: unknown) => (e as { code?: string }).code === '23505';

/**
 * Inbound webhook requests (docs/http-api.md: Webhooks): one accepted request starts exactly one run — a
 * conversation asked the trigger's message and the payload, its turn and an optional outbound
 * delivery in `webhookRunWorkflow` — and answers at once with the turn's id.
 */
export class WebhookRuns {
  constructor(private readonly deps: WebhookRunsDeps) {}

  /** The webhook an inbound URL's token names; 404 `webhook_not_found` otherwise. */
  async find(token: string): Promise<WebhookRow> {
    const row = webhookTokenPattern.test(token) ? await this.deps.repos.webhooks.byTokenHash({ hash: hashWebhookToken(token) }) : undefined;
    if (!row) throw notFound();
    return row;
  }

  /**
   * Starts the run, or — for an idempotency key this webhook has seen — answers the run that key
   * started. The conversation, message and turn are written in one transaction; then the run's
   * workflow starts with an id derived from the key (a repeat cannot start it twice).
   */
  async accept(hook: WebhookRow, payload: unknown, idempotencyKey: string | undefined): Promise<{ turnId: string; conversationId: string }> {
    const requestKey = idempotencyKey === undefined ? randomToken(24) : createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 32);
    const run = webhookRunWorkflowId(hook.id, requestKey);
    const attempt = () => this.startConversation(hook, payload, run);
    // Two requests with the same key at once: one inserts, the other finds its conversation.
    const started = await attempt().catch((e: unknown) => (isUniqueViolation(e) ? attempt() : Promise.reject(e)));
    if ('skipped' in started) throw refusal(started);
    const ids = { turnId: started.turnId, conversationId: started.conversationId };
    const input: WebhookRunInput = {
      workspaceId: hook.workspace_id,
      agentId: hook.agent_id,
      ...ids,
      webhookId: hook.id,
      triggerIndex: hook.trigger_index,
      ...(started.url ? { url: started.url } : {}),
      limits: this.deps.limits,
      delivery: this.deps.delivery,
      turnsQueue: this.deps.turnsQueue,
    };
    try {
      await this.deps.temporal.workflow.start<typeof webhookRunWorkflow>('webhookRunWorkflow', {
        workflowId: run,
        taskQueue: this.deps.opsQueue,
        args: [input],
        // Not even after the run closed: a repeated key never runs the turn or the delivery again.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: WorkspaceIdKey, value: hook.workspace_id },
          { key: AgentIdKey, value: hook.agent_id },
          { key: ConversationIdKey, value: started.conversationId },
        ],
      });
    } catch (e) {
      if (e instanceof WorkflowExecutionAlreadyStartedError) return ids; // a repeat of an accepted request
      if (!started.repeated) {
        // The turn must not stay "running" forever: end it and tell the sender to try again.
        await this.deps.db.transaction((trx) =>
          this.deps.repos.turns.finish({ turnId: started.turnId, status: 'error', terminal: { type: 'error', message: 'the run could not be started', retryable: true } }, trx),
        );
      }
      throw new AppError('temporal_unavailable', 'the run could not be started; try again shortly', undefined, { cause: e });
    }
    return ids;
  }

  private startConversation(
    hook: WebhookRow,
    payload: unknown,
    run: string,
  ): Promise<TriggerRunSkip | { turnId: string; conversationId: string; repeated: boolean; url: string | undefined }> {
    return this.deps.db.transaction(async (trx) => {
      const latest = await this.deps.repos.agents.get({ workspaceId: hook.workspace_id, agentId: hook.agent_id }, trx);
      const trigger = 'agent' in latest ? latest.agent.triggers[hook.trigger_index] : undefined;
      if (trigger?.kind !== 'webhook') return { skipped: 'trigger_changed' };
      const started = await startTriggerConversation(this.deps.repos, trx, {
        workspaceId: hook.workspace_id,
        agentId: hook.agent_id,
        trigger: { kind: 'webhook', index: hook.trigger_index },
        message: webhookPrompt(trigger.message, payload),
        run,
        reserve: this.deps.limits.reserveCredits ?? 0,
        maxRunningTurns: this.deps.maxRunningTurns,
      });
      return 'skipped' in started ? started : { ...started, url: trigger.url };
    });
  }
}
