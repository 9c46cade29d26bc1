import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import * as agentDomain from '../../domain/agent';
import * as allowedOriginsDomain from '../../domain/allowed-origins';
import * as approvalsDomain from '../../domain/approvals';
import * as auditDomain from '../../domain/audit';
import * as conversationDomain from '../../domain/conversation';
import * as conversationSearchDomain from '../../domain/conversation-search';
import * as credentialsDomain from '../../domain/credentials';
import * as creditCapDomain from '../../domain/credit-cap';
import * as customDomainsDomain from '../../domain/custom-domains';
import * as endUserErasureDomain from '../../domain/end-user-erasure';
import * as evalRunsDomain from '../../domain/eval-runs';
import * as evalsDomain from '../../domain/evals';
import * as filePathDomain from '../../domain/file-path';
import * as memberDomain from '../../domain/member';
import * as projectDomain from '../../domain/project';
import * as projectConversationDomain from '../../domain/project-conversation';
import * as publishingDomain from '../../domain/publishing';
import * as triggerDomain from '../../domain/trigger';
import * as turnEventsDomain from '../../domain/turn-events';
import * as visitorIdentityDomain from '../../domain/visitor-identity';
import * as webhooksDomain from '../../domain/webhooks';
import * as workspaceDomain from '../../domain/workspace';
import * as rolesDomain from '../../domain/roles';
import type * as sdk from '../../sdk/src';

/**
 * The SDK's types (sdk/src/types/) are written by hand, with doc comments for its users; the
 * server's are zod schemas (domain/). This file keeps the two from drifting apart:
 *
 * - at compile time (`tsc -p tsconfig.json`, which covers test/): every row of `rows` states that
 *   an SDK type is exactly the type of a server schema, field for field, optional and nullable
 *   included; a difference on either side is a type error naming the fields that differ;
 * - at run time (mocha): the table leaves out no SDK type and no schema of the domain modules
 *   the SDK talks to, unless `notCompared` or `serverOnly` says why;
 * - for the embed (embed/src): it declares none of these types again but imports the SDK's
 *   (`import type`, erased from the bundle), so `tsc -p embed/tsconfig.json` compiles the chat
 *   page against the SDK's TurnEvent and Step.
 *
 * Records the service answers with are compared with the schema's output (`z.output`), fields
 * the SDK sends with its input (`z.input`: a field with a server default is optional). A field
 * optional on one side and required on the other is a difference; `x?: T` and
 * `x?: T | undefined` are the same type here (tsconfig has no `exactOptionalPropertyTypes`).
 * Where the SDK differs on purpose, the row says so and compares the SDK type as it goes on the
 * wire: see `ConnectionWire`, `StartConversationOptions` and `AskOptions`.
 */

/** True when A and B are the same type, optional fields and `readonly` included. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** T with an intersection flattened into one object type (`UpdateAgentFields` is `Partial<…> & {…}`). */
type Flat<T> = T extends object ? { [K in keyof T]: T[K] } : T;

/** The fields of A and B that differ in type or optionality, or that only one of them has. */
type DifferingFields<A, B> = {
  [K in keyof A | keyof B]-?: K extends keyof A ? (K extends keyof B ? (Equal<Pick<A, K>, Pick<B, K>> extends true ? never : K) : K) : K;
}[keyof A | keyof B];

/** True for a union type (of objects or of literals), false otherwise. */
type IsUnion<T, All = T> = T extends unknown ? ([All] extends [T] ? false : true) : never;

/** The members of union A that are no member of union B. */
type Unmatched<A, B> = A extends unknown ? (true extends (B extends unknown ? Equal<A, B> : never) ? never : A) : never;

/** What a type error shows when A and B differ: the fields that differ, or for unions the members. */
type Difference<A, B> = [IsUnion<A> | IsUnion<B>] extends [false]
  ? { sdkAndServerDifferIn: DifferingFields<A, B> }
  : { onlyInSdk: Unmatched<A, B>; onlyOnServer: Unmatched<B, A> };

