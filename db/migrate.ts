import type { Knex } from 'knex';
import type { Db } from './connect';
import * as m001 from './migrations/001_foundation';
import * as m002 from './migrations/002_agents_projects_files';
import * as m003 from './migrations/003_conversations_turns';
import * as m004 from './migrations/004_credentials';
import * as m005 from './migrations/005_tool_support';
import * as m006 from './migrations/006_publishing';
import * as m007 from './migrations/007_triggers';
import * as m008 from './migrations/008_webhooks';
import * as m009 from './migrations/009_project_conversations';
import * as m010 from './migrations/010_oauth_end_users';
import * as m011 from './migrations/011_worker_liveness';
import * as m012 from './migrations/012_turn_billing';
import * as m013 from './migrations/013_custom_domains';
import * as m014 from './migrations/014_limits';
import * as m015 from './migrations/015_unlogged_counters';
import * as m016 from './migrations/016_visitor_identity';
import * as m017 from './migrations/017_step_billing';
import * as m018 from './migrations/018_name_claims';
import * as m019 from './migrations/019_allowed_origins';
import * as m020 from './migrations/020_version_role';
import * as m021 from './migrations/021_version_role_default';
import * as m022 from './migrations/022_eval_cases';
import * as m023 from './migrations/023_eval_runs';
import * as m024 from './migrations/024_tool_approvals';
import * as m025 from './migrations/025_knowledge_index';
import * as m026 from './migrations/026_turn_settle';
import * as m027 from './migrations/027_turn_admit';
import * as m028 from './migrations/028_index_attempts';
import * as m029 from './migrations/029_judge_calls';
import * as m030 from './migrations/030_members';
import * as m031 from './migrations/031_audit_log';
import * as m032 from './migrations/032_end_user_erasure';
import * as m033 from './migrations/033_oidc_sign_in';
import * as m034 from './migrations/034_turn_lifecycle_sql';
import * as m035 from './migrations/035_conversation_search';

interface Migration {
  up(db: Knex): Promise<void>;
  down(db: Knex): Promise<void>;
}

/**
 * Migrations are listed in code (not globbed from disk) so they run the same under tsx,
 * compiled, and in the container image. Append new ones; never edit a released one's effect on
 * the schema (one that only defined functions may become a pointer to the migration that now
 * loads them: db/turns/sql-functions.ts).
 */
const migrations: ReadonlyArray<readonly [string, Migration]> = [
  ['001_foundation', m001],
  ['002_agents_projects_files', m002],
  ['003_conversations_turns', m003],
  ['004_credentials', m004],
  ['005_tool_support', m005],
  ['006_publishing', m006],
  ['007_triggers', m007],
  ['008_webhooks', m008],
  ['009_project_conversations', m009],
  ['010_oauth_end_users', m010],
  ['011_worker_liveness', m011],
  ['012_turn_billing', m012],
  ['013_custom_domains', m013],
  ['014_limits', m014],
  ['015_unlogged_counters', m015],
  ['016_visitor_identity', m016],
  ['017_step_billing', m017],
  ['018_name_claims', m018],
  ['019_allowed_origins', m019],
  ['020_version_role', m020],
  ['021_version_role_default', m021],
  ['022_eval_cases', m022],
  ['023_eval_runs', m023],
  ['024_tool_approvals', m024],
  ['025_knowledge_index', m025],
  ['026_turn_settle', m026],
  ['027_turn_admit', m027],
  ['028_index_attempts', m028],
  ['029_judge_calls', m029],
  ['030_members', m030],
  ['031_audit_log', m031],
  ['032_end_user_erasure', m032],
  ['033_oidc_sign_in', m033],
  ['034_turn_lifecycle_sql', m034],
  ['035_conversation_search', m035],
];

const source: Knex.MigrationSource<readonly [string, Migration]> = {
  getMigrations: async () => [...migrations],
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

/** Applies every pending migration; returns the names applied. Safe to run concurrently (knex locks). */
export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource: source, tableName: 'knex_migrations' })) as [
    number,
    string[],
  ];
  return applied;
}
