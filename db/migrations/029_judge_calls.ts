import type { Knex } from 'knex';
import { up as createAdmitTurn027 } from './027_turn_admit';

/**
 * Judge calls are admitted and counted like model steps (issue 49, item 4), and the credit rule
 * that decides both is written once, here, as SQL functions every check calls:
 *
 * - `judge_calls`: one row per attempt of an eval judge check's model call, written by the attempt
 *   as it goes — its input counted before the call, then what it streamed if it is cut short, then
 *   the provider's usage (`final`, with the check's `outcome`, which a retried grading reuses
 *   instead of paying for the call again). `cost` is what the workspace has been debited for it so
 *   far: every write debits the difference, in the same statement (the row is also the debit's
 *   key, mirrored in `credit_debits`), so a judge call pays what it consumed however it ends and
 *   never twice. `agent_id` makes its cost count in the agent's `spent`.
 * - `agent_credits_spent(agent, turn)`: what counts against an agent's cap — its finished turns'
 *   cost, its running turns' holds (their reservation, or what they consumed once that is more;
 *   for `turn`, the one asking, what it consumed), and its judge calls' cost.
 * - `workspace_credits_available(workspace, turn)`: the balance less what its running turns hold
 *   (`turn`, the one asking, counts what it consumed instead). Judge calls hold nothing: their
 *   cost is already out of the balance.
 * - `credit_check(workspace, agent, turn, need)`: whether something costing at least `need` may
 *   start — `refused` null, or `workspace` (the available balance is not positive or does not
 *   cover `need`), or `agent_cap` (`spent` reached the cap, or `need` would pass it); `spent` is
 *   computed only for a capped agent. Called before every model step (`CreditsRepository.beginStep`),
 *   every judge call (`JudgeCallsRepository.begin`) and, under its locks, by `admit_turn`, which
 *   is replaced here to call it: with a zero reservation a turn of an agent whose `spent` equals
 *   its cap is now refused at admission, as its first step already was.
 * The three are `language sql stable` set-returning functions of one SELECT, so PostgreSQL inlines
 * them into the calling statement (the prepared step check is still planned once per connection).
 * In `credit_check`, `offset 0` keeps the balance and `spent` subqueries computed once each: pulled
 * up, their expressions would be copied into each of their uses, as they were in the statement
 * the step check had (18 subplans in its plan, 5 now).
 * A new table, new functions and a function's body replaced under the same signature: the previous
 * release's statements keep working (online-safe).
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
  const consumed = '(select coalesce(sum((u.input_tokens + u.output_tokens) * u.credits_per_1k / 1000), 0) from turn_step_usage u where u.turn_id = t.id)';
  await db.raw(`
create function agent_credits_spent(p_agent text, p_turn text)
returns table (spent numeric)
language sql stable as $$
  select coalesce((select sum(case when t.id = p_turn then ${consumed}
                                  when t.status = 'running' then greatest(t.reserved, ${consumed})
                                  else coalesce(t.cost, 0) end)
                     from turns t where t.agent_id = p_agent), 0)
       + coalesce((select sum(j.cost) from judge_calls j where j.agent_id = p_agent), 0)
$$`);
  await db.raw(`
create function workspace_credits_available(p_workspace text, p_turn text)
returns table (available numeric)
language sql stable as $$
  select w.credits
         - coalesce((select sum(greatest(t.reserved, ${consumed})) from turns t
                      where t.workspace_id = w.id and t.status = 'running' and t.id is distinct from p_turn), 0)
         - coalesce((select ${consumed} from turns t where t.id = p_turn), 0)
    from workspaces w where w.id = p_workspace
$$`);
  await db.raw(`
create function credit_check(p_workspace text, p_agent text, p_turn text, p_need numeric)
returns table (available numeric, cap numeric, spent numeric, refused text)
language sql stable as $$
  select a.available, c.cap, s.spent,
         case when a.available <= 0 or a.available < p_need then 'workspace'
              when c.cap is not null and (s.spent >= c.cap or s.spent + p_need > c.cap) then 'agent_cap' end
    from (select * from workspace_credits_available(p_workspace, p_turn) offset 0) a
    left join agent_credit_caps c on c.agent_id = p_agent
    left join lateral (select x.spent from agent_credits_spent(p_agent, p_turn) x where c.cap is not null offset 0) s on true
$$`);
  // admit_turn (migration 027) as it was, but for its credit check, now credit_check's.
  await db.raw(`
create or replace function admit_turn(p_workspace text, p_agent text, p_conversation text, p_reserve numeric, p_max_running int, p_turn_id text)
returns table (refused text, running_id text, running_count bigint, available numeric, cap numeric, spent numeric, turn_id text)
language plpgsql as $$
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
  perform 1 from workspaces w where w.id = p_workspace for update;
  if not found then
    refused := 'workspace';
    available := 0;
    return next;
    return;
  end if;
  -- A statement of its own: it reads after the row lock above, as the checks it replaces did.
  select k.available, k.cap, k.spent, k.refused into available, cap, spent, refused
    from credit_check(p_workspace, p_agent, null, p_reserve) k;
  if refused is not null then
    return next;
    return;
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
  await createAdmitTurn027(db);
  await db.raw('drop function if exists credit_check(text, text, text, numeric)');
  await db.raw('drop function if exists workspace_credits_available(text, text)');
  await db.raw('drop function if exists agent_credits_spent(text, text)');
  await db.schema.dropTable('judge_calls');
}
