import { lookup } from 'mime-types';

const GENERIC = 'application/octet-stream';

/** True when the bytes decode as UTF-8 and hold no NUL (what editors and models treat as text). */
export function looksLikeText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * A file's content type: from its extension when known; else what the uploader declared, when
 * that is specific; else `text/plain` for UTF-8 text; else `application/octet-stream`.
 */
export function detectMimeType(path: string, bytes: Uint8Array, declared?: string): string {
  const byName = lookup(path);
  if (byName) return byName;
  const given = declared?.split(';')[0]?.trim().toLowerCase();
  if (given && given !== GENERIC && /^[a-z]+\/[a-z0-9.+-]+$/.test(given)) return given;
  return looksLikeText(bytes) ? 'text/plain' : GENERIC;
}
