import { createHash } from 'node:crypto';
import { randomToken } from './ids';
import { PUBLIC_TOKEN_PREFIX } from './publishing';
import type { SecretBox } from './secret-box';

/** Lookups go by SHA-256: the token is long and random, so a slow KDF buys nothing. */
export function hashPublicToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** What the token is sealed to: a sealed token copied to another agent's row does not open. */
export const publicTokenContext = (agentId: string) => `public token of agent ${agentId}`;

/** A new publishable token, with its lookup hash and its value sealed under SECRETS_KEY. */
export function mintPublicToken(box: SecretBox, agentId: string): { token: string; hash: string; sealed: Buffer } {
  const token = `${PUBLIC_TOKEN_PREFIX}${randomToken(32)}`;
  return { token, hash: hashPublicToken(token), sealed: box.seal(token, publicTokenContext(agentId)) };
}
