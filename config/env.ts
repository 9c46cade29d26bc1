// Long on purpose (about 470 lines): the one zod-validated environment module — every variable, its
// default and its check in one place, so nothing else reads process.env (docs/operations.md).
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { METADATA_HOSTS } from '../domain/metadata-hosts';
import { decodeSecretsKeyring } from '../domain/secret-box';
import { parseUrlSigningKeys } from '../domain/signed-url';
import { ConfigError } from './config-error';
import { DEFAULT_WORKER_TUNING } from './worker-tuning';
import { loadOAuthProviders, type OAuthProvider } from './oauth-providers';

export { ConfigError } from './config-error';

/**
 * Every environment variable the service reads, in one zod schema.
 * A bad value stops start-up with one line naming the variable (see `loadConfig`).
 * The "Environment variables" table of docs/operations.md mirrors this file.
 */

const port = z.coerce
  .number({ error: 'a port number (1–65535)' })
  .int('a port number (1–65535)')
  .min(1, 'a port number (1–65535)')
  .max(65535, 'a port number (1–65535)');
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));
const optionalUrl = z
  .url({ error: 'an absolute URL such as https://agents.example.com' })
  .optional()
  .or(z.literal('').transform(() => undefined));
const modelSpec = optionalText.pipe(
  z
    .string()
    .regex(/^(openai|anthropic|local):.+$/, 'provider:model with provider openai, anthropic or local, e.g. openai:gpt-4.1-mini or local:offline')
    .optional(),
);
const providerUrl = (example: string) =>
  z
    .url({ protocol: /^https?$/, error: `an absolute http(s) URL such as ${example}` })
    .optional()
    .or(z.literal('').transform(() => undefined));

/** A ring of AES-256 keys (domain/keyring.ts): the message names the entry that is not a key. */
const secretsKeyring = z.string().superRefine((v, ctx) => {
  const ring = decodeSecretsKeyring(v);
  if ('error' in ring) ctx.addIssue({ code: 'custom', message: ring.error });
});

