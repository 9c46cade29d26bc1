import { z } from 'zod';
import { identifier, limits, uniqueBy } from './agent-fields';
import { type HttpTool, httpToolSchema, mcpServerSchema } from './agent-tools';
import { type BuiltInToolName, builtInToolNames, fileToolsWithoutDrive, modelToolName, unknownToolMessage } from './tool-catalogue';
import { triggerSchema } from './trigger';

/**
 * The Agent resource as the API answers it (docs/http-api.md: Agents and versions), `role` included. One
 * zod schema per part, used by the API (validation), the activities, and the OpenAPI document.
 */

export const scopeSchema = z.enum(['fixed', 'conversation']).meta({ description: 'Who supplies the value: the agent (fixed) or each conversation.' });

/**
 * A playbook: instructions the agent follows when `when` applies. The API calls it a workflow —
 * the agent's `workflows` field and the `Workflow` schema keep that name on the wire — but in
 * this code base "workflow" means a Temporal workflow, so inside it is a playbook (README: Glossary).
 */
export const playbookSchema = z
  .object({
    name: z.string().trim().min(1).max(limits.nameLength),
    when: z.string().trim().min(1).max(2000),
    content: z.string().min(1).max(limits.playbookContentLength),
  })
  .strict()
  .meta({ id: 'Workflow', description: 'A playbook the agent follows when `when` applies.' });

export const connectionSchema = z
  .object({
    provider: identifier,
    scope: scopeSchema,
    required: z.boolean().optional(),
  })
  .strict()
  .meta({ id: 'Connection' });

export const secretSchema = z
  .object({
    name: identifier,
    scope: scopeSchema,
    required: z.boolean().optional(),
  })
  .strict()
  .meta({ id: 'Secret' });

const isoDate = /^\d{4}-\d{2}-\d{2}$/;

export const parameterSchema = z
  .object({
    name: identifier,
    type: z.enum(['string', 'number', 'date', 'choice']),
    required: z.boolean().optional(),
    default: z.string().max(10_000).optional(),
    choices: z.array(z.string().min(1).max(200)).min(1).max(limits.listItems).optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.type === 'choice' && !p.choices) ctx.addIssue({ code: 'custom', path: ['choices'], message: 'required when type is choice' });
    if (p.type !== 'choice' && p.choices) ctx.addIssue({ code: 'custom', path: ['choices'], message: 'only allowed when type is choice' });
    if (p.choices && new Set(p.choices).size !== p.choices.length) ctx.addIssue({ code: 'custom', path: ['choices'], message: 'must be unique' });
    if (p.default === undefined) return;
    if (p.type === 'number' && !Number.isFinite(Number(p.default)))
      ctx.addIssue({ code: 'custom', path: ['default'], message: 'must be a number' });
    if (p.type === 'date' && !(isoDate.test(p.default) && !Number.isNaN(Date.parse(p.default))))
      ctx.addIssue({ code: 'custom', path: ['default'], message: 'must be a date (YYYY-MM-DD)' });
    if (p.type === 'choice' && p.choices && !p.choices.includes(p.default))
      ctx.addIssue({ code: 'custom', path: ['default'], message: 'must be one of choices' });
  })
  .meta({ id: 'Parameter' });

export const roleSchema = z.enum(['freelancer', 'teammate']).meta({
  description: '`freelancer` agents are published to end users; `teammate` agents are used through the workspace API.',
});

/**
 * Who may decide a tool call that needs approval (docs/approvals.md): `workspace` (an API key) or
 * `visitor` (also the visitor of the public conversation, on the hosted page and the embed). Absent
 * is `workspace`, so versions written before approvals existed read unchanged.
 */
export const approversSchema = z.enum(['visitor', 'workspace']).describe('Who may approve or deny a tool call that needs approval: `workspace` (an API key; the default) or `visitor` (also the public conversation\'s visitor).');

/** How long a tool call waits for its decision before it is denied; absent is `DEFAULT_APPROVAL_TIMEOUT_MS`. */
const approvalTimeoutMsSchema = z
  .number()
  .int()
  .min(10_000)
  .max(7 * 24 * 3_600_000)
  .describe('Milliseconds a tool call waits for a decision before it is denied: 10000 (10 s) to 604800000 (7 days); absent is 86400000 (24 hours).');

/**
 * The list fields, without defaults. Kept apart because zod applies a `.default()` even under
 * `.optional()`: an update built from the defaulted forms would reset every list it omits to [].
 */
