import type { Next } from 'koa';
import type { ApiContext } from '../context';
import { preflightOrNext } from './cors-preflight';

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
    return preflightOrNext(ctx, next, { methods: 'POST, OPTIONS', headers: 'Authorization, Content-Type, X-Namespace' });
  };
}
