import getRawBody from 'raw-body';
import { AppError } from '../domain/errors';
import type { ApiContext } from './context';

/**
 * Reads an upload's bytes, refusing more than `limitBytes` with 400 `file_too_large`
 * (before reading when Content-Length already says so).
 */
export async function readUpload(ctx: ApiContext, limitBytes: number): Promise<Buffer> {
  try {
    return await getRawBody(ctx.req, { limit: limitBytes, length: ctx.get('content-length') || undefined });
  } catch (e) {
    const type = (e as { type?: string }).type;
    if (type === 'entity.too.large') throw new AppError('file_too_large', `files are at most ${limitBytes} bytes`);
    if (type === 'request.size.invalid') throw new AppError('invalid_request', 'body: shorter than its Content-Length');
    throw e;
  }
}
