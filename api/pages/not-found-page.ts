import { NOT_FOUND_CSP, renderNotFoundPage } from '../../embed/page-template';
import type { ApiContext } from '../context';

/** The HTML 404 a browser gets for a chat that is not there (an unknown agent, host or test label). */
export function sendNotFoundPage(ctx: ApiContext): void {
  ctx.status = 404;
  ctx.set('Content-Security-Policy', NOT_FOUND_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = 'html';
  ctx.body = renderNotFoundPage();
}
