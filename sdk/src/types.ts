/**
 * Records the service returns, with the spec's exact field names. Timestamps are strings as
 * sent by the service; ids are strings.
 */

/**
 * A workspace: owner of agents and projects, holding a credit balance. This is the record
 * `ws.get()` resolves to; the handle you call methods on is a `WorkspaceClient`.
 */
export interface Workspace {
  /** Workspace id. */
  id: string;
  /** Display name. */
  name: string;
  /** Credit balance; turns debit it. */
  credits: number;
  /** When the workspace was created. */
  createdAt: string;
}

/** Kind of work a progress step stands for. */
export type StepKind = 'read' | 'write' | 'edit' | 'search' | 'shell' | 'web' | 'data' | 'task' | 'plan' | 'other';

/** One step of an agent's progress within a turn. */
export interface Step {
  /** Step id, stable across progress events of one turn. */
  id: string;
  /** Short human-readable description. */
  label: string;
  /** What kind of work the step is. */
  kind: StepKind;
  /** Where the step is. */
  status: 'active' | 'done' | 'error';
}

/**
 * One event of a turn, discriminated by `type`: exactly the spec's TurnEvent table. A turn's
 * events end with exactly one `done` or `error`. A failure while iterating a turn (including
 * one of the request itself) arrives as an `error` event, after which the iteration ends.
 *
 * - `start`: the turn exists on the service; `turnId` identifies it.
 * - `progress`: the current list of steps (each event carries the whole list).
 * - `tool`: a tool call started or ended (`ok` tells how it ended).
 * - `text`: a piece of the reply; see `reset`.
 * - `file`: the agent wrote the file at `path` in the conversation's file space.
 * - `done`: the turn succeeded; `reply` is the whole reply.
 * - `error`: the turn failed; `retryable` tells whether asking again may succeed.
 */
export type TurnEvent =
  | { type: 'start'; turnId: string }
  | { type: 'progress'; steps: Step[] }
  | { type: 'tool'; name: string; state: 'start' | 'end'; ok?: boolean }
  | {
      type: 'text';
      /** Text to append to the reply being shown. */
      text: string;
      /**
       * When `true`: first drop the text received since the last `tool` event (or since the
       * turn's start), then append `text`. Sent when a retried model call's output differs
       * from what was already streamed. Absent otherwise.
       */
      reset?: true;
    }
  | { type: 'file'; path: string }
  | { type: 'done'; reply: string }
  | { type: 'error'; message: string; retryable: boolean };

/** A secret or connection a conversation needs before it is `ready`. */
export interface Requirement {
  /** What has to be supplied. */
  kind: 'secret' | 'connection';
  /** The secret's name or the connection's provider. */
  name: string;
  /** Whether the conversation cannot take turns without it. */
  required: boolean;
}

/**
 * A conversation started on an agent: the plain data the service returns. The SDK hands it out
 * as an `AgentConversation`, which adds the methods of `ConversationHandle`.
 */
export interface AgentConversationRecord {
  /** Conversation id (prefix `cnv_`). */
  id: string;
  /** The agent the conversation runs on. */
  agentId: string;
  /** The agent version the conversation runs on. */
  version: number;
  /** When the conversation started. */
  startedAt: string;
  /** Short title, once the service has given it one. */
  title?: string;
  /** Whether turns can be taken: false while a required item of `requires` is missing. */
  ready: boolean;
  /** Secrets and connections the conversation needs. */
  requires: Requirement[];
  /** When the conversation was ended (`conversation.end()`); absent while it is open. */
  endedAt?: string;
  /**
   * The visitor who started the conversation through public chat (the hosted page, the embed
   * or `POST /v1/public/chat`), as the browser stated it: self-attested, a routing hint rather
   * than a verified identity. Absent for conversations started through the API.
   */
  endUser?: {
    /** The visitor id the page or the embed sent (`data-user-id`, `identify`, or a generated one). */
    id: string;
    /** Display name, when one was given. */
    name?: string;
    /** E-mail address, when one was given. */
    email?: string;
  };
  /**
   * Where the conversation was started: `public` (public chat with the production version) or
   * `test` (chat on a test deployment's URL). Absent for conversations started through the API.
   */
  channel?: 'public' | 'test';
}

/**
 * A conversation started on a project: the plain data the service returns. The SDK hands it
 * out as a `ProjectConversation`, which adds the methods of `ConversationHandle`.
 */
export interface ProjectConversationRecord {
  /** Conversation id (prefix `cnv_`). */
  id: string;
  /** The project the conversation belongs to. */
  projectId: string;
  /** When the conversation started. */
  startedAt: string;
  /** Short title, once the service has given it one. */
  title?: string;
  /** Whether turns can be taken: false while a required item of `requires` is missing. */
  ready: boolean;
  /** Secrets and connections the conversation needs. */
  requires: Requirement[];
  /** When the conversation was ended (`conversation.end()`); absent while it is open. */
  endedAt?: string;
}

