import { AppError } from '../../domain/errors';
import type { FileEntry } from '../../domain/file-path';
import type { ApiContext } from '../context';

/**
 * Types a browser may show in place: they cannot run script. Anything else (HTML, SVG, XML,
 * scripts, unknown types) is sent as an attachment.
 */
const INLINE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/pdf', 'text/plain', 'text/markdown', 'text/csv', 'application/json']);

/**
 * Types a browser runs as script or applies as a stylesheet (nosniff lets nothing else through):
 * sent as `application/octet-stream`, so no page of ours — whose CSP trusts `'self'` — can load
 * a file an agent or a visitor wrote as its script, worker or style.
 */
const ACTIVE_TYPE = /^(text|application)\/(x-)?(javascript(1\.[0-5])?|ecmascript|jscript|livescript)$|^text\/css$/;

/**
 * What a file may be fetched as (`Sec-Fetch-Dest`): a page, a frame, media, or a plain fetch.
 * Scripts, styles, workers, fonts and the rest are refused, so browsers that send the header
 * never load a file as active content, whatever its type.
 */
const SERVED_DESTINATIONS = new Set(['', 'document', 'iframe', 'frame', 'empty', 'image', 'video', 'audio', 'track', 'object', 'embed']);

/**
 * Answers with a file's bytes and type; `download` asks the browser to save it under its name.
 * Files come from agents and visitors and are served from the origin of the hosted chat page, so
 * they are never active content there: `Content-Security-Policy: sandbox` (no script, a unique
 * origin even if opened), `nosniff`, `Referrer-Policy: no-referrer`, and an attachment unless the type is on the inline list;
 * never as a script or style of a page (see ACTIVE_TYPE and SERVED_DESTINATIONS).
 */
export function sendFile(ctx: ApiContext, entry: FileEntry, content: Buffer, download = false): void {
  const dest = ctx.get('sec-fetch-dest').trim().toLowerCase();
  if (!SERVED_DESTINATIONS.has(dest)) throw new AppError('not_found', `files are not served as ${dest} (Sec-Fetch-Dest)`);
  const essence = entry.mimeType.split(';')[0]!.trim().toLowerCase();
  const active = ACTIVE_TYPE.test(essence);
  ctx.status = 200;
  ctx.type = active ? 'application/octet-stream' : entry.mimeType;
  ctx.set('Last-Modified', new Date(entry.modifiedAt).toUTCString());
  ctx.set('X-Content-Type-Options', 'nosniff');
  // The signed URL is a bearer credential: a link followed from the file must not carry it away.
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Content-Security-Policy', "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'");
  const inline = !download && !active && INLINE_TYPES.has(essence);
  const name = entry.path.split('/').pop() ?? 'file';
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  ctx.set('Content-Disposition', `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`);
  ctx.body = content;
}