export const envSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** `hosted-agents worker`: serve /healthz and /readyz on this port (on HOST); unset: no HTTP at all. */
  WORKER_HEALTH_PORT: port.optional(),
  /**
   * `/metrics` (API and worker) answers loopback callers only; with this set, any caller that sends
   * `Authorization: Bearer <METRICS_TOKEN>` too (a Prometheus on another host).
   */
  METRICS_TOKEN: optionalText.pipe(z.string().min(32, 'at least 32 characters of random text').optional()),
  /**
   * host:port where the worker's Temporal Core runtime serves its own Prometheus metrics
   * (`temporal_…`, GET /metrics, no authentication: bind it to loopback or a private network); unset: off.
   */
  TEMPORAL_METRICS_ADDRESS: optionalText.pipe(z.string().regex(/^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d{1,5}$/, 'host:port, e.g. 127.0.0.1:9464').optional()),
  /** `hosted-agents worker`: workflows each of its two Workers keeps in its sticky cache (config/worker-tuning.ts says why the default). */
  WORKER_MAX_CACHED_WORKFLOWS: z.coerce
    .number({ error: 'a number' })
    .int('a whole number')
    .min(2, 'at least 2')
    .max(100_000, 'at most 100000')
    .default(DEFAULT_WORKER_TUNING.maxCachedWorkflows),
  DATA_DIR: z.string().min(1).default('.data'),
  /** Unset: `info` for `api` and `worker`, `warn` for `npm start` (its banner stays on screen; cli/logging.ts). */
  LOG_LEVEL: optionalText.pipe(
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'one of fatal, error, warn, info, debug, trace, silent' }).optional(),
  ),
  /** `json` lines for a log collector, or `pretty` lines for a person; unset: `json`, but `pretty` for `npm start`. */
  LOG_FORMAT: optionalText.pipe(z.enum(['json', 'pretty'], { error: 'json or pretty' }).optional()),
  /** Tracing (docs/operations.md: Tracing): on when set; the OTLP exporter reads this and the other OTEL_EXPORTER_OTLP_* variables itself. */
  OTEL_EXPORTER_OTLP_ENDPOINT: providerUrl('http://localhost:4318'),
  /** `key=value,key=value` sent with every export (e.g. a vendor's API key); parsed by the exporter. */
  OTEL_EXPORTER_OTLP_HEADERS: optionalText,
  OTEL_SERVICE_NAME: optionalText,
  BODY_LIMIT_BYTES: z.coerce.number({ error: 'a number of bytes' }).int('a whole number of bytes').min(1024, 'at least 1024').default(10 * 1024 * 1024),
  PUBLIC_BASE_URL: optionalUrl,
  EMBED_BASE_URL: optionalUrl,

  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL')
      .optional(),
  ),
  /** The LISTEN connection's server, when DATABASE_URL goes through a transaction-mode pooler (PgBouncer) that cannot LISTEN. */
  DATABASE_LISTEN_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL')
      .optional(),
  ),
  DATABASE_POOL_MAX: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').max(500, 'at most 500').default(20),
  /**
   * Pooled connections each API and worker process opens at start and keeps open (at most
   * DATABASE_POOL_MAX); unset: DATABASE_POOL_MAX, a pool of fixed size (docs/operations.md: Environment variables).
   */
  DATABASE_POOL_MIN: z.coerce.number({ error: 'a number' }).int('a whole number').min(0, 'at least 0').max(500, 'at most 500').optional(),
  EMBEDDED_PG_PORT: port.default(54329),

  TEMPORAL_ADDRESS: optionalText,
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_API_KEY: optionalText,
  TEMPORAL_TLS: bool.default(false),
  TEMPORAL_TLS_CERT_PATH: optionalText,
  TEMPORAL_TLS_KEY_PATH: optionalText,
  TEMPORAL_TLS_CA_PATH: optionalText,
  TEMPORAL_TLS_SERVER_NAME: optionalText,
  TEMPORAL_DEV_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_CLI_PATH: optionalText,
  TEMPORAL_CLI_DOWNLOAD: bool.default(true),
  TEMPORAL_TASK_QUEUE_PREFIX: z
    .string()
    .regex(/^[a-z0-9-]*$/, 'lower-case letters, digits and dashes')
    .default(''),

  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: providerUrl('http://localhost:11434/v1'),
  ANTHROPIC_API_KEY: optionalText,
  ANTHROPIC_BASE_URL: providerUrl('https://api.anthropic.com'),
  MODEL_STANDARD: modelSpec,
  MODEL_PREMIUM: modelSpec,
  /** The embeddings model of knowledge search (docs/knowledge.md); unset: search is full-text only. */
  EMBEDDINGS_MODEL: optionalText.pipe(
    z
      .string()
      .regex(/^openai:.+$/, 'openai:<model> (any OpenAI-compatible /v1/embeddings at OPENAI_BASE_URL), e.g. openai:text-embedding-3-small')
      .optional(),
  ),
  LOCAL_MODEL_DELAY_MS: z.coerce
    .number({ error: 'a number of milliseconds' })
    .int('a whole number of milliseconds')
    .min(0, 'at least 0')
    // A short pause between words makes the offline model stream like a real one.
    .default(25),

  TURN_MAX_STEPS: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').max(100, 'at most 100').default(12),
  MODEL_MAX_ATTEMPTS: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').max(20, 'at most 20').default(5),
  MODEL_RETRY_INITIAL_MS: z.coerce.number({ error: 'a number of milliseconds' }).int('a whole number').min(10, 'at least 10').default(1000),
  MODEL_HEARTBEAT_TIMEOUT_MS: z.coerce.number({ error: 'a number of milliseconds' }).int('a whole number').min(1000, 'at least 1000').default(10_000),
  /** How long a streaming model step waits out PostgreSQL being away before it gives up to a retry (docs/operations.md: Outages). */
  MODEL_STEP_DB_OUTAGE_MS: z.coerce.number({ error: 'a number of milliseconds' }).int('a whole number').min(0, 'at least 0').default(60_000),
  /** A turn still running this long ends with an `error` event, so it cannot hold its conversation. */
  TURN_TIMEOUT_MS: z.coerce.number({ error: 'a number of milliseconds' }).int('a whole number').min(1000, 'at least 1000').default(15 * 60_000),
  /** Credits a turn holds back from its workspace's balance while it runs (its estimate; settled at its end). */
  TURN_RESERVE_CREDITS: z.coerce.number({ error: 'a number' }).min(0, 'at least 0').default(5),
  CREDITS_PER_1K_TOKENS_STANDARD: z.coerce.number({ error: 'a number' }).min(0, 'at least 0').default(1),
  CREDITS_PER_1K_TOKENS_PREMIUM: z.coerce.number({ error: 'a number' }).min(0, 'at least 0').default(5),
  /** Credits per 1000 tokens embedded (knowledge indexing and search queries). */
  CREDITS_PER_1K_EMBEDDING_TOKENS: z.coerce.number({ error: 'a number' }).min(0, 'at least 0').default(0.1),
  /** Bounded history (docs/http-api.md: Conversations and turns): estimated tokens a model step sends, by grade, and bytes of this turn's images. */
  HISTORY_TOKENS_STANDARD: z.coerce.number({ error: 'a number of tokens' }).int('a whole number').min(1000, 'at least 1000').default(32_000),
  HISTORY_TOKENS_PREMIUM: z.coerce.number({ error: 'a number of tokens' }).int('a whole number').min(1000, 'at least 1000').default(100_000),
  HISTORY_IMAGE_BYTES: z.coerce.number({ error: 'a number of bytes' }).int('a whole number').min(0, 'at least 0').default(8 * 1024 * 1024),
  /** Retention (docs/operations.md: Production layout): days the event log of finished turns and probe rows are kept, and how often workers prune. */
  EVENT_LOG_RETENTION_DAYS: z.coerce.number({ error: 'a number of days' }).int('a whole number of days').min(1, 'at least 1').default(30),
  PROBE_RETENTION_DAYS: z.coerce.number({ error: 'a number of days' }).int('a whole number of days').min(1, 'at least 1').default(7),
  RETENTION_PRUNE_INTERVAL_SECONDS: z.coerce.number({ error: 'a number of seconds' }).int('a whole number of seconds').min(10, 'at least 10').default(3600),
  URL_SIGNING_KEY: optionalText.pipe(
    z
      .string()
      .superRefine((v, ctx) => {
        const ring = parseUrlSigningKeys(v);
        if ('error' in ring) ctx.addIssue({ code: 'custom', message: ring.error });
      })
      .optional(),
  ),
  /** Encrypts secret and connection values at rest (AES-256-GCM); see domain/secret-box.ts. */
  SECRETS_KEY: optionalText.pipe(secretsKeyring.optional()),
  /** Encrypts every Temporal payload (AES-256-GCM, infra/payload-codec.ts); a ring like SECRETS_KEY. */
  PAYLOAD_KEY: optionalText.pipe(secretsKeyring.optional()),
  /**
   * The codec endpoint for the Temporal UI and CLI (`/v1/codec/decode`, `/encode`): off unless set;
   * callers send `Authorization: Bearer <CODEC_TOKEN>`.
   */
  CODEC_TOKEN: optionalText.pipe(z.string().min(32, 'at least 32 characters of random text').optional()),
  /** The browser origin of the Temporal UI allowed to call the codec endpoint (CORS). */
  CODEC_CORS_ORIGIN: optionalText,
  /** Deployed agents are served on `<slug>.AGENTS_DOMAIN` and `<random>.test.AGENTS_DOMAIN`. */
  AGENTS_DOMAIN: z
    .string()
    .regex(/^(?=.{1,200}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/, 'a lower-case domain name such as agents.example.com')
    .default('agents.localhost'),
  /** Scheme and port of the URLs handed out for deployments (what a browser uses, e.g. behind a TLS terminator). */
  AGENTS_URL_SCHEME: z.enum(['http', 'https'], { error: 'http or https' }).default('http'),
  AGENTS_URL_PORT: port.optional(),
  /**
   * `true` behind a reverse proxy: the client address is the last `X-Forwarded-For` entry (the one
   * the proxy added) and `X-Forwarded-Host`/`-Proto` are believed (for the per-address limits and
   * for the links the API builds without PUBLIC_BASE_URL). Off by default: a client reaching the API
   * directly could otherwise choose its own address and the host of the links it is handed.
   */
  TRUST_PROXY: bool.default(false),
  /**
   * The PROXY protocol (v1 and v2, as HAProxy's `send-proxy`/`send-proxy-v2` send it) in front of
   * the listeners: `https` on HTTPS_PORT, `all` on HTTPS_PORT and PORT. There every connection must
   * start with the header (else it is closed), the client address is the header's, forwarding
   * headers are dropped and no caller counts as loopback. For a TCP pass-through proxy only.
   */
  PROXY_PROTOCOL: z.enum(['off', 'https', 'all'], { error: 'off, https or all' }).default('off'),
  /**
   * Failed credentials from one client address (unknown API keys, publishable tokens, agent hosts,
   * custom-domain names and SNI names) per AUTH_FAILURES_WINDOW_SECONDS, counted in each API
   * process's memory; past it the address is refused (429, a failed TLS handshake) before any query.
   */
  AUTH_FAILURES_PER_ADDRESS: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(30),
  AUTH_FAILURES_WINDOW_SECONDS: z.coerce.number({ error: 'a number of seconds' }).int('a whole number').min(1, 'at least 1').max(86_400, 'at most 86400').default(60),
  /** Seconds a test deployment lives (at most 7 days). */
  TEST_DEPLOYMENT_TTL: z.coerce.number({ error: 'a number of seconds' }).int('a whole number of seconds').min(1, 'at least 1').max(604_800, 'at most 604800 (7 days)').default(3600),
  /** Public chat limits, each per `PUBLIC_RATE_WINDOW_SECONDS`. */
  PUBLIC_RATE_WINDOW_SECONDS: z.coerce.number({ error: 'a number of seconds' }).int('a whole number').min(1, 'at least 1').default(60),
  PUBLIC_CHAT_PER_VISITOR: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(20),
  PUBLIC_CHAT_PER_ADDRESS: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(60),
  PUBLIC_CHAT_PER_TOKEN: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(1200),
  PUBLIC_READS_PER_ADDRESS: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(600),
  /** OAuth providers (see config/oauth-providers.ts): JSON text, and/or a JSON file. */
  OAUTH_PROVIDERS: optionalText,
  OAUTH_PROVIDERS_FILE: optionalText,
  /** A token that expires within this many seconds is refreshed before a tool call uses it. */
  OAUTH_REFRESH_MARGIN_SECONDS: z.coerce.number({ error: 'a number of seconds' }).int('a whole number').min(0, 'at least 0').max(86_400, 'at most 86400').default(60),
  /** How long a consent URL (its `state`) may be used. */
  OAUTH_STATE_TTL_SECONDS: z.coerce.number({ error: 'a number of seconds' }).int('a whole number').min(30, 'at least 30').max(86_400, 'at most 86400').default(600),
  /**
   * Members and sign-in (docs/security.md, "Members, roles and sign-in"): session expiry, link
   * lifetimes, sign-in attempt limits (per account and per client address, over 15 minutes), the
   * OIDC provider (all three or none), the mail server for invites and resets, and the audit log's retention.
   */
  SESSION_IDLE_HOURS: z.coerce.number({ error: 'a number of hours' }).int('a whole number of hours').min(1, 'at least 1').max(720, 'at most 720').default(12),
  SESSION_ABSOLUTE_DAYS: z.coerce.number({ error: 'a number of days' }).int('a whole number of days').min(1, 'at least 1').max(365, 'at most 365').default(14),
  INVITE_TTL_HOURS: z.coerce.number({ error: 'a number of hours' }).int('a whole number of hours').min(1, 'at least 1').max(720, 'at most 720').default(72),
  SIGN_IN_LINK_TTL_MINUTES: z.coerce.number({ error: 'a number of minutes' }).int('a whole number of minutes').min(5, 'at least 5').max(10_080, 'at most 10080').default(60),
  SIGN_IN_ATTEMPTS_PER_ACCOUNT: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(10),
  SIGN_IN_ATTEMPTS_PER_ADDRESS: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(50),
  OIDC_ISSUER: optionalUrl,
  OIDC_CLIENT_ID: optionalText,
  OIDC_CLIENT_SECRET: optionalText,
  SMTP_URL: optionalText,
  SMTP_FROM: optionalText,
  AUDIT_RETENTION_DAYS: z.coerce.number({ error: 'a number of days' }).int('a whole number of days').min(1, 'at least 1').default(400),
  /** Turns an end user's erasure removes per batch (one transaction each, their workflow executions deleted first; read by the worker). */
  END_USER_ERASURE_BATCH: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').max(1000, 'at most 1000').default(50),
  /** Webhook triggers (docs/http-api.md: Webhooks): the largest inbound payload, requests per webhook per window, and outbound delivery retries. */
  WEBHOOK_BODY_LIMIT_BYTES: z.coerce.number({ error: 'a number of bytes' }).int('a whole number').min(1, 'at least 1').default(262_144),
  WEBHOOK_PER_HOOK: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(120),
  WEBHOOK_DELIVERY_ATTEMPTS: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').max(100, 'at most 100').default(8),
  WEBHOOK_RETRY_INITIAL_MS: z.coerce.number({ error: 'a number of milliseconds' }).int('a whole number').min(100, 'at least 100').default(10_000),
  /**
   * Limits of one API key, one workspace and one request (docs/limits.md). Counts are kept in
   * PostgreSQL, so they hold across API replicas. Defaults are generous: they stop a runaway client,
   * not a busy one.
   */
  KEY_BURST_PER_SECOND: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(200),
  KEY_REQUESTS_PER_MINUTE: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(6000),
  KEY_STREAMS_MAX: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(100),
  KEY_UPLOADS_MAX: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(10),
  /**
   * A request-rate refusal (429) is answered after this long ± 50 % (random, so refused clients do
   * not come back together): a client that asks again at once slows to one request per connection
   * per hold; 0 holds none. At most RATE_LIMIT_HOLD_MAX refusals are held at once per API process.
   */
  RATE_LIMIT_HOLD_MS: z.coerce.number({ error: 'a number of milliseconds' }).int('a whole number').min(0, 'at least 0').max(10_000, 'at most 10000').default(1000),
  RATE_LIMIT_HOLD_MAX: z.coerce.number({ error: 'a number' }).int('a whole number').min(0, 'at least 0').default(5000),
  WORKSPACE_RUNNING_TURNS_MAX: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(100),
  WORKSPACE_STORAGE_BYTES: z.coerce.number({ error: 'a number of bytes' }).int('a whole number of bytes').min(0, 'at least 0').default(1024 ** 3),
  /** Time to receive a whole request (headers and body); a response (an event stream) may last longer. */
  REQUEST_TIMEOUT_MS: z.coerce.number({ error: 'a number of milliseconds' }).int('a whole number').min(1000, 'at least 1000').default(300_000),
  /** The diagnostics probe: runs per workspace per minute (only workspaces an operator allowed); its rows are kept PROBE_RETENTION_DAYS. */
  DIAGNOSTICS_PER_MINUTE: z.coerce.number({ error: 'a number' }).int('a whole number').min(1, 'at least 1').default(6),
  /**
   * Custom domains (docs/publishing.md: Custom domains): the ACME directory certificates come from (`off`
   * disables custom domains), the account's contact, a CA file the ACME client trusts besides the
   * system's (a test CA such as Pebble's), the HTTPS listener's port (unset: no HTTPS listener and
   * no custom domains), the DNS servers CNAMEs are checked with, and how long a CNAME is waited for.
   */
  ACME_DIRECTORY_URL: z
    .union([z.literal('off'), z.url({ protocol: /^https?$/, error: 'an https URL of an ACME directory, or off' })])
    .default('https://acme-v02.api.letsencrypt.org/directory'),
  ACME_EMAIL: optionalText.pipe(z.email({ error: 'an email address' }).optional()),
  ACME_CA_FILE: optionalText,
  HTTPS_PORT: port.optional(),
  DNS_RESOLVER: optionalText.pipe(
    z
      .string()
      .regex(/^[0-9a-fA-F.:[\]]+(,[0-9a-fA-F.:[\]]+)*$/, 'comma-separated DNS server addresses, e.g. 1.1.1.1,8.8.8.8 or 127.0.0.1:5353')
      .optional(),
  ),
  DOMAIN_DNS_DEADLINE_SECONDS: z.coerce.number({ error: 'a number of seconds' }).int('a whole number').min(1, 'at least 1').max(604_800, 'at most 604800 (7 days)').default(3600),
  SSE_KEEPALIVE_MS: z.coerce.number({ error: 'a number of milliseconds' }).int('a whole number').min(100, 'at least 100').default(15_000),
  /**
   * Private and internal addresses tools (web.fetch, HTTP tools) may reach: unset or empty — none;
   * `true` — all but link-local and cloud metadata; else a comma-separated list of CIDRs, e.g.
   * `127.0.0.0/8,10.1.0.0/16,::1/128` (a bare address counts as a single host), which may include
   * `true` and metadata host names. See activities/outbound/address-policy.ts.
   */
  OUTBOUND_ALLOW_PRIVATE: z
    .string()
    .optional()
    .transform((v, ctx): boolean | string[] => {
      const text = (v ?? '').trim();
      if (text === '' || text === 'false') return false;
      if (text === 'true') return true;
      const cidrs = text.split(',').map((c) => c.trim()).filter((c) => c !== '');
      for (const cidr of cidrs) {
        // `true` among entries: every private range, and the link-local/metadata entries listed with it.
        if (cidr === 'true' || METADATA_HOSTS.includes(cidr.toLowerCase())) continue;
        const valid =
          ipaddr.IPv4.isValidCIDRFourPartDecimal(cidr) || ipaddr.IPv6.isValidCIDR(cidr) || ipaddr.IPv4.isValidFourPartDecimal(cidr) || ipaddr.IPv6.isValid(cidr);
        if (!valid) {
          ctx.addIssue({ code: 'custom', message: `"${cidr}" is not a CIDR; true, or a comma-separated list of CIDRs such as 127.0.0.0/8,10.1.0.0/16,::1/128` });
          return z.NEVER;
        }
      }
      return cidrs;
    }),
});

