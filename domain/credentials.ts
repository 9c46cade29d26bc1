import { z } from 'zod';
import { type Connection, scopeSchema, type Secret } from './agent';
import { limits, uniqueBy } from './agent-fields';
import type { Requirement } from './conversation';

/**
 * Values of the secrets and connections an agent declares, as `bind`/`attach` supply them, and
 * the rules that tie them to declarations: where each may be supplied (scope), what a
 * conversation still lacks, and how a connection's status reads. Values never leave the server;
 * only names, statuses and account labels do.
 */

const MAX_VALUE_CHARS = 16_384;

/** Secret name → value. */
export const secretsInputSchema = z
  .record(z.string().min(1).max(64), z.string().min(1, 'a non-empty string').max(MAX_VALUE_CHARS, `at most ${MAX_VALUE_CHARS} characters`))
  .refine((r) => Object.keys(r).length <= limits.listItems, `at most ${limits.listItems} secrets`)
  .meta({ id: 'SecretsInput', description: 'Secret name → value. Names must be secrets the agent declares.' });

export const connectionInputSchema = z
  .object({
    provider: z.string().min(1).max(64),
    accessToken: z.string().min(1, 'a non-empty string').max(MAX_VALUE_CHARS, `at most ${MAX_VALUE_CHARS} characters`),
    refreshToken: z.string().min(1, 'a non-empty string').max(MAX_VALUE_CHARS, `at most ${MAX_VALUE_CHARS} characters`).optional(),
    expiresAt: z.iso.datetime({ offset: true, error: 'an ISO 8601 date-time such as 2026-01-01T00:00:00Z' }).optional(),
    accountLabel: z.string().min(1).max(200).optional(),
  })
  .strict()
  .meta({
    id: 'ConnectionInput',
    description: 'A connection value: an OAuth access token and what goes with it. `accountLabel` (e.g. the account e-mail) is shown in statuses; the tokens never are.',
  });

/** `PUT …/credentials`: given names replace their values; other stored values stay. */
export const credentialsBodySchema = z
  .object({
    secrets: secretsInputSchema.optional(),
    connections: z.array(connectionInputSchema).max(limits.listItems).superRefine(uniqueBy((c) => c.provider, 'connection', 'provider')).optional(),
  })
  .strict()
  .meta({ id: 'CredentialsInput' });
export type CredentialsInput = z.infer<typeof credentialsBodySchema>;

export const authorizeBodySchema = z.object({ provider: z.string().min(1).max(64) }).strict().meta({ id: 'AuthorizeInput' });

export const connectionStatusSchema = z
  .object({
    provider: z.string(),
    declared: z.boolean(),
    required: z.boolean(),
    scope: scopeSchema.optional(),
    connected: z.boolean(),
    suppliedBy: z.enum(['conversation', 'agent', 'workspace']).optional(),
    accountLabel: z.string().optional(),
    error: z.string().optional(),
  })
  .strict()
  .meta({
    id: 'ConnectionStatus',
    description: '`connected`: a value is supplied where its scope says and has not expired. `error` says why a supplied value is not used.',
  });
export type ConnectionStatus = z.infer<typeof connectionStatusSchema>;

/** Where values are supplied: on the agent (scope `fixed`) or on a conversation (scope `conversation`). */
export type Level = 'agent' | 'conversation';

export const levelOfScope = (scope: Secret['scope']): Level => (scope === 'fixed' ? 'agent' : 'conversation');

/** The declarations that matter here. */
export type Declarations = { secrets: Secret[]; connections: Connection[] };

/**
 * The first value that may not be supplied at `level`, as `{ field, problem }` (field like
 * `body.secrets.API_TOKEN`), or undefined when all may. `declaredBy` names the declaring version
 * for the message.
 */
export function suppliedProblem(
  decl: Declarations,
  input: CredentialsInput,
  level: Level,
  declaredBy: string,
): { field: string; problem: string } | undefined {
  const elsewhere = (scope: Secret['scope']) =>
    scope === 'fixed' ? 'declared with scope fixed; supply it on the agent' : 'declared with scope conversation; supply it on a conversation';
  for (const name of Object.keys(input.secrets ?? {})) {
    const secret = decl.secrets.find((s) => s.name === name);
    const field = `body.secrets.${name}`;
    if (!secret) return { field, problem: `${declaredBy} declares no secret ${JSON.stringify(name)}` };
    if (levelOfScope(secret.scope) !== level) return { field, problem: elsewhere(secret.scope) };
  }
  for (const [i, c] of (input.connections ?? []).entries()) {
    const connection = decl.connections.find((d) => d.provider === c.provider);
    const field = `body.connections[${i}].provider`;
    if (!connection) return { field, problem: `${declaredBy} declares no connection ${JSON.stringify(c.provider)}` };
    if (levelOfScope(connection.scope) !== level) return { field, problem: `${JSON.stringify(c.provider)} is ${elsewhere(connection.scope)}` };
  }
  return undefined;
}

/**
 * Where a stored value serves from: an agent's at the agent level; a conversation's, and its end
 * user's (values that follow the end user into each of their conversations), at the conversation level.
 */