const listFields = {
  tools: z
    .array(z.enum(builtInToolNames, { error: (i) => unknownToolMessage(i.input) }))
    .max(limits.listItems)
    .superRefine((tools, ctx) => {
      const dup = tools.find((t, i) => tools.indexOf(t) !== i);
      if (dup) ctx.addIssue({ code: 'custom', message: `duplicate tool "${dup}"` });
    }),
  workflows: z.array(playbookSchema).max(limits.listItems).superRefine(uniqueBy((w) => w.name, 'workflow')),
  connections: z.array(connectionSchema).max(limits.listItems).superRefine(uniqueBy((c) => c.provider, 'connection', 'provider')),
  secrets: z.array(secretSchema).max(limits.listItems).superRefine(uniqueBy((s) => s.name, 'secret')),
  parameters: z.array(parameterSchema).max(limits.listItems).superRefine(uniqueBy((p) => p.name, 'parameter')),
  triggers: z.array(triggerSchema).max(limits.listItems),
  mcpServers: z.array(mcpServerSchema).max(limits.listItems).superRefine(uniqueBy((m) => m.name, 'MCP server')),
  httpTools: z.array(httpToolSchema).max(limits.listItems).superRefine(uniqueBy((t) => t.name, 'HTTP tool')),
};

/** Every configurable field, each with its default: the content of a version snapshot. */
const agentConfigShape = {
  name: z.string().trim().min(1).max(limits.nameLength),
  instructions: z.string().max(limits.instructionsLength).default(''),
  greeting: z.string().max(2000).optional(),
  grade: z.enum(['standard', 'premium']).default('standard'),
  filesystem: z.enum(['drive', 'none']).default('none'),
  tools: listFields.tools.default([]),
  workflows: listFields.workflows.default([]),
  connections: listFields.connections.default([]),
  secrets: listFields.secrets.default([]),
  parameters: listFields.parameters.default([]),
  triggers: listFields.triggers.default([]),
  mcpServers: listFields.mcpServers.default([]),
  httpTools: listFields.httpTools.default([]),
  approvals: approversSchema.optional(),
  approvalTimeoutMs: approvalTimeoutMsSchema.optional(),
};

/** Cross-field rules of a whole configuration. */
function checkConfig(config: { secrets: Secret[]; httpTools: HttpTool[]; tools: BuiltInToolName[] }, ctx: z.RefinementCtx): void {
  const declared = new Set(config.secrets.map((s) => s.name));
  config.httpTools.forEach((tool, i) => {
    (tool.secrets ?? []).forEach((name, j) => {
      if (!declared.has(name))
        ctx.addIssue({ code: 'custom', path: ['httpTools', i, 'secrets', j], message: `"${name}" is not a declared secret` });
    });
  });
  // The model calls both by their model name (`files.write` as `files_write`): two tools of one name would be one.
  const builtIn = new Map(config.tools.map((t) => [modelToolName(t), t]));
  config.httpTools.forEach((tool, i) => {
    const clash = builtIn.get(tool.name);
    if (clash)
      ctx.addIssue({ code: 'custom', path: ['httpTools', i, 'name'], message: `"${tool.name}" is the name the model calls the built-in tool ${clash} by` });
  });
}

/**
 * File tools act on the conversation's drive: without `filesystem: "drive"` they would silently
 * not be offered. Checked at create here; an update checks it when it gives `tools` or
 * `filesystem` (services/agents.ts), so an older version that breaks the rule takes other changes.
 */
function checkFileTools(config: { filesystem: 'drive' | 'none'; tools: readonly BuiltInToolName[] }, ctx: z.RefinementCtx): void {
  const message = fileToolsWithoutDrive(config);
  if (message) ctx.addIssue({ code: 'custom', path: ['filesystem'], message });
}

export const agentConfigSchema = z.object(agentConfigShape).strict().superRefine(checkConfig);
export type AgentConfig = z.infer<typeof agentConfigSchema>;

/** `POST /v1/agents`: `name` is required; `id` (prefix `agt_`) and `role` may be chosen at creation. */
export const createAgentSchema = z
  .object({
    id: z
      .string()
      .regex(/^agt_[0-9a-z]{4,40}$/, 'agt_ followed by 4 to 40 lower-case letters or digits')
      .optional(),
    role: roleSchema.default('teammate'),
    ...agentConfigShape,
  })
  .strict()
  .superRefine(checkConfig)
  .superRefine(checkFileTools)
  .meta({ id: 'CreateAgent' });
export type CreateAgentInput = z.infer<typeof createAgentSchema>;

/**
 * `PATCH /v1/agents/:agentId`: any configurable field, and `role`; given fields replace the current
 * ones. A new role is the agent's from that version on (docs/publishing.md: Changing the role).
 */
