import type { Knex } from 'knex';

/**
 * Keeps 020_version_role online (docs/operations.md#upgrading). 020 made `agent_versions.role`
 * NOT NULL with no default, but the release before it inserts versions without `role`: during a
 * rolling upgrade its API replicas failed every agent create and update (each writes a version)
 * with a NOT NULL violation, a 500. A BEFORE INSERT row trigger gives a version without a role its
 * agent's current role, which is the role that release meant (its agents could not change role);
 * BEFORE ROW triggers run before the NOT NULL check. This release always writes `role`, so the
 * trigger never changes its rows. Once no process of a release before 020 can run, a later
 * migration may drop it.
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
    create function agent_versions_role_default() returns trigger language plpgsql as $$
    begin
      if new.role is null then
        select a.role into new.role from agents a where a.id = new.agent_id;
      end if;
      return new;
    end
    $$`);
  await db.raw(`
    create trigger agent_versions_role_default before insert on agent_versions
    for each row execute function agent_versions_role_default()`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop trigger if exists agent_versions_role_default on agent_versions');
  await db.raw('drop function if exists agent_versions_role_default()');
}
