/**
 * The small page the OAuth callback answers with: the person who just consented reads whether it
 * worked and closes the window. No script; a strict CSP; nothing but the text below.
 */

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const OAUTH_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function oauthResultPage(result: { ok: true; provider: string; accountLabel?: string } | { ok: false; message: string }): string {
  const title = result.ok ? 'Connected' : 'Not connected';
  const body = result.ok
    ? `<h1>Connected</h1><p>${escapeHtml(result.provider)} is connected${
        result.accountLabel ? ` as <strong>${escapeHtml(result.accountLabel)}</strong>` : ''
      }.</p><p>You can close this window.</p>`
    : `<h1>Not connected</h1><p>${escapeHtml(result.message)}</p><p>You can close this window.</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#111}h1{font-size:1.4rem}</style>
</head><body data-result="${result.ok ? 'connected' : 'error'}">${body}</body></html>`;
}
