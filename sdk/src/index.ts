export { ServiceError, type ServiceErrorInit } from './errors.js';
export { DEFAULT_BASE_URL, DEFAULT_TIMEOUT_MS, type ServiceOptions } from './options.js';
export { Service, type ServiceConstructor } from './service.js';
export { readSSE, type SSEMessage } from './sse.js';
export type { Step, StepKind, TurnEvent, Workspace } from './types.js';
export { type CallOptions, WorkspaceClient } from './workspace.js';
