/**
 * v1.js, the embed script: `<script src="{base}/embed/v1.js" data-agent-id="agt_…" defer>`.
 * Puts a launcher bubble in a shadow root on the customer's page and, on first open, an iframe
 * of the hosted chat page. Touches nothing else: one element, one global (`window.Service`),
 * listeners added (never assigned), no global styles. Budget: 4 KB gzip.
 */
import { luminance } from '../shared/contrast';
import { uuid } from '../shared/uuid';

/** loader.css, minified and inlined by build.ts. */
declare const LOADER_CSS: string;

interface User {
  id: string;
  name?: string;
  email?: string;
  /** Signed by the site's backend with the agent's identity secret: proves `id`. */
  token?: string;
}

interface Agent {
  name?: unknown;
  allowedOrigins?: unknown;
}

interface ServiceApi {
  open(): void;
  close(): void;
  identify(user: User): void;
}

declare global {
  interface Window {
    Service?: ServiceApi;
  }
}

const CHAT_ICON = 'M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z';
const CLOSE_ICON = 'M6 6l12 12M18 6L6 18';
const DOWN_ICON = 'M6 9l6 6 6-6';

function warn(message: string): void {
  console.warn(`[hosted-agents] ${message}`);
}

/** The user's stable anonymous id for this agent, kept in the host page's storage when it can be. */
let memoryId: string | undefined;
function anonymousId(agentId: string): string {
  const key = `hosted-agents:uid:${agentId}`;
  try {
    let id = localStorage.getItem(key);
    if (!id) localStorage.setItem(key, (id = uuid()));
    return id;
  } catch {
    return (memoryId ??= uuid());
  }
}

function node<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string>, ...children: Node[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const name in attrs) el.setAttribute(name, attrs[name] as string);
  el.append(...children);
  return el;
}

/** A 24×24 stroke icon; created as DOM rather than markup so Trusted Types pages accept it. */
function icon(path: string, fill?: boolean): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  const p = document.createElementNS(ns, 'path');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  p.setAttribute('d', path);
  p.setAttribute('fill', fill ? 'currentColor' : 'none');
  p.setAttribute('stroke', fill ? 'none' : 'currentColor');
  p.setAttribute('stroke-width', '2');
  p.setAttribute('stroke-linecap', 'round');
  svg.append(p);
  return svg;
}

/** Black or white, whichever reads better on `rgb` (needs ≥ 3:1 for the icon; white when unsure). */
function readableOn(rgb: string): string {
  return luminance(rgb) > 0.3 ? '#111' : '#fff';
}

