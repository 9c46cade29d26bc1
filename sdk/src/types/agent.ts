import type { Trigger } from './trigger.js';

/**
 * Agents: the record of one version, its parts, and the fields of `create` and `update`. Field
 * names are the API's; timestamps are strings as sent by the service. The server's schemas are
 * in `domain/agent.ts`; test/api/sdk-types-agree.unit.test.ts keeps the two in step.
 */

/** Quality tier of the model an agent or a project manager runs on. */
export type Grade = 'standard' | 'premium';

/**
 * What an agent is for: `freelancer` agents are published to end users (test and prod URLs,
 * embed); `teammate` agents are used through the workspace API only.
 */
export type Role = 'freelancer' | 'teammate';

/** Whether each conversation of the agent gets a file space (`drive`) for the `files.*` tools. */
export type Filesystem = 'drive' | 'none';

/**
 * Names of the built-in tools an agent can list in `tools`; any other name is rejected with a
 * 400. The `files.*` tools and `data.run` need `filesystem: 'drive'`.
 */
export type BuiltInToolName =
  | 'files.read'
  | 'files.write'
  | 'files.edit'
  | 'files.list'
  | 'files.search'
  | 'data.run'
  | 'knowledge.search'
  | 'web.fetch'
  | 'plan';

/** A playbook the agent follows when `when` applies. See `loadWorkflows` to read them from Markdown files. */
export interface Workflow {
  /** Unique within the agent; identifies the workflow in `removeWorkflow(name)`. 1 to 200 characters. */
  name: string;
  /** When the workflow applies, in plain words (up to 2000 characters). */
  when: string;
  /** The playbook itself, usually Markdown (1 to 50,000 characters). */
  content: string;
}

/** Who supplies a credential's value: the agent itself (`fixed`) or each conversation. */
export type Scope = 'fixed' | 'conversation';

/** An OAuth connection the agent uses, e.g. to a mail or calendar provider. */
export interface Connection {
  /** Provider name (letters, digits, `_`, `-`; starts with a letter); unique within the agent. */
  provider: string;
  /** Who connects the account. */
  scope: Scope;
  /** Whether a conversation can start without it. */
  required?: boolean;
}

/** A named secret value (an API key, a password) the agent's tools use. */
export interface Secret {
  /** Secret name (letters, digits, `_`, `-`; starts with a letter); unique within the agent. */
  name: string;
  /** Who supplies the value. */
  scope: Scope;
  /** Whether a conversation can start without it. */
  required?: boolean;
}

/** A value supplied when a conversation starts, which the instructions can refer to. */
export interface Parameter {
  /** Parameter name (letters, digits, `_`, `-`; starts with a letter); unique within the agent. */
  name: string;
  /** Kind of value. `choice` requires `choices`; other types must not have them. */
  type: 'string' | 'number' | 'date' | 'choice';
  /** Whether a conversation must supply it. */
  required?: boolean;
  /** Value used when none is supplied: a number for `number`, `YYYY-MM-DD` for `date`, one of `choices` for `choice`. */
  default?: string;
  /** The allowed values of a `choice` parameter; unique. */
  choices?: string[];
}

/** Who may decide a tool call that needs approval: an API key only (`workspace`), or also the public visitor (`visitor`). */
export type Approvers = 'visitor' | 'workspace';

/** A Model Context Protocol server whose tools the agent can call. */
export interface McpServer {
  /** Server name (letters, digits, `_`, `-`; starts with a letter); unique within the agent. */
  name: string;
  /** An `http://` or `https://` URL. */
  url: string;
  /** Streamable HTTP (`http`) or Server-Sent Events (`sse`). */
  transport?: 'http' | 'sse';
  /** Headers sent with every request to the server. */
  headers?: Record<string, string>;
  /** Time limit of one call in milliseconds (100 to 300000). */
  timeoutMs?: number;
  /**
   * Whether a person approves each call first: `required` (every tool of the server), `none`
   * (absent), or `{ tools: [...] }` (only the tools named, by their names on the server).
   */
  approval?: 'required' | 'none' | { tools: string[] };
}

/** One input of an HTTP tool, which the model fills in. */
export interface HttpToolParam {
  /** Type of the value. */
  type: 'string' | 'number' | 'integer' | 'boolean';
  /** Tells the model what to put there. */
  description?: string;
  /** Whether the model must supply it; path params are always required. */
  required?: boolean;
  /** Where the value goes; defaults to `query` for GET and DELETE, `body` otherwise. A `{name}` in the URL needs `path`. */
  in?: 'path' | 'query' | 'header' | 'body';
  /** The allowed values. */
  enum?: Array<string | number>;
}

/** An HTTP endpoint exposed to the agent as a tool. */
export interface HttpTool {
  /** Tool name (letters, digits, `_`, `-`; starts with a letter); unique, and not a built-in tool's name. */
  name: string;
  /** Tells the model what the tool does. */
  description: string;
  /** HTTP method of the call. */
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** An `http://` or `https://` URL; `{param}` placeholders are filled from path params. */
  url: string;
  /** Headers sent with the call. */
  headers?: Record<string, string>;
  /** Body template of the call. */
  body?: string;
  /** The inputs the model fills in, by name. */
  params?: Record<string, HttpToolParam>;
  /** Names of declared `secrets` the call may use. */
  secrets?: string[];
  /** Time limit of the call in milliseconds (100 to 300000). */
  timeoutMs?: number;
  /** `required`: each call waits until a person approves it (see `approvals`); absent is `none`. */
  approval?: 'required' | 'none';
}

