import { Readable } from 'node:stream';
import { z } from 'zod';
import { type AuditEvent, auditEventSchema, auditFiltersSchema, listAuditQuerySchema } from '../../domain/audit';
import type { ApiDeps } from '../context';
import { workspaceOf } from '../context';
import { type ApiRouter, listSchema } from '../routing';

/** Rows the export reads per query: what it holds in memory at most, however long the log. */
const EXPORT_BATCH = 500;

/** JSON lines of `events`, one event a line. */
async function* jsonLines(events: AsyncIterable<AuditEvent>): AsyncGenerator<string> {
  for await (const event of events) yield `${JSON.stringify(event)}\n`;
}

/**
 * The workspace's audit log (docs/security.md, "Audit log"), owners only: pages of it, newest
 * first, and the whole of it (or what the filters select) as JSON lines.
 */
export function auditRoutes(r: ApiRouter, { repos, logger }: Pick<ApiDeps, 'repos' | 'logger'>): void {
  r.add(
    {
      method: 'get', path: '/v1/audit', operationId: 'listAudit', tag: 'Audit', role: 'owner',
      summary: 'The audit log, newest first, a page at a time: filter by actor, action, target and time; pass `nextCursor` back as `cursor` for the next page',
      query: listAuditQuerySchema,
      response: {
        status: 200,
        description: 'One page of rows; `nextCursor` is null on the last',
        schema: listSchema(auditEventSchema, { id: 'AuditEventList' }, { nextCursor: z.string().nullable() }),
      },
    },
    async (ctx, { query }) => {
      const { cursor, limit, ...filters } = query;
      return repos.audit.list({ workspaceId: workspaceOf(ctx), filters, cursor, limit });
    },
  );
  r.add(
    {
      method: 'get', path: '/v1/audit/export', operationId: 'exportAudit', tag: 'Audit', role: 'owner',
      summary: 'Every row the filters select, newest first, as JSON lines (one AuditEvent a line), streamed',
      query: auditFiltersSchema,
      response: { status: 200, description: 'One AuditEvent (JSON) a line', schema: auditEventSchema, contentType: 'application/x-ndjson' },
    },
    (ctx, { query }) => {
      const workspaceId = workspaceOf(ctx);
      ctx.type = 'application/x-ndjson';
      ctx.set('Content-Disposition', 'attachment; filename="audit.jsonl"');
      const body = Readable.from(jsonLines(repos.audit.iterate({ workspaceId, filters: query, batch: EXPORT_BATCH })));
      // Past the headers an error can only cut the stream short; the log says why.
      body.on('error', (err) => logger.error({ err, requestId: ctx.state.requestId }, 'the audit export failed part-way'));
      return body;
    },
  );
}
