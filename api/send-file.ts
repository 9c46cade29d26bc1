import type { FileEntry } from '../domain/file-path';
import type { ApiContext } from './context';

/**
 * Types a browser may show in place: they cannot run script. Anything else (HTML, SVG, XML,
 * scripts, unknown types) is sent as an attachment.
 */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'text/plain', 'text/markdown', 'text/csv', 'application/json']);

/**
 * Answers with a file's bytes and type; `download` asks the browser to save it under its name.
 * Files come from agents and visitors and are served from the origin of the hosted chat page, so
 * they are never active content there: `Content-Security-Policy: sandbox` (no script, a unique
 * origin even if opened), `nosniff`, `Referrer-Policy: no-referrer`, and an attachment unless the type is on the inline list.
 */
export function sendFile(ctx: ApiContext, entry: FileEntry, content: Buffer, download = false): void {
  ctx.status = 200;
  ctx.type = entry.mimeType;
  ctx.set('Last-Modified', new Date(entry.modifiedAt).toUTCString());
  ctx.set('X-Content-Type-Options', 'nosniff');
  // The signed URL is a bearer credential: a link followed from the file must not carry it away.
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Content-Security-Policy', "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'");
  const inline = !download && INLINE_TYPES.has(entry.mimeType.split(';')[0]!.trim().toLowerCase());
  const name = entry.path.split('/').pop() ?? 'file';
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  ctx.set('Content-Disposition', `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`);
  ctx.body = content;
}
