import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * Allowed origins (our addition): the sites where an agent's embed may run and whose pages may
 * call its public chat. An agent setting, not part of its versions: a change applies at once.
 * An empty list is the spec's default, any origin (`*`).
 */

const MAX_ALLOWED_ORIGINS = 100;
const MAX_ORIGIN_LENGTH = 300;
const ORIGIN_PROBLEM = 'an origin: http(s)://host[:port], with no path, query, fragment or user';

/** DNS labels (ASCII after IDNA), or `localhost`-style single labels; IP literals are checked apart. */
const hostLabels = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * The origin `input` names, serialised as browsers send it in `Origin` (lower case, IDNA host,
 * default port dropped), or undefined when it is not exactly `scheme://host[:port]`.
 */
function normaliseOrigin(input: string): string | undefined {
  // The shape first: `new URL` would quietly accept (and drop) a trailing `/`, `?` or `#`.
  if (!/^https?:\/\/[^/?#@\\\s]+$/i.test(input)) return undefined;
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return undefined;
  }
  const host = url.hostname;
  const ip = host.startsWith('[') ? isIP(host.slice(1, -1)) === 6 : isIP(host) === 4;
  if (!ip && !hostLabels.test(host)) return undefined;
  return url.origin;
}

const originSchema = z
  .string()
  .max(MAX_ORIGIN_LENGTH, `at most ${MAX_ORIGIN_LENGTH} characters`)
  .transform((raw, ctx) => {
    const origin = normaliseOrigin(raw.trim());
    if (origin !== undefined) return origin;
    ctx.addIssue({ code: 'custom', message: `${ORIGIN_PROBLEM} (e.g. https://shop.example.com)` });
    return z.NEVER;
  });

/** `PUT /v1/agents/:agentId/allowed-origins`: the whole list; duplicates (after normalising) are kept once. */
export const setAllowedOriginsSchema = z
  .object({
    origins: z
      .array(originSchema)
      .max(MAX_ALLOWED_ORIGINS, `at most ${MAX_ALLOWED_ORIGINS} origins`)
      .transform((origins) => [...new Set(origins)]),
  })
  .strict()
  .meta({ id: 'SetAllowedOrigins' });

export const allowedOriginsSchema = z
  .object({ origins: z.array(z.string()) })
  .strict()
  .meta({
    id: 'AllowedOrigins',
    description:
      'Origins (`https://shop.example.com`) where the embed may run and whose pages may call public chat; empty: any origin. A change applies at once (not versioned).',
  });
export type AllowedOrigins = z.infer<typeof allowedOriginsSchema>;
