import { ServiceError } from './errors.js';
import type { HttpClient } from './http.js';
import type { AttachInput, BindInput, ConnectionInput, ConnectionStatus, SecretsInput } from './types/credentials.js';

/**
 * The requests behind `bind`, `attach`, `connections` and `authorize`, shared by agents and
 * conversations. `base` is the owner's path (`/v1/agents/:agentId` or
 * `/v1/conversations/:conversationId`), built by the caller (which refuses `.`/`..` ids).
 */

/** The wire form of a connection value: `expiresAt` as an ISO string. */
interface ConnectionWire {
  provider: string;
  accessToken: string;
  refreshToken?: string;
  expiresAt?: string;
  accountLabel?: string;
}

function invalid(message: string): ServiceError {
  return new ServiceError({ code: 'invalid_request', status: 400, retryable: false, message });
}

function connectionWire(c: ConnectionInput): ConnectionWire {
  if (!(c.expiresAt instanceof Date)) return c as ConnectionWire;
  if (Number.isNaN(c.expiresAt.getTime())) throw invalid(`connection ${JSON.stringify(c.provider)}: expiresAt is an invalid Date`);
  return { ...c, expiresAt: c.expiresAt.toISOString() };
}

/** The body of `PUT …/credentials` for `bind(input)`: only the fields given. */
export function bindBody(input: BindInput): { secrets?: SecretsInput; connections?: ConnectionWire[] } {
  const body: { secrets?: SecretsInput; connections?: ConnectionWire[] } = {};
  if (input.secrets !== undefined) body.secrets = input.secrets;
  if (input.connections !== undefined) body.connections = Array.isArray(input.connections) ? input.connections.map(connectionWire) : input.connections;
  return body;
}

/**
 * The body of `PUT …/credentials` for `attach(input)`: an array is connections, an object with
 * `provider` is one connection, `{ secrets }` is secrets. Anything else is refused unsent.
 */
export function attachBody(input: AttachInput): { secrets?: SecretsInput; connections?: ConnectionWire[] } {
  if (Array.isArray(input)) return { connections: input.map(connectionWire) };
  if (typeof input !== 'object' || input === null) throw invalid('attach takes a connection, an array of connections, or { secrets }');
  if ('provider' in input) return { connections: [connectionWire(input)] };
  const extra = Object.keys(input).find((k) => k !== 'secrets');
  if (extra !== undefined) {
    throw invalid(`attach: unexpected field ${JSON.stringify(extra)}; pass a connection (with provider), an array of connections, or { secrets }`);
  }
  return input.secrets === undefined ? {} : { secrets: input.secrets };
}

export async function putCredentials(
  http: HttpClient,
  base: string,
  body: { secrets?: SecretsInput; connections?: ConnectionWire[] },
  signal: AbortSignal | undefined,
): Promise<void> {
  await http.request<void>('PUT', `${base}/credentials`, { body, signal });
}

export function listConnections(http: HttpClient, base: string, signal: AbortSignal | undefined): Promise<ConnectionStatus[]> {
  return http.request<ConnectionStatus[]>('GET', `${base}/connections`, { signal, expect: 'list' });
}

export async function authorize(http: HttpClient, base: string, provider: string, signal: AbortSignal | undefined): Promise<{ url: string }> {
  const answer = await http.request<{ url?: unknown }>('POST', `${base}/authorize`, { body: { provider }, signal, expect: 'object' });
  if (typeof answer.url !== 'string') {
    throw new ServiceError({ code: 'invalid_response', status: 200, retryable: false, message: 'the service answered authorize without a url string' });
  }
  return { url: answer.url };
}
