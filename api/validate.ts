import type { z } from 'zod';
import { AppError } from '../domain/errors';
import { fieldPath } from '../domain/field-path';


/**
 * Parses input at the edge. Failure is a 400 `invalid_request` whose message names the field,
 * e.g. `body.triggers[0].cron: invalid cron expression`.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root: 'body' | 'query' | 'path'): z.infer<S> {
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
