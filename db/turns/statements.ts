// The lifecycle's statements that run as SQL text (the rest are functions in sql/): a model step's
// claim and the append every event takes, with the bindings each expects.
import type { Knex } from 'knex';
import type { TurnEvent } from '../../domain/turn-events';
import { prepared } from '../prepared';
import { CARRY_EVENTS_MAX_BYTES, TURN_EVENTS_CHANNEL } from './notification';

/** A model step's claim (`claimStep`): prepared, as planning it cost more than running it. */
export const CLAIM_STEP = prepared(
  'claim-step-1',
  `with a as (
         insert into activity_attempts (task_token, worker, workflow_id) values (?, ?, ?) on conflict (task_token) do nothing),
       t as (update turns set writer = ? where id = ? and status = 'running' returning *),
       x as (
         select to_jsonb(t) as turn, to_jsonb(c) as conversation, v.config, c.id as conversation_id,
                case when c.agent_id is null and c.project_id is not null then (select p.grade from projects p where p.id = c.project_id)
                     else coalesce(v.config->>'grade', 'standard') end as grade
           from t join conversations c on c.id = t.conversation_id
           left join agent_versions v on v.agent_id = c.agent_id and v.number = c.version)
       select x.turn, x.conversation, x.config,
              (select coalesce(json_agg(json_build_object('seq', w.seq, 'turn_id', w.turn_id, 'role', w.role, 'content', w.content,
                                                          'attachments', w.attachments, 'at', w.at, 'total', w.total) order by w.seq), '[]'::json)
                 from (select m.seq, m.turn_id, m.role, m.content, m.attachments, m.at,
                              sum(length(m.content)) over (order by m.seq desc) as through, count(*) over () as total
                         from messages m where m.conversation_id = x.conversation_id) w
                where w.through - length(w.content) <= coalesce((?::jsonb->>x.grade)::bigint, 0)) as recent
         from x`,
);

/**
 * `append`'s common table expressions, after `with` (opening a turn puts its own before them):
 * take n sequence numbers, insert the events under them, record the writer's output, and notify
 * (`notify_turn_events`); no row when the turn has ended or another writer holds it.
 */
export const APPEND_CTES = `t as (
         update turns set last_seq = last_seq + ?
          where id = ? and status = 'running' and (?::text is null or writer = ?)
          returning last_seq),
       ins as (
         insert into turn_events (turn_id, seq, type, data, step)
         select ?, t.last_seq - ? + e.ord, e.value->>'type', e.value, ?::int
           from t cross join jsonb_array_elements(?::jsonb) with ordinality as e(value, ord)
         returning seq, type, data),
       used as (
         update turn_step_usage set output_tokens = greatest(output_tokens, ?::int)
          where ?::int is not null and turn_id = ? and writer = ? and not final and exists (select 1 from t))
       select notify_turn_events(?, ?, min(ins.seq), max(ins.seq), json_agg(json_build_array(ins.type, ins.data::text) order by ins.seq), ?)
         from ins having count(*) > 0`;

/** The bindings of `APPEND_CTES`, in order. */
export function appendValues(input: { turnId: string; events: TurnEvent[]; step?: number; writer?: string; outputTokens?: number }): Knex.Value[] {
  const n = input.events.length;
  const writer = input.writer ?? null;
  const output = input.outputTokens ?? null;
  return [n, input.turnId, writer, writer, input.turnId, n, input.step ?? null, JSON.stringify(input.events), output, output, input.turnId, writer, TURN_EVENTS_CHANNEL, input.turnId, CARRY_EVENTS_MAX_BYTES];
}

/** `append`'s statement: one per text batch of every turn, so prepared outside a transaction. */
export const APPEND_SQL = `with ${APPEND_CTES}`;
export const APPEND = prepared('append-events-2', APPEND_SQL);
