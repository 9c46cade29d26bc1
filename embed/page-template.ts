/**
 * HTML of the hosted chat page. Pure and import-free so the server can call it and the browser
 * bundle can share the config type. The page runs under a strict CSP (`script-src 'self'`,
 * `style-src 'self'`), so the document carries no inline script or style: the config travels as
 * inert JSON and `/embed/assets/chat.js` fills in the skeleton.
 */

/** What the server knows about the agent and hands to the page's script. */
export interface HostedPageConfig {
  agentId: string;
  name: string;
  greeting: string | null;
  /** Origin to call /v1/public/* on, no trailing slash. */
  apiBase: string;
  /** Bearer for the public routes; null on a test host, where the host itself authorises. */
  token: string | null;
  mode: 'prod' | 'test';
}

/** Escapes text for HTML element content and quoted attribute values. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * JSON safe inside a `<script>` element: `<`, `>` and `&` as \u escapes so no `</script>` or
 * `<!--` can end or confuse the element, and U+2028/2029 escaped for older JSON-in-JS readers.
 */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `head` goes after the title; the chat page's stylesheet link is part of it (the 404 page has none). */
function documentShell(title: string, body: string, head: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
${head}</head>
<body>
${body}
</body>
</html>
`;
}

/** The hosted chat page of one agent: the skeleton `chat.js` fills in, and the config it reads. */
export function renderChatPage(config: HostedPageConfig): string {
  const name = escapeHtml(config.name);
  const head = `<link rel="stylesheet" href="/embed/assets/chat.css">
<script type="application/json" id="ha-config">${scriptSafeJson(config)}</script>
<script src="/embed/assets/chat.js" defer></script>
`;
  const body = `<main class="ha-chat" aria-labelledby="ha-title">
<header class="ha-header"><h1 class="ha-title" id="ha-title">${name}</h1></header>
<div class="ha-log" id="ha-log" role="log" aria-live="polite" aria-label="Conversation with ${name}" tabindex="0"></div>
<form class="ha-composer" id="ha-form" novalidate>
<label class="ha-sr-only" for="ha-input">Message to ${name}</label>
<textarea class="ha-input" id="ha-input" rows="1" placeholder="Write a message…" aria-describedby="ha-hint" enterkeyhint="send" disabled></textarea>
<button class="ha-send" id="ha-send" type="submit" aria-label="Send message" disabled><svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path fill="currentColor" d="M3.4 20.4 21 12 3.4 3.6 3.4 10l12.6 2-12.6 2z"/></svg></button>
<p class="ha-sr-only" id="ha-hint">Enter sends, Shift+Enter starts a new line.</p>
</form>
<noscript><p class="ha-noscript">This chat needs JavaScript.</p></noscript>
</main>`;
  return documentShell(config.name, body, head);
}

const NOT_FOUND_CSS =
  ':root{color-scheme:light dark}body{margin:0;font:16px/1.5 system-ui,sans-serif}.ha-notfound{max-width:480px;margin:10vh auto 0;padding:24px 16px;text-align:center}';

/** The policy of the 404 page: nothing but its own inline styles. */
export const NOT_FOUND_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/** A plain page for an agent that does not exist or is not deployed; no script at all. */
export function renderNotFoundPage(): string {
  const body = `<main class="ha-notfound">
<h1>Chat not found</h1>
<p>This agent isn’t published, or the link is wrong.</p>
</main>`;
  // Its few styles inline: on a host that serves nothing (an unknown agent host) the assets are 404 too.
  const style = `<style>${NOT_FOUND_CSS}</style>\n`;
  return documentShell('Chat not found', body, style);
}
