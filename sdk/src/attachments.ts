import type { Attachment } from './types/conversation.js';

/** Bytes per `String.fromCharCode` call: well under engines' argument limits. */
const CHUNK = 0x8000;

/**
 * Builds an `Attachment` from raw bytes, base64-encoding them. Works in browsers and Node alike
 * (no `Buffer`):
 *
 * ```ts
 * const png = attachmentFromBytes('image', 'image/png', await readFile('chart.png'), 'chart.png');
 * await conversation.ask('What does this chart show?', { attachments: [png] });
 * ```
 */
export function attachmentFromBytes(kind: Attachment['kind'], mimeType: string, bytes: Uint8Array | ArrayBuffer, name?: string): Attachment {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const data = toBase64(view);
  return name === undefined ? { kind, mimeType, data } : { kind, name, mimeType, data };
}

/** Standard base64 with padding, via the `btoa` every supported runtime has. */
function toBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let start = 0; start < bytes.length; start += CHUNK) {
    parts.push(String.fromCharCode(...bytes.subarray(start, start + CHUNK)));
  }
  return btoa(parts.join(''));
}