/** Either kind of conversation record; tell them apart with `'agentId' in record`. */
export type ConversationRecord = AgentConversationRecord | ProjectConversationRecord;

/** One message of a conversation's history (`conversation.messages()`). */
export interface Message {
  /** Who wrote it. */
  role: 'user' | 'assistant';
  /** The text. */
  content: string;
  /** When it was written. */
  at: string;
}

/**
 * A file or image sent with a turn (`conversation.ask(text, { attachments })`).
 * `attachmentFromBytes` builds one from raw bytes.
 */
export interface Attachment {
  /** `image` for pictures the model should see, `file` for anything else. */
  kind: 'image' | 'file';
  /** File name shown to the agent. */
  name?: string;
  /** Media type of the content, e.g. `image/png`, `application/pdf`. */
  mimeType: string;
  /** The content, base64-encoded (standard alphabet, with padding). */
  data: string;
}

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
 * 400. The `files.*` tools need `filesystem: 'drive'`.
 */
export type BuiltInToolName =
  | 'files.read'
  | 'files.write'
  | 'files.edit'
  | 'files.list'
  | 'files.search'
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

/** Starts a run when someone chats with the agent. */
export interface ChatTrigger {
  /** Discriminator. */
  kind: 'chat';
}

/** Starts a run on a cron schedule. */
export interface ScheduleTrigger {
  /** Discriminator. */
  kind: 'schedule';
  /** Five-field cron expression: minute hour day-of-month month day-of-week. */
  cron: string;
  /** IANA time zone the schedule is read in, e.g. `Europe/Paris`; UTC when omitted. */
  timezone?: string;
  /** The text the run starts with. */
  message: string;
}

/** Starts a run every `seconds` seconds. */
export interface IntervalTrigger {
  /** Discriminator. */
  kind: 'interval';
  /** Period in whole seconds; at least 60. */
  seconds: number;
  /** Stops after this many runs; unlimited when omitted. */
  maxRuns?: number;
  /** The text each run starts with. */
  message: string;
}

/** Starts a run when a webhook is called. */
export interface WebhookTrigger {
  /** Discriminator. */
  kind: 'webhook';
  /** The text the run starts with. */
  message?: string;
  /** An `http://` or `https://` URL. */
  url?: string;
}

/** What starts a run of the agent, discriminated by `kind`. */
export type Trigger = ChatTrigger | ScheduleTrigger | IntervalTrigger | WebhookTrigger;

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
}

/**
 * An agent as of one version: the plain data the service returns. The SDK hands it out as an
 * `Agent`, which adds the methods of `AgentHandle`; `JSON.stringify` of an `Agent` gives
 * exactly these fields.
 */
export interface AgentRecord {
  /** Agent id (prefix `agt_`). */
  id: string;
  /** Published to end users (`freelancer`) or not (`teammate`). */
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
  /** Version number of this snapshot, from 1; each publishing call adds one. */
  version: number;
  /** When the agent was created. */
  createdAt: string;
  /** When this version was published. */
  updatedAt: string;
}

/**
 * Fields of `ws.agents.create(fields)`. Only `name` is required; omitted fields take their
 * defaults (empty instructions and lists, grade `standard`, filesystem `none`, role `teammate`).
 */
export interface CreateAgentFields {
  /** Choose the id: `agt_` followed by 4 to 40 lower-case letters or digits. Reusing one is a 409. */
  id?: string;
  /** Default `teammate`; fixed at creation. */
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
  /** Built-in tools to enable; no duplicates. */
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
}

/**
 * Fields of `agent.update(fields)`: any configurable field. Given fields replace the current
 * ones whole (lists are not merged); `greeting: null` removes the greeting. `id` and `role`
 * cannot change.
 */
export type UpdateAgentFields = Partial<Omit<CreateAgentFields, 'id' | 'role' | 'greeting'>> & {
  /** New greeting, or `null` to remove it. */
  greeting?: string | null;
};

/** One version in the deployment list of an agent (`ws.agents.versions(agentId)`). */
export interface VersionItem {
  /** Version id (prefix `ver_`). */
  id: string;
  /** Version number, as in `AgentRecord.version`. */
  number: number;
  /** When the version was deployed, or published if it never was. */
  deployedAt: string;
  /** True for the one version serving production. */
  isProd: boolean;
}

/** The answer of `ws.agents.deployToTest(versionId)`. */
export interface TestDeployment {
  /** The ephemeral URL serving the version's chat page, for trying it out (not for end users). */
  url: string;
  /** When the URL stops working. */
  expiresAt: string;
}

