import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { type Service, signVisitorToken } from '../../sdk/src';
import { chatFrame } from '../../harness/browser';
import { useBrowserPage } from '../support/browser-page';
import { shootAtWidths } from './screenshots';

/**
 * Verified visitors in a real browser: a customer's site (http://member.localhost:<port>) whose
 * backend signs its logged-in member with the SDK's `signVisitorToken` and puts the token on the
 * embed's script tag. The panel chats as that member and, after a reload, goes on with their
 * conversation; a page carrying a forged token shows a plain refusal in the panel, and a visitor
 * with no token at all is told once, with the composer closed, to sign in on the site. Screenshots
 * go to test-artifacts/screenshots/.
 */

const SHOTS = path.resolve(__dirname, '../../test-artifacts/screenshots');
const MEMBER = { id: 'member-7', name: 'Grace Hopper', email: 'grace@example.com' };

/** The customer's site: its server signs the member on every page it renders (`?forged=1`: with a wrong secret). */
async function startMemberSite(opts: { embedBase: string; agentId: string; secret: string }): Promise<{ url(forged?: boolean): string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const forged = new URL(req.url ?? '/', 'http://member.localhost').searchParams.has('forged');
    if (req.url === '/favicon.ico') return void res.writeHead(204).end();
    void signVisitorToken({ secret: forged ? `agt_vs_${'f'.repeat(43)}` : opts.secret, ...MEMBER, expiresIn: '10m' }).then((token) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Members</title></head>
<body style="font: 16px/1.5 sans-serif; padding: 24px; background: #eef2ff"><h1>Welcome back, ${MEMBER.name}</h1>
<script src="${opts.embedBase}/embed/v1.js" data-agent-id="${opts.agentId}" data-user-id="${MEMBER.id}" data-user-token="${token}" defer></script>
</body></html>`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://member.localhost:${(server.address() as AddressInfo).port}`;
  return {
    url: (forged = false) => `${origin}/${forged ? '?forged=1' : ''}`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

describe('verified visitors in a real browser', () => {
  const chromium = useBrowserPage();
  const { api } = chromium;
  let ws: Service;
  let agentId: string;
  let site: Awaited<ReturnType<typeof startMemberSite>>;
  let page: Page;

  before(async function () {
    this.timeout(120_000);
    ({ ws } = chromium.workspace());
    const created = await ws.agents.create({ name: 'Member Desk', role: 'freelancer', greeting: 'Hello member!' });
    agentId = created.id;
    await ws.agents.deployToProd((await ws.agents.versions(agentId))[0]!.id);
    const { secret } = await ws.agent(agentId).rotateVisitorSecret();
    await ws.agent(agentId).setVisitorIdentity('verified');
    site = await startMemberSite({ embedBase: api.baseURL, agentId, secret });
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await site?.close();
  });
  beforeEach(() => {
    ({ page } = chromium.now());
  });

  const launcher = () => page.locator('hosted-agents-chat button.launcher');
  async function openPanel(): Promise<Frame> {
    await launcher().waitFor({ state: 'visible', timeout: 10_000 });
    await launcher().click();
    await page.locator('hosted-agents-chat iframe').waitFor({ state: 'visible', timeout: 10_000 });
    return chatFrame(page);
  }
  const userMessages = (frame: Frame) => frame.evaluate(() => Array.from(document.querySelectorAll('#ha-log .ha-msg-user .ha-bubble')).map((m) => (m.textContent ?? '').trim()));

  it("a member signed by the site's backend chats, and after a reload the panel goes on with their conversation", async function () {
    this.timeout(60_000);
    await page.goto(site.url());
    let frame = await openPanel();
    await frame.locator('#ha-input:enabled').waitFor({ timeout: 10_000 });
    await frame.locator('#ha-input').fill('Where is my order?');
    await frame.locator('#ha-input').press('Enter');
    await frame.waitForFunction(() => {
      const all = document.querySelectorAll('#ha-log .ha-msg-assistant');
      return all[all.length - 1]?.getAttribute('aria-busy') === 'false' && /You said: Where is my order\?/.test(all[all.length - 1]?.textContent ?? '');
    }, undefined, { timeout: 20_000 });

    await page.reload();
    frame = await openPanel();
    await frame.waitForFunction(() => document.querySelectorAll('#ha-log .ha-msg-user').length === 1, undefined, { timeout: 10_000 });
    assert.deepEqual(await userMessages(frame), ['Where is my order?']);
    await page.screenshot({ path: path.join(SHOTS, 'verified-visitor-after-reload.png') });

    const listed = await ws.agent(agentId).conversations();
    const mine = listed.filter((c) => c.endUser?.id === MEMBER.id);
    assert.equal(mine.length, 1);
    assert.deepEqual(mine[0]!.endUser, { ...MEMBER, verified: true });
  });

  it('a page with a forged token: the panel says plainly that it could not confirm the visitor, and nothing is written', async function () {
    this.timeout(60_000);
    const before = (await ws.agent(agentId).conversations()).length;
    await page.goto(site.url(true));
    const frame = await openPanel();
    const notice = frame.locator('#ha-log .ha-msg-notice');
    await notice.waitFor({ timeout: 10_000 });
    assert.match((await notice.textContent()) ?? '', /could not confirm who you are/);
    assert.equal(await notice.isVisible(), true);
    await page.screenshot({ path: path.join(SHOTS, 'verified-visitor-forged-token.png') });
    assert.equal((await ws.agent(agentId).conversations()).length, before);
  });

  it('an anonymous visitor on the hosted page: the refusal once, no Retry, and a closed composer that says to sign in', async function () {
    this.timeout(60_000);
    const before = (await ws.agent(agentId).conversations()).length;
    await page.goto(`${api.baseURL}/embed/${agentId}`);
    // The composer says why it is closed: the site that embeds the chat signs its members in.
    await page.locator('#ha-input[placeholder="Sign in on the website to chat"]').waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('#ha-log').getByText(/only for signed-in visitors/).count(), 1, 'the refusal, once');
    assert.match(await page.locator('#ha-log .ha-msg-notice').innerText(), /sign in on the website/);
    assert.equal(await page.getByRole('button', { name: 'Retry' }).count(), 0, 'no Retry: asking again cannot help');
    assert.equal(await page.locator('#ha-input').isDisabled(), true, 'nothing to write into');
    assert.equal(await page.locator('#ha-send').isDisabled(), true);
    await shootAtWidths(page, 'verified-agent-anonymous-visitor');
    assert.equal((await ws.agent(agentId).conversations()).length, before, 'nothing was written');
  });
});