type Env = z.infer<typeof envSchema>;

export type ModelProviderId = 'openai' | 'anthropic' | 'local';
export type ModelGrade = 'standard' | 'premium';

/** Which provider and model serve a grade, after defaults. */
interface ModelSpec {
  provider: ModelProviderId;
  /** Provider-specific model name, e.g. `gpt-4.1-mini` (`offline` for `local`). */
  model: string;
}

/** The variables the model providers read. */
export type ModelEnv = Pick<
  Env,
  'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'ANTHROPIC_API_KEY' | 'ANTHROPIC_BASE_URL' | 'MODEL_STANDARD' | 'MODEL_PREMIUM' | 'LOCAL_MODEL_DELAY_MS'
>;

const DEFAULT_MODELS: Record<ModelProviderId, Record<ModelGrade, string>> = {
  openai: { standard: 'openai:gpt-4.1-mini', premium: 'openai:gpt-4.1' },
  anthropic: { standard: 'anthropic:claude-3-5-haiku-latest', premium: 'anthropic:claude-sonnet-4-5' },
  local: { standard: 'local:offline', premium: 'local:offline' },
};

/**
 * The model of each grade: `MODEL_STANDARD`/`MODEL_PREMIUM`, else a default chosen by which key is
 * set (OpenAI, then Anthropic, else the offline `local` model). A grade naming a provider that has
 * no key is a ConfigError naming that grade's variable — except OpenAI with `OPENAI_BASE_URL`
 * (local OpenAI-compatible servers often need no key).
 */
