// The SDK's types are the contract of the stream (`event: <type>`, `data: <JSON>`); type-only, so
// they cost the bundle nothing.
import type { SSEMessage, Step, TurnEvent } from '../../../sdk/src';

const types = new Set(['start', 'progress', 'tool', 'text', 'file', 'approval', 'done', 'error']);

/** The turn event an SSE event carries, or undefined for anything else (unknown types, bad JSON). */
export function toTurnEvent(sse: SSEMessage): TurnEvent | undefined {
  let body: unknown;
  try {
    body = JSON.parse(sse.data);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const fields = body as Record<string, unknown>;
  const type = sse.event && sse.event !== 'message' ? sse.event : fields.type;
  if (typeof type !== 'string' || !types.has(type)) return undefined;
  const event = { ...fields, type } as TurnEvent;
  // The fields the page relies on; anything malformed is dropped rather than shown half-broken.
  if (event.type === 'text' && typeof event.text !== 'string') return undefined;
  if (event.type === 'done' && typeof event.reply !== 'string') return undefined;
  if (event.type === 'error' && typeof event.message !== 'string') return undefined;
  if (event.type === 'progress' && !Array.isArray(event.steps)) return undefined;
  if (event.type === 'approval' && (typeof event.approvalId !== 'string' || typeof event.tool !== 'string' || typeof event.arguments !== 'object' || event.arguments === null)) return undefined;
  return event;
}

/**
 * The reply text as streamed so far. `text` appends; `text` with `reset: true` replaces what
 * arrived since the last `tool` event (or since the start), because a retried model step resends
 * its whole text; a `tool` event closes the current segment.
 */
export class ReplyText {
  private settled = '';
  private segment = '';

  get text(): string {
    return this.settled + this.segment;
  }

  /** Applies `event`; true when the visible text changed. */
  apply(event: TurnEvent): boolean {
    if (event.type === 'tool') {
      this.settled += this.segment;
      this.segment = '';
      return false;
    }
    if (event.type !== 'text') return false;
    const before = this.segment;
    this.segment = event.reset ? event.text : this.segment + event.text;
    return this.segment !== before;
  }
}

/**
 * A short, calm line for what the agent is doing, or null when nothing is in progress. `tool` is
 * the name `tool` events show: the catalogue's (`files.write`), not the model's (`files_write`).
 */
export function activityLine(steps: Step[] | null, tool: string | null): string | null {
  const active = steps?.filter((s) => s.status === 'active').pop();
  if (active?.label) return clip(active.label);
  if (!tool) return null;
  if (tool === 'knowledge.search') return 'Searching knowledge…';
  if (tool.startsWith('files.')) return 'Working with files…';
  if (tool === 'plan') return 'Planning…';
  return 'Working…';
}

function clip(label: string): string {
  const line = label.replace(/\s+/g, ' ').trim().replace(/(\.\.\.|…)$/, '');
  return line.length > 80 ? `${line.slice(0, 79)}…` : `${line}…`;
}
