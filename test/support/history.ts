import type { Client } from '@temporalio/client';

/**
 * Every payload of a workflow's history, decoded to text: what anyone with access to the
 * Temporal UI or API could read about a run.
 */
export async function historyText(client: Client, workflowId: string): Promise<string> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const parts: string[] = [];
  const walk = (value: unknown): void => {
    if (value instanceof Uint8Array) {
      parts.push(Buffer.from(value).toString('utf8'));
      return;
    }
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') for (const v of Object.values(value)) walk(v);
    else if (typeof value === 'string') parts.push(value);
  };
  walk(history);
  return parts.join('\n');
}

export interface WirePayload {
  metadata: Record<string, string>;
  data: string;
}

/** Every payload of a workflow's history as the codec endpoint takes them (base64 metadata and data). */
export async function historyPayloads(client: Client, workflowId: string): Promise<WirePayload[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const out: WirePayload[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object' || value instanceof Uint8Array) return;
    const v = value as { metadata?: Record<string, Uint8Array>; data?: Uint8Array };
    if (v.metadata && typeof v.metadata === 'object' && v.data instanceof Uint8Array) {
      out.push({
        metadata: Object.fromEntries(Object.entries(v.metadata).map(([k, b]) => [k, Buffer.from(b).toString('base64')])),
        data: Buffer.from(v.data).toString('base64'),
      });
      return;
    }
    for (const child of Object.values(value)) walk(child);
  };
  walk(history);
  return out;
}
