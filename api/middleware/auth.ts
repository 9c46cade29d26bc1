import { createHash } from 'node:crypto';
import type { Next } from 'koa';
import { apiKeyPattern, type ApiKeysRepository } from '../../db/repositories/api-keys';
import { AppError } from '../../domain/errors';
import type { ApiContext } from '../context';
import type { KeyLimits } from '../key-limits';

/** What a key is counted under: a digest, so the key's text is never stored with its counts. */
const rateKey = (key: string) => createHash('sha256').update(key).digest('base64url').slice(0, 32);

/**
 * `Authorization: Bearer sk_…` resolves the workspace; anything else is a 401 (there is no 403).
 * A well-formed key is counted against its rate limits (429 `rate_limited` beyond them) before it
 * is looked up, so a flood that is over its limits is refused from memory without a query (a key
 * far from its limits goes on at once and is counted behind: limit-headroom.ts).
 * `apiKeys` is the process's key cache (key-cache.ts): a known live key costs no lookup.
 */
export function requireApiKey(apiKeys: Pick<ApiKeysRepository, 'resolve'>, limits: Pick<KeyLimits, 'request'>) {
  return async function authenticate(ctx: ApiContext, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    if (!header) throw new AppError('missing_api_key', 'send the API key as `Authorization: Bearer <key>`');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const key = match?.[1];
    if (!key || !apiKeyPattern.test(key)) throw new AppError('invalid_api_key', 'the API key is malformed');
    await limits.request(rateKey(key));
    const resolved = await apiKeys.resolve({ apiKey: key });
    if (!resolved) throw new AppError('invalid_api_key', 'the API key is unknown or revoked');
    ctx.state.workspaceId = resolved.workspaceId;
    ctx.state.keyId = resolved.keyId;
    await next();
  };
}
