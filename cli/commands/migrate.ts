import type { Config } from '../../config/env';
import { createDb } from '../../db/connect';
import { migrateLatest } from '../../db/migrate';
import { ensureSearchAttributes } from '../../infra/search-attributes';
import { connectTemporalClient, temporalTargetFromConfig } from '../../infra/temporal-connection';
import { openDatabase, type Say } from '../backing-services';

/**
 * `hosted-agents migrate`: applies database migrations and, when TEMPORAL_ADDRESS is set,
 * registers the custom search attributes on the namespace. Both steps are idempotent.
 */
export async function migrateCommand(config: Config, say: Say): Promise<void> {
  const database = await openDatabase(config, say);
  const db = createDb({ url: database.url, poolMax: 2 });
  try {
    const applied = await migrateLatest(db);
    say(applied.length ? `migrations applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await db.destroy();
    await database.stop();
  }
  if (!config.TEMPORAL_ADDRESS) return;
  const client = await connectTemporalClient(temporalTargetFromConfig(config, config.TEMPORAL_ADDRESS));
  try {
    const added = await ensureSearchAttributes(client.connection, config.TEMPORAL_NAMESPACE);
    say(added.length ? `search attributes registered: ${added.join(', ')}` : 'search attributes are registered');
  } catch (e) {
    say(`could not register search attributes (${e instanceof Error ? e.message : String(e)}); ` +
      'register WorkspaceId, AgentId, ConversationId, ProjectId and EvalRunId (Keyword) on the namespace yourself');
  } finally {
    await client.connection.close();
  }
}
