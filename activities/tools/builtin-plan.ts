import type { Step } from '../../domain/turn-events';
import type { BuiltInTool } from './builtin-types';

/**
 * `plan`: the agent keeps a visible step list. Each call replaces the plan; its items appear in
 * `progress` events (ids `plan-1`, `plan-2`…, kind `task`) before the tool-call steps.
 */
export function planTool(setPlan: (turnId: string, items: Step[]) => Promise<void>): BuiltInTool {
  return {
    name: 'plan',
    definition: {
      name: 'plan',
      description: 'Show the user your plan for this request as a step list. Each call replaces the list; update statuses as you go.',
      parameters: {
        type: 'object',
        properties: {
          steps: {
            type: 'array',
            minItems: 1,
            maxItems: 20,
            items: {
              type: 'object',
              properties: { label: { type: 'string' }, status: { type: 'string', enum: ['active', 'done', 'error'] } },
              required: ['label', 'status'],
              additionalProperties: false,
            },
          },
        },
        required: ['steps'],
        additionalProperties: false,
      },
    },
    describe: () => ({ label: 'Updating the plan', kind: 'plan' }),
    async run(ctx, args) {
      const raw = Array.isArray(args.steps) ? args.steps : undefined;
      if (!raw || raw.length === 0 || raw.length > 20) return { ok: false, content: 'steps must be a list of 1 to 20 items' };
      const items: Step[] = [];
      for (const [i, item] of raw.entries()) {
        const o = (item ?? {}) as Record<string, unknown>;
        const status = o.status;
        if (typeof o.label !== 'string' || !o.label.trim() || (status !== 'active' && status !== 'done' && status !== 'error')) {
          return { ok: false, content: `steps[${i}] needs a label and a status of active, done or error` };
        }
        items.push({ id: `plan-${i + 1}`, label: o.label.trim().slice(0, 200), kind: 'task', status });
      }
      await setPlan(ctx.turnId, items);
      return { ok: true, content: `plan updated: ${items.map((s) => `[${s.status}] ${s.label}`).join('; ')}` };
    },
  };
}
