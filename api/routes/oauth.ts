import { z } from 'zod';
import { OAUTH_START_PATH, OAuthCallbackError, type OAuthService } from '../../services/oauth';
import type { ApiContext } from '../context';
import { setStateCookie, takeStateCookie } from '../cookies/oauth-cookie';
import { OAUTH_PAGE_CSP, oauthResultPage } from '../pages/oauth-page';
import type { ApiRouter } from '../routing';

/**
 * What OAuth and OIDC providers send back to a callback (this one and members' OIDC sign-in,
 * api/routes/oidc.ts); other parameters (`scope`, `session_state`, …) are let through.
 */
export const callbackQuery = z
  .object({
    state: z.string().max(512).optional(),
    code: z.string().max(4096).optional(),
    error: z.string().max(512).optional(),
    error_description: z.string().max(2048).optional(),
    iss: z.string().max(2048).optional(),
  })
  .loose();

/** The small HTML page of a step that did not redirect: the result, or why not. */
function sendPage(ctx: ApiContext, status: number, page: string): void {
  ctx.status = status;
  ctx.set('Content-Security-Policy', OAUTH_PAGE_CSP);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page;
}

/**
 * The consent link `authorize` hands out, `<PUBLIC_BASE_URL>/v1/oauth/start?state=…`, and the
 * OAuth redirect URI, `<PUBLIC_BASE_URL>/v1/oauth/callback`: no API key (the browser of the
 * person who consents arrives here), answered with a redirect or a small HTML page. The start
 * step leaves a cookie for the state, and the callback completes only in a browser that has it:
 * the provider's URL or its answer, copied to another browser, connects nothing. The single-use
 * `state` ties the answer to the `authorize` call that made the link.
 */
export function oauthRoutes(r: ApiRouter, oauth: OAuthService, redirectUri: string, stateTtlSeconds: number): void {
  r.add(
    {
      method: 'get', path: OAUTH_START_PATH, operationId: 'oauthStart', tag: 'Credentials', auth: 'none',
      summary: 'The consent link `authorize` hands out: binds the consent to this browser (a short-lived cookie) and redirects to the provider',
      query: z.object({ state: z.string().min(1).max(512) }).strict(),
      response: { status: 302, description: "A redirect to the provider's consent page (400: an HTML page saying the link expired)", contentType: 'text/html' },
    },
    async (ctx, { query }) => {
      try {
        const { url } = await oauth.start(query.state);
        setStateCookie(ctx, query.state, new URL(redirectUri), stateTtlSeconds);
        ctx.set('Cache-Control', 'no-store');
        ctx.set('Referrer-Policy', 'no-referrer');
        ctx.redirect(url);
      } catch (e) {
        if (!(e instanceof OAuthCallbackError)) throw e;
        sendPage(ctx, 400, oauthResultPage({ ok: false, message: e.message }));
      }
    },
  );
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
      const started = takeStateCookie(ctx, callbackUrl.searchParams.get('state'), new URL(redirectUri));
      try {
        const done = await oauth.complete(callbackUrl, started);
        sendPage(ctx, 200, oauthResultPage({ ok: true, ...done }));
      } catch (e) {
        if (!(e instanceof OAuthCallbackError)) throw e;
        sendPage(ctx, 400, oauthResultPage({ ok: false, message: e.message }));
      }
    },
  );
}
