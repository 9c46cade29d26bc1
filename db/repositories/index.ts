import type { Db } from '../connect';
import { ApiKeysRepository } from './api-keys';
import { ProbesRepository } from './probes';
import { WorkspacesRepository } from './workspaces';

/** All repositories over one knex instance, wired by hand in one place. */
export function createRepositories(db: Db) {
  return {
    workspaces: new WorkspacesRepository(db),
    apiKeys: new ApiKeysRepository(db),
    probes: new ProbesRepository(db),
  };
}
export type Repositories = ReturnType<typeof createRepositories>;
