import type { Scope } from './agent.js';

/**
 * Credentials: the secret and connection values `bind`/`attach` supply, and where connections
 * stand. The server's schemas are in `domain/credentials.ts`.
 */

/**
 * Secret values by name, for `bind({ secrets })` and `attach({ secrets })`: each name must be a
 * `Secret` the agent declares, and each value a non-empty string (an API key, a password).
 */
export type SecretsInput = Record<string, string>;

/**
 * The value of a `Connection`, for `bind({ connections })` and `attach(connection)`: the OAuth
 * tokens of an account, obtained by the caller. `provider` must be a connection the agent
 * declares.
 */
export interface ConnectionInput {
  /** The declared connection this value is for. */
  provider: string;
  /** The token tools send to the provider. */
  accessToken: string;
  /** Kept for tools that can refresh the access token. */
  refreshToken?: string;
  /** When `accessToken` stops working: an ISO 8601 date-time (a `Date` is sent as one). Past it, the connection is reported as expired and no longer counts as supplied. */
  expiresAt?: string | Date;
  /** Which account this is (e.g. its e-mail address); shown in `ConnectionStatus`, unlike the tokens. */
  accountLabel?: string;
}

/** What `bind` supplies: secret values by name and connection values. Both optional; given names replace their stored values, others stay. */
export interface BindInput {
  secrets?: SecretsInput;
  connections?: ConnectionInput[];
}

/** What `attach` takes: one connection, several, or `{ secrets }`. */
export type AttachInput = ConnectionInput | ConnectionInput[] | { secrets?: SecretsInput };

/**
 * Where a connection stands (`agent.connections()`, `conversation.connections()`). Values
 * themselves are never returned.
 */
export interface ConnectionStatus {
  /** The connection's provider. */
  provider: string;
  /** Whether the agent's version declares it (a stored value of an undeclared provider is listed with `declared: false`). */
  declared: boolean;
  /** Whether the declaration marks it required. */
  required: boolean;
  /** The declared scope; absent when not declared. */
  scope?: Scope;
  /** A value is supplied where its scope says and has not expired. */
  connected: boolean;
  /** Who supplied the value: `agent` (bound to the agent) or `conversation`. (`workspace` is never answered by this service.) */
  suppliedBy?: 'conversation' | 'agent' | 'workspace';
  /** The `accountLabel` given with the value. */
  accountLabel?: string;
  /** Why a supplied value is not used, e.g. `token expired`. */
  error?: string;
}
