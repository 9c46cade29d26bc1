import { z } from 'zod';
import { OAuthCallbackError, type OAuthService } from '../../services/oauth';
import { OAUTH_PAGE_CSP, oauthResultPage } from '../oauth-page';
import type { ApiRouter } from '../routing';

/** What providers send back; other parameters (`scope`, `session_state`, …) are let through. */
const callbackQuery = z
  .object({
    state: z.string().max(512).optional(),
    code: z.string().max(4096).optional(),
    error: z.string().max(512).optional(),
    error_description: z.string().max(2048).optional(),
    iss: z.string().max(2048).optional(),
  })
  .loose();

/**
 * The OAuth redirect URI, `<PUBLIC_BASE_URL>/v1/oauth/callback`: no API key (the browser of the
 * person who consented arrives here), answered with a small HTML page. The single-use `state`
 * is what ties the answer to the `authorize` call that made the consent URL.
 */
export function oauthRoutes(r: ApiRouter, oauth: OAuthService, redirectUri: string): void {
  r.add(
    {
      method: 'get', path: '/v1/oauth/callback', operationId: 'oauthCallback', tag: 'Credentials', auth: 'none',
      summary: 'Where OAuth providers send the browser back after consent: stores the tokens and shows "connected, you can close this window" (or why not)',
      query: callbackQuery,
      response: { status: 200, description: 'An HTML page saying the connection is made (400: why it is not)', contentType: 'text/html' },
    },
    async (ctx) => {
      // Validated against the registered redirect URI, so a proxy's host or scheme cannot change what the provider compares.
      const callbackUrl = new URL(redirectUri);
      callbackUrl.search = ctx.querystring;
      let page: string;
      try {
        const done = await oauth.complete(callbackUrl);
        page = oauthResultPage({ ok: true, ...done });
        ctx.status = 200;
      } catch (e) {
        if (!(e instanceof OAuthCallbackError)) throw e;
        page = oauthResultPage({ ok: false, message: e.message });
        ctx.status = 400;
      }
      ctx.set('Content-Security-Policy', OAUTH_PAGE_CSP);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = page;
    },
  );
}
