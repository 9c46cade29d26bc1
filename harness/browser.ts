import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';

/**
 * Real-browser helpers shared by the embed's browser tests and `bench/embed.ts`: Chromium through
 * playwright-core (the distribution's binary; Playwright cannot download its own here), and a
 * tiny "customer site" that embeds v1.js the way a customer would.
 */

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

/** Launches headless Chromium; a missing binary is an error that says what to do, never a skip. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}. The browser tests need it and do not skip: ` +
        'install it (Debian/Ubuntu: `apt-get install chromium`, as .ci/run does) or set CHROMIUM_PATH to a Chromium/Chrome binary.',
    );
  }
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

const escapeAttr = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface CustomerSite {
  port: number;
  /** `http://shop.localhost:<port>` — a site of its own, cross-site from the API on 127.0.0.1. */
  origin: string;
  /**
   * A page of the shop whose script tag is `<script src="{embedBase}/embed/v1.js" data-agent-id=… defer>`
   * plus one `data-<name>` attribute per entry of `data` (e.g. `{ color: '#dc2626', 'user-id': 'crm-42' }`).
   * `agentId` replaces the site's default agent.
   */
  url(opts?: { path?: string; agentId?: string; data?: Record<string, string> }): string;
  close(): Promise<void>;
}

/**
 * A node:http server on a free loopback port serving the same small shop page at every path;
 * the script tag's attributes come from the query string (`agent`, `data-*`), so each test or
 * bench load can vary them.
 */
export async function startCustomerSite(opts: { embedBase: string; agentId: string }): Promise<CustomerSite> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://shop.localhost');
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const attrs: string[] = [`data-agent-id="${escapeAttr(url.searchParams.get('agent') ?? opts.agentId)}"`];
    for (const [name, value] of url.searchParams) {
      if (/^data-[a-z-]+$/.test(name) && name !== 'data-agent-id') attrs.push(`${name}="${escapeAttr(value)}"`);
    }
    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Shop</title>
<style>body { font: 16px/1.5 Georgia, serif; margin: 0; padding: 24px 32px; background: #fffbeb; color: #1c1917; }
nav a { margin-right: 16px; } .card { border: 1px solid #d6d3d1; border-radius: 8px; padding: 16px; max-width: 420px; margin: 24px 0; }</style>
</head>
<body>
<nav><a href="/">Home</a><a href="/shoes">Shoes</a></nav>
<h1>The Shoe Shop</h1>
<div class="card"><h2>Trail runner</h2><p>Light, grippy, waterproof. 89 €</p><button type="button" id="buy">Add to basket</button></div>
<script src="${escapeAttr(opts.embedBase)}/embed/v1.js" ${attrs.join(' ')} defer></script>
</body>
</html>
`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(html);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://shop.localhost:${port}`;
  return {
    port,
    origin,
    url(u = {}) {
      const query = new URLSearchParams();
      if (u.agentId) query.set('agent', u.agentId);
      for (const [name, value] of Object.entries(u.data ?? {})) query.set(`data-${name}`, value);
      const q = query.toString();
      return `${origin}${u.path ?? '/'}${q ? `?${q}` : ''}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The hosted chat page inside the embed's iframe (the panel must have been opened once). */
export async function chatFrame(page: Page, timeoutMs = 10_000): Promise<Frame> {
  const handle = await page.locator('hosted-agents-chat iframe').elementHandle({ timeout: timeoutMs });
  const frame = await handle?.contentFrame();
  if (!frame) throw new Error('the embed has no iframe, or it has no document');
  return frame;
}
