import { z } from 'zod';
import { AppError } from '../../domain/errors';
import { apiKeySchema, createdKeySchema, createKeyBodySchema } from '../../domain/workspace';
import type { ApiDeps } from '../context';
import { workspaceOf } from '../context';
import { type ApiRouter, listOf, listSchema } from '../routing';

const keyParams = z.object({ keyId: z.string().regex(/^key_[0-9a-z]{1,40}$/, 'a key id (key_…)') });

/**
 * API keys by API (`ws.keys`), owners only: a key can do what its role allows, so minting one is
 * granting that role. The secret is in the create answer once and stored only as a hash.
 * Revoking the key that makes the call is allowed: the answer is its last.
 */
export function keyRoutes(r: ApiRouter, { repos }: Pick<ApiDeps, 'repos'>): void {
  r.add(
    {
      method: 'get', path: '/v1/keys', operationId: 'listKeys', tag: 'Workspace', role: 'owner',
      summary: "The workspace's API keys (live and revoked), oldest first, with role and last use; never the secret",
      response: { status: 200, description: 'The keys', schema: listSchema(apiKeySchema.meta({ id: 'ApiKey' }), { id: 'ApiKeyList' }) },
    },
    async (ctx) => listOf(await repos.apiKeys.list({ workspaceId: workspaceOf(ctx) })),
  );
  r.add(
    {
      method: 'post', path: '/v1/keys', operationId: 'createKey', tag: 'Workspace', role: 'owner',
      summary: 'Mint an API key with a name and a role; the key is in this answer only',
      body: createKeyBodySchema,
      response: { status: 201, description: 'The key record and the key (shown once)', schema: createdKeySchema.meta({ id: 'CreatedApiKey' }) },
    },
    async (ctx, { body }) => {
      const { record, apiKey } = await repos.apiKeys.create({ workspaceId: workspaceOf(ctx), role: body.role, name: body.name });
      ctx.state.audit = { targets: { keyId: record.id } };
      return { key: record, apiKey };
    },
  );
  r.add(
    {
      method: 'delete', path: '/v1/keys/:keyId', operationId: 'revokeKey', tag: 'Workspace', role: 'owner',
      summary: 'Revoke an API key at once, in every API process (revoking twice is a no-op)',
      params: keyParams,
      response: { status: 204, description: 'Revoked' },
      errors: ['key_not_found'],
    },
    async (ctx, { params }) => {
      const found = await repos.apiKeys.revoke({ id: params.keyId, workspaceId: workspaceOf(ctx) });
      if (!found) throw new AppError('key_not_found', `no API key ${params.keyId} in this workspace`);
    },
  );
}