/** The answer of `ws.agents.deployToProd(versionId)`. */
export interface ProdDeployment {
  /** The agent's production URL; the same across deploys and rollbacks. */
  url: string;
  /** Number of the version now in production, as in `VersionItem.number` and `AgentRecord.version`. */
  versionNumber: number;
}

/** An agent belonging to a project. */
export interface Member {
  /** The agent's id. */
  agentId: string;
  /** The agent's name. */
  name: string;
  /** When the agent joined the project. */
  addedAt: string;
}

/**
 * A project: agents grouped under a goal and manager instructions. The plain data the service
 * returns; the SDK hands it out as a `Project`, which adds the methods of `ProjectHandle`.
 */
export interface ProjectRecord {
  /** Project id (prefix `prj_`). */
  id: string;
  /** Display name. */
  name: string;
  /** What the project is for, or null. */
  goal: string | null;
  /** Instructions of the project's manager, or null. */
  managerInstructions: string | null;
  /** Model tier of the manager. */
  grade: Grade;
  /** `archived` after `project.archive()`. */
  status: 'active' | 'archived';
  /** Member agents. */
  agents: Member[];
  /** When the project was created. */
  createdAt: string;
  /** When the project last changed. */
  updatedAt: string;
}

/** Fields of `ws.projects.create(fields)`. Only `name` is required. */
export interface CreateProjectFields {
  /** Display name, 1 to 200 characters. */
  name: string;
  /** What the project is for (up to 10,000 characters). */
  goal?: string | null;
  /** Instructions of the project's manager (up to 100,000 characters). */
  managerInstructions?: string | null;
  /** Model tier of the manager; default `standard`. */
  grade?: Grade;
  /** Ids of workspace agents to add as the first members. */
  agents?: string[];
}

/** Fields of `project.update(fields)`; `null` clears `goal` or `managerInstructions`. Members change through `addAgent`/`removeAgent`. */
export type UpdateProjectFields = Partial<Omit<CreateProjectFields, 'agents'>>;

/** An entry of a file space (agent knowledge, conversation drive, project files). */
export interface FileEntry {
  /** Relative `/`-separated path. */
  path: string;
  /** File or folder. */
  kind: 'file' | 'directory';
  /** Media type; `inode/directory` for folders. */
  mimeType: string;
  /** Size in bytes; 0 for folders. */
  size: number;
  /** When the entry last changed. */
  modifiedAt: string;
}

/**
 * Secret values by name, for `bind({ secrets })` and `attach({ secrets })`: each name must be a
 * `Secret` the agent declares, and each value a non-empty string (an API key, a password).
 */
export type SecretsInput = Record<string, string>;

/**
 * The value of a `Connection`, for `bind({ connections })` and `attach(connection)`: the OAuth
 * tokens of an account, obtained by the caller. `provider` must be a connection the agent
 * declares.
 */
export interface ConnectionInput {
  /** The declared connection this value is for. */
  provider: string;
  /** The token tools send to the provider. */
  accessToken: string;
  /** Kept for tools that can refresh the access token. */
  refreshToken?: string;
  /** When `accessToken` stops working: an ISO 8601 date-time (a `Date` is sent as one). Past it, the connection is reported as expired and no longer counts as supplied. */
  expiresAt?: string | Date;
  /** Which account this is (e.g. its e-mail address); shown in `ConnectionStatus`, unlike the tokens. */
  accountLabel?: string;
}

/** What `bind` supplies: secret values by name and connection values. Both optional; given names replace their stored values, others stay. */
export interface BindInput {
  secrets?: SecretsInput;
  connections?: ConnectionInput[];
}

/** What `attach` takes: one connection, several, or `{ secrets }`. */
export type AttachInput = ConnectionInput | ConnectionInput[] | { secrets?: SecretsInput };

/**
 * Where a connection stands (`agent.connections()`, `conversation.connections()`). Values
 * themselves are never returned.
 */
export interface ConnectionStatus {
  /** The connection's provider. */
  provider: string;
  /** Whether the agent's version declares it (a stored value of an undeclared provider is listed with `declared: false`). */
  declared: boolean;
  /** Whether the declaration marks it required. */
  required: boolean;
  /** The declared scope; absent when not declared. */
  scope?: Scope;
  /** A value is supplied where its scope says and has not expired. */
  connected: boolean;
  /** Who supplied the value: `agent` (bound to the agent) or `conversation`. (`workspace` is never answered by this service.) */
  suppliedBy?: 'conversation' | 'agent' | 'workspace';
  /** The `accountLabel` given with the value. */
  accountLabel?: string;
  /** Why a supplied value is not used, e.g. `token expired`. */
  error?: string;
}
