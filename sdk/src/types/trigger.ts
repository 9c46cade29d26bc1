/** What starts an agent's runs. The server's schema is in `domain/trigger.ts`. */

/** Starts a run when someone chats with the agent. */
export interface ChatTrigger {
  /** Discriminator. */
  kind: 'chat';
}

/** Starts a run on a cron schedule. */
export interface ScheduleTrigger {
  /** Discriminator. */
  kind: 'schedule';
  /** Five-field cron expression: minute hour day-of-month month day-of-week. */
  cron: string;
  /** IANA time zone the schedule is read in, e.g. `Europe/Paris`; UTC when omitted. */
  timezone?: string;
  /** The text the run starts with. */
  message: string;
}

/** Starts a run every `seconds` seconds. */
export interface IntervalTrigger {
  /** Discriminator. */
  kind: 'interval';
  /** Period in whole seconds; at least 60. */
  seconds: number;
  /** Stops after this many runs; unlimited when omitted. */
  maxRuns?: number;
  /** The text each run starts with. */
  message: string;
}

/** Starts a run when a webhook is called. */
export interface WebhookTrigger {
  /** Discriminator. */
  kind: 'webhook';
  /** The text the run starts with. */
  message?: string;
  /** An `http://` or `https://` URL. */
  url?: string;
}

/** What starts a run of the agent, discriminated by `kind`. */
export type Trigger = ChatTrigger | ScheduleTrigger | IntervalTrigger | WebhookTrigger;

/**
 * The inbound URL of a `webhook` trigger, as the agent record lists it in `webhooks` (read-only).
 * A JSON POST to `url` starts one run of the agent; the token in it is the whole credential.
 */
export interface Webhook {
  /** Stable across publishes (prefix `whk_`); names it in `rotateWebhookUrl` and `mintWebhookSigningSecret`. */
  id: string;
  /** The trigger it serves: its index in the agent's `triggers`. */
  triggerIndex: number;
  /** The inbound URL. */
  url: string;
  /** Whether a signing secret was minted: deliveries to the trigger's `url` are signed with it (none are sent before). */
  signingSecret: boolean;
  /** When the webhook was created. */
  createdAt: string;
}
