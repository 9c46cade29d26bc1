-- admit_turn: the checks every start of a turn shares (turns/admission.ts), and the running turn's
-- insert, in one round trip. In order, in the caller's transaction:
-- - with p_conversation: a running turn of it refuses (turn_in_progress, its id);
-- - under the workspace's advisory lock (held to commit, so racing starts of any replica or worker
--   cannot both take the last place): p_max_running running turns refuse (running_turns_limit, the count);
-- - under the workspace row's lock: credit_check (credits.v1.sql) for p_reserve refuses (workspace
--   or agent_cap, with what is available, the cap and what is spent); a missing workspace refuses
--   (workspace, nothing available);
-- - with p_conversation: the running turn p_turn_id is inserted holding p_reserve; the partial
--   unique index decides a race with another replica (turn_in_progress with the winner's id).
-- Without p_conversation only the checks run: a turn of a conversation created once they pass
-- calls it again with the new conversation (its locks are held already), so every running turn
-- is inserted here.
-- A function, not one statement: each check reads after the lock before it, as separate
-- statements did (a statement sees one snapshot, taken before it waited for a lock).
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
$$;
