import type { Db } from '../connect';
import { AgentsRepository } from './agents';
import { AllowedOriginsRepository } from './allowed-origins';
import { ApprovalsRepository } from './approvals';
import { ApiKeysRepository } from './api-keys';
import { AuditRepository } from './audit';
import { ConversationSearchRepository } from './conversation-search';
import { ConversationsRepository } from './conversations';
import { CredentialsRepository } from './credentials';
import { CreditsRepository } from './credits';
import { CustomDomainsRepository } from './custom-domains';
import { DeploymentsRepository } from './deployments';
import { EndUserDataRepository } from './end-user-data';
import { EndUserErasuresRepository } from './end-user-erasures';
import { EvalCasesRepository } from './eval-cases';
import { EvalRunsRepository } from './eval-runs';
import { FilesRepository } from './files';
import { JudgeCallsRepository } from './judge-calls';
import { KnowledgeChunksRepository } from './knowledge-chunks';
import { LeasesRepository } from './leases';
import { MemberLinksRepository } from './member-links';
import { MembersRepository } from './members';
import { OAuthStatesRepository } from './oauth-states';
import { OidcSignInsRepository } from './oidc-sign-ins';
import { ProbesRepository } from './probes';
import { ProjectsRepository } from './projects';
import { SealedValuesRepository } from './sealed-values';
import { SessionsRepository } from './sessions';
import { SignInFailuresRepository } from './sign-in-failures';
import { StepUsageRepository } from './step-usage';
import { TurnsRepository } from '../turns/repository';
import { VisitorIdentitiesRepository } from './visitor-identities';
import { WebhooksRepository } from './webhooks';
import { WorkerLivenessRepository } from './worker-liveness';
import { WorkspacesRepository } from './workspaces';

/** All repositories over one knex instance, wired by hand in one place. */
export function createRepositories(db: Db) {
  return {
    workspaces: new WorkspacesRepository(db),
    credits: new CreditsRepository(db),
    apiKeys: new ApiKeysRepository(db),
    probes: new ProbesRepository(db),
    agents: new AgentsRepository(db),
    projects: new ProjectsRepository(db),
    files: new FilesRepository(db),
    knowledgeChunks: new KnowledgeChunksRepository(db),
    conversations: new ConversationsRepository(db),
    conversationSearch: new ConversationSearchRepository(db),
    turns: new TurnsRepository(db),
    stepUsage: new StepUsageRepository(db),
    credentials: new CredentialsRepository(db),
    deployments: new DeploymentsRepository(db),
    workerLiveness: new WorkerLivenessRepository(db),
    oauthStates: new OAuthStatesRepository(db),
    oidcSignIns: new OidcSignInsRepository(db),
    sealedValues: new SealedValuesRepository(db),
    webhooks: new WebhooksRepository(db),
    leases: new LeasesRepository(db),
    customDomains: new CustomDomainsRepository(db),
    allowedOrigins: new AllowedOriginsRepository(db),
    evalCases: new EvalCasesRepository(db),
    evalRuns: new EvalRunsRepository(db),
    judgeCalls: new JudgeCallsRepository(db),
    visitorIdentities: new VisitorIdentitiesRepository(db),
    approvals: new ApprovalsRepository(db),
    endUserData: new EndUserDataRepository(db),
    endUserErasures: new EndUserErasuresRepository(db),
    sessions: new SessionsRepository(db),
    audit: new AuditRepository(db),
    members: new MembersRepository(db),
    memberLinks: new MemberLinksRepository(db),
    signInFailures: new SignInFailuresRepository(db),
  };
}
export type Repositories = ReturnType<typeof createRepositories>;
