import type { Next } from 'koa';
import type { ApiContext } from '../context';

const isCodecPath = (path: string) => path === '/v1/codec/decode' || path === '/v1/codec/encode';

/**
 * CORS for the codec endpoint: only the Temporal UI's origin (CODEC_CORS_ORIGIN) may call it from
 * a browser, with credentials (the UI can send its user's token) and the headers the UI sends.
 * Any other origin gets no CORS headers, so its page cannot read an answer.
 */
export function codecCors(origin: string | undefined) {
  return async (ctx: ApiContext, next: Next): Promise<void> => {
    if (!isCodecPath(ctx.path) || origin === undefined || ctx.get('Origin') !== origin) return next();
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Allow-Credentials', 'true');
    ctx.set('Vary', 'Origin');
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Namespace');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    return next();
  };
}
