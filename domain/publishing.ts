import { z } from 'zod';

/**
 * Publishing: test and prod deployments, publishable tokens, end users, and the host names
 * deployed agents are served on. Schemas are the API's contract; the functions are pure rules.
 */

/** Where a caller finds a version id: said by every refusal that wants one. */
export const VERSION_ID_HELP =
  'version ids (ver_…) are the versionId of an Agent (agent.versionId: the version its configuration is) or the id of an item of GET /v1/agents/:agentId/deployments (SDK: ws.agents.versions(agentId))';

/** A version id (`ver_…`), refused with a message that says where to find one. */
export const versionId = z.string().regex(/^ver_[0-9a-z]{1,60}$/, `a version id (ver_…), not a version number or an agent id; ${VERSION_ID_HELP}`);

/** The refusal of a teammate where only freelancers go, with how to make it one. */
export function notPublishableMessage(agentId: string, what: string): string {
  return `agent ${agentId} is a teammate: only freelancers ${what}; make it one with PATCH /v1/agents/${agentId} {"role":"freelancer"} (SDK: agent.update({ role: 'freelancer' })), then deploy the version that returns`;
}

export const deployBodySchema = z.object({ versionId }).strict().meta({ id: 'DeployRequest' });
export const deployProdBodySchema = z
  .object({
    versionId,
    skipEvals: z
      .boolean()
      .optional()
      .describe("Promote without running the agent's evaluation cases; the version records it (`VersionItem.evals.skipped`). Default false."),
  })
  .strict()
  .meta({ id: 'DeployProdRequest' });
export const rollbackBodySchema = z.object({ versionId }).strict().meta({ id: 'RollbackRequest' });

export const testDeploymentSchema = z
  .object({ url: z.string(), expiresAt: z.string() })
  .strict()
  .meta({ id: 'TestDeployment', description: 'The ephemeral URL of a version and when it stops answering.' });
export type TestDeployment = z.infer<typeof testDeploymentSchema>;

export const prodDeploymentSchema = z
  .object({ url: z.string(), versionNumber: z.number().int() })
  .strict()
  .meta({ id: 'ProdDeployment', description: 'The production URL and the version it now serves.' });
export type ProdDeployment = z.infer<typeof prodDeploymentSchema>;

export const publicTokenSchema = z
  .object({ token: z.string().startsWith('agt_pk_') })
  .strict()
  .meta({ id: 'PublicToken', description: "The agent's publishable token, for customer sites." });

/** Publishable tokens: `agt_pk_` + 32 base36 characters (~165 bits). */
export const PUBLIC_TOKEN_PREFIX = 'agt_pk_';
export const publicTokenPattern = /^agt_pk_[0-9a-z]{32}$/;

/** Visible text a visitor sends: no control characters but tab and newlines. */
// eslint-disable-next-line no-control-regex
const controlChars = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
export const plainText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((v) => !controlChars.test(v), 'must not contain control characters');

export const endUserSchema = z
  .object({
    id: plainText(200).pipe(z.string().trim().min(1, 'must not be empty')),
    name: plainText(200).optional(),
    email: plainText(320).optional(),
  })
  .strict()
  .meta({ id: 'EndUser', description: 'Who a visitor says they are (self-attested: a routing hint, never a permission).' });
export type EndUser = z.infer<typeof endUserSchema>;

/** A visitor's message is shorter than an API caller's: public traffic is anonymous. */
const PUBLIC_MESSAGE_MAX = 8_000;

/** A visitor token (services/visitor-token.ts) is checked by the service: here only its size and characters. */
export const visitorTokenSchema = plainText(8_192).pipe(z.string().min(1, 'must not be empty'));

/** A visitor of public chat: the self-attested fields, and a token signed by the customer's backend when they have one. */
const publicVisitorSchema = endUserSchema
  .extend({ token: visitorTokenSchema.optional() })
  .strict()
  .meta({
    id: 'PublicVisitor',
    description:
      "Who a visitor says they are. Without `token`: self-attested, a routing hint that grants nothing. With `token` (an HS256 JWT signed with the agent's identity secret, `sub` = `id`): verified, and the conversation acts as that end user.",
  });

