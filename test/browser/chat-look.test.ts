import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { chatFrame, type CustomerSite, startCustomerSite } from '../../harness/browser';
import { useBrowserPage } from '../support/browser-page';
import { call } from '../../harness/http';
import { freelancer } from '../support/publishing';

/**
 * How the chat looks before and after the first word, in Chromium against the real stack: an agent
 * with no greeting shows an empty-state prompt (`[data-empty-state]`), not a blank panel, on the
 * hosted page and in the embed's panel; `data-color` becomes `--ha-accent` on the chat page's root
 * element, and the send button and the visitor's bubbles are painted in it. Screenshots go to
 * test-artifacts/screenshots/.
 */

const SHOTS = path.resolve(__dirname, '../../test-artifacts/screenshots');
const QUIET_NAME = 'Quiet Helper';
/** Purple: dark enough for white text. */
const BRAND = '#7c3aed';
const BRAND_RGB = 'rgb(124, 58, 237)';
/** The page's own accent when no colour is given (#047857). */
const DEFAULT_ACCENT = 'rgb(4, 120, 87)';

/** What a test reads of the chat page's colours and empty state (computed in the page). */
interface Look {
  accent: string;
  sendBackground: string;
  userBubbles: Array<{ background: string; color: string }>;
  emptyStates: number;
  emptyVisible: boolean;
  emptyText: string;
  emptyInLog: boolean;
}

// Runs in the page: no named inner functions (see embed.test.ts on tsx's keepNames).
const readLook = (): Look => {
  const empty = document.querySelectorAll('[data-empty-state]');
  const first = empty[0] as HTMLElement | undefined;
  return {
    accent: getComputedStyle(document.documentElement).getPropertyValue('--ha-accent').trim(),
    sendBackground: getComputedStyle(document.getElementById('ha-send')!).backgroundColor,
    userBubbles: Array.from(document.querySelectorAll('.ha-msg-user .ha-bubble')).map((b) => ({
      background: getComputedStyle(b).backgroundColor,
      color: getComputedStyle(b).color,
    })),
    emptyStates: empty.length,
    emptyVisible: !!first && first.getClientRects().length > 0 && getComputedStyle(first).visibility === 'visible',
    emptyText: (first?.textContent ?? '').trim(),
    emptyInLog: !!first?.closest('#ha-log[role="log"]') && !first.closest('[aria-hidden="true"]'),
  };
};

