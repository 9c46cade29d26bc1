/**
 * A project with two members: the project's manager plans and delegates to a writer and a
 * reviewer; each delegation is the member's own turn, run as a child workflow, and shows up in the
 * manager's stream as a `task` step. What the writer writes lands in the project's files.
 *
 *   SERVICE_API_KEY=sk_… npx tsx examples/project-two-members.ts
 *
 * A real model decides the delegations from the goal; the offline model follows the `/tool
 * delegate` lines in the message (docs/tools.md: Models), so this runs without a network.
 */
import { Service, ServiceError } from '@hosted-agents/sdk';

async function main(): Promise<void> {
  const ws = new Service();
  const writer = await ws.agents.create({ name: 'Writer', instructions: 'Write what you are asked into files.', tools: ['files.write'], filesystem: 'drive' });
  const reviewer = await ws.agents.create({ name: 'Reviewer', instructions: 'Review what you are given in one line.' });
  const project = await ws.projects.create({
    name: 'Release notes',
    goal: 'Publish reviewed release notes',
    managerInstructions: 'Have the writer write notes.md, then have the reviewer review it.',
    agents: [writer.id, reviewer.id],
  });
  const conversation = await project.start();
  const task = JSON.stringify('/tool files_write {"path":"notes.md","content":"# Release 1.0\\n- First release"}');
  const message = [
    'Prepare the release notes.',
    `/tool delegate {"agentId":"${writer.id}","task":${task}}`,
    `/tool delegate {"agentId":"${reviewer.id}","task":"Review notes.md"}`,
  ].join('\n');
  const turn = conversation.ask(message);
  const shown = new Set<string>(); // each progress event carries the whole step list
  for await (const event of turn) {
    if (event.type === 'progress') {
      for (const step of event.steps.filter((s) => s.kind === 'task')) {
        const line = `task: ${step.label} [${step.status}]`;
        if (!shown.has(line)) console.log(line);
        shown.add(line);
      }
    }
    if (event.type === 'file') console.log(`file: ${event.path}`);
    if (event.type === 'error') throw new Error(event.message);
  }
  console.log(`manager: ${await turn}`);
  console.log(`project files: ${(await project.files()).map((f) => f.path).join(', ')}`);
  await project.delete();
  await writer.delete();
  await reviewer.delete();
}

main().catch((error: unknown) => {
  if (error instanceof ServiceError) console.error(`${error.status} ${error.code}: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
