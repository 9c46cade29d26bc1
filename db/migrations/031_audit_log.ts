import type { Knex } from 'knex';

/**
 * The audit log (issue 50, item 6; docs/security.md, "Audit log"): `audit_events`, one row per
 * mutating call, sign-in, invite, key change, deployment… (domain/audit.ts, AuditEntry).
 *
 * - Append-only: a statement trigger refuses every UPDATE, DELETE and TRUNCATE of the table —
 *   whoever the database user is, the service's own included — except the DELETE that
 *   `audit_prune(before, max)` runs for the retention. That function sets the transaction-local
 *   setting `audit.pruning` the trigger checks, deletes at most `max` rows older than `before`,
 *   and clears the setting again, so nothing else in its transaction deletes with it. The app
 *   removes rows only through it (AuditRepository.prune, called by workers/retention-pruner.ts).
 *   This holds the application to the rule; it does not bind a database owner, who can drop the
 *   trigger (docs/security.md says so).
 * - `workspace_id` is not a foreign key. A key to `workspaces` with ON DELETE CASCADE would make a
 *   workspace's deletion delete its audit rows — which the trigger refuses, so the deletion would
 *   fail; without a cascade the rows would block it instead. The service never deletes a
 *   workspace (no code path does; the operator CLI neither), and the audit rows of one that an
 *   operator removes by hand outlive it until the retention prunes them, as an audit trail
 *   should. It is null for events that belong to no workspace (a sign-in attempt for an unknown
 *   e-mail).
 * - `seq` orders rows and is the list's cursor; `id` (`aud_…`) is what the API shows.
 * - `audit_target_ids(targets)`: the values of the `targets` object, indexed (GIN), so the
 *   list's `?target=` finds a row by any of its target ids whatever the key.
 * A new table and new functions: the release before this one ignores them (online-safe).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('audit_events', (t) => {
    t.bigIncrements('seq');
    t.text('id').notNullable().unique();
    t.timestamp('at', { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.text('workspace_id');
    t.text('actor_kind').notNullable();
    t.text('actor_id');
    t.text('actor_role');
    t.text('actor_email');
    t.text('action').notNullable();
    t.jsonb('targets').notNullable().defaultTo('{}');
    t.integer('version_before');
    t.integer('version_after');
    t.text('outcome').notNullable();
    t.integer('status');
    t.text('ip');
    t.text('user_agent');
    t.text('request_id');
    t.jsonb('detail').notNullable().defaultTo('{}');
    t.index(['workspace_id', 'seq']);
    t.index(['workspace_id', 'actor_id', 'seq']);
    t.index(['workspace_id', 'action', 'seq']);
    t.index(['workspace_id', 'at']);
    t.index(['at']);
  });
  await db.raw(`alter table audit_events
    add constraint audit_events_actor_kind_check check (actor_kind in ('key','member','anonymous','system')),
    add constraint audit_events_actor_role_check check (actor_role in ('owner','builder','reviewer','viewer')),
    add constraint audit_events_targets_object check (jsonb_typeof(targets) = 'object'),
    add constraint audit_events_detail_object check (jsonb_typeof(detail) = 'object')`);
  await db.raw(`
create function audit_target_ids(targets jsonb) returns text[]
language sql immutable strict parallel safe as $$
  select coalesce(array_agg(value), '{}') from jsonb_each_text(targets)
$$`);
  await db.raw('create index audit_events_target_ids on audit_events using gin (audit_target_ids(targets))');
  await db.raw(`
create function audit_events_append_only() returns trigger
language plpgsql as $$
begin
  if tg_op = 'DELETE' and current_setting('audit.pruning', true) = 'on' then
    return null;
  end if;
  raise exception 'audit_events is append-only: % refused (rows leave only through audit_prune, by age)', tg_op
    using errcode = 'insufficient_privilege';
end
$$`);
  await db.raw(`
create trigger audit_events_append_only
  before update or delete or truncate on audit_events
  for each statement execute function audit_events_append_only()`);
  await db.raw(`
create function audit_prune(p_before timestamptz, p_max integer) returns integer
language plpgsql as $$
declare
  n integer;
begin
  perform set_config('audit.pruning', 'on', true);
  delete from audit_events
   where seq in (select seq from audit_events where at < p_before order by at limit p_max);
  get diagnostics n = row_count;
  perform set_config('audit.pruning', '', true);
  return n;
end
$$`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('audit_events');
  await db.raw('drop function audit_prune(timestamptz, integer)');
  await db.raw('drop function audit_events_append_only()');
  await db.raw('drop function audit_target_ids(jsonb)');
}
