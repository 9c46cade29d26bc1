-- end_turn: the one way a running turn ends (docs/turns.md). Every ending calls it: the worker's
-- settle_turn, and the API's cancel, a webhook run or a turn that could not be started, and an
-- unstarted delegated turn (TurnsRepository.finish).
--
-- In the caller's transaction: when the turn p_turn_id is running, it ends with p_status,
-- p_usage and p_cost (either may be null: nothing billed), its terminal event p_terminal is
-- appended under the next seq, its pending approvals close (docs/approvals.md), and its streams
-- are notified (notify_turn_events). Returns the terminal event's seq, or null, writing nothing,
-- when the turn is not running (already ended, or gone): a retried ending writes nothing twice.
-- The turn's row stays locked to the caller's commit.
create or replace function end_turn(p_turn_id text, p_status text, p_terminal jsonb, p_usage jsonb, p_cost numeric, p_channel text, p_carry_max int)
returns int
language plpgsql as $$
declare
  v_seq int;
begin
  update turns t set last_seq = t.last_seq + 1, status = p_status, finished_at = now(), usage = p_usage, cost = p_cost
   where t.id = p_turn_id and t.status = 'running'
   returning t.last_seq into v_seq;
  if v_seq is null then
    return null;
  end if;
  insert into turn_events (turn_id, seq, type, data, step) values (p_turn_id, v_seq, p_terminal->>'type', p_terminal, null);
  update tool_approvals a set status = 'cancelled', decided_at = now() where a.turn_id = p_turn_id and a.status = 'pending';
  perform notify_turn_events(p_channel, p_turn_id, v_seq, v_seq, json_build_array(json_build_array(p_terminal->>'type', p_terminal::text)), p_carry_max);
  return v_seq;
end
$$;
