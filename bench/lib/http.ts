import { apiJson } from '../../harness/http';

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
