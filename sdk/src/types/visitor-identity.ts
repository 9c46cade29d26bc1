/**
 * Who may chat with a published agent: `anonymous` (default; a visitor's id is a routing hint that
 * grants nothing), `verified` (only visitors whose token your backend signed), `either` (both; only
 * signed visitors act as their end user and see that end user's connections and secrets).
 */
export type PublicIdentityMode = 'anonymous' | 'verified' | 'either';

/** An agent's visitor identity settings (`agent.visitorIdentity()`); never the secret itself. */
export interface VisitorIdentity {
  agentId: string;
  mode: PublicIdentityMode;
  /** When the current identity secret was created; null while the agent has none. */
  secretCreatedAt: string | null;
  /** Until when the secret the last rotation replaced still verifies; null when it no longer does. */
  previousSecretValidUntil: string | null;
}

/** What `agent.rotateVisitorSecret()` returns: the settings and the new secret, shown this once. */
export interface VisitorSecret extends VisitorIdentity {
  /** The HS256 key your backend signs visitor tokens with (`signVisitorToken`). Keep it server-side. */
  secret: string;
}