export function resolveModelSpecs(e: ModelEnv): Record<ModelGrade, ModelSpec> {
  const fallback: ModelProviderId = e.OPENAI_API_KEY ? 'openai' : e.ANTHROPIC_API_KEY ? 'anthropic' : 'local';
  const resolve = (grade: ModelGrade, variable: 'MODEL_STANDARD' | 'MODEL_PREMIUM', value: string | undefined): ModelSpec => {
    const text = value ?? DEFAULT_MODELS[fallback][grade];
    const match = /^(openai|anthropic|local):(.+)$/.exec(text);
    if (!match) {
      throw new ConfigError(variable, `provider:model with provider openai, anthropic or local (got ${JSON.stringify(text)})`);
    }
    const provider = match[1] as ModelProviderId;
    const model = match[2] ?? '';
    if (provider === 'openai' && !e.OPENAI_API_KEY && !e.OPENAI_BASE_URL) {
      throw new ConfigError(variable, `${text} needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local OpenAI-compatible server)`);
    }
    if (provider === 'anthropic' && !e.ANTHROPIC_API_KEY && !e.ANTHROPIC_BASE_URL) {
      throw new ConfigError(variable, `${text} needs ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for a keyless proxy)`);
    }
    return { provider, model };
  };
  return {
    standard: resolve('standard', 'MODEL_STANDARD', e.MODEL_STANDARD),
    premium: resolve('premium', 'MODEL_PREMIUM', e.MODEL_PREMIUM),
  };
}

