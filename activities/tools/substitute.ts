import type { Credentials } from '../../domain/credentials';

/**
 * Credentials in tool templates, and keeping them out of what the model sees.
 *
 * `{{secrets.NAME}}` is the value of secret NAME; `{{connections.PROVIDER}}` is that connection's
 * access token (whitespace inside the braces is allowed). Substitution happens at call time, in
 * one pass over the template: a value put in is never scanned again, so an argument or a secret
 * that itself contains `{{secrets.X}}` stays literal text. Any other `{{…}}` is left as it is.
 * A reference that cannot be filled is an error naming the secret or connection — never a value.
 */

type Reference = { kind: 'secrets' | 'connections'; name: string };

/** `{{secrets.NAME}}`, `{{connections.PROVIDER}}` or `{{args.NAME}}`. */
export const TEMPLATE_PATTERN = /\{\{\s*(secrets|connections|args)\.([A-Za-z][A-Za-z0-9_-]*)\s*\}\}/g;

interface SubstituteOptions {
  /** Secret names the template may use; undefined: any secret in the credentials. */
  allowedSecrets?: readonly string[];
  /** How a value is written into the template (e.g. `encodeURIComponent` for a URL); default: as is. */
  encode?: (value: string) => string;
}

type Substituted = { ok: true; value: string; values: string[] } | { ok: false; error: string };

/** The value a credential reference stands for, or the error that it cannot be filled. */
export function resolveReference(
  ref: Reference,
  credentials: Credentials,
  allowedSecrets?: readonly string[],
): { ok: true; value: string } | { ok: false; error: string } {
  if (ref.kind === 'secrets') {
    if (allowedSecrets && !allowedSecrets.includes(ref.name)) {
      return { ok: false, error: `secret "${ref.name}" is not listed in this tool's secrets, so it cannot be used here` };
    }
    const value = Object.hasOwn(credentials.secrets, ref.name) ? credentials.secrets[ref.name] : undefined;
    if (value === undefined) return { ok: false, error: `secret "${ref.name}" has no value (it is not set for this agent or conversation)` };
    return { ok: true, value };
  }
  const connection = Object.hasOwn(credentials.connections, ref.name) ? credentials.connections[ref.name] : undefined;
  if (!connection) return { ok: false, error: `connection "${ref.name}" is not connected (no token for this agent or conversation)` };
  return { ok: true, value: connection.accessToken };
}

/**
 * Fills `{{secrets.NAME}}` and `{{connections.PROVIDER}}` in `template`. Returns the text and the
 * values put in (to mask them later), or an error naming the first reference that cannot be filled.
 * `{{args.…}}` is left alone (see http-tool.ts).
 */
export function substituteCredentials(template: string, credentials: Credentials, options: SubstituteOptions = {}): Substituted {
  const values: string[] = [];
  let error: string | undefined;
  const value = template.replace(TEMPLATE_PATTERN, (whole, kind: string, name: string) => {
    if (kind === 'args' || error !== undefined) return whole;
    const resolved = resolveReference({ kind: kind as Reference['kind'], name }, credentials, options.allowedSecrets);
    if (!resolved.ok) {
      error = resolved.error;
      return whole;
    }
    values.push(resolved.value);
    return options.encode ? options.encode(resolved.value) : resolved.value;
  });
  return error !== undefined ? { ok: false, error } : { ok: true, value, values };
}

/** The minimum length of a value worth masking: shorter ones would mask ordinary text. */
const MIN_MASKED_LENGTH = 4;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The forms a value may appear in when echoed: as is, base64 (padded and not), base64url, URL-encoded, JSON-escaped. */
function forms(value: string): string[] {
  const b64 = Buffer.from(value, 'utf8').toString('base64');
  const all = [
    value,
    b64,
    b64.replace(/=+$/, ''),
    Buffer.from(value, 'utf8').toString('base64url'),
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    JSON.stringify(value).slice(1, -1),
  ];
  return [...new Set(all)].filter((f) => f.length >= MIN_MASKED_LENGTH);
}

/**
 * Replaces every occurrence of a secret value or a connection's access or refresh token in
 * `text` with `[secret:NAME]` / `[connection:PROVIDER]`: values of at least 4 characters, longest
 * first, also in their base64, base64url, URL-encoded and JSON-escaped forms. One pass: a label
 * put in is never masked again. (A value combined with other text before encoding, e.g. Basic
 * auth's base64 of `user:password`, is not recognised.)
 */
export function maskSecrets(text: string, credentials: Credentials): string {
  const labels = new Map<string, string>();
  const add = (value: string | undefined, label: string) => {
    if (value === undefined || value.length < MIN_MASKED_LENGTH) return;
    for (const form of forms(value)) {
      const current = labels.get(form);
      // The same text under two names: keep the first (secrets before connections).
      if (current === undefined) labels.set(form, label);
    }
  };
  for (const [name, value] of Object.entries(credentials.secrets)) add(value, `[secret:${name}]`);
  for (const [provider, c] of Object.entries(credentials.connections)) {
    add(c.accessToken, `[connection:${provider}]`);
    add(c.refreshToken, `[connection:${provider}]`);
  }
  if (labels.size === 0) return text;
  const ordered = [...labels.keys()].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(ordered.map(escapeRegExp).join('|'), 'g');
  return text.replace(pattern, (match) => labels.get(match) ?? match);
}
