export { type Agent, AgentHandle, type GetAgentOptions, type StartConversationOptions } from './agent.js';
export { AgentsResource } from './agents.js';
export { ApprovalHandle } from './approval.js';
export { ApprovalsResource, type ListApprovalsOptions } from './approvals.js';
export { attachmentFromBytes } from './attachments.js';
export { type AuditFilters, AuditResource, type ListAuditOptions } from './audit.js';
export { type ConversationSearchFilters, ConversationsResource, type SearchConversationsOptions } from './conversations.js';
export {
  type AgentConversation,
  type AskOptions,
  type Conversation,
  ConversationHandle,
  type ConversationOf,
  type ProjectConversation,
} from './conversation.js';
export { DomainsResource } from './domains.js';
export { AgentEvalRuns } from './eval-runs.js';
export { AgentEvals } from './evals.js';
export { EndUserHandle } from './end-user.js';
export { KeysResource } from './keys.js';
export { MembersResource } from './members.js';
export type { FileListOptions } from './file-list.js';
export type { FileUrlOptions } from './file-urls.js';
export { ServiceError, type ServiceErrorInit } from './errors.js';
export type { Bytes } from './http.js';
export { AgentKnowledge } from './knowledge.js';
export { loadWorkflows } from './load-workflows.js';
export { type CallOptions, DEFAULT_BASE_URL, DEFAULT_RESUME_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, type ServiceOptions } from './options.js';
export { type Project, ProjectHandle, type StartProjectConversationOptions } from './project.js';
export { ProjectsResource } from './projects.js';
export { Service, type ServiceConstructor } from './service.js';
export { readSSE, type SSEMessage } from './sse.js';
export { Turn } from './turn.js';
export type {
  AgentRecord,
  Approvers,
  BuiltInToolName,
  Connection,
  CreateAgentFields,
  CreditCap,
  Filesystem,
  Grade,
  HttpTool,
  HttpToolParam,
  McpServer,
  Parameter,
  Role,
  Scope,
  Secret,
  UpdateAgentFields,
  Workflow,
} from './types/agent.js';
export type {
  AgentConversationRecord,
  Attachment,
  ConversationRecord,
  Message,
  ProjectConversationRecord,
  Requirement,
  TurnState,
} from './types/conversation.js';
export type { AttachInput, BindInput, ConnectionInput, ConnectionStatus, SecretsInput } from './types/credentials.js';
export type { ProdDeployment, TestDeployment, VersionEvals, VersionItem } from './types/deployment.js';
export type { CustomDomain, DomainStatus } from './types/domain.js';
export type {
  CalledToolCheck,
  ContainsCheck,
  EvalCase,
  EvalCaseDefinition,
  EvalCaseResult,
  EvalCaseStatus,
  EvalCheck,
  EvalCheckInput,
  EvalCheckOutcome,
  EvalGate,
  EvalRun,
  EvalRunComparison,
  EvalRunListItem,
  EvalRunSummary,
  EvalToolCall,
  JsonSchemaCheck,
  JudgeCheck,
  MatchesCheck,
  MaxCreditsCheck,
  NotCalledToolCheck,
  NotContainsCheck,
} from './types/eval.js';
export type { Approval, ApprovalDecision, ApprovalStatus } from './types/approval.js';
export type { AuditActor, AuditEvent, AuditPage } from './types/audit.js';
export type { ConversationLastTurn, ConversationSearchPage, ConversationStatus, ConversationSummary } from './types/conversation-search.js';
export type {
  EndUserErasure,
  EndUserExport,
  EndUserExportConnection,
  EndUserExportConversation,
  EndUserExportFile,
  EndUserExportSecret,
  EndUserExportTurn,
  ErasureCounts,
} from './types/end-user.js';
export type { FileEntry, FileIndex } from './types/file.js';
export type { CreatedInvite, InviteInput, MemberInvite, ResetLink, WorkspaceMember } from './types/member.js';
export type { CreateProjectFields, Member, ProjectRecord, UpdateProjectFields } from './types/project.js';
export type { ChatTrigger, IntervalTrigger, ScheduleTrigger, Trigger, Webhook, WebhookTrigger } from './types/trigger.js';
export type { Step, StepKind, TurnEvent } from './types/turn-event.js';
export type { PublicIdentityMode, VisitorIdentity, VisitorSecret } from './types/visitor-identity.js';
export type { ApiKey, CreatedApiKey, Workspace, WorkspaceRole, WorkspaceUpdate } from './types/workspace.js';
export { signVisitorToken, type VisitorTokenInput } from './visitor-token.js';
export { WorkspaceClient } from './workspace.js';
