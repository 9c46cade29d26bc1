import type { Knex } from 'knex';
import { defineTurnFunctions } from '../turns/sql-functions';

/**
 * The turn lifecycle's SQL functions, from db/turns/sql/ (issue 52): the credit rule
 * (`credit_check` and the two it reads), `admit_turn`, the one notification builder
 * (`notify_turn_events`, also called by every append), the one ending of a turn (`end_turn`, which
 * the API's endings call too) and `settle_turn`, which now ends through it.
 *
 * Migrations 026, 027 and 029 defined the first versions inline; they now point here, so a fresh
 * database gets these definitions only. On a database that ran them, this replaces each function
 * under the same signature and return type (online-safe: the previous release's statements keep
 * working) and adds the two new ones.
 */
const FILES = ['credits.v1.sql', 'admit_turn.v1.sql', 'notify_turn_events.v1.sql', 'end_turn.v1.sql', 'settle_turn.v1.sql'] as const;

export async function up(db: Knex): Promise<void> {
  await defineTurnFunctions(db, FILES);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop function if exists settle_turn(text, text, jsonb, text, bigint, bigint, jsonb, text, int)');
  await db.raw('drop function if exists end_turn(text, text, jsonb, jsonb, numeric, text, int)');
  await db.raw('drop function if exists notify_turn_events(text, text, int, int, json, int)');
  await db.raw('drop function if exists admit_turn(text, text, text, numeric, int, text)');
  await db.raw('drop function if exists credit_check(text, text, text, numeric)');
  await db.raw('drop function if exists workspace_credits_available(text, text)');
  await db.raw('drop function if exists agent_credits_spent(text, text)');
}