/**
 * An agent as of one version: the plain data the service returns. The SDK hands it out as an
 * `Agent`, which adds the methods of `AgentHandle`; `JSON.stringify` of an `Agent` gives
 * exactly these fields.
 */
export interface AgentRecord {
  /** Agent id (prefix `agt_`). */
  id: string;
  /**
   * Published to end users (`freelancer`) or not (`teammate`): the role this version was published
   * with. Change it with `agent.update({ role })`.
   */
  role: Role;
  /** Display name. */
  name: string;
  /** System instructions; empty string when none. */
  instructions: string;
  /** First message shown to someone starting a conversation; absent when none. */
  greeting?: string;
  /** Model tier. */
  grade: Grade;
  /** Whether conversations get a file space. */
  filesystem: Filesystem;
  /** Enabled built-in tools. */
  tools: BuiltInToolName[];
  /** Playbooks. */
  workflows: Workflow[];
  /** OAuth connections used. */
  connections: Connection[];
  /** Secrets used. */
  secrets: Secret[];
  /** Values supplied at conversation start. */
  parameters: Parameter[];
  /** What starts runs. */
  triggers: Trigger[];
  /** MCP servers whose tools the agent can call. */
  mcpServers: McpServer[];
  /** HTTP endpoints exposed as tools. */
  httpTools: HttpTool[];
  /** Who may decide a tool call that needs approval; absent is `workspace` (an API key only). */
  approvals?: Approvers;
  /** Milliseconds a call waits for a decision before it is denied; absent is 86400000 (24 hours). */
  approvalTimeoutMs?: number;
  /** Version number of this snapshot, from 1; each publishing call adds one. */
  version: number;
  /**
   * Id of this version (`ver_…`): what `ws.agents.deployToTest`, `deployToProd` and `rollback`
   * take. On the Agent `update` (or any publishing call) returns, it is the version just published.
   */
  versionId: string;
  /** When the agent was created. */
  createdAt: string;
  /** When this version was published. */
  updatedAt: string;
  /**
   * Only on what `ws.agents.create` and `agent.update` resolve to, when there is something to say:
   * why a tool of this version will fail when a turn calls it — e.g. an HTTP tool at
   * `http://127.0.0.1:8080` while the service blocks private addresses (its operator allows them
   * with `OUTBOUND_ALLOW_PRIVATE`). The agent is saved all the same.
   */
  warnings?: string[];
}

/**
 * Fields of `ws.agents.create(fields)`. Only `name` is required; omitted fields take their
 * defaults (empty instructions and lists, grade `standard`, filesystem `none`, role `teammate`).
 */
export interface CreateAgentFields {
  /** Choose the id: `agt_` followed by 4 to 40 lower-case letters or digits. Reusing one is a 409. */
  id?: string;
  /** Default `teammate`; `agent.update({ role })` changes it later. */
  role?: Role;
  /** Display name, 1 to 200 characters. */
  name: string;
  /** System instructions (up to 100,000 characters). */
  instructions?: string;
  /** First message shown to someone starting a conversation (up to 2000 characters). */
  greeting?: string;
  /** Model tier. */
  grade?: Grade;
  /** Whether conversations get a file space. */
  filesystem?: Filesystem;
  /**
   * Built-in tools to enable, by their catalogue names (`files.write`; the model calls it
   * `files_write`); no duplicates. File tools (`files.*`) need `filesystem: 'drive'`: without it
   * the call is refused with 400 `invalid_request` naming `filesystem`.
   */
  tools?: BuiltInToolName[];
  /** Playbooks; names unique. */
  workflows?: Workflow[];
  /** OAuth connections; providers unique. */
  connections?: Connection[];
  /** Secrets; names unique. */
  secrets?: Secret[];
  /** Conversation parameters; names unique. */
  parameters?: Parameter[];
  /** What starts runs. */
  triggers?: Trigger[];
  /** MCP servers; names unique. */
  mcpServers?: McpServer[];
  /** HTTP tools; names unique; their `secrets` must be declared in `secrets`. */
  httpTools?: HttpTool[];
  /**
   * Who may approve or deny a tool call marked `approval: 'required'`: `workspace` (the default:
   * an API key, `turn.approve()` or `ws.approval(id)`) or `visitor` (also the visitor of a public
   * conversation, with the buttons of the hosted page and the embed).
   */
  approvals?: Approvers;
  /** Milliseconds a call waits for a decision before it is denied: 10000 (10 s) to 604800000 (7 days); default 24 hours. */
  approvalTimeoutMs?: number;
}

/**
 * Fields of `agent.update(fields)`: any configurable field, and `role`. Given fields replace the
 * current ones whole (lists are not merged); `greeting: null` removes the greeting. `id` cannot
 * change. `role: 'freelancer'` makes the agent publishable from the new version on;
 * `role: 'teammate'` stops serving it publicly (its URLs, token and domains are kept: made a
 * freelancer again, it serves its production version again).
 */
export type UpdateAgentFields = Partial<Omit<CreateAgentFields, 'id' | 'greeting'>> & {
  /** New greeting, or `null` to remove it. */
  greeting?: string | null;
};

/** An agent's credit cap (`agent.creditCap()`). */
export interface CreditCap {
  /** The agent's id. */
  agentId: string;
  /** The most credits its turns may spend in all; `null`: no cap. */
  credits: number | null;
  /** Credits its finished turns cost plus what its running turns reserve. */
  spent: number;
}
