import { creditCapSchema, setCreditCapSchema } from '../../domain/credit-cap';
import type { CreditCapsService } from '../../services/credit-caps';
import { workspaceOf } from '../context';
import type { ApiRouter } from '../routing';
import { agentIdParam } from './agents';

/** An agent's credit cap (our addition): `agent.creditCap()` and `agent.setCreditCap(credits)` in the SDK. */
export function creditCapRoutes(r: ApiRouter, caps: CreditCapsService): void {
  r.add(
    {
      method: 'get', path: '/v1/agents/:agentId/credit-cap', operationId: 'getCreditCap', tag: 'Agents', role: 'viewer',
      summary: "The agent's credit cap and what its turns have spent or reserved",
      params: agentIdParam,
      response: { status: 200, description: 'The cap', schema: creditCapSchema },
      errors: ['agent_not_found'],
    },
    (ctx, { params }) => caps.get(workspaceOf(ctx), params.agentId),
  );
  r.add(
    {
      method: 'put', path: '/v1/agents/:agentId/credit-cap', operationId: 'setCreditCap', tag: 'Agents', role: 'owner',
      summary: 'Set the most credits the agent\'s turns may spend in all (null: no cap); a turn that would pass it is refused',
      params: agentIdParam, body: setCreditCapSchema,
      response: { status: 200, description: 'The cap', schema: creditCapSchema },
      errors: ['agent_not_found'],
    },
    (ctx, { params, body }) => caps.set(workspaceOf(ctx), params.agentId, body.credits),
  );
}
