import type { HostedPageConfig } from '../../page-template';
import { uuid } from '../shared/uuid';

/** Who is chatting: self-attested (a routing hint, not a permission) unless `token`, signed by the site's backend, proves `id`. */
export interface Visitor {
  id: string;
  name?: string;
  email?: string;
  token?: string;
}

/** The config the server put in `#ha-config`, or null when it is missing or malformed. */
export function readConfig(doc: Document): HostedPageConfig | null {
  try {
    const raw: unknown = JSON.parse(doc.getElementById('ha-config')?.textContent ?? '');
    if (typeof raw !== 'object' || raw === null) return null;
    const c = raw as Partial<HostedPageConfig>;
    if (typeof c.agentId !== 'string' || typeof c.name !== 'string' || typeof c.apiBase !== 'string') return null;
    return {
      agentId: c.agentId,
      name: c.name,
      greeting: typeof c.greeting === 'string' ? c.greeting : null,
      apiBase: c.apiBase.replace(/\/+$/, ''),
      token: typeof c.token === 'string' ? c.token : null,
      mode: c.mode === 'test' ? 'test' : 'prod',
    };
  } catch {
    return null;
  }
}

/** Used when localStorage throws (blocked third-party storage, private modes): one id per page load. */
let memoryUid: string | undefined;

/** The uuid this browser keeps for the agent when the page is opened directly (no `uid` in the hash). */
function storedUid(agentId: string): string {
  const key = `ha:uid:${agentId}`;
  try {
    let id = localStorage.getItem(key);
    if (!id) {
      id = uuid();
      localStorage.setItem(key, id);
    }
    return id;
  } catch {
    return (memoryUid ??= uuid());
  }
}

/** The hash parameters v1.js sets: `uid`, `name`, `email`, `token`, and `origin` (the embedding page). */
function hashParams(hash: string): URLSearchParams {
  return new URLSearchParams(hash.replace(/^#/, ''));
}

/**
 * The visitor: the hash's `uid`/`name`/`email`/`token` win when the page is framed (set by the embed
 * script), else the stored uuid. Opened as a top-level page the hash is ignored: a link with
 * `#uid=<someone>` must not drop a visitor into a conversation its author can read.
 */
export function visitorFrom(hash: string, agentId: string): Visitor {
  const p = window.parent === window ? new URLSearchParams() : hashParams(hash);
  const visitor: Visitor = { id: p.get('uid')?.trim() || storedUid(agentId) };
  const name = p.get('name')?.trim();
  const email = p.get('email')?.trim();
  if (name) visitor.name = name;
  if (email) visitor.email = email;
  const token = p.get('token')?.trim();
  if (token) visitor.token = token;
  return visitor;
}

/**
 * The origin of the page embedding us through v1.js, for `postMessage`'s explicit targetOrigin;
 * null when the page is not framed by the embed script.
 */
export function embedderOrigin(hash: string): string | null {
  if (window.parent === window) return null;
  const origin = hashParams(hash).get('origin');
  if (!origin) return null;
  try {
    return new URL(origin).origin === origin ? origin : null;
  } catch {
    return null;
  }
}
