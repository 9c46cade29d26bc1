-- The one credit rule of turns, model steps and judge calls (docs/operations.md, "Credits").
--
-- What a turn has consumed is the sum of its steps' `turn_step_usage` rows at each row's rate:
--   (u.input_tokens + u.output_tokens) * u.credits_per_1k / 1000
-- A running turn holds the greater of its reservation and what it has consumed.
--
-- The three are `language sql stable` set-returning functions of one SELECT, so PostgreSQL inlines
-- them into the calling statement (the prepared step check is still planned once per connection).

-- What counts against an agent's cap: its finished turns' cost, its running turns' holds (for
-- `p_turn`, the one asking, what it consumed), and its judge calls' cost.
create or replace function agent_credits_spent(p_agent text, p_turn text)
returns table (spent numeric)
language sql stable as $$
  select coalesce((select sum(case when t.id = p_turn then (select coalesce(sum((u.input_tokens + u.output_tokens) * u.credits_per_1k / 1000), 0) from turn_step_usage u where u.turn_id = t.id)
                                  when t.status = 'running' then greatest(t.reserved, (select coalesce(sum((u.input_tokens + u.output_tokens) * u.credits_per_1k / 1000), 0) from turn_step_usage u where u.turn_id = t.id))
                                  else coalesce(t.cost, 0) end)
                     from turns t where t.agent_id = p_agent), 0)
       + coalesce((select sum(j.cost) from judge_calls j where j.agent_id = p_agent), 0)
$$;

-- The balance less what its running turns hold (`p_turn`, the one asking, counts what it consumed
-- instead). Judge calls hold nothing: their cost is already out of the balance.
create or replace function workspace_credits_available(p_workspace text, p_turn text)
returns table (available numeric)
language sql stable as $$
  select w.credits
         - coalesce((select sum(greatest(t.reserved, (select coalesce(sum((u.input_tokens + u.output_tokens) * u.credits_per_1k / 1000), 0) from turn_step_usage u where u.turn_id = t.id))) from turns t
                      where t.workspace_id = w.id and t.status = 'running' and t.id is distinct from p_turn), 0)
         - coalesce((select (select coalesce(sum((u.input_tokens + u.output_tokens) * u.credits_per_1k / 1000), 0) from turn_step_usage u where u.turn_id = t.id) from turns t where t.id = p_turn), 0)
    from workspaces w where w.id = p_workspace
$$;

-- Whether something costing at least `p_need` may start: `refused` null, or `workspace` (the
-- available balance is not positive or does not cover `p_need`), or `agent_cap` (`spent` reached
-- the cap, or `p_need` would pass it); `spent` is computed only for a capped agent. Called before
-- every model step (CreditsRepository.beginStep), every judge call (JudgeCallsRepository.begin)
-- and, under its locks, by admit_turn. `offset 0` keeps the balance and `spent` subqueries
-- computed once each: pulled up, their expressions would be copied into each of their uses.
create or replace function credit_check(p_workspace text, p_agent text, p_turn text, p_need numeric)
returns table (available numeric, cap numeric, spent numeric, refused text)
language sql stable as $$
  select a.available, c.cap, s.spent,
         case when a.available <= 0 or a.available < p_need then 'workspace'
              when c.cap is not null and (s.spent >= c.cap or s.spent + p_need > c.cap) then 'agent_cap' end
    from (select * from workspace_credits_available(p_workspace, p_turn) offset 0) a
    left join agent_credit_caps c on c.agent_id = p_agent
    left join lateral (select x.spent from agent_credits_spent(p_agent, p_turn) x where c.cap is not null offset 0) s on true
$$;
