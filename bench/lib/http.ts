/** A JSON call to the service's API; throws on any non-2xx answer. */
export async function apiJson<T>(baseURL: string, apiKey: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseURL}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

export async function createAgent(baseURL: string, apiKey: string): Promise<string> {
  const agent = await apiJson<{ id: string }>(baseURL, apiKey, 'POST', '/v1/agents', {
    name: 'bench',
    instructions: 'Answer briefly.',
  });
  return agent.id;
}

export async function createConversation(baseURL: string, apiKey: string, agentId: string): Promise<string> {
  const conversation = await apiJson<{ id: string }>(baseURL, apiKey, 'POST', `/v1/agents/${agentId}/conversations`, {});
  return conversation.id;
}
