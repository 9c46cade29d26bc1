import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { Service } from '../../sdk/src';
import { useBrowserPage } from '../support/browser-page';
import { call } from '../../harness/http';
import { freelancer, publicChat } from '../support/publishing';

/**
 * Two of issue 32's smaller holes as a browser meets them (headless Chromium, real API, worker
 * and offline model): a link to the hosted page with `#uid=<victim>` opened top-level, and a
 * file served by signed URL loaded as a script or stylesheet by a page of the API's origin.
 */

const SHOTS = path.resolve(__dirname, '../../test-artifacts/screenshots');

declare global {
  interface Window {
    ranFromFile?: boolean;
  }
}

describe('smaller holes in a real browser', () => {
  const chromium = useBrowserPage({ credits: 1000, viewport: { width: 900, height: 700 } });
  const { api } = chromium;
  let apiKey: string;
  let agentId: string;
  let token: string;
  let page: Page;

  before(async function () {
    this.timeout(120_000);
    ({ apiKey } = chromium.workspace());
    const agent = await freelancer(api.baseURL, apiKey, { name: 'Hole Check' });
    agentId = agent.agentId;
    const [v1] = await agent.versionIds();
    assert.equal((await call(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: v1!.id } })).status, 200);
    token = (await call<{ token: string }>(api.baseURL, 'GET', `/v1/agents/${agentId}/public-token`, { apiKey })).body.token;
    mkdirSync(SHOTS, { recursive: true });
  });
  beforeEach(() => {
    ({ page } = chromium.now());
  });

  it('the hosted page opened top-level with #uid=victim does not continue the victim’s conversation', async () => {
    const secret = 'my card ends in 4242';
    const turn = await publicChat(api.baseURL, token, secret, { id: 'victim' });
    assert.equal(turn.status, 200);
    const history = page.waitForResponse((r) => r.url().includes('/v1/public/chat/messages'));
    await page.goto(`${api.baseURL}/embed/${agentId}#uid=victim`);
    const asked = new URL((await history).url());
    assert.notEqual(asked.searchParams.get('userId'), 'victim', 'the page asked for the victim’s history');
    await page.locator('#ha-input:not([disabled])').waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'holes-uid-link-top-level.png') });
    assert.doesNotMatch(await page.locator('#ha-log').innerText(), /4242/);
  });

  it('a .js or .css file served by signed URL neither runs nor styles a page of the API’s origin', async () => {
    const conversation = await (await new Service({ apiKey, baseURL: api.baseURL }).agents.create({ name: 'Files' })).start();
    await conversation.writeFile('evil.js', 'window.ranFromFile = true;');
    await conversation.writeFile('evil.css', 'body { background: rgb(255, 0, 0) !important; }');
    const signed = async (p: string) =>
      (await call<{ url: string }>(api.baseURL, 'POST', `/v1/conversations/${conversation.id}/file-urls`, { apiKey, body: { path: p } })).body.url;
    const [js, css] = [await signed('evil.js'), await signed('evil.css')];
    // A page of the API's own origin (its CSP would trust 'self'), where an injected tag points at the files.
    await page.goto(`${api.baseURL}/embed/${agentId}`);
    const outcome = await page.evaluate(
      ([scriptUrl, styleUrl]) =>
        Promise.all([
          new Promise<string>((resolve) => {
            const s = document.createElement('script');
            s.src = scriptUrl!;
            s.onload = () => resolve('loaded');
            s.onerror = () => resolve('refused');
            document.head.append(s);
          }),
          new Promise<string>((resolve) => {
            const l = document.createElement('link');
            l.rel = 'stylesheet';
            l.href = styleUrl!;
            l.onload = () => resolve('loaded');
            l.onerror = () => resolve('refused');
            document.head.append(l);
          }),
        ]),
      [js, css],
    );
    const ran = await page.evaluate(() => window.ranFromFile === true);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(ran, false, `the script ran (${outcome[0]})`);
    assert.notEqual(background, 'rgb(255, 0, 0)', `the stylesheet applied (${outcome[1]})`);
    assert.deepEqual(outcome, ['refused', 'refused']);
    // Opened as a page, the file still downloads, as an opaque attachment.
    const res = await fetch(js);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/octet-stream');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment/);
    for (const dest of ['script', 'style', 'worker', 'sharedworker', 'serviceworker', 'font']) {
      assert.equal((await fetch(css, { headers: { 'sec-fetch-dest': dest } })).status, 404, dest);
    }
    assert.equal((await fetch(css, { headers: { 'sec-fetch-dest': 'document' } })).status, 200);
  });
});
