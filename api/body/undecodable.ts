/**
 * Percent-encoded bytes that are not UTF-8 (e.g. `%ED%A0%80`, a lone surrogate as a client's
 * WTF-8, or a stray `%FF`). The router and Koa's query parser decode them leniently — the router
 * keeps the raw text, the query parser puts U+FFFD in — so the request would go on with text the
 * caller never sent. We refuse them instead, naming the field, like a NUL or a lone surrogate.
 */

function decodes(raw: string): boolean {
  try {
    decodeURIComponent(raw);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first path parameter of `routePath` (Koa syntax: `:name` segments, a trailing `*name`
 * taking the rest) whose raw text in `rawPath` does not decode, or undefined.
 */
export function undecodablePathParam(routePath: string, rawPath: string): string | undefined {
  if (decodes(rawPath)) return undefined;
  const pattern = routePath.split('/');
  const actual = rawPath.split('/');
  for (const [i, part] of pattern.entries()) {
    if (part.startsWith('*')) return decodes(actual.slice(i).join('/')) ? undefined : part.slice(1);
    if (part.startsWith(':') && !decodes(actual[i] ?? '')) return part.slice(1);
  }
  return undefined;
}

/** The first query parameter whose raw name or value does not decode, or undefined. */
export function undecodableQueryParam(rawQuery: string): string | undefined {
  for (const pair of rawQuery.split('&')) {
    const [name = '', value = ''] = pair.split(/=(.*)/s, 2);
    const plain = (s: string) => s.replace(/\+/g, ' ');
    if (!decodes(plain(name))) return name.replace(/%[0-9a-f]{2}/gi, '?');
    if (!decodes(plain(value))) return decodeURIComponent(plain(name));
  }
  return undefined;
}