/**
 * A row of the table: `schema` stands for the server type `Server`, which must be exactly `Sdk`.
 * When they differ, the parameter's type becomes the `Difference`, which the type error shows.
 */
function same<Sdk, Server>(schema: Equal<Flat<Sdk>, Flat<Server>> extends true ? z.ZodType : Difference<Flat<Sdk>, Flat<Server>>): z.ZodType {
  return schema as z.ZodType;
}

type Out<S extends z.ZodType> = z.output<S>;
type In<S extends z.ZodType> = z.input<S>;
type TriggerKind<K extends sdk.Trigger['kind']> = Extract<Out<typeof triggerDomain.triggerSchema>, { kind: K }>;
type CheckKind<K extends sdk.EvalCheck['kind']> = Extract<Out<typeof evalsDomain.evalCheckSchema>, { kind: K }>;

/**
 * The wire form of a connection value. Intended difference: the SDK's `expiresAt` also takes a
 * `Date`, which it sends as its ISO string (sdk/src/credentials.ts); the server takes the string.
 */
type ConnectionWire = Flat<Omit<sdk.ConnectionInput, 'expiresAt'> & { expiresAt?: string }>;

const { agentSchema } = agentDomain;

/** SDK type name → the server schema it agrees with (checked by the compiler, see `same`). */
const rows: Record<string, z.ZodType> = {
  // The workspace.
  Workspace: same<sdk.Workspace, Out<typeof workspaceDomain.workspaceSchema>>(workspaceDomain.workspaceSchema),
  WorkspaceUpdate: same<sdk.WorkspaceUpdate, In<typeof workspaceDomain.updateWorkspaceBodySchema>>(workspaceDomain.updateWorkspaceBodySchema),
  ApiKey: same<sdk.ApiKey, Out<typeof workspaceDomain.apiKeySchema>>(workspaceDomain.apiKeySchema),
  CreatedApiKey: same<sdk.CreatedApiKey, Out<typeof workspaceDomain.createdKeySchema>>(workspaceDomain.createdKeySchema),
  WorkspaceRole: same<sdk.WorkspaceRole, Out<typeof rolesDomain.roleSchema>>(rolesDomain.roleSchema),

  // Members and invites.
  WorkspaceMember: same<sdk.WorkspaceMember, Out<typeof memberDomain.memberSchema>>(memberDomain.memberSchema),
  MemberInvite: same<sdk.MemberInvite, Out<typeof memberDomain.inviteSchema>>(memberDomain.inviteSchema),
  InviteInput: same<sdk.InviteInput, In<typeof memberDomain.inviteBodySchema>>(memberDomain.inviteBodySchema),
  CreatedInvite: same<sdk.CreatedInvite, Out<typeof memberDomain.createdInviteSchema>>(memberDomain.createdInviteSchema),
  ResetLink: same<sdk.ResetLink, Out<typeof memberDomain.resetLinkSchema>>(memberDomain.resetLinkSchema),

  // Agents, their parts and the fields of create and update.
  AgentRecord: same<sdk.AgentRecord, Out<typeof agentSchema>>(agentSchema),
  Role: same<sdk.Role, Out<typeof agentDomain.roleSchema>>(agentDomain.roleSchema),
  Grade: same<sdk.Grade, Out<typeof agentSchema.shape.grade>>(agentSchema.shape.grade),
  Filesystem: same<sdk.Filesystem, Out<typeof agentSchema.shape.filesystem>>(agentSchema.shape.filesystem),
  BuiltInToolName: same<sdk.BuiltInToolName, Out<typeof agentSchema.shape.tools.element>>(agentSchema.shape.tools.element),
  Workflow: same<sdk.Workflow, Out<typeof agentDomain.playbookSchema>>(agentDomain.playbookSchema),
  Scope: same<sdk.Scope, Out<typeof agentDomain.scopeSchema>>(agentDomain.scopeSchema),
  Connection: same<sdk.Connection, Out<typeof agentDomain.connectionSchema>>(agentDomain.connectionSchema),
  Secret: same<sdk.Secret, Out<typeof agentDomain.secretSchema>>(agentDomain.secretSchema),
  Parameter: same<sdk.Parameter, Out<typeof agentDomain.parameterSchema>>(agentDomain.parameterSchema),
  McpServer: same<sdk.McpServer, Out<typeof agentDomain.mcpServerSchema>>(agentDomain.mcpServerSchema),
  HttpTool: same<sdk.HttpTool, Out<typeof agentDomain.httpToolSchema>>(agentDomain.httpToolSchema),
  HttpToolParam: same<sdk.HttpToolParam, Out<typeof agentDomain.httpToolParamSchema>>(agentDomain.httpToolParamSchema),
  Approvers: same<sdk.Approvers, Out<typeof agentDomain.approversSchema>>(agentDomain.approversSchema),
  CreateAgentFields: same<sdk.CreateAgentFields, In<typeof agentDomain.createAgentSchema>>(agentDomain.createAgentSchema),
  UpdateAgentFields: same<sdk.UpdateAgentFields, In<typeof agentDomain.updateAgentSchema>>(agentDomain.updateAgentSchema),

  // Triggers: the union and each kind.
  Trigger: same<sdk.Trigger, Out<typeof triggerDomain.triggerSchema>>(triggerDomain.triggerSchema),
  ChatTrigger: same<sdk.ChatTrigger, TriggerKind<'chat'>>(triggerDomain.triggerSchema),
  ScheduleTrigger: same<sdk.ScheduleTrigger, TriggerKind<'schedule'>>(triggerDomain.triggerSchema),
  IntervalTrigger: same<sdk.IntervalTrigger, TriggerKind<'interval'>>(triggerDomain.triggerSchema),
  WebhookTrigger: same<sdk.WebhookTrigger, TriggerKind<'webhook'>>(triggerDomain.triggerSchema),
  Webhook: same<sdk.Webhook, Out<typeof webhooksDomain.webhookSchema>>(webhooksDomain.webhookSchema),

  // Cancelling a turn, and an agent's credit cap.
  TurnState: same<sdk.TurnState, Out<typeof conversationDomain.turnStateSchema>>(conversationDomain.turnStateSchema),
  CreditCap: same<sdk.CreditCap, Out<typeof creditCapDomain.creditCapSchema>>(creditCapDomain.creditCapSchema),

  // Versions and deployments.
  VersionItem: same<sdk.VersionItem, Out<typeof agentDomain.versionItemSchema>>(agentDomain.versionItemSchema),
  TestDeployment: same<sdk.TestDeployment, Out<typeof publishingDomain.testDeploymentSchema>>(publishingDomain.testDeploymentSchema),
  ProdDeployment: same<sdk.ProdDeployment, Out<typeof publishingDomain.prodDeploymentSchema>>(publishingDomain.prodDeploymentSchema),

  // Projects.
  ProjectRecord: same<sdk.ProjectRecord, Out<typeof projectDomain.projectSchema>>(projectDomain.projectSchema),
  Member: same<sdk.Member, Out<typeof projectDomain.memberSchema>>(projectDomain.memberSchema),
  CreateProjectFields: same<sdk.CreateProjectFields, In<typeof projectDomain.createProjectSchema>>(projectDomain.createProjectSchema),
  UpdateProjectFields: same<sdk.UpdateProjectFields, In<typeof projectDomain.updateProjectSchema>>(projectDomain.updateProjectSchema),

  // Conversations, messages and what a turn sends.
  AgentConversationRecord: same<sdk.AgentConversationRecord, Out<typeof conversationDomain.agentConversationSchema>>(
    conversationDomain.agentConversationSchema,
  ),
  ProjectConversationRecord: same<sdk.ProjectConversationRecord, Out<typeof projectConversationDomain.projectConversationSchema>>(
    projectConversationDomain.projectConversationSchema,
  ),
  StartProjectConversationOptions: same<
    Omit<sdk.StartProjectConversationOptions, 'signal'>,
    In<typeof projectConversationDomain.startProjectConversationSchema>
  >(projectConversationDomain.startProjectConversationSchema),
  Requirement: same<sdk.Requirement, Out<typeof conversationDomain.requirementSchema>>(conversationDomain.requirementSchema),
  Message: same<sdk.Message, Out<typeof conversationDomain.messageSchema>>(conversationDomain.messageSchema),
  Attachment: same<sdk.Attachment, In<typeof conversationDomain.attachmentSchema>>(conversationDomain.attachmentSchema),
  // Options types whose fields (all but `signal`, which is not sent) are a request body.
  StartConversationOptions: same<Omit<sdk.StartConversationOptions, 'signal'>, In<typeof conversationDomain.startConversationSchema>>(
    conversationDomain.startConversationSchema,
  ),
  AskOptions: same<Omit<sdk.AskOptions, 'signal'> & { text: string }, In<typeof conversationDomain.askSchema>>(conversationDomain.askSchema),

  // Turn events.
  TurnEvent: same<sdk.TurnEvent, Out<typeof turnEventsDomain.turnEventSchema>>(turnEventsDomain.turnEventSchema),
  Step: same<sdk.Step, Out<typeof turnEventsDomain.stepSchema>>(turnEventsDomain.stepSchema),
  StepKind: same<sdk.StepKind, Out<typeof turnEventsDomain.stepSchema.shape.kind>>(turnEventsDomain.stepSchema.shape.kind),

  // Tool calls a person approves.
  Approval: same<sdk.Approval, Out<typeof approvalsDomain.approvalSchema>>(approvalsDomain.approvalSchema),
  ApprovalStatus: same<sdk.ApprovalStatus, Out<typeof approvalsDomain.approvalStatusSchema>>(approvalsDomain.approvalStatusSchema),
  ApprovalDecision: same<sdk.ApprovalDecision, In<typeof approvalsDomain.approvalDecisionSchema>>(approvalsDomain.approvalDecisionSchema),
  // Options whose fields (all but `signal`, which is not sent) are the query.
  ListApprovalsOptions: same<Omit<sdk.ListApprovalsOptions, 'signal'>, In<typeof approvalsDomain.listApprovalsQuerySchema>>(
    approvalsDomain.listApprovalsQuerySchema,
  ),

  // The audit log.
  AuditEvent: same<sdk.AuditEvent, Out<typeof auditDomain.auditEventSchema>>(auditDomain.auditEventSchema),

  // The workspace-wide conversation search.
  ConversationSummary: same<sdk.ConversationSummary, Out<typeof conversationSearchDomain.conversationSummarySchema>>(conversationSearchDomain.conversationSummarySchema),
  ConversationLastTurn: same<sdk.ConversationLastTurn, Out<typeof conversationSearchDomain.conversationLastTurnSchema>>(conversationSearchDomain.conversationLastTurnSchema),
  ConversationStatus: same<sdk.ConversationStatus, Out<typeof conversationSearchDomain.conversationStatusSchema>>(conversationSearchDomain.conversationStatusSchema),

  // Credentials (see ConnectionWire for the one intended difference).
  SecretsInput: same<sdk.SecretsInput, In<typeof credentialsDomain.secretsInputSchema>>(credentialsDomain.secretsInputSchema),
  ConnectionInput: same<ConnectionWire, In<typeof credentialsDomain.connectionInputSchema>>(credentialsDomain.connectionInputSchema),
  BindInput: same<Omit<sdk.BindInput, 'connections'> & { connections?: ConnectionWire[] }, In<typeof credentialsDomain.credentialsBodySchema>>(
    credentialsDomain.credentialsBodySchema,
  ),
  ConnectionStatus: same<sdk.ConnectionStatus, Out<typeof credentialsDomain.connectionStatusSchema>>(credentialsDomain.connectionStatusSchema),

  // An end user's data: the export and the erasure.
  EndUserExport: same<sdk.EndUserExport, Out<typeof endUserErasureDomain.endUserExportSchema>>(endUserErasureDomain.endUserExportSchema),
  EndUserExportConversation: same<sdk.EndUserExportConversation, Out<typeof endUserErasureDomain.exportConversationSchema>>(endUserErasureDomain.exportConversationSchema),
  EndUserExportTurn: same<sdk.EndUserExportTurn, Out<typeof endUserErasureDomain.exportTurnSchema>>(endUserErasureDomain.exportTurnSchema),
  EndUserExportFile: same<sdk.EndUserExportFile, Out<typeof endUserErasureDomain.exportFileSchema>>(endUserErasureDomain.exportFileSchema),
  EndUserExportSecret: same<sdk.EndUserExportSecret, Out<typeof endUserErasureDomain.exportSecretSchema>>(endUserErasureDomain.exportSecretSchema),
  EndUserExportConnection: same<sdk.EndUserExportConnection, Out<typeof endUserErasureDomain.exportConnectionSchema>>(endUserErasureDomain.exportConnectionSchema),
  EndUserErasure: same<sdk.EndUserErasure, Out<typeof endUserErasureDomain.erasureSchema>>(endUserErasureDomain.erasureSchema),
  ErasureCounts: same<sdk.ErasureCounts, Out<typeof endUserErasureDomain.erasureCountsSchema>>(endUserErasureDomain.erasureCountsSchema),

  // Custom domains.
  CustomDomain: same<sdk.CustomDomain, Out<typeof customDomainsDomain.customDomainSchema>>(customDomainsDomain.customDomainSchema),

  // File spaces.
  FileEntry: same<sdk.FileEntry, Out<typeof filePathDomain.fileEntrySchema>>(filePathDomain.fileEntrySchema),
  FileIndex: same<sdk.FileIndex, Out<typeof filePathDomain.fileIndexSchema>>(filePathDomain.fileIndexSchema),

  // Evaluation cases: as stored (Out, defaults filled in) and as put takes them (In), each check kind.
  EvalCase: same<sdk.EvalCase, Out<typeof evalsDomain.evalCaseSchema>>(evalsDomain.evalCaseSchema),
  EvalCaseDefinition: same<sdk.EvalCaseDefinition, In<typeof evalsDomain.evalCaseBodySchema>>(evalsDomain.evalCaseBodySchema),
  EvalCheck: same<sdk.EvalCheck, Out<typeof evalsDomain.evalCheckSchema>>(evalsDomain.evalCheckSchema),
  EvalCheckInput: same<sdk.EvalCheckInput, In<typeof evalsDomain.evalCheckSchema>>(evalsDomain.evalCheckSchema),
  ContainsCheck: same<sdk.ContainsCheck, CheckKind<'contains'>>(evalsDomain.evalCheckSchema),
  NotContainsCheck: same<sdk.NotContainsCheck, CheckKind<'not_contains'>>(evalsDomain.evalCheckSchema),
  MatchesCheck: same<sdk.MatchesCheck, CheckKind<'matches'>>(evalsDomain.evalCheckSchema),
  JsonSchemaCheck: same<sdk.JsonSchemaCheck, CheckKind<'json_schema'>>(evalsDomain.evalCheckSchema),
  CalledToolCheck: same<sdk.CalledToolCheck, CheckKind<'called_tool'>>(evalsDomain.evalCheckSchema),
  NotCalledToolCheck: same<sdk.NotCalledToolCheck, CheckKind<'not_called_tool'>>(evalsDomain.evalCheckSchema),
  MaxCreditsCheck: same<sdk.MaxCreditsCheck, CheckKind<'max_credits'>>(evalsDomain.evalCheckSchema),
  JudgeCheck: same<sdk.JudgeCheck, CheckKind<'judge'>>(evalsDomain.evalCheckSchema),

  // Evaluation runs and the gate.
  EvalRun: same<sdk.EvalRun, Out<typeof evalRunsDomain.evalRunSchema>>(evalRunsDomain.evalRunSchema),
  EvalRunListItem: same<sdk.EvalRunListItem, Out<typeof evalRunsDomain.evalRunListItemSchema>>(evalRunsDomain.evalRunListItemSchema),
  EvalCaseResult: same<sdk.EvalCaseResult, Out<typeof evalRunsDomain.evalCaseResultSchema>>(evalRunsDomain.evalCaseResultSchema),
  EvalRunComparison: same<sdk.EvalRunComparison, Out<typeof evalRunsDomain.evalComparisonSchema>>(evalRunsDomain.evalComparisonSchema),
  EvalGate: same<sdk.EvalGate, Out<typeof evalRunsDomain.evalGateSchema>>(evalRunsDomain.evalGateSchema),
  VersionEvals: same<sdk.VersionEvals, NonNullable<Out<typeof agentDomain.versionItemSchema>['evals']>>(agentDomain.versionItemSchema.shape.evals.unwrap()),

  // Visitor identity.
  VisitorIdentity: same<sdk.VisitorIdentity, Out<typeof visitorIdentityDomain.visitorIdentitySchema>>(visitorIdentityDomain.visitorIdentitySchema),
  VisitorSecret: same<sdk.VisitorSecret, Out<typeof visitorIdentityDomain.visitorSecretSchema>>(visitorIdentityDomain.visitorSecretSchema),
  PublicIdentityMode: same<sdk.PublicIdentityMode, Out<typeof visitorIdentityDomain.setVisitorIdentitySchema.shape.mode>>(
    visitorIdentityDomain.setVisitorIdentitySchema.shape.mode,
  ),
};

