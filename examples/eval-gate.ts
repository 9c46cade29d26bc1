/**
 * An eval suite that gates a deploy: three cases pass on v1, v1 goes to production; v2 drops a
 * tool, and deployToProd refuses it, naming the case it breaks, while v1 keeps serving.
 *
 *   SERVICE_API_KEY=sk_… npx tsx examples/eval-gate.ts
 *
 * With the offline model (no model key configured), replies echo the user and a `/tool <name>
 * <json>` line makes a tool call, so what each version does is predictable. A real model is
 * judged the same way; add `{ kind: 'judge', rubric: '…' }` checks for what text cannot assert.
 */
import { Service, ServiceError } from '@hosted-agents/sdk';

async function main(): Promise<void> {
  const ws = new Service();
  const v1 = await ws.agents.create({ name: 'Note taker', role: 'freelancer', filesystem: 'drive', tools: ['files.write'] });
  const agent = ws.agent(v1.id);

  // The suite: stored beside the versions, so it applies to every version.
  await agent.evals.put('greets', { messages: ['hello'], checks: [{ kind: 'contains', text: 'you said: hello' }] });
  await agent.evals.put('writes-notes', {
    messages: ['/tool files_write {"path":"notes.md","content":"buy milk"}'],
    checks: [{ kind: 'called_tool', tool: 'files.write', arguments: { path: 'notes.md' } }],
  });
  await agent.evals.put('remembers', { messages: ['first', 'second'], checks: [{ kind: 'matches', pattern: 'said: second$' }, { kind: 'max_credits', credits: 1 }] });

  // A run against v1, by hand: every case is a real conversation, graded and billed.
  const run = await agent.evalRuns.wait((await agent.evals.run({ versionId: v1.versionId })).id);
  console.log(`v1: ${run.summary.passed}/${run.summary.cases} passed, ${run.summary.credits} credits`);

  // Production: the first deploy needs every case to pass.
  await ws.agents.deployToProd(v1.versionId);
  console.log('v1 is in production');

  // v2 drops the tool; the gate runs the suite on v2 and on production, and refuses the regression.
  const v2 = await agent.update({ tools: [] });
  try {
    await ws.agents.deployToProd(v2.versionId);
    throw new Error('v2 should have been refused');
  } catch (error) {
    if (!(error instanceof ServiceError) || error.code !== 'deploy_check_failed') throw error;
    console.log(`v2 refused: ${error.message}`);
  }
  const versions = await ws.agents.versions(agent.id);
  console.log(`in production: v${versions.find((v) => v.isProd)?.number}`);

  // The two runs of the gate, compared case by case.
  const gate = versions.find((v) => v.number === 2)?.evals;
  if (gate?.runId && gate.baselineRunId) {
    const diff = await agent.evalRuns.compare(gate.baselineRunId, gate.runId);
    for (const c of diff.cases.filter((x) => x.change !== 'same')) console.log(`${c.caseId}: ${c.before} → ${c.after} (${c.change})`);
  }
  await agent.delete();
}

main().catch((error: unknown) => {
  if (error instanceof ServiceError) console.error(`${error.status} ${error.code}: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
