import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Payload, defaultPayloadConverter } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { Service } from '@hosted-agents/sdk';
import type { Browser, Frame, Page } from 'playwright-core';
import { chatFrame, type CustomerSite, launchChromium, startCustomerSite } from '../../harness/browser';
import { payloadCodecFromConfig } from '../../infra/payload-codec';
import { startTestApi, type TestApi } from '../support/api';
import { markedBlocks, runBlockFile, writeBlock } from '../support/doc-blocks';
import { fixture } from '../support/fixture';

/**
 * The newcomer's hour, end to end, with the SDK exactly as the docs show it (issue 34):
 * 1. the SDK README's quick start, pasted into a file in the repository and run with `npx tsx`: an
 *    agent with `files.write`, called through the offline model's `/tool` line;
 * 2. that agent made publishable with `update({ role: 'freelancer' })` and deployed to test and
 *    production (docs/sdk.md, "Publishing through the SDK");
 * 3. its hosted page (`/embed/<agentId>`, the test host, the production host) in Chromium: no
 *    greeting, so the empty state shows;
 * 4. the embed on another site (http://shop.localhost:<port>) with `data-color`: the send button
 *    and the visitor's bubbles in that colour;
 * 5. the quick start's turns found in Temporal by `ConversationId`, the tool call's `runTool`
 *    activity summarised with the tool's name as events show it (`files.write`).
 * Screenshots: test-artifacts/screenshots/newcomer-*.png.
 */

const SHOTS = path.resolve(__dirname, '../../test-artifacts/screenshots');
const BRAND = '#dc2626';
const BRAND_RGB = 'rgb(220, 38, 38)';

/** Runs one part of the hour; a failure names the part, so a broken step is plain to see. */
async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`newcomer's hour, step "${name}": ${message}`, { cause: error });
  }
}

/** The summaries of the `runTool` activities of a workflow's history (decrypted, as the UI shows them through the codec). */
async function runToolSummaries(client: Client, workflowId: string): Promise<string[]> {
  const codec = payloadCodecFromConfig(fixture().config);
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const summaries: string[] = [];
  for (const event of history.events ?? []) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name !== 'runTool') continue;
    const raw = event.userMetadata?.summary as Payload | null | undefined;
    if (!raw) {
      summaries.push('(no summary)');
      continue;
    }
    const [payload] = codec ? await codec.decode([raw]) : [raw];
    summaries.push(String(defaultPayloadConverter.fromPayload(payload!)));
  }
  return summaries;
}

/** The turn workflows Temporal lists for a conversation (visibility is eventually consistent: waits up to 10 s). */
async function workflowsOf(client: Client, conversationId: string, atLeast: number): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  let ids: string[] = [];
  while (Date.now() < deadline) {
    ids = [];
    for await (const wf of client.workflow.list({ query: `ConversationId = "${conversationId}"` })) ids.push(wf.workflowId);
    if (ids.length >= atLeast) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return ids;
}