/** SDK types of sdk/src/types/ with no server schema of their own, and why. */
const notCompared: Record<string, string> = {
  ConversationRecord: 'the union of AgentConversationRecord (compared) and ProjectConversationRecord',
  DomainStatus: 'the `status` field of CustomDomain (compared within it)',
  AttachInput: 'the shapes attach() accepts; the SDK turns each into the BindInput body (compared)',
  EvalToolCall: 'an item of EvalCaseResult.toolCalls (compared within it)',
  AuditActor: 'the `actor` field of AuditEvent (compared within it)',
  AuditPage: 'the answer `{ data: AuditEvent[], nextCursor }` of GET /v1/audit, built by the route from AuditEvent (compared)',
  ConversationSearchPage: 'the answer `{ data: ConversationSummary[], nextCursor }` of GET /v1/conversations, built by the route from ConversationSummary (compared)',
  EvalCheckOutcome: 'an item of EvalCaseResult.checks (compared within it)',
  EvalCaseStatus: 'the `status` field of EvalCaseResult (compared within it)',
  EvalRunSummary: 'the `summary` field of EvalRun (compared within it)',
};

/** Schemas of the domain modules above with no SDK type, and why. */
const serverOnly: Record<string, string> = {
  agentConfigSchema: 'the configuration inside a version snapshot; the API answers with agentSchema',
  triggersBodySchema: 'the body `{ triggers }` setTriggers builds from its Trigger[] argument',
  addMemberSchema: 'the body `{ agentId }` addAgent builds from its argument',
  authorizeBodySchema: 'the body `{ provider }` authorize builds from its argument',
  deployBodySchema: 'the body `{ versionId }` deployToTest/deployToProd build from their argument',
  rollbackBodySchema: 'the body `{ versionId }` rollback builds from its argument',
  publicTokenSchema: 'publicToken() and rotatePublicToken() resolve to the token string itself',
  signingSecretSchema: 'mintWebhookSigningSecret() resolves to the secret string itself',
  webhookAcceptedSchema: 'the answer of an inbound webhook POST, which senders make, not the SDK',
  setCreditCapSchema: 'the body of `agent.setCreditCap(credits)`, which takes the number itself',
  allowedOriginsSchema: '`agent.allowedOrigins()` and `setAllowedOrigins()` resolve to the string[] itself',
  setAllowedOriginsSchema: 'the body `{ origins }` setAllowedOrigins builds from its string[] argument',
  endUserSchema: "what a visitor's page sends to public chat; the SDK reads it back as AgentConversationRecord.endUser (compared)",
  publicChatBodySchema: 'public chat, used by the hosted page and the embed, not by the SDK',
  publicVisitorQuerySchema: 'public chat, used by the hosted page and the embed, not by the SDK',
  publicAgentSchema: 'public chat, used by the hosted page and the embed, not by the SDK',
  agentByTokenSchema: 'public chat, used by the embed, not by the SDK',
  createKeyBodySchema: 'the body `{ name, role }` keys.create sends as given',
  workspaceNameSchema: 'operator CLI input',
  creditAmountSchema: 'operator CLI input',
  parameterValue: 'one value of `parameters` in StartConversationOptions and StartProjectConversationOptions (compared within them)',
  addDomainBodySchema: 'the body `{ domain, agentId }` domains.add sends as given',
  domainParamSchema: 'the `:domain` path parameter of get and remove',
  delegateArgsSchema: "the arguments of the manager's delegate tool, sent by the model, not by the SDK",
  visitorTokenSchema: "a visitor's token as public chat takes it, from the embed; the SDK signs tokens (signVisitorToken), it does not send them",
  setVisitorIdentitySchema: 'the body `{ mode }` setVisitorIdentity builds from its argument (its mode is compared as PublicIdentityMode)',
  rotateVisitorSecretSchema: 'the body `{ graceSeconds? }` rotateVisitorSecret builds from its options',
  evalCaseIdSchema: 'the `:caseId` path parameter of put',
  storedEvalCaseIdSchema: 'the `:caseId` path parameter of remove and the ids in `cases` of a run',
  memberAgentId: 'an agent id given to a project (a string in the SDK)',
  deployProdBodySchema: 'the body `{ versionId, skipEvals? }` deployToProd builds from its arguments',
  versionId: 'the `versionId` field of the deploy and eval-run bodies (a string in the SDK)',
  evalRunIdSchema: 'the `:runId` path parameter of the eval-run calls',
  turnErrorCodeSchema: "the `code` of a turn's error event and EvalCaseResult's `errorCode` (compared within TurnEvent and EvalCaseResult)",
  evalRunStartSchema: 'the body `{ versionId, cases? }` of agent.evals.run, sent as given',
  approvalIdParam: 'the `:approvalId` path parameter of `ws.approval(id)`',
  auditFiltersSchema: 'the query of ws.audit.all and GET /v1/audit/export; the SDK also takes Date for `since`/`until` (AuditFilters)',
  listAuditQuerySchema: 'the query of ws.audit.list (ListAuditOptions: the filters, `cursor` and `limit`)',
  searchConversationsQuerySchema: 'the query of ws.conversations.search (SearchConversationsOptions: the filters, `cursor` and `limit`; the SDK also takes Date for `since`/`until`)',
  emailSchema: 'an e-mail address inside the member bodies (a string in the SDK)',
  updateMemberBodySchema: 'the body `{ role }` members.update builds from its argument',
  passwordSignInBodySchema: 'password sign-in is for browsers (the console), not for the SDK, which uses API keys',
  signedInSchema: 'what the sign-in routes answer a browser; the SDK uses API keys',
  sessionInfoSchema: 'GET /v1/session, for the console (a signed-in browser); the SDK uses API keys',
  passwordResetRequestBodySchema: 'a person asks for their own reset link from the sign-in page, not through the SDK',
  changePasswordBodySchema: "a signed-in person's own password, set from the console, not through the SDK",
  useLinkBodySchema: "the body of a one-time link's form, sent by the link's page",
  publicApprovalDecisionSchema: "a visitor's decision on the public route, sent by the hosted page and the embed, not by the SDK",
};

