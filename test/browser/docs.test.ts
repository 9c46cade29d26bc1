import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestApi, type TestApi } from '../support/api';
import { launchChromium } from '../../harness/browser';

/**
 * `GET /docs` in headless Chromium: Redoc (served from our origin) renders the OpenAPI document,
 * every operation of it appears on the page, and nothing is fetched from another host.
 * A screenshot goes to test-artifacts/screenshots/docs.png.
 */

const SHOTS = path.resolve(__dirname, '../../test-artifacts/screenshots');

interface OpenApiDoc {
  paths: Record<string, Record<string, { operationId: string; summary?: string }>>;
}

describe('API docs page (/docs) in a real browser', function () {
  this.timeout(120_000);
  let browser: Browser;
  let api: TestApi;

  before(async () => {
    browser = await launchChromium();
    api = await startTestApi();
  });
  after(async () => {
    await browser?.close();
    await api?.stop();
  });

  it('renders every documented operation from our own origin only', async () => {
    const doc = (await (await fetch(`${api.baseURL}/v1/openapi.json`)).json()) as OpenApiDoc;
    const summaries = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.summary ?? op.operationId));
    assert.ok(summaries.length >= 50, `${summaries.length} operations`);

    const page = await browser.newPage();
    const foreign: string[] = [];
    const origin = new URL(api.baseURL).origin;
    // Redoc's footer links a logo on its CDN: the page's CSP blocks it, so it never completes.
    page.on('requestfinished', (r) => {
      const url = new URL(r.url());
      if (!['data:', 'blob:'].includes(url.protocol) && url.origin !== origin) foreign.push(r.url());
    });
    const res = await page.goto(`${api.baseURL}/docs`);
    assert.equal(res?.status(), 200);
    assert.match(res?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    // Redoc renders the operations into the middle panel once it has read the document.
    await page.waitForSelector('[data-section-id^="operation/"]', { timeout: 60_000 });
    const text = await page.locator('body').innerText();
    const missing = summaries.filter((s) => !text.includes(s));
    assert.deepEqual(missing, [], 'every operation summary appears on the page');
    assert.match(text, /Authorization|Bearer|apiKey/i, 'the auth scheme is documented');
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'docs.png') });
    assert.deepEqual(foreign, [], 'nothing was fetched from another host');
    await page.close();
  });
});
