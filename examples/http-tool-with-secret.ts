/**
 * An agent with an HTTP tool that sends a secret: the secret is stored encrypted, filled in at
 * call time, and masked in everything the model, the event log and Temporal see.
 *
 *   SERVICE_API_KEY=sk_… npx tsx examples/http-tool-with-secret.ts
 *
 * EXAMPLE_HTTP_URL: the endpoint the tool calls (default https://httpbin.org/anything, which echoes
 * the request). The offline model calls a tool when a line of the message reads `/tool <name> <json>`;
 * a real model decides by itself from the tool's description.
 */
import { Service, ServiceError } from '@hosted-agents/sdk';

const url = process.env.EXAMPLE_HTTP_URL ?? 'https://httpbin.org/anything';

async function main(): Promise<void> {
  const ws = new Service();
  const agent = await ws.agents.create({
    name: 'Order lookup',
    instructions: 'Look orders up with the lookup_order tool.',
    secrets: [{ name: 'SHOP_TOKEN', scope: 'fixed', required: true }],
    httpTools: [
      {
        name: 'lookup_order',
        description: 'Fetches an order by its number',
        method: 'GET',
        url: `${url}/orders/{order}`,
        headers: { Authorization: 'Bearer {{secrets.SHOP_TOKEN}}' },
        params: { order: { type: 'string', description: 'the order number', required: true, in: 'path' } },
        secrets: ['SHOP_TOKEN'],
      },
    ],
  });
  await agent.bind({ secrets: { SHOP_TOKEN: 'example-token-123' } });

  const conversation = await agent.start();
  const turn = conversation.ask('Where is order 42?\n/tool lookup_order {"order":"42"}');
  for await (const event of turn) {
    if (event.type === 'tool') console.log(`tool ${event.name}: ${event.state}${event.state === 'end' ? ` (ok: ${event.ok})` : ''}`);
    if (event.type === 'error') throw new Error(event.message);
  }
  const reply = await turn;
  // The token never appears: the service replaced it with [secret:SHOP_TOKEN] before the model saw it.
  console.log(`reply: ${reply.slice(0, 300)}`);
  console.log(`token visible in reply: ${reply.includes('example-token-123')}`);
  await agent.delete();
}

main().catch((error: unknown) => {
  if (error instanceof ServiceError) console.error(`${error.status} ${error.code}: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
