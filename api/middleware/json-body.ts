import { bodyParser } from '@koa/bodyparser';
import { AppError } from '../../domain/errors';

/**
 * JSON bodies only, up to `limitBytes`. Parse failures become our codes: `body_too_large`
 * (raw-body's `entity.too.large`) or `invalid_json` (anything else co-body rejects).
 */
export function jsonBody(limitBytes: number) {
  return bodyParser({
    enableTypes: ['json'],
    jsonLimit: limitBytes,
    encoding: 'utf-8',
    onError: (err: Error & { type?: string }) => {
      if (err.type === 'entity.too.large') throw new AppError('body_too_large', `the request body is larger than ${limitBytes} bytes`);
      throw new AppError('invalid_json', 'the request body is not valid JSON');
    },
  });
}
