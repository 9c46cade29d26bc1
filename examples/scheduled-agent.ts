/**
 * A scheduled agent: an interval trigger (a Temporal Schedule) asks the agent a message every few
 * seconds, twice; each run is a conversation of its own, marked with the trigger that started it.
 *
 *   SERVICE_API_KEY=sk_… npx tsx examples/scheduled-agent.ts
 *
 * A cron trigger works the same way: `{ kind: 'schedule', cron: '0 9 * * 1-5', timezone: 'Europe/Paris', message }`.
 */
import { Service, ServiceError } from '@hosted-agents/sdk';

async function main(): Promise<void> {
  const ws = new Service();
  const agent = await ws.agents.create({
    name: 'Heartbeat',
    instructions: 'Report the status in one line.',
    triggers: [{ kind: 'interval', seconds: 2, maxRuns: 2, message: 'Status report, please.' }],
  });
  console.log('waiting for two runs…');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const runs = await agent.conversations();
    if (runs.length >= 2) break;
    if (Date.now() > deadline) throw new Error(`only ${runs.length} runs after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  for (const run of await agent.conversations()) {
    // Wait for the run's turn to end, then read what the agent answered.
    for (let i = 0; i < 60; i++) {
      const messages = await ws.conversation(run.id).messages();
      const reply = messages.find((m) => m.role === 'assistant');
      if (reply) {
        console.log(`${run.startedAt}: ${reply.content}`);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  await agent.delete(); // removes its Schedule too
}

main().catch((error: unknown) => {
  if (error instanceof ServiceError) console.error(`${error.status} ${error.code}: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
