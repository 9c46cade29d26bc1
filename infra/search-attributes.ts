import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { customSearchAttributes } from '../workflows/search-attributes';

/**
 * Registers our custom search attributes on a namespace (idempotent). The dev server gets them
 * by flag at start; a remote cluster gets them from `hosted-agents migrate`.
 * Temporal Cloud manages attributes in its console: a permission error is reported, not fatal.
 */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<string[]> {
  const existing = await client.connection.operatorService.listSearchAttributes({ namespace });
  const missing = customSearchAttributes.filter((k) => !(k.name in (existing.customAttributes ?? {})));
  if (missing.length === 0) return [];
  await client.connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map((k) => [k.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
    ),
  });
  return missing.map((k) => k.name);
}
