import getRawBody from 'raw-body';
import { z } from 'zod';
import { linkTokenPattern } from '../../db/repositories/member-links';
import { AppError } from '../../domain/errors';
import { passwordResetRequestBodySchema, passwordSignInBodySchema, signedInSchema, useLinkBodySchema } from '../../domain/member';
import type { OneTimeLinks } from '../../services/one-time-links';
import type { PasswordSignIn, SignedIn } from '../../services/password-sign-in';
import type { ApiContext } from '../context';
import { sendLinkError, sendLinkForm, sendSignedInPage } from '../pages/link-page';
import { parseJsonBody } from '../body/json-text';
import { type ApiRouter } from '../routing';
import { parseInput } from '../body/validate';

const linkParams = z.object({ token: z.string().max(200) });
/** A link's form is a few short fields. */
const LINK_BODY_LIMIT_BYTES = 16 * 1024;

const answer = (s: SignedIn) => ({ member: s.member, workspace: s.workspace, csrfToken: s.csrfToken, expiresAt: s.expiresAt.toISOString() });

/**
 * Signing in without an identity provider (docs/security.md, "Members, roles and sign-in"): by
 * password, and by one-time link (invite, sign-in, reset). Public routes: they start sessions, so
 * they have none to act on, and they write their own audit rows.
 */
export function signInRoutes(r: ApiRouter, deps: { password: PasswordSignIn; links: OneTimeLinks; baseURL: string }): void {
  const { password, links } = deps;
  r.add(
    {
      method: 'post', path: '/v1/auth/password', operationId: 'signInWithPassword', tag: 'Sign-in', auth: 'none', audit: 'self',
      summary: 'Sign in with e-mail and password: sets the session cookie and answers the CSRF token; the same 401 for an unknown e-mail and a wrong password',
      body: passwordSignInBodySchema,
      response: { status: 200, description: 'Signed in (Set-Cookie: ha_session)', schema: signedInSchema },
      errors: ['invalid_credentials', 'rate_limited'],
    },
    async (ctx, { body }) => answer(await password.signIn(ctx, body)),
  );
  r.add(
    {
      method: 'post', path: '/v1/auth/password/reset', operationId: 'requestPasswordReset', tag: 'Sign-in', auth: 'none', audit: 'self',
      summary: "Ask for a password reset link by e-mail: always 202, whether or not the e-mail is a member's (mailed only when SMTP_URL is set)",
      body: passwordResetRequestBodySchema,
      response: { status: 202, description: 'Accepted', schema: z.object({ accepted: z.literal(true) }) },
      errors: ['rate_limited'],
    },
    async (ctx, { body }) => {
      await password.requestReset(ctx, body);
      return { accepted: true as const };
    },
  );
  r.add(
    {
      method: 'get', path: '/v1/auth/links/:token', operationId: 'showLink', tag: 'Sign-in', auth: 'none',
      summary: 'The page of a one-time link (invite, sign-in, reset): says what it does, with a form that uses it; GET never uses the link',
      params: linkParams,
      response: { status: 200, description: 'An HTML page with a form (400: why the link cannot be used)', contentType: 'text/html' },
    },
    async (ctx, { params }) => {
      try {
        if (!linkTokenPattern.test(params.token)) throw new AppError('invalid_link', 'this link is malformed: copy the whole link');
        sendLinkForm(ctx, await links.preview(params.token));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        sendLinkError(ctx, err.status, err.message);
      }
    },
  );
  r.add(
    {
      method: 'post', path: '/v1/auth/links/:token', operationId: 'useLink', tag: 'Sign-in', auth: 'none', audit: 'self',
      summary: "Use a one-time link: an invite ({ name, password }) makes the member, a reset ({ password }) sets the password and ends the account's sessions, a sign-in link signs in. JSON answers JSON; the page's form answers a page",
      params: linkParams,
      rawBody: { contentType: 'application/json', description: 'UseLink: `{ name?, password?, email? }` as JSON, or the same fields form-encoded (the page\'s form).' },
      response: { status: 200, description: 'Signed in (Set-Cookie: ha_session)', schema: signedInSchema },
      errors: ['invalid_link', 'invalid_credentials', 'email_mismatch'],
    },
    async (ctx, { params }) => {
      const isForm = !ctx.is('application/json', '+json');
      try {
        if (isForm) refuseOtherOrigin(ctx, deps.baseURL);
        const body = parseInput(useLinkBodySchema, await readLinkBody(ctx, isForm), 'body');
        if (!linkTokenPattern.test(params.token)) throw new AppError('invalid_link', 'this link is malformed: copy the whole link');
        const signedIn = await links.use(ctx, params.token, body);
        if (!isForm) return answer(signedIn);
        sendSignedInPage(ctx, { email: signedIn.member.email, workspaceName: signedIn.workspace.name });
        return undefined;
      } catch (err) {
        if (!isForm || !(err instanceof AppError)) throw err;
        sendLinkError(ctx, err.status, err.message);
        return undefined;
      }
    },
  );
}

/** The link's body: JSON, or the page's form (`application/x-www-form-urlencoded`); only the fields the schema knows are kept from a form. */
async function readLinkBody(ctx: ApiContext, isForm: boolean): Promise<unknown> {
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit: LINK_BODY_LIMIT_BYTES, encoding: 'utf-8' });
  } catch {
    throw new AppError('body_too_large', `the request body is larger than ${LINK_BODY_LIMIT_BYTES} bytes`);
  }
  if (!isForm) return parseJsonBody(text, () => new AppError('invalid_json', 'the request body is not valid JSON'));
  const form = new URLSearchParams(text);
  const fields: Record<string, string> = {};
  for (const name of ['name', 'password', 'email']) {
    const value = form.get(name);
    if (value !== null && value !== '') fields[name] = value;
  }
  return fields;
}

/**
 * Login CSRF: another site's page could post its own link's form from a victim's browser and sign
 * them in as someone else. Browsers send `Origin` on every form POST: it must be this server's.
 */
function refuseOtherOrigin(ctx: ApiContext, baseURL: string): void {
  const origin = ctx.get('origin');
  if (!origin) return;
  // Koa 3's ctx.origin is the Origin header itself: compare with the host the request reached.
  if (origin === new URL(baseURL).origin || origin === `${ctx.protocol}://${ctx.host}`) return;
  throw new AppError('forbidden', 'this form can only be sent from its own page');
}
