import type { ApiKeysRepository } from '../../db/repositories/api-keys';
import type { Logger } from '../../infra/logger';
import { ApiKeyCache } from '../key-cache';
import { PgListener } from './pg-listener';
import { TurnEventHub } from '../sse/event-hub';

/** What follows the API process's one LISTEN connection: turn events and API key revocations. */
export interface ApiListening {
  hub: TurnEventHub;
  keyCache: ApiKeyCache;
  /** Connects and LISTENs; fails when the first connection fails (later losses reconnect). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `databaseUrl`: a real session (DATABASE_LISTEN_URL when DATABASE_URL is a transaction-mode pooler).
 * `keyCacheLimits` is for tests (a cache whose entries expire in a moment); the process keeps the defaults.
 */
export function apiListening(
  databaseUrl: string,
  logger: Logger,
  apiKeys: Pick<ApiKeysRepository, 'resolve'>,
  keyCacheLimits?: ConstructorParameters<typeof ApiKeyCache>[2],
): ApiListening {
  const listener = new PgListener(databaseUrl, logger);
  const hub = new TurnEventHub(listener, logger);
  const keyCache = new ApiKeyCache(apiKeys, listener, keyCacheLimits);
  return {
    hub,
    keyCache,
    start: () => listener.start(),
    async close() {
      hub.close();
      await listener.close();
    },
  };
}