const domainModules = {
  agent: agentDomain,
  'allowed-origins': allowedOriginsDomain,
  approvals: approvalsDomain,
  audit: auditDomain,
  conversation: conversationDomain,
  'conversation-search': conversationSearchDomain,
  credentials: credentialsDomain,
  'credit-cap': creditCapDomain,
  'custom-domains': customDomainsDomain,
  'end-user-erasure': endUserErasureDomain,
  evals: evalsDomain,
  'eval-runs': evalRunsDomain,
  'file-path': filePathDomain,
  member: memberDomain,
  project: projectDomain,
  'project-conversation': projectConversationDomain,
  publishing: publishingDomain,
  trigger: triggerDomain,
  'turn-events': turnEventsDomain,
  'visitor-identity': visitorIdentityDomain,
  webhooks: webhooksDomain,
  workspace: workspaceDomain,
};

const sdkSrc = path.resolve(__dirname, '../../sdk/src');
const embedSrc = path.resolve(__dirname, '../../embed/src');

/** The type names sdk/src/types/*.ts export. */
function sdkRecordTypes(): string[] {
  const dir = path.join(sdkSrc, 'types');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) => [...readFileSync(path.join(dir, file), 'utf8').matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]!));
}

describe('SDK types and server schemas agree', () => {
  it('every type of sdk/src/types/ is compared with a server schema, or says why not', () => {
    const declared = sdkRecordTypes().sort();
    const accounted = declared.filter((name) => name in rows || name in notCompared);
    assert.deepEqual(accounted, declared, 'add the missing types to `rows` (or to `notCompared`, with the reason)');
    for (const name of Object.keys(notCompared)) assert.ok(!(name in rows), `${name} is both compared and not compared`);
  });

  it('the embed declares none of these types again: it imports the SDK\'s', () => {
    const sdkTypes = new Set(sdkRecordTypes());
    const files = readdirSync(embedSrc, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    assert.ok(files.length > 0, `no .ts files under ${embedSrc}`);
    for (const file of files) {
      const declared = [...readFileSync(path.join(embedSrc, file), 'utf8').matchAll(/^\s*(?:export\s+)?(?:interface|type)\s+(\w+)/gm)].map((m) => m[1]!);
      const again = declared.filter((name) => sdkTypes.has(name));
      assert.deepEqual(again, [], `embed/src/${file} declares ${again.join(', ')}: import the SDK's with \`import type\` instead`);
    }
  });

  it('every name in the table is exported by the SDK', () => {
    const index = readFileSync(path.join(sdkSrc, 'index.ts'), 'utf8');
    for (const name of [...Object.keys(rows), ...Object.keys(notCompared)]) {
      assert.match(index, new RegExp(`\\b${name}\\b`), `${name} is not exported by sdk/src/index.ts`);
    }
  });

  it('every schema of the domain modules the SDK talks to has an SDK type, or says why not', () => {
    const compared = new Set(Object.values(rows));
    for (const [module, exports] of Object.entries(domainModules)) {
      for (const [name, value] of Object.entries(exports)) {
        if (!(value instanceof z.ZodType) || compared.has(value)) continue;
        assert.ok(name in serverOnly, `domain/${module}.ts exports ${name}, which no SDK type is compared with: add a row, or a reason to \`serverOnly\``);
      }
    }
  });
});
