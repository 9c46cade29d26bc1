import { z } from 'zod';
import { identifier, limits } from './agent-fields';

/** An agent's external tools: the MCP servers whose tools it offers, and its own HTTP endpoints. */

const headersSchema = z.record(z.string().min(1).max(200), z.string().max(8000));
const httpUrl = z
  .string()
  .max(2000)
  .regex(/^https?:\/\/[^\s]+$/, 'an http:// or https:// URL');
const timeoutMs = z.number().int().min(100).max(300_000);

/**
 * Whether a person must approve a call before it runs (docs/approvals.md). Absent is `none`, so
 * configurations written before approvals existed read unchanged.
 */
const approvalSchema = z.enum(['required', 'none']).describe('`required`: each call waits for a person to approve it (docs/approvals.md); absent is `none`.');
const mcpApprovalSchema = z
  .union([approvalSchema, z.object({ tools: z.array(z.string().min(1).max(200)).min(1).max(limits.listItems) }).strict()])
  .describe('`required` for every tool of the server, `none`, or `{ tools: [...] }`: only the tools named (their names on the server) wait for approval.');

export const mcpServerSchema = z
  .object({
    name: identifier,
    url: httpUrl,
    transport: z.enum(['http', 'sse']).optional(),
    headers: headersSchema.optional(),
    timeoutMs: timeoutMs.optional(),
    approval: mcpApprovalSchema.optional(),
  })
  .strict()
  .meta({ id: 'McpServer' });

export const httpToolParamSchema = z
  .object({
    type: z.enum(['string', 'number', 'integer', 'boolean']),
    description: z.string().max(2000).optional(),
    required: z.boolean().optional(),
    in: z.enum(['path', 'query', 'header', 'body']).optional(),
    enum: z.array(z.union([z.string(), z.number()])).min(1).max(limits.listItems).optional(),
  })
  .strict()
  .meta({ id: 'HttpToolParam', description: '`in` defaults to query for GET and DELETE, body otherwise.' });

const pathPlaceholders = (url: string) => [...url.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);

export const httpToolSchema = z
  .object({
    name: identifier,
    description: z.string().min(1).max(2000),
    method: z.enum(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']),
    url: httpUrl,
    headers: headersSchema.optional(),
    body: z.string().max(100_000).optional(),
    params: z.record(identifier, httpToolParamSchema).optional(),
    secrets: z.array(identifier).max(limits.listItems).optional(),
    timeoutMs: timeoutMs.optional(),
    approval: approvalSchema.optional(),
  })
  .strict()
  .superRefine((tool, ctx) => {
    const params = tool.params ?? {};
    for (const placeholder of pathPlaceholders(tool.url)) {
      const p = params[placeholder];
      if (!p) ctx.addIssue({ code: 'custom', path: ['url'], message: `{${placeholder}} has no param of that name` });
      else if (effectiveParamLocation(tool.method, p) !== 'path')
        ctx.addIssue({ code: 'custom', path: ['params', placeholder, 'in'], message: `must be "path": the URL has {${placeholder}}` });
    }
    for (const [name, p] of Object.entries(params)) {
      if (p.in === 'path' && !pathPlaceholders(tool.url).includes(name))
        ctx.addIssue({ code: 'custom', path: ['params', name, 'in'], message: `the URL has no {${name}}` });
      if (p.in === 'path' && p.required === false)
        ctx.addIssue({ code: 'custom', path: ['params', name, 'required'], message: 'path params are always required' });
    }
  })
  .meta({ id: 'HttpTool' });

/** Where an HTTP tool param goes when `in` is not given. */
export function effectiveParamLocation(method: HttpTool['method'], p: HttpToolParam): NonNullable<HttpToolParam['in']> {
  return p.in ?? (method === 'GET' || method === 'DELETE' ? 'query' : 'body');
}

export type McpServer = z.infer<typeof mcpServerSchema>;
export type HttpTool = z.infer<typeof httpToolSchema>;
export type HttpToolParam = z.infer<typeof httpToolParamSchema>;
