/**
 * Quick start: create an agent, start a conversation, stream a reply, then await the next one.
 *
 *   npm start      # in another terminal: prints an API key and keeps it in .data/dev-credentials.json
 *   SERVICE_API_KEY=$(node -p 'require("./.data/dev-credentials.json").apiKey') npx tsx examples/quick-start.ts
 *
 * SERVICE_BASE_URL defaults to http://localhost:8080. With no model key configured, the service
 * answers with its offline model, which echoes what you said.
 */
import { Service, ServiceError } from '@hosted-agents/sdk';

async function main(): Promise<void> {
  const ws = new Service(); // apiKey: SERVICE_API_KEY, baseURL: SERVICE_BASE_URL
  const agent = await ws.agents.create({ name: 'Quick start', instructions: 'Answer in one sentence.' });
  const conversation = await agent.start();

  // Iterate a turn to show the reply as it streams…
  for await (const event of conversation.ask('Hello! What can you do?')) {
    if (event.type === 'text') process.stdout.write(event.text);
    if (event.type === 'error') throw new Error(event.message);
  }
  process.stdout.write('\n');

  // …or await it for the whole reply (a failure rejects with a ServiceError).
  const reply = await conversation.ask('Thanks, bye.');
  console.log(`reply: ${reply}`);

  console.log(`messages stored: ${(await conversation.messages()).length}`);
  await agent.delete();
}

main().catch((error: unknown) => {
  if (error instanceof ServiceError) console.error(`${error.status} ${error.code}: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
