import type { Knex } from 'knex';

/**
 * Defined `admit_turn` inline, the first version of a turn's admission in one round trip. Its
 * definition now lives in db/turns/sql/admit_turn.v1.sql, loaded by migration 034: a fresh
 * database gets it there (nothing before 034 calls it), and a database that ran this keeps its
 * copy until 034 replaces it. See db/turns/sql-functions.ts for the convention.
 */
export async function up(_db: Knex): Promise<void> {}

export async function down(_db: Knex): Promise<void> {}