export interface Config extends Env {
  /** DATABASE_POOL_MIN, resolved: DATABASE_POOL_MAX when unset. */
  DATABASE_POOL_MIN: number;
  /** Absolute data directory. */
  dataDir: string;
  /** The address clients use to reach the API. */
  baseURL: string;
  /** The address that serves the hosted chat page and embed script. */
  embedURL: string;
  /** How deployment URLs are built (see `hostURL` in domain/publishing.ts). */
  agentsURLs: { scheme: 'http' | 'https'; domain: string; port?: number };
  taskQueues: { turns: string; ops: string };
  /** The provider and model of each grade (see `resolveModelSpecs`). */
  models: Record<ModelGrade, ModelSpec>;
  /** Operator-configured OAuth providers by name (OAUTH_PROVIDERS, OAUTH_PROVIDERS_FILE). */
  oauthProviders: Record<string, OAuthProvider>;
  /** The redirect URI registered with every OAuth provider: `<baseURL>/v1/oauth/callback`. */
  oauthRedirectURI: string;
  /**
   * The environment as given, for the host's own variables (PATH, XDG_CACHE_HOME: where the
   * Temporal CLI is looked for) and for what a child process such as `go install` inherits. Not the
   * service's settings, which are the fields above: it is here so nothing else reads process.env.
   */
  processEnv: Readonly<NodeJS.ProcessEnv>;
}