export const publicChatBodySchema = z
  .object({
    content: z.string().trim().min(1, 'must not be empty').max(PUBLIC_MESSAGE_MAX, `at most ${PUBLIC_MESSAGE_MAX} characters`),
    user: publicVisitorSchema,
  })
  .strict()
  .meta({ id: 'PublicChatRequest' });

export const publicVisitorQuerySchema = z.object({ userId: plainText(200).pipe(z.string().trim().min(1, 'must not be empty')) }).strict();

/** Where the history and resume routes take a verified visitor's token: a header, so it stays out of URLs and access logs. */
export const VISITOR_TOKEN_HEADER = 'x-visitor-token';

export const publicAgentSchema = z
  .object({
    agentId: z.string(),
    name: z.string(),
    greeting: z.string().nullable(),
    allowedOrigins: z.array(z.string()).meta({ description: 'Where the embed may run (empty: anywhere); it refuses to boot elsewhere.' }),
  })
  .strict()
  .meta({ id: 'PublicAgent', description: 'What anyone may know of a deployed agent.' });
/** The metadata the service reads from the deployed version; the route adds the allowed origins. */
export type PublicAgent = Omit<z.infer<typeof publicAgentSchema>, 'allowedOrigins'>;

export const agentByTokenSchema = z.object({ agentId: z.string(), name: z.string() }).strict().meta({ id: 'AgentByToken' });

/** Labels no agent may take: they name parts of the agents domain itself. */
const RESERVED_SLUGS = new Set(['test', 'www', 'api', 'embed', 'admin', 'static', 'assets', 'mail']);
const SLUG_MAX = 40;

/**
 * The DNS label an agent's production host starts with, from its name: accents dropped,
 * lower case, anything else a dash, at most 40 characters; `agent` when nothing is left.
 * A reserved label gets `-agent` appended. Uniqueness is the caller's (see `slugCandidates`).
 */
export function slugFromName(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/g, '');
  const slug = base || 'agent';
  return RESERVED_SLUGS.has(slug) ? `${slug}-agent` : slug;
}

/** `support`, then `support-2`, `support-3` … (the suffix keeps the label within 63 characters). */
export function slugCandidate(base: string, attempt: number): string {
  return attempt <= 1 ? base : `${base}-${attempt}`;
}

/**
 * What a request's host names: a deployed agent's prod host, a test host, another name at or under
 * the agents domain (`reserved`: the bare domain, deeper names — never the API), or neither.
 */
type AgentHost = { kind: 'prod'; slug: string } | { kind: 'test'; label: string } | { kind: 'reserved' } | { kind: 'none' };

/** Classifies a host name (no port, any case) against `agentsDomain`. */
export function classifyHost(hostname: string, agentsDomain: string): AgentHost {
  const host = hostname.toLowerCase().replace(/\.+$/, '');
  const domain = agentsDomain.toLowerCase();
  if (host === domain) return { kind: 'reserved' };
  if (!host.endsWith(`.${domain}`)) return { kind: 'none' };
  const labels = host.slice(0, -(domain.length + 1)).split('.');
  const label = /^[a-z0-9-]{1,63}$/;
  if (labels.length === 1 && label.test(labels[0]!)) return { kind: 'prod', slug: labels[0]! };
  if (labels.length === 2 && labels[1] === 'test' && label.test(labels[0]!)) return { kind: 'test', label: labels[0]! };
  return { kind: 'reserved' };
}

/** The address a host is reached at, e.g. `http://support.agents.localhost:8080`. */
export function hostURL(hostLabel: string, urls: { scheme: 'http' | 'https'; domain: string; port?: number }): string {
  const defaultPort = urls.scheme === 'https' ? 443 : 80;
  const port = urls.port === undefined || urls.port === defaultPort ? '' : `:${urls.port}`;
  return `${urls.scheme}://${hostLabel}.${urls.domain}${port}`;
}
