// Every workflow the workers register. Deterministic code only: no I/O, no Node built-ins.
export { promoteWorkflow, testExpiryWorkflow } from './deploy';
export { domainWorkflow } from './domain';
export { eraseEndUserWorkflow } from './end-user-erasure';
export { evalRunWorkflow } from './eval-run';
export { knowledgeIndexWorkflow } from './knowledge-index';
export { projectTurnWorkflow } from './project-turn';
export { roundTripProbe } from './probe';
export { triggerRunWorkflow } from './trigger-run';
export { turnWorkflow } from './turn';
export { webhookRunWorkflow } from './webhook-run';
