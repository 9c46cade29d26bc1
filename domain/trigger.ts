import { CronExpressionParser } from 'cron-parser';
import { z } from 'zod';

/** The shortest interval a trigger may run at: one second, so tests and demos can use short intervals (each run still costs credits). */
const MIN_INTERVAL_SECONDS = 1;

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const CRON_VALUE = String.raw`(?:\d+|[A-Za-z]{3})`;
const CRON_FIELD = new RegExp(String.raw`^(?:\*|${CRON_VALUE}(?:-${CRON_VALUE})?)(?:/\d+)?(?:,(?:\*|${CRON_VALUE}(?:-${CRON_VALUE})?)(?:/\d+)?)*$`);

/** Five-field cron (minute hour day-of-month month day-of-week), as cron-parser reads it. */
function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return 'invalid cron expression: expected 5 fields (minute hour day month weekday)';
  // What Temporal Schedules accept: numbers, three-letter names, `*`, ranges, lists and steps (no L, W, #, ? or H).
  if (!fields.every((f) => CRON_FIELD.test(f))) return 'invalid cron expression: use numbers, names (MON, JAN), *, ranges, lists and steps only';
  try {
    CronExpressionParser.parse(expression, { tz: 'UTC' });
    return undefined;
  } catch (e) {
    return `invalid cron expression: ${e instanceof Error ? e.message : String(e)}`;
  }
}

const message = z.string().trim().min(1).max(10_000);

export const triggerSchema = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('chat') }).strict(),
    z
      .object({
        kind: z.literal('schedule'),
        cron: z.string().superRefine((v, ctx) => {
          const problem = cronProblem(v);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
        timezone: z
          .string()
          .refine(isTimeZone, 'unknown time zone (use an IANA name such as Europe/Paris)')
          .optional(),
        message,
      })
      .strict(),
    z
      .object({
        kind: z.literal('interval'),
        seconds: z.number().int().min(MIN_INTERVAL_SECONDS, `at least ${MIN_INTERVAL_SECONDS}`).max(366 * 24 * 3600),
        maxRuns: z.number().int().min(1).optional(),
        message,
      })
      .strict(),
    z
      .object({
        kind: z.literal('webhook'),
        message: message.optional(),
        url: z.string().regex(/^https?:\/\/\S+$/, 'an http:// or https:// URL').optional(),
      })
      .strict(),
  ])
  .meta({ id: 'Trigger', description: 'What starts a run of the agent; discriminated by `kind`.' });

export type Trigger = z.infer<typeof triggerSchema>;

export const triggersBodySchema = z
  .object({ triggers: z.array(triggerSchema).max(100) })
  .strict()
  .meta({ id: 'SetTriggers' });
