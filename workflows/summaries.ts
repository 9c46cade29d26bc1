/**
 * The one-line summaries the Temporal UI shows on a run's activities, timers and child workflows
 * (docs/operations.md: "Reading a run in the Temporal UI"), so a timeline reads without decoding
 * payloads. They are user metadata on the commands: Temporal does not compare them on replay (its
 * determinism checks look at activity id and type, timer id, child workflow id and type), so a
 * summary may change without breaking runs in flight.
 */
export const summaries = {
  /** A model call of a turn; steps count from 1. */
  modelStep: (step: number) => `model step ${step}`,
  /** A tool call, named as the turn's `tool` events name it (`files.write`, `crm.lookup`). */
  tool: (shownName: string) => `tool ${shownName}`,
  /** The local activity that writes the turn's terminal event (a marker in the history). */
  turnEnd: (event: 'done' | 'error') => `end the turn: ${event}`,
  /** A call that needs a person's approval: recording it, the timer of its wait, reading the decision. */
  approvalRequest: (shownName: string) => `ask approval for ${shownName}`,
  approvalWait: (shownName: string) => `wait for approval of ${shownName}`,
  approvalSettle: (shownName: string) => `approval of ${shownName} settled`,
  /** The timer that ends a turn at `limits.turnTimeoutMs` (and its make-up for time spent waiting for approvals). */
  turnDeadline: 'turn deadline',
  /** A manager's delegation: its bookkeeping activities (by agent id, then name) and the member's turn (a child workflow). */
  delegate: (member: string) => `delegate to ${member}`,
  delegated: (member: string) => `delegation to ${member} ends`,
  delegatedTurn: (member: string) => `${member}'s turn (delegated)`,
  /** The turn a trigger run or a webhook request runs as a child workflow. */
  childTurn: (origin: 'trigger' | 'webhook') => `${origin} run's turn`,
  /** A child turn whose start was cancelled: the activity that ends it (workflows/child-turn.ts). */
  endUnstartedTurn: 'end the turn that never started',
  startTriggerRun: (kind: string, index: number) => `start ${kind} trigger ${index}`,
  deliverWebhook: 'deliver webhook result',
  deployCheck: (version: number) => `health check of version ${version}`,
  deploySwitch: (version: number) => `switch production to version ${version}`,
  retireTests: 'retire expired test URLs',
  testExpiry: 'next test URL expiry',
  /** An eval run: each case's turns (child workflows) and its grading; a deployment's gate. */
  evalTurn: (caseId: string, message: number) => `eval case ${caseId}, message ${message}`,
  evalOpen: (caseId: string, message: number) => `open eval case ${caseId}, message ${message}`,
  evalGrade: (caseId: string) => `grade eval case ${caseId}`,
  evalEnd: (status: string) => `end the eval run: ${status}`,
  evalGate: (version: number) => `eval gate of version ${version}`,
  evalGateRun: (purpose: string, version: number) => `evals of version ${version} (${purpose === 'deploy_candidate' ? 'candidate' : 'production'})`,
} as const;
