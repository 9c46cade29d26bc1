import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './config-error';

/**
 * The OAuth providers an operator configures (`OAUTH_PROVIDERS` as JSON text and/or the JSON file
 * `OAUTH_PROVIDERS_FILE`; a provider named in both takes the variable's entry). A connection whose
 * `provider` names one of them can be authorized (`authorize` → consent URL) and is refreshed
 * before expiry; any other provider is supplied with bind/attach only.
 */

/** http(s) URL; plain http only to a loopback host (a provider on this machine, as in tests). */
const endpoint = z.url({ protocol: /^https?$/, error: 'an absolute https URL' }).refine((u) => {
  const url = new URL(u);
  return url.protocol === 'https:' || ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}, 'https (plain http only to 127.0.0.1, localhost or [::1])');

const providerSchema = z
  .object({
    clientId: z.string().min(1),
    clientSecret: z.string().min(1),
    authorizeUrl: endpoint,
    tokenUrl: endpoint,
    revocationUrl: endpoint.optional(),
    /** Where the account label comes from: the userinfo endpoint, read with the new access token. */
    userinfoUrl: endpoint.optional(),
    /** The userinfo claim shown as `accountLabel` (default: `email`, else `preferred_username`, `name`, `sub`). */
    accountLabelClaim: z.string().min(1).optional(),
    scopes: z.array(z.string().min(1).regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'a scope token (no spaces or quotes)')).default([]),
    /** The issuer the provider names in its answers (RFC 9207 `iss`, id tokens); default: the authorize URL's origin. */
    issuer: z.url().optional(),
    /** How the client authenticates at the token and revocation endpoints. */
    tokenEndpointAuthMethod: z.enum(['client_secret_basic', 'client_secret_post']).default('client_secret_basic'),
    /** Extra query parameters of the consent URL, e.g. `{ "access_type": "offline", "prompt": "consent" }` for Google. */
    authorizeParams: z.record(z.string(), z.string()).default({}),
  })
  .strict();

export type OAuthProvider = z.output<typeof providerSchema> & { name: string };

const providersSchema = z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'a provider name: a letter, then letters, digits, _ or -'), providerSchema);

function parse(variable: string, text: string): Record<string, OAuthProvider> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(variable, `not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const parsed = providersSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(variable, `${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}`);
  }
  return Object.fromEntries(Object.entries(parsed.data).map(([name, p]) => [name, { ...p, name }]));
}

/** The configured providers by name; a ConfigError naming the variable for a bad file or value. */
export function loadOAuthProviders(env: { OAUTH_PROVIDERS?: string | undefined; OAUTH_PROVIDERS_FILE?: string | undefined }): Record<string, OAuthProvider> {
  let fromFile: Record<string, OAuthProvider> = {};
  if (env.OAUTH_PROVIDERS_FILE) {
    let text: string;
    try {
      text = readFileSync(env.OAUTH_PROVIDERS_FILE, 'utf8');
    } catch (e) {
      throw new ConfigError('OAUTH_PROVIDERS_FILE', `cannot read ${env.OAUTH_PROVIDERS_FILE}: ${e instanceof Error ? e.message : String(e)}`);
    }
    fromFile = parse('OAUTH_PROVIDERS_FILE', text);
  }
  const fromVar = env.OAUTH_PROVIDERS ? parse('OAUTH_PROVIDERS', env.OAUTH_PROVIDERS) : {};
  return { ...fromFile, ...fromVar };
}
