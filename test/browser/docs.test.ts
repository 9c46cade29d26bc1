import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { errorCodes } from '../../domain/errors';
import { startTestApi, type TestApi } from '../support/api';
import { launchChromium } from '../../harness/browser';

/**
 * `GET /docs` in headless Chromium: Redoc (served from our origin) renders the OpenAPI document,
 * every operation of it appears on the page, and nothing is fetched from another host; the page
 * answers what a caller asks first — what an error code means, what a turn's events look like —
 * and no heading stands over an empty section. Screenshots go to test-artifacts/screenshots/docs*.png.
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

  async function openDocs() {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${api.baseURL}/docs`);
    await page.waitForSelector('[data-section-id^="operation/"], [data-section-id*="/operation/"]', { timeout: 60_000 });
    return page;
  }

  it("shows each error code's meaning in the Errors section", async () => {
    const page = await openDocs();
    const section = page.locator('[data-section-id="tag/Errors"]');
    await section.scrollIntoViewIfNeeded();
    const text = await section.innerText();
    for (const code of ['agent_not_found', 'invalid_request', 'rate_limited', 'agent_not_publishable'] as const) {
      // Redoc renders the markdown table: the code, its status and its meaning on one row.
      const row = section.locator('tr', { hasText: code }).first();
      assert.match(await row.innerText(), new RegExp(`${code}\\s+${errorCodes[code].status}\\s+`), code);
    }
    assert.ok(text.includes(errorCodes.agent_not_publishable.doc.replaceAll('`', '')), 'a meaning, word for word');
    // Each code stays on one line (Redoc breaks inline code anywhere; the page's style keeps codes whole).
    const broken = await section.locator('td:first-child > code').evaluateAll((codes) => codes.filter((c) => c.getClientRects().length > 1).map((c) => c.textContent));
    assert.deepEqual(broken, [], 'codes broken across lines');
    await section.screenshot({ path: path.join(SHOTS, 'docs-errors.png') });
    await page.close();
  });

  it("shows the turn's event shapes: a schema per event type, picked by `type`", async () => {
    const page = await openDocs();
    const section = page.locator('[data-section-id="tag/Turn-events"]');
    await section.scrollIntoViewIfNeeded();
    assert.match(await section.innerText(), /`?tool`?: A tool call starts, then ends\./);
    // The schema's type selector offers every event type; picking `tool` shows its fields.
    const picker = section.locator('.dropdown-select, select').first();
    const options = await picker.locator('option').allInnerTexts();
    assert.deepEqual(options, ['start', 'progress', 'tool', 'text', 'file', 'approval', 'done', 'error']);
    await picker.selectOption('tool');
    const fields = await section.innerText();
    for (const field of ['name', 'state', 'ok']) assert.match(fields, new RegExp(`^${field}\\s*$`, 'm'), `the tool event's ${field}`);
    assert.match(fields, /files\.write/);
    await section.screenshot({ path: path.join(SHOTS, 'docs-events.png') });
    await page.close();
  });

  it('no heading stands over an empty section: every tag heading has text under it', async () => {
    const page = await openDocs();
    const empty = await page.$$eval('[data-section-id^="tag/"]:not([data-section-id*="/operation/"])', (sections) =>
      sections
        .map((s) => {
          const heading = s.querySelector('h1, h2')?.textContent?.trim() ?? '';
          const rest = (s as HTMLElement).innerText.replace(heading, '').trim();
          return { id: s.getAttribute('data-section-id'), heading, rest };
        })
        .filter((s) => !s.heading || s.rest.length === 0)
        .map((s) => s.id),
    );
    const headings = await page.$$eval('h1, h2, h3', (hs) => hs.filter((h) => !h.textContent?.trim()).length);
    assert.deepEqual(empty, [], 'tag sections with nothing under their heading');
    assert.equal(headings, 0, 'headings without text');
    await page.close();
  });
});
