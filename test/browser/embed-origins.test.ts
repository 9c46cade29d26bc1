import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { chatFrame, type CustomerSite, startCustomerSite } from '../../harness/browser';
import { useBrowserPage } from '../support/browser-page';
import { call } from '../../harness/http';
import { freelancer } from '../support/publishing';

/**
 * Allowed origins in a real browser: the agent allows the shop (http://shop.localhost:<port>);
 * the same page served as http://elsewhere.localhost:<port> is another origin. There the embed
 * must not boot (no bubble, one console error), the hosted page must not be framed, and the
 * page's own calls to public chat get no CORS grant. Screenshots go to test-artifacts/screenshots/.
 */

const SHOTS = path.resolve(__dirname, '../../test-artifacts/screenshots');
const REFUSAL = 'is not an allowed origin of agent';

describe('embed on allowed and refused origins (Chromium)', () => {
  const chromium = useBrowserPage();
  const { api } = chromium;
  let agentId = '';
  let token = '';
  let site: CustomerSite;
  let elsewhere = '';

  let page: Page;
  let consoleLines: string[];

  before(async function () {
    this.timeout(120_000);
    const { apiKey, ws } = chromium.workspace();
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Shop Helper', greeting: 'Hi! How can I help?' });
    agentId = agent.agentId;
    const [v1] = await agent.versionIds();
    assert.equal((await call(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: v1!.id } })).status, 200);
    token = (await call<{ token: string }>(api.baseURL, 'GET', `/v1/agents/${agentId}/public-token`, { apiKey })).body.token;
    site = await startCustomerSite({ embedBase: api.baseURL, agentId });
    elsewhere = `http://elsewhere.localhost:${site.port}`;
    await ws.agent(agentId).setAllowedOrigins([site.origin]);
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await site?.close();
  });

  beforeEach(() => {
    ({ page, consoleLines } = chromium.now());
  });

  const launcher = () => page.locator('hosted-agents-chat button.launcher');

  it('on an allowed origin the embed boots and chats', async () => {
    await page.goto(site.url());
    await launcher().waitFor({ state: 'visible', timeout: 10_000 });
    await launcher().click();
    const frame = await chatFrame(page);
    await frame.locator('#ha-input:enabled').waitFor({ timeout: 10_000 });
    await frame.locator('#ha-input').fill('Do you ship to Norway?');
    await frame.locator('#ha-input').press('Enter');
    await frame.waitForFunction(
      () => {
        const all = document.querySelectorAll('#ha-log .ha-msg-assistant');
        const last = all[all.length - 1];
        return last?.getAttribute('aria-busy') === 'false' && (last.querySelector('.ha-bubble')?.textContent ?? '').includes('You said: Do you ship to Norway?');
      },
      undefined,
      { timeout: 20_000 },
    );
    assert.ok(!consoleLines.some((l) => l.includes(REFUSAL)), consoleLines.join('\n'));
    await page.screenshot({ path: path.join(SHOTS, 'origins-allowed-chat.png') });
  });

  it('on a refused origin: no bubble, one console error saying why, no framing, no CORS grant', async () => {
    const refused = page.waitForEvent('console', { predicate: (m) => m.text().includes(REFUSAL), timeout: 10_000 });
    await page.goto(`${elsewhere}/`);
    const message = await refused;
    assert.equal(message.type(), 'error');
    assert.match(message.text(), new RegExp(`${elsewhere.replace(/[.:/]/g, '\\$&')} ${REFUSAL} ${agentId}`));
    // Give the loader time it would need to mount, then check nothing appeared.
    await page.waitForTimeout(500);
    assert.equal(await page.locator('hosted-agents-chat').count(), 0, 'no bubble');
    assert.equal(consoleLines.filter((l) => l.includes(REFUSAL)).length, 1, 'one message');
    await page.screenshot({ path: path.join(SHOTS, 'origins-refused-no-bubble.png') });

    // A page that frames the hosted page itself is refused by its frame-ancestors.
    const blocked = page.waitForEvent('console', { predicate: (m) => m.text().includes('frame-ancestors'), timeout: 10_000 });
    await page.evaluate((src) => {
      const frame = document.createElement('iframe');
      frame.src = src;
      document.body.append(frame);
    }, `${api.baseURL}/embed/${agentId}`);
    await blocked;

    // And its own script cannot read public chat: the answer carries no CORS grant.
    const outcome = await page.evaluate(
      async ({ url, bearer }) => {
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
            body: JSON.stringify({ content: 'let me in', user: { id: 'intruder' } }),
          });
          return `read ${res.status}`;
        } catch (error) {
          return `refused: ${String(error)}`;
        }
      },
      { url: `${api.baseURL}/v1/public/chat`, bearer: token },
    );
    assert.match(outcome, /^refused: TypeError/);
    const intruders = await api.db('conversations').where({ agent_id: agentId, end_user_id: 'intruder' }).count<{ count: string }[]>('* as count');
    assert.equal(Number(intruders[0]!.count), 0, 'the refused message wrote nothing');
  });
});
