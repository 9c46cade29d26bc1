import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import getRawBody from 'raw-body';
import { AppError } from '../domain/errors';
import type { ApiContext } from './context';

/** Encodings an upload may arrive in; decoded here, so what is stored is the file itself. */
const decoders: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/**
 * Reads an upload's bytes, refusing more than `limitBytes` with 400 `file_too_large`
 * (before reading when Content-Length already says so). A body with `Content-Encoding` gzip,
 * deflate or br is decoded, and the limit applies to the decoded bytes (a small compressed body
 * cannot expand without bound); any other encoding is refused with 400 naming the header.
 */
export async function readUpload(ctx: ApiContext, limitBytes: number): Promise<Buffer> {
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  let source: Readable = ctx.req;
  let length: string | undefined = ctx.get('content-length') || undefined;
  if (encoding !== '' && encoding !== 'identity') {
    const decoder = decoders[encoding];
    if (!decoder) throw new AppError('invalid_request', `header content-encoding: "${encoding}" is not accepted (gzip, deflate, br or none)`);
    source = ctx.req.pipe(decoder());
    length = undefined; // Content-Length counts the encoded bytes
  }
  try {
    return await getRawBody(source, { limit: limitBytes, ...(length ? { length } : {}) });
  } catch (e) {
    const type = (e as { type?: string }).type;
    if (type === 'entity.too.large') throw new AppError('file_too_large', `files are at most ${limitBytes} bytes`);
    if (type === 'request.size.invalid') throw new AppError('invalid_request', 'body: shorter than its Content-Length');
    if ((e as { code?: string }).code?.startsWith('Z_')) {
      throw new AppError('invalid_request', `body: not valid ${encoding} data`);
    }
    throw e;
  }
}
