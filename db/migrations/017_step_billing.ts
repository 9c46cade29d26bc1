import type { Knex } from 'knex';

/**
 * Billing a model step for what it consumed, however it ends (docs/http-api.md: Conversations and turns,
 * "Credits"). One row per attempt of a model step, written by the attempt itself: the input tokens
 * it counted before calling the model, then the output tokens of what it has streamed so far, then
 * — when the provider's usage arrives — that usage (`final`). A turn's settlement sums its rows,
 * so a step cut short by a cancel, a deadline, a failure or a dead worker is billed for what the
 * last write recorded, and each retried attempt pays for itself. `credits_per_1k` is the rate the
 * step is billed at, so what a running turn has consumed is one sum (the step checks read it).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('turn_step_usage', (t) => {
    t.text('turn_id').notNullable().references('turns.id').onDelete('CASCADE');
    /** The attempt: `<activityId>#<attempt>`, as it fences its appends (`turns.writer`). */
    t.text('writer').notNullable();
    t.integer('step').notNullable();
    t.integer('input_tokens').notNullable();
    t.integer('output_tokens').notNullable().defaultTo(0);
    t.boolean('final').notNullable().defaultTo(false);
    t.decimal('credits_per_1k', 20, 6).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.primary(['turn_id', 'writer']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('turn_step_usage');
}
