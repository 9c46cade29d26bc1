export { type Agent, AgentHandle, type GetAgentOptions, type StartConversationOptions } from './agent.js';
export { AgentsResource } from './agents.js';
export { attachmentFromBytes } from './attachments.js';
export {
  type AgentConversation,
  type AskOptions,
  type Conversation,
  ConversationHandle,
  type ConversationOf,
  type FileUrlOptions,
  type ProjectConversation,
} from './conversation.js';
export { ServiceError, type ServiceErrorInit } from './errors.js';
export type { Bytes } from './http.js';
export { AgentKnowledge } from './knowledge.js';
export { loadWorkflows } from './load-workflows.js';
export { type CallOptions, DEFAULT_BASE_URL, DEFAULT_RESUME_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, type ServiceOptions } from './options.js';
export { type Project, ProjectHandle } from './project.js';
export { ProjectsResource } from './projects.js';
export { Service, type ServiceConstructor } from './service.js';
export { readSSE, type SSEMessage } from './sse.js';
export { Turn } from './turn.js';
export type {
  AgentConversationRecord,
  AgentRecord,
  AttachInput,
  Attachment,
  BindInput,
  BuiltInToolName,
  ChatTrigger,
  Connection,
  ConnectionInput,
  ConnectionStatus,
  ConversationRecord,
  CreateAgentFields,
  CreateProjectFields,
  FileEntry,
  Filesystem,
  Grade,
  HttpTool,
  HttpToolParam,
  IntervalTrigger,
  McpServer,
  Member,
  Message,
  Parameter,
  ProdDeployment,
  ProjectConversationRecord,
  ProjectRecord,
  Requirement,
  Role,
  ScheduleTrigger,
  Scope,
  Secret,
  SecretsInput,
  Step,
  StepKind,
  TestDeployment,
  Trigger,
  TurnEvent,
  UpdateAgentFields,
  UpdateProjectFields,
  VersionItem,
  WebhookTrigger,
  Workflow,
  Workspace,
} from './types.js';
export { WorkspaceClient } from './workspace.js';
