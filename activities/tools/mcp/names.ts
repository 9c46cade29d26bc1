import { createHash } from 'node:crypto';

/**
 * The names MCP tools are offered to the model by: `<server>__<tool>`, made safe for the model
 * providers' name rules and unique across one listing.
 */

/** Longest model-facing tool name OpenAI and Anthropic accept. */
const MCP_MAX_NAME = 64;
const INVALID_NAME_CHARS = /[^A-Za-z0-9_-]/gu;

function shortHash(seed: string): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, 8);
}

/** `base` cut so that `_<8 hex>` fits in 64 characters, then that suffix. */
function withHash(base: string, seed: string): string {
  return `${base.slice(0, MCP_MAX_NAME - 9)}_${shortHash(seed)}`;
}

/**
 * The model-facing name of `toolName` on `serverName`: `<server>__<tool>`, with every character
 * outside `[A-Za-z0-9_-]` replaced by `_`. When that replacement changed anything or the name is
 * longer than 64 characters, it is cut and given a stable 8-hex suffix hashed from the original
 * server and tool names, so two different tools do not end up with the same sanitised name.
 */
export function mcpToolName(serverName: string, toolName: string): string {
  const raw = `${serverName}__${toolName}`;
  const clean = raw.replace(INVALID_NAME_CHARS, '_');
  if (clean === raw && clean.length <= MCP_MAX_NAME) return clean;
  return withHash(clean, `${serverName}\u0000${toolName}`);
}

/**
 * Model-facing names for a listing, in order: `mcpToolName` for each, and for any name already
 * taken by an earlier entry (e.g. server `a` tool `b__c` against server `a__b` tool `c`) a
 * hash-suffixed one instead. The first entry keeps the plain name.
 */
export function assignMcpToolNames(pairs: ReadonlyArray<{ server: string; tool: string }>): string[] {
  const taken = new Set<string>();
  return pairs.map(({ server, tool }) => {
    let name = mcpToolName(server, tool);
    const base = `${server}__${tool}`.replace(INVALID_NAME_CHARS, '_');
    for (let n = 0; taken.has(name); n++) name = withHash(base, `${server}\u0000${tool}\u0000${n}`);
    taken.add(name);
    return name;
  });
}
