import type { Knex } from 'knex';

/**
 * Evaluation runs (domain/eval-runs.ts): one run replays a snapshot of an agent's cases against
 * one version, each case as ordinary turns of a throw-away conversation, and stores each case's
 * outcome with its evidence.
 * - `cases`: the cases as they stood when the run began (editing a case later changes no run).
 * - `results`: case id → outcome, written as each case is graded.
 * - `origin`: who started it; unique, so a retried start of a deployment's gate finds its run.
 * - `conversations.eval_run_id` / `eval_case_id`: a case's conversation, unique per run and case
 *   so a retried start finds it; such conversations stay out of the agent's conversation list.
 * - `agent_versions.deploy_evals`: what the eval gate said when the version was promoted
 *   (`{ runId, passed, … }`, or `{ skipped: true }` for `deployToProd(…, { skipEvals: true })`).
 * - `agents.eval_pass_rate`: the gate's threshold; null is the default rule (no regression).
 * New tables and nullable columns only: online-safe.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('agent_eval_runs', (t) => {
    t.text('id').primary();
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.integer('version_number').notNullable();
    t.text('purpose').notNullable();
    t.text('origin').unique();
    t.text('status').notNullable().defaultTo('running');
    t.jsonb('cases').notNullable();
    t.jsonb('results').notNullable().defaultTo('{}');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.index(['agent_id', 'created_at']);
  });
  await db.schema.alterTable('conversations', (t) => {
    t.text('eval_run_id');
    t.text('eval_case_id');
  });
  await db.raw('create unique index conversations_eval_case on conversations (eval_run_id, eval_case_id) where eval_run_id is not null');
  await db.schema.alterTable('agent_versions', (t) => {
    t.jsonb('deploy_evals');
  });
  await db.schema.alterTable('agents', (t) => {
    t.decimal('eval_pass_rate', 5, 4);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('agents', (t) => t.dropColumn('eval_pass_rate'));
  await db.schema.alterTable('agent_versions', (t) => t.dropColumn('deploy_evals'));
  await db.raw('drop index if exists conversations_eval_case');
  await db.schema.alterTable('conversations', (t) => {
    t.dropColumn('eval_run_id');
    t.dropColumn('eval_case_id');
  });
  await db.schema.dropTable('agent_eval_runs');
}
