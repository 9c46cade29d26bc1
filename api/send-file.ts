import type { FileEntry } from '../domain/file-path';
import type { ApiContext } from './context';

/** Answers with a file's bytes and type; `download` asks the browser to save it under its name. */
export function sendFile(ctx: ApiContext, entry: FileEntry, content: Buffer, download = false): void {
  ctx.status = 200;
  ctx.type = entry.mimeType;
  ctx.set('Last-Modified', new Date(entry.modifiedAt).toUTCString());
  ctx.set('X-Content-Type-Options', 'nosniff');
  const name = entry.path.split('/').pop() ?? 'file';
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  ctx.set('Content-Disposition', `${download ? 'attachment' : 'inline'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`);
  ctx.body = content;
}