export const updateAgentSchema = z
  .object({
    role: roleSchema.optional(),
    name: agentConfigShape.name.optional(),
    instructions: z.string().max(limits.instructionsLength).optional(),
    greeting: z.string().max(2000).nullable().optional(),
    grade: z.enum(['standard', 'premium']).optional(),
    filesystem: z.enum(['drive', 'none']).optional(),
    tools: listFields.tools.optional(),
    workflows: listFields.workflows.optional(),
    connections: listFields.connections.optional(),
    secrets: listFields.secrets.optional(),
    parameters: listFields.parameters.optional(),
    triggers: listFields.triggers.optional(),
    mcpServers: listFields.mcpServers.optional(),
    httpTools: listFields.httpTools.optional(),
    approvals: approversSchema.optional(),
    approvalTimeoutMs: approvalTimeoutMsSchema.optional(),
  })
  .strict()
  .meta({
    id: 'UpdateAgent',
    description:
      'Fields given replace the current ones; `greeting: null` removes it. `role` may change too: `freelancer` makes the agent publishable, `teammate` stops serving it publicly.',
  });
export type UpdateAgentInput = z.infer<typeof updateAgentSchema>;

/** Applies an update (but its `role`) to a configuration; the result is validated again as a whole. */
export function applyAgentUpdate(current: AgentConfig, patch: UpdateAgentInput): unknown {
  const { greeting, role: _role, ...rest } = patch;
  const next: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) next[k] = v;
  if (greeting === null) delete next.greeting;
  else if (greeting !== undefined) next.greeting = greeting;
  return next;
}

export const agentSchema = z
  .object({
    id: z.string(),
    role: roleSchema,
    name: z.string(),
    instructions: z.string(),
    greeting: z.string().optional(),
    grade: z.enum(['standard', 'premium']),
    filesystem: z.enum(['drive', 'none']),
    tools: z.array(z.enum(builtInToolNames)),
    workflows: z.array(playbookSchema),
    connections: z.array(connectionSchema),
    secrets: z.array(secretSchema),
    parameters: z.array(parameterSchema),
    triggers: z.array(triggerSchema),
    mcpServers: z.array(mcpServerSchema),
    httpTools: z.array(httpToolSchema),
    approvals: approversSchema.optional(),
    approvalTimeoutMs: approvalTimeoutMsSchema.optional(),
    version: z.number().int().min(1),
    versionId: z.string().startsWith('ver_').meta({
      description: 'The id of this version (`ver_…`): what `deployToTest`, `deployToProd` and `rollback` take.',
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
    warnings: z
      .array(z.string())
      .optional()
      .describe(
        'Only on the answer of create and update, when there is something to say: why a tool of this version will fail when a turn calls it — an HTTP tool or MCP server at a private, loopback or link-local address (or `localhost`) while the service blocks them (OUTBOUND_ALLOW_PRIVATE). The agent is saved all the same.',
      ),
  })
  .strict()
  .meta({
    id: 'Agent',
    description: 'An agent as of one version (`version`, `versionId`, and the role it was published with): `updatedAt` is when that version was published.',
  });
export type Agent = z.infer<typeof agentSchema>;

export const versionItemSchema = z
  .object({
    id: z.string().startsWith('ver_'),
    number: z.number().int().min(1),
    deployedAt: z.string(),
    isProd: z.boolean(),
    evals: z
      .object({
        skipped: z.boolean().describe('Promoted with `skipEvals: true`: no eval ran.'),
        runId: z.string().nullable().describe("The candidate's eval run."),
        baselineRunId: z.string().nullable().describe("Production's eval run the default rule compared with (null: none)."),
        passRate: z.number().nullable().describe('The share of cases that passed on the candidate.'),
        required: z.union([z.number(), z.enum(['no_regression', 'all'])]).nullable().describe("The rule: the agent's pass rate, no case that passes on production may fail, or (first deploy) every case."),
        passed: z.boolean().describe('Whether the gate let the version through.'),
      })
      .strict()
      .optional()
      .describe("What the eval gate said at the version's latest promotion; absent when it has none (never promoted, or the agent had no cases)."),
  })
  .strict()
  .meta({ id: 'VersionItem', description: 'A version in the deployment list; `deployedAt` is when it was published until it is deployed.' });
export type VersionItem = z.infer<typeof versionItemSchema>;

/** An entry of the agent's `workflows` (wire name): see playbookSchema. */
export type Playbook = z.infer<typeof playbookSchema>;
export type Connection = z.infer<typeof connectionSchema>;
export type Secret = z.infer<typeof secretSchema>;
export type Parameter = z.infer<typeof parameterSchema>;

/** The external tool schemas, with the rest of the Agent's parts. */
export { httpToolParamSchema, httpToolSchema, mcpServerSchema } from './agent-tools';
