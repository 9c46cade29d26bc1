/**
 * The caps every outbound tool call (web.fetch, HTTP tools) works within. One place, so the
 * docs and the tests quote the same numbers.
 *
 * - A response body is read up to `responseBytes` (1 MiB); the rest is never downloaded (the
 *   body stream is cancelled).
 * - The text a tool gives the model is at most `modelTextChars` (16 000) characters; longer text
 *   is cut and ends with `[truncated: N more characters]`.
 * - An HTTP tool call times out after `httpToolTimeoutMs` (30 s) unless the tool sets
 *   `timeoutMs` (100 ms – 300 s, see `httpToolSchema`); a web.fetch call after
 *   `webFetchTimeoutMs` (20 s). The time covers connecting, redirects and reading the body.
 * - At most `maxRedirects` (5) redirects are followed; one more is an error.
 * - An MCP server's answers are read as they arrive and refused past a bound, before the SDK
 *   buffers or parses them (a JSON-RPC message cannot be cut like a page of text): one message — a
 *   JSON body, or one event of an event stream — at most `mcpMessageBytes` (4 MiB: room for a
 *   screenshot's base64, which the model only sees summarised), and all a session reads — its
 *   listing's pages, or one call with its event streams — at most `mcpSessionBytes` (16 MiB).
 *   Counted after decompression. A refusal is the call's (or the listing's) error, naming the bound.
 */
export const toolLimits = {
  responseBytes: 1024 * 1024,
  modelTextChars: 16_000,
  httpToolTimeoutMs: 30_000,
  httpToolMaxTimeoutMs: 300_000,
  webFetchTimeoutMs: 20_000,
  maxRedirects: 5,
  mcpMessageBytes: 4 * 1024 * 1024,
  mcpSessionBytes: 16 * 1024 * 1024,
} as const;

/** Cuts `text` to `max` characters, noting how many were left out. */
export function capText(text: string, max: number = toolLimits.modelTextChars): string {
  if (text.length <= max) return text;
  // Never split a surrogate pair.
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}\n[truncated: ${text.length - end} more characters]`;
}

/** The timeout of an HTTP tool call: the tool's own `timeoutMs` (clamped to the schema's maximum) or the default. */
export function httpToolTimeout(timeoutMs: number | undefined): number {
  if (timeoutMs === undefined) return toolLimits.httpToolTimeoutMs;
  return Math.min(Math.max(timeoutMs, 1), toolLimits.httpToolMaxTimeoutMs);
}
