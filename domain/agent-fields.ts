import { z } from 'zod';

/** What every part of an agent shares: size limits, the rule for names, unique names in a list. */

export const limits = {
  nameLength: 200,
  instructionsLength: 100_000,
  listItems: 100,
  playbookContentLength: 50_000,
} as const;

/** Names a model or a template refers to: tools, secrets, parameters, MCP servers. */
export const identifier = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z][A-Za-z0-9_-]*$/, 'letters, digits, _ and -, starting with a letter');

/** Reports each repeated `field` (default `name`) in a list (names a model or a template refers to must be unique). */
export function uniqueBy<T>(key: (item: T) => string, what: string, field = 'name') {
  return (items: T[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const k = key(item);
      if (seen.has(k)) ctx.addIssue({ code: 'custom', path: [i, field], message: `duplicate ${what} "${k}"` });
      seen.add(k);
    });
  };
}
