import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';

/**
 * The SQL functions of a turn's lifecycle, as files in sql/ that migrations load: the rules of
 * admission, credits, ending and notifying are read, reviewed and tested as SQL, once.
 *
 * A file is named by its function and a version (`end_turn.v1.sql`). A changed function is a new
 * file (`.v2`) loaded by a new migration; the older file is deleted and the migration that loaded
 * it becomes a pointer to its successor, so a fresh database gets the newest definition only and
 * `grep` finds one. Each file is `create or replace` under the signature the previous release
 * calls, so loading it while that release serves is online-safe (docs/operations.md, Upgrading).
 *
 * The folder is read from the sources (build/db/turns/sql links to it, as build/embed/dist does).
 */
const SQL_DIR = path.join(__dirname, 'sql');

/** Reads one file of sql/, by its versioned name. */
function turnSql(file: string): string {
  return readFileSync(path.join(SQL_DIR, file), 'utf8');
}

/** Runs the files in order, each as one batch (PostgreSQL takes several statements in one simple query). */
export async function defineTurnFunctions(db: Knex, files: readonly string[]): Promise<void> {
  for (const file of files) await db.raw(turnSql(file));
}
