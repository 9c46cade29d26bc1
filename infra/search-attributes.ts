import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { customSearchAttributes } from '../domain/runs/search-attributes';

/**
 * Registers our custom search attributes on a namespace (idempotent). The dev server gets them
 * by flag at start — but only when its history file is new, so it also runs this after start (an
 * attribute added in a later release, e.g. ProjectId, reaches an existing `.data/`); a remote
 * cluster gets them from `hosted-agents migrate`.
 * Temporal Cloud manages attributes in its console: a permission error is reported, not fatal.
 */
export async function ensureSearchAttributes(connection: Pick<Connection, 'operatorService'>, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = customSearchAttributes.filter((k) => !(k.name in (existing.customAttributes ?? {})));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map((k) => [k.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
    ),
  });
  return missing.map((k) => k.name);
}
