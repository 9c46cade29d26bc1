import type { Next } from 'koa';
import { apiKeyPattern, type ApiKeysRepository } from '../../db/repositories/api-keys';
import { AppError } from '../../domain/errors';
import type { ApiContext } from '../context';
import type { KeyLimits } from '../key-limits';

/**
 * `Authorization: Bearer sk_…` resolves the workspace; anything else is a 401 (there is no 403).
 * Each request then counts against the key's rate limits (429 `rate_limited` beyond them).
 */
export function requireApiKey(apiKeys: ApiKeysRepository, limits: Pick<KeyLimits, 'request'>) {
  return async function authenticate(ctx: ApiContext, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    if (!header) throw new AppError('missing_api_key', 'send the API key as `Authorization: Bearer <key>`');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const key = match?.[1];
    if (!key || !apiKeyPattern.test(key)) throw new AppError('invalid_api_key', 'the API key is malformed');
    const resolved = await apiKeys.resolve({ apiKey: key });
    if (!resolved) throw new AppError('invalid_api_key', 'the API key is unknown or revoked');
    await limits.request(resolved.keyId);
    ctx.state.workspaceId = resolved.workspaceId;
    ctx.state.keyId = resolved.keyId;
    await next();
  };
}
