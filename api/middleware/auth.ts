import type { Next } from 'koa';
import { apiKeyPattern, type ApiKeysRepository } from '../../db/repositories/api-keys';
import { AppError } from '../../domain/errors';
import type { ApiContext } from '../context';

/** `Authorization: Bearer sk_…` resolves the workspace; anything else is a 401 (there is no 403). */
export function requireApiKey(apiKeys: ApiKeysRepository) {
  return async function authenticate(ctx: ApiContext, next: Next): Promise<void> {
    const header = ctx.get('authorization');
    if (!header) throw new AppError('missing_api_key', 'send the API key as `Authorization: Bearer <key>`');
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const key = match?.[1];
    if (!key || !apiKeyPattern.test(key)) throw new AppError('invalid_api_key', 'the API key is malformed');
    const workspaceId = await apiKeys.resolve({ apiKey: key });
    if (!workspaceId) throw new AppError('invalid_api_key', 'the API key is unknown or revoked');
    ctx.state.workspaceId = workspaceId;
    await next();
  };
}