export const levelOfOwner = (kind: 'agent' | 'conversation' | 'end_user'): Level => (kind === 'agent' ? 'agent' : 'conversation');

/** A stored connection without its value. */
export interface StoredConnection {
  level: Level;
  provider: string;
  accountLabel?: string;
  expiresAt?: Date;
  /** A refresh token is stored and this server can use it (an OAuth provider of that name was configured). */
  refreshable?: boolean;
  /** Why the value stopped working (e.g. the provider refused its refresh token). */
  error?: string;
}

/** What is stored for a conversation and its agent, without values. */
export interface SuppliedView {
  secrets: Array<{ level: Level; name: string }>;
  connections: StoredConnection[];
}

const expired = (c: StoredConnection, now: Date) => c.expiresAt !== undefined && c.expiresAt.getTime() <= now.getTime();
/** Why a stored connection cannot be used, or undefined when it can (an expired token that can be refreshed can). */
const unusable = (c: StoredConnection, now: Date): string | undefined =>
  c.error ?? (expired(c, now) && c.refreshable !== true ? 'token expired' : undefined);

/**
 * The required secrets and connections of `decl` that nothing supplies yet: a fixed-scope one
 * needs a value on the agent, a conversation-scope one a value on the conversation. An expired
 * connection counts as missing (nothing here can refresh it).
 */
export function missingRequirements(decl: Declarations, supplied: SuppliedView, now: Date = new Date()): Requirement[] {
  const hasSecret = (s: Secret) => supplied.secrets.some((v) => v.name === s.name && v.level === levelOfScope(s.scope));
  const hasConnection = (c: Connection) =>
    supplied.connections.some((v) => v.provider === c.provider && v.level === levelOfScope(c.scope) && unusable(v, now) === undefined);
  return [
    ...decl.secrets.filter((s) => s.required && !hasSecret(s)).map((s) => ({ kind: 'secret' as const, name: s.name, required: true })),
    ...decl.connections
      .filter((c) => c.required && !hasConnection(c))
      .map((c) => ({ kind: 'connection' as const, name: c.provider, required: true })),
  ];
}

/**
 * The status of every connection `decl` declares, then of every other stored one (by provider),
 * as seen from `viewer`: the agent (its own values only) or a conversation (its values and its
 * agent's). A declared connection is `connected` when a value is stored where its scope says and
 * has not expired; a value stored at the other level is reported with an `error` saying it is not
 * used. `suppliedBy` is never `workspace`: there are no workspace-level values.
 */
export function connectionStatuses(
  decl: Pick<Declarations, 'connections'>,
  stored: StoredConnection[],
  viewer: Level,
  now: Date = new Date(),
): ConnectionStatus[] {
  const visible = stored.filter((s) => viewer === 'conversation' || s.level === 'agent');
  const at = (provider: string, level: Level) => visible.find((s) => s.provider === provider && s.level === level);
  const from = (value: StoredConnection, connected: boolean, error?: string): Pick<ConnectionStatus, 'connected' | 'suppliedBy' | 'accountLabel' | 'error'> => ({
    connected,
    suppliedBy: value.level,
    ...(value.accountLabel !== undefined ? { accountLabel: value.accountLabel } : {}),
    ...(error !== undefined ? { error } : {}),
  });
  const out: ConnectionStatus[] = decl.connections.map((d) => {
    const base = { provider: d.provider, declared: true, required: d.required === true, scope: d.scope };
    const where = levelOfScope(d.scope);
    const value = at(d.provider, where);
    if (value) {
      const problem = unusable(value, now);
      return { ...base, ...from(value, problem === undefined, problem) };
    }
    const misplaced = at(d.provider, where === 'agent' ? 'conversation' : 'agent');
    if (misplaced) return { ...base, ...from(misplaced, false, `declared with scope ${d.scope}; the value on the ${misplaced.level} is not used`) };
    return { ...base, connected: false };
  });
  const declared = new Set(decl.connections.map((d) => d.provider));
  const others = [...new Set(visible.map((s) => s.provider))].filter((p) => !declared.has(p)).sort();
  for (const provider of others) {
    const value = at(provider, 'conversation') ?? at(provider, 'agent')!;
    out.push({ provider, declared: false, required: false, ...from(value, false, 'not declared by the agent; the value is not used') });
  }
  return out;
}

/** A connection's value as supplied with `bind`/`attach`: an OAuth-style token and its metadata. */
export interface ConnectionValue {
  accessToken: string;
  refreshToken?: string;
  /** ISO 8601. */
  expiresAt?: string;
  accountLabel?: string;
}

/** What a stored connection seals: the tokens and expiry (the account label is stored in the clear). */
export type SealedConnection = Omit<ConnectionValue, 'accountLabel'>;

/**
 * The decrypted values a tool call may use, loaded by reference at call time (never part of a
 * workflow or activity input or result): fixed-scope values from the agent, conversation-scope
 * values from the conversation.
 */
export interface Credentials {
  /** Secret name → value. */
  secrets: Record<string, string>;
  /** Provider → connection. */
  connections: Record<string, ConnectionValue>;
}