describe("the newcomer's hour (SDK as documented, Chromium, Temporal)", function () {
  this.timeout(240_000);
  let browser: Browser;
  let api: TestApi;
  let site: CustomerSite | undefined;

  before(async function () {
    this.timeout(120_000);
    browser = await launchChromium();
    api = await startTestApi({ config: { ...fixture().config, PUBLIC_CHAT_PER_VISITOR: 1000, PUBLIC_CHAT_PER_ADDRESS: 10_000, PUBLIC_READS_PER_ADDRESS: 100_000 } });
    mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    await site?.close();
    await api?.stop();
  });

  /** Loads a hosted page and checks its empty state: no greeting, no message, a prompt instead of a blank panel. */
  async function emptyStateShows(target: Page | Frame, shot: Page, name: string): Promise<void> {
    await target.locator('#ha-input:enabled').waitFor({ timeout: 15_000 });
    await target.locator('[data-empty-state]').waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await target.locator('#ha-log .ha-msg').count(), 0, 'no message and no greeting yet');
    assert.notEqual((await target.locator('[data-empty-state]').innerText()).trim(), '', 'the empty state says something');
    await shot.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  }

  it('quick start as pasted, a tool through the offline model, publish, hosted page and embed, the run in Temporal', async () => {
    const { apiKey } = await api.newWorkspace({ credits: 1000 });
    const env = { SERVICE_API_KEY: apiKey, SERVICE_BASE_URL: api.baseURL };

    // 1. The SDK README's quick start, as pasted into a file in the repository.
    const { agentId, conversationId } = await step('the SDK quick start as pasted', async () => {
      const [quickStart] = markedBlocks('sdk/README.md');
      assert.ok(quickStart, 'sdk/README.md has a runnable quick start');
      assert.match(quickStart.code, /\/tool /, 'the first runnable block of sdk/README.md is the quick start, which calls a tool');
      const out = await runBlockFile(writeBlock(quickStart), env);
      assert.match(out, /tool files\.write: end/, 'the offline model called files.write, and the events name it files.write');
      assert.match(out, /# Notes/, 'the file the tool wrote is read back');
      const ids = /agent (agt_\w+), conversation (cnv_\w+)/.exec(out);
      assert.ok(ids, `the quick start prints the agent's and the conversation's ids:\n${out}`);
      return { agentId: ids[1]!, conversationId: ids[2]! };
    });

    // 2. Made publishable and deployed, as docs/sdk.md shows.
    const ws = new Service({ apiKey, baseURL: api.baseURL });
    const { testUrl, prodUrl } = await step("update({ role: 'freelancer' }), then deploy to test and production", async () => {
      const agent = await ws.agent(agentId).update({ role: 'freelancer' });
      assert.equal(agent.role, 'freelancer');
      assert.match(agent.versionId, /^ver_/, 'the Agent record names its version id');
      const [latest] = await ws.agents.versions(agentId);
      assert.equal(latest?.id, agent.versionId, 'the newest version is the one update made');
      const test = await ws.agents.deployToTest(agent.versionId);
      const prod = await ws.agents.deployToProd(agent.versionId);
      assert.match(test.url, /^http:\/\/[a-z0-9]+\.test\.agents\.localhost:\d+$/);
      assert.match(prod.url, /^http:\/\/[a-z0-9-]+\.agents\.localhost:\d+$/);
      return { testUrl: test.url, prodUrl: prod.url };
    });

    // 3. The hosted page, on the API's origin and on the agent's test and production hosts.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const page = await context.newPage();
      await step('the hosted page shows its empty state', async () => {
        for (const [url, name] of [
          [`${api.baseURL}/embed/${agentId}`, 'newcomer-hosted-page-empty'],
          [`${testUrl}/`, 'newcomer-test-host-empty'],
          [`${prodUrl}/`, 'newcomer-prod-host-empty'],
        ] as const) {
          const res = await page.goto(url);
          assert.equal(res?.status(), 200, url);
          await emptyStateShows(page, page, name);
        }
      });

      // 4. The embed on another site, in the brand's colour.
      site = await startCustomerSite({ embedBase: api.baseURL, agentId });
      await step('the embed on another origin, with data-color', async () => {
        await page.goto(site!.url({ data: { color: BRAND } }));
        const launcher = page.locator('hosted-agents-chat button.launcher');
        await launcher.waitFor({ state: 'visible', timeout: 10_000 });
        assert.equal(await launcher.evaluate((el) => getComputedStyle(el).backgroundColor), BRAND_RGB, 'the bubble');
        await launcher.click();
        const frame = await chatFrame(page);
        await emptyStateShows(frame, page, 'newcomer-embed-empty');

        const message = 'Hello! Do you ship to Norway?';
        await frame.locator('#ha-input').fill(message);
        await frame.locator('#ha-input').press('Enter');
        await frame.waitForFunction(
          (expected) => {
            const all = document.querySelectorAll('#ha-log .ha-msg-assistant');
            const last = all[all.length - 1];
            return last?.getAttribute('aria-busy') === 'false' && (last.querySelector('.ha-bubble')?.textContent ?? '').trim() === expected;
          },
          `(offline model) You said: ${message}`,
          { timeout: 20_000 },
        );
        assert.equal(await frame.locator('[data-empty-state]').isVisible(), false, 'the empty state goes once there is a message');
        // No named inner functions in the page's callback (see embed.test.ts: tsx's __name helper is not there).
        const colours = await frame.evaluate(() => ({
          accent: getComputedStyle(document.querySelector('#ha-send')!).getPropertyValue('--ha-accent').trim(),
          send: getComputedStyle(document.querySelector('#ha-send')!).backgroundColor,
          bubbles: Array.from(document.querySelectorAll('#ha-log .ha-msg-user .ha-bubble')).map((el) => getComputedStyle(el).backgroundColor),
        }));
        assert.notEqual(colours.accent, '', '--ha-accent is set');
        assert.equal(colours.send, BRAND_RGB, `the send button (--ha-accent ${colours.accent})`);
        assert.ok(colours.bubbles.length >= 1, 'the visitor’s message is shown');
        for (const bubble of colours.bubbles) assert.equal(bubble, BRAND_RGB, 'the visitor’s bubbles');
        await page.screenshot({ path: path.join(SHOTS, 'newcomer-embed-brand-colour.png') });
      });
    } finally {
      await context.close().catch(() => undefined);
    }

    // 5. The quick start's run in Temporal, found by ConversationId; the tool named in the activity summary.
    await step('the run in Temporal by ConversationId, the tool in the activity summary', async () => {
      const workflowIds = await workflowsOf(api.temporal, conversationId, 2);
      assert.equal(workflowIds.length, 2, `the quick start's two turns: ${JSON.stringify(workflowIds)}`);
      const summaries = (await Promise.all(workflowIds.map((id) => runToolSummaries(api.temporal, id)))).flat();
      assert.equal(summaries.length, 1, `one runTool activity in all: ${JSON.stringify(summaries)}`);
      assert.match(summaries[0]!, /files\.write/, `the runTool activity's summary names the tool as events do: ${JSON.stringify(summaries)}`);
    });
  });
});