function boot(): void {
  if (window.Service) return; // loaded twice: the first copy owns the page
  const script =
    (document.currentScript as HTMLScriptElement | null) ??
    document.querySelector<HTMLScriptElement>('script[src*="/embed/v1.js"][data-agent-id]');
  if (!script) return;
  const data = script.dataset;
  const agentId = data.agentId ?? '';
  if (!/^agt_\w/.test(agentId)) return warn('data-agent-id is missing or does not start with "agt_"; no chat bubble.');
  const src = new URL(script.src, location.href);
  const base = src.origin + src.pathname.replace(/\/embed\/v1\.js$/, '');
  // The site's own colour also tints the panel's send button and visitor bubbles (passed in the hash);
  // without one the page keeps its default accent, whose white text has 4.5:1 contrast.
  const brand = data.color && CSS.supports('color', data.color) ? data.color : '';
  const color = brand || '#059669';
  const left = data.position === 'bottom-left';
  let user: User = { id: data.userId || anonymousId(agentId), name: data.userName, email: data.userEmail, token: data.userToken };

  let host: HTMLElement | undefined;
  let launcher: HTMLButtonElement | undefined;
  let panel: HTMLElement | undefined;
  let frame: HTMLIFrameElement | undefined;
  let title = data.title || 'Chat';
  let wantOpen = false;

  /** Hash of the iframe: the visitor, and our origin so the page can post "close" to exactly us. */
  const frameUrl = (): string => {
    const params = new URLSearchParams({ uid: user.id });
    if (user.name) params.set('name', user.name);
    if (user.email) params.set('email', user.email);
    if (user.token) params.set('token', user.token);
    if (brand) params.set('color', brand);
    params.set('origin', location.origin);
    return `${base}/embed/${encodeURIComponent(agentId)}#${params}`;
  };

  const setOpen = (open: boolean): void => {
    wantOpen = open;
    if (!host || !launcher || !panel) return;
    if (!host.isConnected) document.body.append(host); // a single-page app replaced the body's content
    if (open && !frame) {
      const created = node('iframe', { title, src: frameUrl() });
      // Focusing a frame whose document does not exist yet is lost: focus it again once loaded.
      created.addEventListener('load', () => wantOpen && document.activeElement === host && created.contentWindow?.focus(), { once: true });
      panel.append((frame = created));
    }
    panel.hidden = !open;
    launcher.setAttribute('aria-expanded', String(open));
    launcher.replaceChildren(icon(open ? DOWN_ICON : CHAT_ICON, !open));
    // Focus follows the panel; on close it returns to the launcher if it was inside the widget
    // (in the iframe, the page's activeElement is our host element).
    if (open) frame?.focus();
    else if (document.activeElement === host) launcher.focus();
  };

  const mount = (name: string | undefined): void => {
    title = data.title || name || title;
    host = document.createElement('hosted-agents-chat'); // our own tag: page rules for div & co. miss it
    const root = host.attachShadow({ mode: 'open' });
    if ('adoptedStyleSheets' in root && 'replaceSync' in CSSStyleSheet.prototype) {
      const sheet = new CSSStyleSheet(); // constructed sheets also pass pages whose CSP forbids inline <style>
      sheet.replaceSync(LOADER_CSS);
      root.adoptedStyleSheets = [sheet];
    } else {
      root.append(node('style', {}, document.createTextNode(LOADER_CSS)));
    }
    const side = left ? 'left' : '';
    const close = node('button', { type: 'button', class: 'close', 'aria-label': 'Close chat' }, icon(CLOSE_ICON));
    panel = node(
      'div',
      { class: `panel ${side}`, role: 'dialog', 'aria-labelledby': 'title', id: 'panel' },
      node('div', { class: 'bar' }, node('span', { class: 'title', id: 'title' }, document.createTextNode(title)), close),
    );
    panel.hidden = true;
    launcher = node('button', {
      type: 'button',
      class: `launcher ${side}`,
      'aria-label': `Open chat with ${title}`,
      'aria-controls': 'panel',
      'aria-expanded': 'false',
    });
    root.append(panel, launcher);
    document.body.append(host);
    launcher.style.setProperty('--c', color);
    panel.style.setProperty('--c', color);
    launcher.style.setProperty('--f', readableOn(getComputedStyle(launcher).backgroundColor));
    launcher.addEventListener('click', () => setOpen(panel?.hidden ?? false));
    close.addEventListener('click', () => setOpen(false));
    root.addEventListener('keydown', (event) => {
      if ((event as KeyboardEvent).key === 'Escape' && wantOpen) setOpen(false);
    });
    setOpen(wantOpen);
  };

  // Escape pressed inside the iframe reaches us only as this message; both ends are checked.
  window.addEventListener('message', (event) => {
    const msg = event.data as { type?: unknown } | null;
    if (frame && event.source === frame.contentWindow && event.origin === src.origin && msg?.type === 'hosted-agents:close') {
      setOpen(false);
    }
  });

  window.Service = {
    open: () => setOpen(true),
    close: () => setOpen(false),
    identify(next: User) {
      if (!next || typeof next.id !== 'string' || !next.id) return warn('identify() needs { id: string }.');
      user = { id: next.id, name: next.name, email: next.email, token: next.token };
      // Only the fragment changes: the page sees a hashchange, not a reload; a new id is a new conversation.
      if (frame && frame.src !== frameUrl()) frame.src = frameUrl();
    },
  };

  const start = (): void => {
    void fetch(`${base}/v1/public/agents/${encodeURIComponent(agentId)}`)
      .then((res): Promise<Agent | null> | Agent | null => (res.status === 404 ? null : res.ok ? res.json() : {}))
      .catch((): Agent => ({})) // unreachable now: still show the bubble, the page will say what is wrong
      .then((agent) => {
        if (!agent) return warn(`agent ${agentId} is not deployed to production; no chat bubble.`);
        // The owner's allowed origins (empty: anywhere): elsewhere the chat stays off, and says why.
        const allowed = agent.allowedOrigins;
        if (Array.isArray(allowed) && allowed.length && !allowed.includes(location.origin)) {
          return console.error(`[hosted-agents] ${location.origin} is not an allowed origin of agent ${agentId}; no chat bubble.`);
        }
        mount(typeof agent.name === 'string' ? agent.name : undefined);
      });
  };
  if (document.body) start();
  else document.addEventListener('DOMContentLoaded', start, { once: true });
}

boot();
