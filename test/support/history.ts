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
