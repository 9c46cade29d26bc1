import { z } from 'zod';
import { linkTokenPattern } from '../../db/repositories/member-links';
import { AppError } from '../../domain/errors';
import { auditOf } from '../../services/password-sign-in';
import { DEFAULT_RETURN_TO, OIDC_CALLBACK_PATH, OIDC_START_PATH, OidcSignInRefused, type OidcSignInService, sameOriginPath } from '../../services/oidc-sign-in';
import { type SessionDeps, startSession } from '../../services/sign-in';
import type { AuditRepository } from '../../db/repositories/audit';
import type { ApiContext } from '../context';
import { setStateCookie, takeStateCookie } from '../cookies/oauth-cookie';
import { OAUTH_PAGE_CSP } from '../pages/oauth-page';
import type { ApiRouter } from '../routing';
import { callbackQuery } from './oauth';

const startQuery = z
  .object({
    workspaceId: z.string().regex(/^ws_[a-z0-9]{1,60}$/, 'a workspace id (ws_…)').optional(),
    invite: z.string().regex(linkTokenPattern, 'an invite token (hl_…)').optional(),
    returnTo: z
      .string()
      .max(2000)
      .transform((text, ctx) => {
        const path = sameOriginPath(text);
        if (path === undefined) ctx.addIssue({ code: 'custom', message: 'a path on this server, starting with a single / (e.g. /console)' });
        return path ?? z.NEVER;
      })
      .optional(),
  })
  .strict();


const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Why the browser was not signed in, as a small page: the stable code in `data-code`, the reason in words. No script. */
function sendRefusal(ctx: ApiContext, err: AppError): void {
  ctx.status = err.status;
  ctx.set('Content-Security-Policy', OAUTH_PAGE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Not signed in · Hosted Agents</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#111}h1{font-size:1.4rem}code{font-size:.9rem}</style>
</head><body data-result="error" data-code="${err.code}"><main><h1>Not signed in</h1><p role="alert">${escapeHtml(err.message)}</p>
<p>Code: <code>${err.code}</code></p></main></body></html>`;
}

interface OidcRouteDeps {
  oidc: OidcSignInService;
  session: SessionDeps;
  audit: Pick<AuditRepository, 'append'>;
  /** `<baseURL>/v1/auth/oidc/callback`. */
  redirectUri: string;
  baseURL: string;
}

/** How long the browser keeps the state cookie: as long as the sign-in may be finished. */
const STATE_COOKIE_SECONDS = 600;

/**
 * Sign-in with the operator's OpenID Connect provider (docs/security.md, "Sign-in with an identity
 * provider (OIDC)"): the start step sends the browser to the provider and leaves an HttpOnly
 * cookie for the sign-in's state; the callback finishes only in the browser that has it, then
 * sets the session cookie and sends the browser to `returnTo`. Failures are a small HTML page
 * with the status and stable code of the error, and a `signInFailed` audit row.
 */
export function oidcRoutes(r: ApiRouter, deps: OidcRouteDeps): void {
  const callbackUrl = new URL(deps.redirectUri);

  const refused = async (ctx: ApiContext, e: unknown): Promise<void> => {
    if (!(e instanceof AppError)) throw e;
    const attempt = e instanceof OidcSignInRefused ? e.attempt : {};
    // A server without OIDC has no sign-in to record.
    if (e.code !== 'oidc_not_configured') {
      await deps.audit.append(
        auditOf(ctx, {
          workspaceId: attempt.workspaceId ?? null,
          actor: { kind: 'anonymous', ...(attempt.email ? { email: attempt.email } : {}) },
          action: 'signInFailed',
          outcome: e.code,
          status: e.status,
          detail: { method: 'oidc', reason: e.code },
        }),
      );
    }
    sendRefusal(ctx, e);
  };

  r.add(
    {
      method: 'get', path: OIDC_START_PATH, operationId: 'oidcStart', tag: 'Sign-in', auth: 'none', audit: 'self',
      summary:
        "Sign in with the identity provider: redirects to its sign-in page (PKCE, state, nonce). `invite` accepts an invite with the provider's verified e-mail; `workspaceId` chooses the workspace; `returnTo` is where the browser goes once signed in",
      query: startQuery, limit: 'public-reads',
      response: { status: 302, description: "A redirect to the provider's sign-in page (else an HTML page with the error's status and code)", contentType: 'text/html' },
      errors: ['oidc_not_configured', 'oidc_failed', 'invalid_link'],
    },
    async (ctx, { query }) => {
      try {
        const { url, state } = await deps.oidc.begin({
          ...(query.workspaceId ? { workspaceId: query.workspaceId } : {}),
          ...(query.invite ? { invite: query.invite } : {}),
          returnTo: query.returnTo ?? DEFAULT_RETURN_TO,
        });
        setStateCookie(ctx, state, callbackUrl, STATE_COOKIE_SECONDS);
        ctx.set('Cache-Control', 'no-store');
        ctx.set('Referrer-Policy', 'no-referrer');
        ctx.redirect(url);
      } catch (e) {
        await refused(ctx, e);
      }
    },
  );

  r.add(
    {
      method: 'get', path: OIDC_CALLBACK_PATH, operationId: 'oidcCallback', tag: 'Sign-in', auth: 'none', audit: 'self',
      summary: 'Where the identity provider sends the browser back: checks the answer, starts a session (the `ha_session` cookie) and redirects to `returnTo`',
      query: callbackQuery, limit: 'public-reads',
      response: { status: 302, description: 'A redirect to `returnTo`, signed in (else an HTML page with the error\'s status and code)', contentType: 'text/html' },
      errors: ['oidc_not_configured', 'oidc_failed', 'invalid_link', 'email_mismatch', 'not_a_member'],
    },
    async (ctx) => {
      // Checked against the registered redirect URI, so a proxy's host or scheme cannot change what the provider compares.
      const answer = new URL(callbackUrl);
      answer.search = ctx.querystring;
      const started = takeStateCookie(ctx, answer.searchParams.get('state'), callbackUrl);
      try {
        const done = await deps.oidc.complete(answer, started);
        const { member } = done;
        await startSession(deps.session, ctx, member.id, member.workspaceId);
        const actor = { kind: 'member' as const, id: member.id, role: member.role, email: member.email };
        if (done.joined === 'invite') {
          await deps.audit.append(auditOf(ctx, { workspaceId: member.workspaceId, actor, action: 'inviteAccepted', targets: { memberId: member.id }, outcome: 'ok', status: 302, detail: { method: 'oidc' } }));
        }
        await deps.audit.append(
          auditOf(ctx, { workspaceId: member.workspaceId, actor, action: 'signIn', targets: { memberId: member.id }, outcome: 'ok', status: 302, detail: { method: 'oidc', joined: done.joined } }),
        );
        ctx.set('Cache-Control', 'no-store');
        ctx.set('Referrer-Policy', 'no-referrer');
        ctx.redirect(new URL(done.returnTo, deps.baseURL).toString());
      } catch (e) {
        await refused(ctx, e);
      }
    },
  );
}
