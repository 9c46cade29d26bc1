-- notify_turn_events: the one builder of the notification a turn's appended events send on
-- p_channel (TURN_EVENTS_CHANNEL; decoded by db/turns/notification.ts for every API process's
-- streams). Called by each append (db/turns/statements.ts) and by end_turn.
--
-- p_events are the appended events in seq order, each `[type, data as text]` (the stored jsonb's
-- text, so a stream writes the bytes a read would have given it); the payload is
--   {"v": 1, "turnId", "first", "last", "events": [[type, data], ...]}
-- or, when that would pass p_carry_max bytes (PostgreSQL refuses a payload of 8000 bytes or more),
-- the same without "events": the turn's streams then read the range.
-- PL/pgSQL rather than SQL: its plan is kept for the session, where a SQL function that cannot be
-- inlined is planned again by every statement that calls it, and every append calls this one.
create or replace function notify_turn_events(p_channel text, p_turn_id text, p_first int, p_last int, p_events json, p_carry_max int)
returns void
language plpgsql as $$
declare
  v_carried text := json_build_object('v', 1, 'turnId', p_turn_id, 'first', p_first, 'last', p_last, 'events', p_events)::text;
begin
  perform pg_notify(p_channel, case when octet_length(v_carried) <= p_carry_max then v_carried
                                    else json_build_object('v', 1, 'turnId', p_turn_id, 'first', p_first, 'last', p_last)::text end);
end
$$;
