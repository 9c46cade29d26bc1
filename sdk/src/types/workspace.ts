/** The workspace record. The server's schema is in `domain/workspace.ts`. */

/**
 * A workspace: owner of agents and projects, holding a credit balance. This is the record
 * `ws.get()` resolves to; the handle you call methods on is a `WorkspaceClient`.
 */
export interface Workspace {
  /** Workspace id. */
  id: string;
  /** Display name. */
  name: string;
  /** Credit balance; turns debit it. */
  credits: number;
  /** When the workspace was created. */
  createdAt: string;
  /**
   * E-mail domains (`example.com`) whose verified addresses may join by OIDC sign-in as `viewer`s;
   * empty: only members and invited people sign in. Owners change it with `ws.update()`.
   */
  signInDomains: string[];
}

/** What `ws.update()` changes; absent fields stay as they are. */
export interface WorkspaceUpdate {
  /** Lower-case domain names, at most 20; replaces the list. */
  signInDomains?: string[];
}

/**
 * What a member or an API key may do in the workspace; each role can do everything the next can:
 * `owner` (members, keys, domains, credit caps, audit, end users' data) ⊃ `builder` (agents,
 * versions, deployments, evals, knowledge, triggers, secrets) ⊃ `reviewer` (every conversation,
 * approvals, eval runs) ⊃ `viewer` (read-only; the teammate conversations they started).
 */
export type WorkspaceRole = 'owner' | 'builder' | 'reviewer' | 'viewer';

/** An API key's record; the key itself is shown once, by `ws.keys.create`. */
export interface ApiKey {
  /** Key id (`key_…`). */
  id: string;
  workspaceId: string;
  /** The key's first characters (`sk_ab12`), to tell keys apart. */
  prefix: string;
  /** What the key may do; keys made before roles existed are `owner`. */
  role: WorkspaceRole;
  name: string;
  createdAt: string;
  /** When the key last authenticated a request (updated at most about once a minute), or null. */
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** What `ws.keys.create` resolves to: the record and the key, which is never shown again. */
export interface CreatedApiKey {
  key: ApiKey;
  apiKey: string;
}
