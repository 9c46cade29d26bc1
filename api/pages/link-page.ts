import type { LinkPreview } from '../../services/one-time-links';
import type { ApiContext } from '../context';

/**
 * The pages of one-time links (invites, sign-in links, resets): GET shows what using the link
 * does and a form that POSTs to the same URL, so a mail scanner that follows the link uses
 * nothing. No script; a strict CSP whose `form-action 'self'` lets only this origin's form post.
 */
const LINK_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string, state: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Hosted Agents</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#111}h1{font-size:1.4rem}
label{display:block;margin:1rem 0 .25rem;font-weight:600}input{font:inherit;width:100%;box-sizing:border-box;padding:.5rem;border:1px solid #888;border-radius:4px}
button{font:inherit;margin-top:1.25rem;padding:.5rem 1.25rem;border:0;border-radius:4px;background:#1a4fd6;color:#fff;cursor:pointer}
button:focus-visible,input:focus-visible{outline:3px solid #f5a623;outline-offset:2px}.hint{color:#444;font-size:.9rem;margin:.25rem 0 0}</style>
</head><body data-state="${state}"><main>${body}</main></body></html>`;
}

function send(ctx: ApiContext, status: number, html: string): void {
  ctx.status = status;
  ctx.set('Content-Security-Policy', LINK_PAGE_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.type = 'html';
  ctx.body = html;
}

const passwordField = (label: string, autocomplete: 'new-password' | 'current-password') =>
  `<label for="password">${label}</label><input id="password" name="password" type="password" required autocomplete="${autocomplete}"${
    autocomplete === 'new-password' ? ' minlength="12" maxlength="256" aria-describedby="password-hint"><p class="hint" id="password-hint">At least 12 characters.</p>' : ' maxlength="256">'
  }`;

/** The form of a live link. */
export function sendLinkForm(ctx: ApiContext, preview: LinkPreview): void {
  const ws = escapeHtml(preview.workspace.name);
  const email = escapeHtml(preview.email);
  let title: string;
  let fields = '';
  let button: string;
  if (preview.kind === 'invite') {
    title = `Join ${preview.workspace.name}`;
    fields = `<p>You are invited to <strong>${ws}</strong> as <strong>${escapeHtml(preview.role ?? 'viewer')}</strong>, with the e-mail <strong>${email}</strong>.</p>`;
    fields += preview.hasPassword
      ? passwordField('Your password', 'current-password')
      : `<label for="name">Your name</label><input id="name" name="name" type="text" autocomplete="name" maxlength="200">${passwordField('Choose a password', 'new-password')}`;
    button = 'Join the workspace';
  } else if (preview.kind === 'reset') {
    title = 'Set a new password';
    fields = `<p>A new password for <strong>${email}</strong>. Signing in with it ends every other session of this account.</p>${passwordField('New password', 'new-password')}`;
    button = 'Set the password and sign in';
  } else {
    title = `Sign in to ${preview.workspace.name}`;
    fields = `<p>Sign in to <strong>${ws}</strong> as <strong>${email}</strong>. The link works once.</p>`;
    button = 'Sign in';
  }
  send(ctx, 200, page(title, `<h1>${escapeHtml(title)}</h1><form method="post">${fields}<button type="submit">${button}</button></form>`, preview.kind));
}

/** After a link was used from the form: signed in (until the console exists, this page is where a browser lands). */
export function sendSignedInPage(ctx: ApiContext, who: { email: string; workspaceName: string }): void {
  send(ctx, 200, page('Signed in', `<h1>Signed in</h1><p>You are signed in to <strong>${escapeHtml(who.workspaceName)}</strong> as <strong>${escapeHtml(who.email)}</strong>.</p>`, 'signed-in'));
}

/** A link that cannot be used (unknown, used, expired), or a form that was refused: the reason, and what to do. */
export function sendLinkError(ctx: ApiContext, status: number, message: string): void {
  send(ctx, status, page('Link not accepted', `<h1>This link cannot be used</h1><p role="alert">${escapeHtml(message)}</p>`, 'error'));
}
