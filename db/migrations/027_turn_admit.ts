import type { Knex } from 'knex';

/**
 * `admit_turn`: the checks every start of a turn shares (turns/admission.ts), and the running
 * turn's insert, in one round trip instead of eight statements. In order, in the caller's
 * transaction:
 * - with `p_conversation`: a running turn of it refuses (`turn_in_progress`, its id);
 * - under the workspace's advisory lock (held to commit, so racing starts of any replica or worker
 *   cannot both take the last place): `p_max_running` running turns refuse (`running_turns_limit`,
 *   the count);
 * - under the workspace row's lock: a balance that, less what its running turns hold (their
 *   reservation, or what they consumed once that is more), does not cover `p_reserve` or is not
 *   positive refuses (`workspace`, what is available); an agent whose cap its finished turns' cost
 *   plus its running turns' holds plus `p_reserve` would pass refuses (`agent_cap`, cap and spent);
 * - with `p_conversation`: the running turn `p_turn_id` is inserted holding `p_reserve`; the partial
 *   unique index decides a race with another replica (`turn_in_progress` with the winner's id).
 * Without `p_conversation` (one created once the turn is admitted) only the checks run.
 * A function, not one statement: each check reads after the lock before it, as separate
 * statements did (a statement sees one snapshot, taken before it waited for a lock).
 */
export async function up(db: Knex): Promise<void> {
  await db.raw(`
create function admit_turn(p_workspace text, p_agent text, p_conversation text, p_reserve numeric, p_max_running int, p_turn_id text)
returns table (refused text, running_id text, running_count bigint, available numeric, cap numeric, spent numeric, turn_id text)
language plpgsql as $$
declare
  v_credits numeric;
begin
  if p_conversation is not null then
    select t.id into running_id from turns t where t.conversation_id = p_conversation and t.status = 'running' limit 1;
    if running_id is not null then
      refused := 'turn_in_progress';
      return next;
      return;
    end if;
  end if;
  perform pg_advisory_xact_lock(hashtext('running-turns:' || p_workspace));
  select count(*) into running_count from turns t where t.workspace_id = p_workspace and t.status = 'running';
  if running_count >= p_max_running then
    refused := 'running_turns_limit';
    return next;
    return;
  end if;
  select w.credits into v_credits from workspaces w where w.id = p_workspace for update;
  if not found then
    refused := 'workspace';
    available := 0;
    return next;
    return;
  end if;
  available := v_credits - coalesce((
    select sum(greatest(t.reserved, (select coalesce(sum((u.input_tokens + u.output_tokens) * u.credits_per_1k / 1000), 0) from turn_step_usage u where u.turn_id = t.id)))
      from turns t where t.workspace_id = p_workspace and t.status = 'running'), 0);
  if available < p_reserve or available <= 0 then
    refused := 'workspace';
    return next;
    return;
  end if;
  if p_agent is not null then
    select c.cap into cap from agent_credit_caps c where c.agent_id = p_agent;
    spent := coalesce((
      select sum(case when t.status = 'running'
                      then greatest(t.reserved, (select coalesce(sum((u.input_tokens + u.output_tokens) * u.credits_per_1k / 1000), 0) from turn_step_usage u where u.turn_id = t.id))
                      else coalesce(t.cost, 0) end)
        from turns t where t.agent_id = p_agent), 0);
    if cap is not null and spent + p_reserve > cap then
      refused := 'agent_cap';
      return next;
      return;
    end if;
  end if;
  if p_conversation is not null then
    insert into turns (id, conversation_id, workspace_id, agent_id, reserved) values (p_turn_id, p_conversation, p_workspace, p_agent, p_reserve)
      on conflict (conversation_id) where status = 'running' do nothing
      returning id into turn_id;
    if turn_id is null then
      select t.id into running_id from turns t where t.conversation_id = p_conversation and t.status = 'running' limit 1;
      refused := 'turn_in_progress';
    end if;
  end if;
  return next;
end
$$`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw('drop function if exists admit_turn(text, text, text, numeric, int, text)');
}
