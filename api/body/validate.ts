import type { z } from 'zod';
import { AppError } from '../../domain/errors';
import { fieldPath } from '../../domain/field-path';


const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The first string in `value` that PostgreSQL cannot store or that is not Unicode: a NUL
 * character or a lone UTF-16 surrogate: its path and the problem, or undefined when there is none.
 */
function unstorableText(value: unknown, path: PropertyKey[] = []): { path: PropertyKey[]; problem: string } | undefined {
  if (typeof value === 'string') {
    if (value.includes('\0')) return { path, problem: 'must not contain NUL' };
    if (LONE_SURROGATE.test(value)) return { path, problem: 'must not contain unpaired surrogates (broken UTF-16)' };
    return undefined;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unstorableText(item, [...path, i]);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = unstorableText(key, [...path, key]) ?? unstorableText(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Parses input at the edge. Failure is a 400 `invalid_request` whose message names the field,
 * e.g. `body.triggers[0].cron: invalid cron expression`.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root: 'body' | 'query' | 'path'): z.infer<S> {
  // Before any schema: a NUL or broken Unicode never reaches a query (PostgreSQL rejects both).
  const bad = unstorableText(value);
  if (bad) throw new AppError('invalid_request', `${fieldPath(root, bad.path)}: ${bad.problem}`);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  let path = issue.path;
  let message = issue.message;
  // An unknown key is reported on the object; name the key itself.
  if (issue.code === 'unrecognized_keys') {
    path = [...issue.path, issue.keys[0] ?? ''];
    message = 'unknown field';
  }
  throw new AppError('invalid_request', `${fieldPath(root, path)}: ${message}`);
}
