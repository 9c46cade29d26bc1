import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import getRawBody from 'raw-body';
import { AppError } from '../../domain/errors';
import type { ApiContext } from '../context';

/** Encodings an upload may arrive in; decoded here, so what is stored is the file itself. */
const decoders: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/**
 * The request's bytes as a stream, decoded when `Content-Encoding` is gzip, deflate or br (any
 * other encoding is refused with 400 naming the header); `length` is Content-Length when it
 * still counts the bytes read.
 */
export function decodedRequest(ctx: ApiContext): { source: Readable; length: string | undefined; encoding: string } {
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return { source: ctx.req, length: ctx.get('content-length') || undefined, encoding };
  const decoder = decoders[encoding];
  if (!decoder) throw new AppError('invalid_request', `header content-encoding: "${encoding}" is not accepted (gzip, deflate, br or none)`);
  // Content-Length counts the encoded bytes: the limit applies to the decoded ones.
  return { source: ctx.req.pipe(decoder()), length: undefined, encoding };
}

/**
 * Reads an upload's bytes, refusing more than `limitBytes` with 400 `file_too_large`
 * (before reading when Content-Length already says so). A body with `Content-Encoding` gzip,
 * deflate or br is decoded, and the limit applies to the decoded bytes (a small compressed body
 * cannot expand without bound).
 */
export async function readUpload(ctx: ApiContext, limitBytes: number): Promise<Buffer> {
  const { source, length, encoding } = decodedRequest(ctx);
  try {
    return await getRawBody(source, { limit: limitBytes, ...(length ? { length } : {}) });
  } catch (e) {
    throw readFailure(e, encoding, () => new AppError('file_too_large', `files are at most ${limitBytes} bytes`));
  }
}

/** What a failed read answers: `tooLarge()` past the limit, 400 for a short or undecodable body. */
export function readFailure(e: unknown, encoding: string, tooLarge: () => AppError): unknown {
  const type = (e as { type?: string }).type;
  if (type === 'entity.too.large') return tooLarge();
  if (type === 'request.size.invalid') return new AppError('invalid_request', 'body: shorter than its Content-Length');
  if ((e as { code?: string }).code?.startsWith('Z_')) return new AppError('invalid_request', `body: not valid ${encoding} data`);
  return e;
}
