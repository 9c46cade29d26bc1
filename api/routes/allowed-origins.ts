import { allowedOriginsSchema, setAllowedOriginsSchema } from '../../domain/allowed-origins';
import type { AllowedOriginsService } from '../../services/allowed-origins';
import { workspaceOf } from '../context';
import type { ApiRouter } from '../routing';
import { agentIdParam } from './agents';

/** An agent's allowed origins (our addition): `agent.allowedOrigins()` and `agent.setAllowedOrigins(origins)` in the SDK. */
export function allowedOriginRoutes(r: ApiRouter, origins: AllowedOriginsService): void {
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/allowed-origins', operationId: 'getAllowedOrigins', tag: 'Agents', role: 'viewer',
      summary: "The origins where the agent's embed may run and whose pages may call its public chat (empty: any)",
      params: agentIdParam,
      response: { status: 200, description: 'The list', schema: allowedOriginsSchema },
      errors: ['agent_not_found'],
    },
    (ctx, { params }) => origins.get(workspaceOf(ctx), params.agentId),
  );
  r.add(
    {
      method: 'put', path: '/v1/agents/:agentId/allowed-origins', operationId: 'setAllowedOrigins', tag: 'Agents', role: 'builder',
      summary: 'Replace the allowed origins (at most 100; empty: any origin); applies at once, no deploy',
      params: agentIdParam, body: setAllowedOriginsSchema,
      response: { status: 200, description: 'The list as stored: normalised, duplicates once', schema: allowedOriginsSchema },
      errors: ['agent_not_found'],
    },
    (ctx, { params, body }) => origins.set(workspaceOf(ctx), params.agentId, body.origins),
  );
}
