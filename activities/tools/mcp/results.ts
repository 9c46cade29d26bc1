import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { capText } from '../limits';
import type { ToolResult } from '../types';

/** How an MCP `tools/call` result reads to the model: text as is, other content summarised, capped. */

function base64Bytes(data: string): number {
  return Buffer.byteLength(data, 'base64');
}

function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'audio':
      return `[audio ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource_link':
      return `[resource link ${block.uri}${block.name ? ` "${block.name}"` : ''}${block.mimeType ? `, ${block.mimeType}` : ''}]`;
    case 'resource': {
      const r = block.resource;
      if ('text' in r) return `[resource ${r.uri}${r.mimeType ? `, ${r.mimeType}` : ''}]\n${r.text}`;
      return `[resource ${r.uri}, ${r.mimeType ?? 'binary'}, ${base64Bytes(r.blob)} bytes]`;
    }
    default: {
      const type: unknown = (block as { type?: unknown }).type;
      return `[${typeof type === 'string' ? type : 'unknown'} content]`;
    }
  }
}

export function hasContent(result: object): result is CallToolResult {
  return Array.isArray((result as { content?: unknown }).content);
}

/** A `tools/call` result as the model sees it: text joined, other content summarised, capped. */
export function mcpResultToToolResult(
  result: { content?: ContentBlock[]; structuredContent?: Record<string, unknown>; isError?: boolean },
  displayName: string,
): ToolResult {
  const parts = (result.content ?? []).map(renderBlock);
  let text = parts.join('\n');
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (result.isError) return { ok: false, content: capText(text || `${displayName} reported an error`) };
  return { ok: true, content: capText(text || '(no content)') };
}
