-- settle_turn: the end of a turn by its worker, billed, in one round trip (docs/operations.md,
-- "What a turn asks of PostgreSQL"). In the caller's transaction or its own:
-- - no turn (or its conversation is gone): nothing, `settled` null (no row);
-- - the turn no longer running: nothing, `settled` false (a retried settlement writes nothing twice);
-- - else: the billed usage is the sum of the turn's `turn_step_usage` rows, or, for a turn with
--   none (started before migration 017), p_input/p_output at the grade's rate from p_rates; the
--   cost is rounded to 6 places; the turn ends through end_turn (its terminal event, its approvals,
--   its notification); p_reply, when not null, becomes the assistant message; a `done` turn, or one
--   that cost anything, is debited once (keyed by the turn).
-- It returns the grade the turn ran at (a manager's: its project's; an agent whose version is
-- gone: standard), when it started, and what it billed, for the worker's metrics.
--
-- A function and not one statement: what the steps consumed must be read *after* the turn's row
-- is locked (a step's append, which bumps its output tokens, takes the same row lock first).
-- Within one statement every part reads the snapshot taken when it began; in a PL/pgSQL function
-- each statement takes a fresh one.
create or replace function settle_turn(p_turn_id text, p_status text, p_terminal jsonb, p_reply text, p_input bigint, p_output bigint, p_rates jsonb, p_channel text, p_carry_max int)
returns table (settled boolean, grade text, started_at timestamptz, input_tokens bigint, output_tokens bigint, cost numeric)
language plpgsql as $$
declare
  v_conversation text;
  v_workspace text;
  v_rows bigint;
begin
  select t.started_at, c.id, c.workspace_id,
         case when c.agent_id is null and c.project_id is not null
              then coalesce((select p.grade from projects p where p.id = c.project_id), 'standard')
              else coalesce(v.config->>'grade', 'standard') end
    into started_at, v_conversation, v_workspace, grade
    from turns t join conversations c on c.id = t.conversation_id
    left join agent_versions v on v.agent_id = c.agent_id and v.number = c.version
   where t.id = p_turn_id;
  if v_conversation is null then
    return;
  end if;
  settled := false;
  -- Locks the turn's row: a step's append or progress write waits, then finds it ended.
  perform 1 from turns t where t.id = p_turn_id and t.status = 'running' for update;
  if not found then
    return next;
    return;
  end if;
  select count(*), sum(u.input_tokens), sum(u.output_tokens), sum((u.input_tokens + u.output_tokens) * u.credits_per_1k / 1000)
    into v_rows, input_tokens, output_tokens, cost
    from turn_step_usage u where u.turn_id = p_turn_id;
  if v_rows = 0 then
    input_tokens := p_input;
    output_tokens := p_output;
    cost := (p_input + p_output) / 1000.0 * coalesce((p_rates->>grade)::numeric, 0);
  end if;
  cost := round(coalesce(cost, 0), 6);
  perform end_turn(p_turn_id, p_status, p_terminal, jsonb_build_object('inputTokens', input_tokens, 'outputTokens', output_tokens), cost, p_channel, p_carry_max);
  if p_reply is not null then
    insert into messages (conversation_id, turn_id, role, content) values (v_conversation, p_turn_id, 'assistant', p_reply)
      on conflict (turn_id, role) do nothing;
  end if;
  if p_terminal->>'type' = 'done' or cost > 0 then
    with d as (insert into credit_debits (turn_id, workspace_id, amount) values (p_turn_id, v_workspace, settle_turn.cost)
                 on conflict (turn_id) do nothing returning amount)
    update workspaces w set credits = w.credits - d.amount from d where w.id = v_workspace;
  end if;
  settled := true;
  return next;
end
$$;