/** Variables that hold URLs (or addresses): their user info and query may carry a password or token. */
const URL_VARIABLE = /_(URL|ADDRESS)$/;

/**
 * A URL-typed value as a start-up error may show it: user info (`user:password@`) and the query
 * replaced by `***`, even when the value does not parse (that is often why it is being shown).
 */
function redactUrlValue(variable: string, value: string | undefined): string | undefined {
  if (value === undefined || !URL_VARIABLE.test(variable)) return value;
  const noQuery = value.replace(/\?.*$/s, (q) => (q.length > 1 ? '?***' : q));
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(noQuery)?.[0] ?? '';
  const rest = noQuery.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  return at === -1 ? noQuery : `${scheme}***@${rest.slice(at + 1)}`;
}

/** Parses the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? 'environment');
    const value = env[variable];
    // A key's or token's text is never echoed: a near-miss of the real key would land in logs.
    const got = /_(KEY|TOKEN)$/.test(variable) && value !== undefined ? `${value.length} characters` : JSON.stringify(redactUrlValue(variable, value));
    throw new ConfigError(variable, `${issue?.message ?? 'invalid'} (got ${got})`);
  }
  const e = parsed.data;
  if ((e.TEMPORAL_TLS_CERT_PATH === undefined) !== (e.TEMPORAL_TLS_KEY_PATH === undefined)) {
    throw new ConfigError('TEMPORAL_TLS_KEY_PATH', 'set together with TEMPORAL_TLS_CERT_PATH (mTLS needs both)');
  }
  if (e.DATABASE_POOL_MIN !== undefined && e.DATABASE_POOL_MIN > e.DATABASE_POOL_MAX) {
    throw new ConfigError('DATABASE_POOL_MIN', `at most DATABASE_POOL_MAX (${e.DATABASE_POOL_MAX}) (got ${e.DATABASE_POOL_MIN})`);
  }
  if (e.PROXY_PROTOCOL === 'https' && e.HTTPS_PORT === undefined) {
    throw new ConfigError('PROXY_PROTOCOL', 'https needs HTTPS_PORT (the listener that expects the header)');
  }
  const oidc = { OIDC_ISSUER: e.OIDC_ISSUER, OIDC_CLIENT_ID: e.OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: e.OIDC_CLIENT_SECRET };
  const oidcMissing = Object.entries(oidc).find(([, value]) => value === undefined)?.[0];
  if (oidcMissing && Object.values(oidc).some((value) => value !== undefined)) {
    throw new ConfigError(oidcMissing, 'set together with OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET (sign-in with an identity provider needs all three; unset all three to turn it off)');
  }
  const models = resolveModelSpecs(e);
  const localHost = e.HOST === '0.0.0.0' || e.HOST === '::' ? 'localhost' : e.HOST;
  const baseURL = (e.PUBLIC_BASE_URL ?? `http://${localHost}:${e.PORT}`).replace(/\/$/, '');
  return {
    ...e,
    DATABASE_POOL_MIN: e.DATABASE_POOL_MIN ?? e.DATABASE_POOL_MAX,
    dataDir: path.resolve(e.DATA_DIR),
    baseURL,
    embedURL: (e.EMBED_BASE_URL ?? baseURL).replace(/\/$/, ''),
    agentsURLs: { scheme: e.AGENTS_URL_SCHEME, domain: e.AGENTS_DOMAIN, ...(e.AGENTS_URL_PORT !== undefined ? { port: e.AGENTS_URL_PORT } : {}) },
    taskQueues: {
      turns: `${e.TEMPORAL_TASK_QUEUE_PREFIX}turns`,
      ops: `${e.TEMPORAL_TASK_QUEUE_PREFIX}ops`,
    },
    models,
    oauthProviders: loadOAuthProviders(e),
    oauthRedirectURI: `${baseURL}/v1/oauth/callback`,
    processEnv: env,
  };
}
