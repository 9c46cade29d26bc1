import type { Next } from 'koa';
import { bearerToken } from '../../domain/bearer';
import { apiKeyPattern } from '../../db/repositories/api-keys';
import { AppError } from '../../domain/errors';
import type { ApiContext } from '../context';
import type { ApiKeyCache } from '../key-cache';
import { digest, type Limits } from '../limits';

/**
 * `Authorization: Bearer sk_…` resolves the workspace; anything else is a 401 (there is no 403).
 * A well-formed key is counted against its rate limits (429 `rate_limited` beyond them) before it
 * is looked up, so a flood that is over its limits is refused from memory without a query.
 * `apiKeys` is the process's key cache (key-cache.ts): a known live key costs no lookup. An unknown
 * key is a failure of the client's address (limits/auth-failures.ts); past their limit, the
 * address is refused before its key is counted or looked up — unless this process found that key
 * live in the last day, so another client's guesses from a shared address never lock it out.
 */
export function requireApiKey(apiKeys: Pick<ApiKeyCache, 'resolve'>, limits: Pick<Limits, 'apiKey' | 'failures'>) {
  const { failures } = limits;
  return async function authenticate(ctx: ApiContext, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    if (!header) throw new AppError('missing_api_key', 'send the API key as `Authorization: Bearer <key>`');
    const key = bearerToken(header);
    if (!key || !apiKeyPattern.test(key)) throw new AppError('invalid_api_key', 'the API key is malformed');
    const keyDigest = digest(key);
    const presented = `key:${keyDigest}`;
    await failures.check(ctx.ip, presented);
    await limits.apiKey(keyDigest);
    const resolved = await apiKeys.resolve({ apiKey: key });
    if (!resolved) {
      failures.failed(ctx.ip, presented);
      throw new AppError('invalid_api_key', 'the API key is unknown or revoked');
    }
    failures.found(presented);
    ctx.state.workspaceId = resolved.workspaceId;
    ctx.state.keyId = resolved.keyId;
    await next();
  };
}
