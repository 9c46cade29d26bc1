import type { Knex } from 'knex';

/**
 * Evaluation cases (domain/evals.ts): per agent, a conversation to replay and checks on its
 * result, keyed by a case id the builder chooses. An agent setting beside the versions (like
 * `agent_allowed_origins`): changing a case publishes no version. `definition` is the case as
 * validated, defaults filled in: `{ messages, parameters, checks }`.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('agent_eval_cases', (t) => {
    t.text('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
    t.text('case_id').notNullable();
    t.jsonb('definition').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['agent_id', 'case_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('agent_eval_cases');
}
