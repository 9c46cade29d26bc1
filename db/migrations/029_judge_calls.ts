import type { Knex } from 'knex';

/**
 * Judge calls are admitted and counted like model steps (issue 49, item 4).
 *
 * `judge_calls`: one row per attempt of an eval judge check's model call, written by the attempt as
 * it goes — its input counted before the call, then what it streamed if it is cut short, then the
 * provider's usage (`final`, with the check's `outcome`, which a retried grading reuses instead of
 * paying for the call again). `cost` is what the workspace has been debited for it so far: every
 * write debits the difference, in the same statement (the row is also the debit's key, mirrored in
 * `credit_debits`), so a judge call pays what it consumed however it ends and never twice.
 * `agent_id` makes its cost count in the agent's `spent`.
 *
 * This migration also defined the credit rule judge calls, model steps and admissions share
 * (`credit_check` and the two functions it reads) and replaced `admit_turn` to call it. Those
 * definitions now live in db/turns/sql/ (credits.v1.sql, admit_turn.v1.sql), loaded by migration
 * 034; see db/turns/sql-functions.ts for the convention.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('judge_calls', (t) => {
    /** `judge:<runId>:<caseId>:<check index>:<attempt>`: also the key of its `credit_debits` row. */
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('agent_id').notNullable();
    t.text('eval_run_id').notNullable().references('agent_eval_runs.id').onDelete('CASCADE');
    t.text('case_id').notNullable();
    t.integer('check_index').notNullable();
    t.integer('input_tokens').notNullable();
    t.integer('output_tokens').notNullable().defaultTo(0);
    t.decimal('credits_per_1k', 20, 6).notNullable();
    t.decimal('cost', 20, 6).notNullable().defaultTo(0);
    t.boolean('final').notNullable().defaultTo(false);
    t.jsonb('outcome');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.index(['agent_id']);
    t.index(['eval_run_id', 'case_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('judge_calls');
}