describe('the chat page, looked at: empty state and brand colour', () => {
  const chromium = useBrowserPage({ colorScheme: 'light' });
  const { api } = chromium;
  let apiKey: string;
  /** Deployed to prod, no greeting. */
  let quietId: string;
  /** Deployed to prod, with a greeting. */
  let greeterId: string;
  let site: CustomerSite;
  let page: Page;

  async function deployedFreelancer(fields: Record<string, unknown>): Promise<string> {
    const agent = await freelancer(api.baseURL, apiKey, fields);
    const [v1] = await agent.versionIds();
    const deployed = await call(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: v1!.id } });
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
    return agent.agentId;
  }

  before(async function () {
    this.timeout(120_000);
    ({ apiKey } = chromium.workspace());
    quietId = await deployedFreelancer({ name: QUIET_NAME, greeting: undefined });
    greeterId = await deployedFreelancer({ name: 'Greeter', greeting: 'Hello! Ask me anything.' });
    site = await startCustomerSite({ embedBase: api.baseURL, agentId: quietId });
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await site?.close();
  });
  beforeEach(() => {
    ({ page } = chromium.now());
  });

  const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

  /** Waits until the page has loaded its history and may be written to. */
  async function ready(frame: Page | Frame): Promise<void> {
    await frame.locator('#ha-input:enabled').waitFor({ timeout: 10_000 });
    await frame.locator('#ha-send[aria-disabled="false"]').waitFor({ state: 'attached', timeout: 10_000 });
  }

  async function sendAndWait(frame: Page | Frame, text: string): Promise<void> {
    await frame.locator('#ha-input').fill(text);
    await frame.locator('#ha-input').press('Enter');
    await frame.waitForFunction(
      () => {
        const all = document.querySelectorAll('#ha-log .ha-msg-assistant');
        return all[all.length - 1]?.getAttribute('aria-busy') === 'false';
      },
      undefined,
      { timeout: 20_000 },
    );
  }

  async function openPanel(data: Record<string, string>): Promise<Frame> {
    await page.goto(site.url({ data }));
    const launcher = page.locator('hosted-agents-chat button.launcher');
    await launcher.click();
    await page.locator('hosted-agents-chat iframe').waitFor({ state: 'visible', timeout: 10_000 });
    const frame = await chatFrame(page);
    await ready(frame);
    return frame;
  }

  it('hosted page, no greeting: an empty-state prompt in text until the first message, in the default accent', async () => {
    await page.goto(`${api.baseURL}/embed/${quietId}`);
    await ready(page);
    const before = await page.evaluate(readLook);
    assert.equal(before.emptyStates, 1);
    assert.equal(before.emptyVisible, true, 'the prompt is visible');
    assert.match(before.emptyText, new RegExp(`${QUIET_NAME}.*first message`), 'it says, in words, what to do');
    assert.equal(before.emptyInLog, true, 'inside the conversation log, which assistive technology reads');
    assert.equal(before.accent, DEFAULT_ACCENT);
    assert.equal(before.sendBackground, before.accent);
    await shot('hosted-empty-state');

    await sendAndWait(page, 'Hi');
    const after = await page.evaluate(readLook);
    assert.equal(after.emptyStates, 0, 'gone once the conversation has a message');
    assert.deepEqual(after.userBubbles.map((b) => b.background), [DEFAULT_ACCENT]);

    await page.reload();
    await ready(page);
    await page.locator('#ha-log .ha-msg-user').waitFor({ timeout: 10_000 });
    assert.equal((await page.evaluate(readLook)).emptyStates, 0, 'not back for a conversation with history');
  });

  it('an agent with a greeting shows the greeting, no empty state', async () => {
    await page.goto(`${api.baseURL}/embed/${greeterId}`);
    await ready(page);
    await page.locator('#ha-log .ha-greeting').waitFor({ timeout: 10_000 });
    assert.equal((await page.evaluate(readLook)).emptyStates, 0);
  });

  it("embed panel with data-color: the empty state, then the send button and the visitor's bubble in the brand colour", async () => {
    const frame = await openPanel({ color: BRAND, 'user-id': 'brand-visitor' });
    const before = await frame.evaluate(readLook);
    assert.equal(before.emptyStates, 1);
    assert.equal(before.emptyVisible, true, 'the panel is not blank');
    assert.equal(before.accent, BRAND_RGB, '--ha-accent on the panel page root is data-color');
    assert.equal(before.sendBackground, before.accent, 'the send button is in it');
    assert.equal(
      await page.locator('hosted-agents-chat button.launcher').evaluate((el) => getComputedStyle(el).backgroundColor),
      BRAND_RGB,
      'the bubble too, as before',
    );
    await shot('panel-empty-state');

    await sendAndWait(frame, 'What colour is this?');
    const after = await frame.evaluate(readLook);
    assert.equal(after.emptyStates, 0);
    assert.equal(after.userBubbles.length, 1);
    assert.equal(after.userBubbles[0]!.background, after.accent, "the visitor's bubble is in it");
    assert.equal(after.userBubbles[0]!.color, 'rgb(255, 255, 255)', 'white text on a dark brand colour');
    await shot('panel-brand-color');
  });

  it('a light brand colour gets dark text; an invalid one leaves the default accent', async () => {
    const light = await openPanel({ color: '#fde047', 'user-id': 'light-visitor' });
    await sendAndWait(light, 'Hello');
    const look = await light.evaluate(readLook);
    assert.equal(look.accent, 'rgb(253, 224, 71)');
    assert.equal(look.userBubbles[0]!.background, look.accent);
    assert.equal(look.userBubbles[0]!.color, 'rgb(17, 17, 17)', 'dark text on yellow');

    const invalid = await openPanel({ color: 'not-a-colour', 'user-id': 'invalid-visitor' });
    const fallback = await invalid.evaluate(readLook);
    assert.equal(fallback.accent, DEFAULT_ACCENT);
    assert.equal(fallback.sendBackground, DEFAULT_ACCENT);
  });
});
