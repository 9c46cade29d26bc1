/**
 * An agent whose refund tool needs a person's approval: the turn stops at the call and waits
 * (durably, for up to the agent's `approvalTimeoutMs`) until someone approves or denies it. An
 * approved call runs; a denied one is a tool result the model reads, with the note.
 *
 *   SERVICE_API_KEY=sk_… npx tsx examples/refund-approval.ts
 *
 * EXAMPLE_HTTP_URL: the refunds endpoint the tool posts to (default https://httpbin.org/anything,
 * which echoes the request). The offline model calls a tool when a line of the message reads
 * `/tool <name> <json>`; a real model decides by itself from the tool's description.
 */
import { Service, ServiceError, type Turn } from '@hosted-agents/sdk';

const url = process.env.EXAMPLE_HTTP_URL ?? 'https://httpbin.org/anything';

/** Follows a turn, deciding its waiting call with `decide`, and prints what happens. */
async function run(turn: Turn, decide: (turn: Turn) => Promise<unknown>): Promise<void> {
  for await (const event of turn) {
    if (event.type === 'approval' && event.status === 'pending') {
      console.log(`waiting for approval: ${event.tool} ${JSON.stringify(event.arguments)}`);
      // Anyone with an API key may decide, from anywhere: ws.approval(event.approvalId).approve().
      await decide(turn);
    } else if (event.type === 'approval') {
      console.log(`approval ${event.status}${event.note ? ` (${event.note})` : ''}`);
    }
    if (event.type === 'tool') console.log(`tool ${event.name}: ${event.state}${event.state === 'end' ? ` (ok: ${event.ok})` : ''}`);
    if (event.type === 'done') console.log(`reply: ${event.reply.slice(0, 300)}`);
    if (event.type === 'error') throw new Error(event.message);
  }
}

async function main(): Promise<void> {
  const ws = new Service();
  const agent = await ws.agents.create({
    name: 'Refund desk',
    instructions: 'Refund orders with the refund tool when a customer asks.',
    httpTools: [
      {
        name: 'refund',
        description: 'Refunds an order',
        method: 'POST',
        url: `${url}/refunds`,
        params: { order: { type: 'string', required: true }, amount: { type: 'number', required: true } },
        approval: 'required', // every call waits for a person
      },
    ],
    approvalTimeoutMs: 10 * 60_000, // undecided after 10 minutes: denied (default 24 hours)
  });

  const conversation = await agent.start();
  await run(conversation.ask('Please refund order 42.\n/tool refund {"order":"42","amount":20}'), (turn) => turn.approve('checked the order'));
  await run(conversation.ask('And refund order 43 too.\n/tool refund {"order":"43","amount":900}'), (turn) => turn.deny('over the chat refund limit'));
  await agent.delete();
}

main().catch((error: unknown) => {
  if (error instanceof ServiceError) console.error(`${error.status} ${error.code}: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
