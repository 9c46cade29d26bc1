import { z } from 'zod';
import { buildOpenApiDocument } from '../openapi/openapi';
import type { ApiRouter } from '../routing';

/** `GET /v1/openapi.json`: the OpenAPI 3.1 document of every route, itself included. Public. */
export function openApiRoute(r: ApiRouter, serverURL: string): void {
  let document: Record<string, unknown> | undefined;
  r.add(
    {
      method: 'get', path: '/v1/openapi.json', operationId: 'openApi', tag: 'Operations', auth: 'none',
      summary: 'This document (OpenAPI 3.1, generated from the zod schemas)',
      response: { status: 200, description: 'The document', schema: z.record(z.string(), z.unknown()).meta({ id: 'OpenApiDocument' }) },
    },
    () => (document ??= buildOpenApiDocument(r.defs, { version: 'v1', serverURL })),
  );
}
