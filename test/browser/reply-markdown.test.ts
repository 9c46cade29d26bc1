import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Service } from '../../sdk/src';
import { launchChromium } from '../../harness/browser';
import { startTestApi, type TestApi } from '../support/api';
import { fixture } from '../support/fixture';
import { shootAtWidths } from './screenshots';

/**
 * How a reply's markdown reads on the hosted chat page, in Chromium against the real stack: the
 * offline model echoes the visitor's words, so what the visitor typed is what the reply's markdown
 * says. Backslashes show as written — paths, LaTeX, regexes — in text and in code, while streaming
 * and after a reload. Screenshots go to test-artifacts/screenshots/reply-backslashes-*.png.
 */

/** Each line as the reply must show it: every backslash kept, even before punctuation. */
const LINES = ['Path: C:\\Users\\me and \\\\server\\share\\_backup', 'Math: a \\ b, \\frac{1}{2}, \\{x\\} and \\[ x \\]'];
const INLINE_CODE = 'C:\\new\\_dir';
const BLOCK_CODE = '^\\d+\\.\\d*$ \\\\ done';
const MESSAGE = [...LINES, `Code: \`${INLINE_CODE}\``, '```', BLOCK_CODE, '```'].join('\n');

describe('markdown in a reply on the hosted chat page (Chromium)', () => {
  let browser: Browser;
  let api: TestApi;
  let agentId: string;
  let context: BrowserContext;
  let page: Page;

  before(async function () {
    this.timeout(120_000);
    browser = await launchChromium();
    api = await startTestApi({ config: { ...fixture().config, PUBLIC_CHAT_PER_VISITOR: 1000, PUBLIC_CHAT_PER_ADDRESS: 10_000 } });
    const { apiKey } = await api.newWorkspace({ credits: 10_000 });
    const ws = new Service({ apiKey, baseURL: api.baseURL });
    const agent = await ws.agents.create({ name: 'Path Helper', role: 'freelancer' });
    await ws.agents.deployToProd(agent.versionId);
    agentId = agent.id;
  });
  after(async () => {
    await browser?.close().catch(() => undefined);
    await api?.stop();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
    page = await context.newPage();
  });
  afterEach(async () => {
    await context?.close().catch(() => undefined);
  });

  /** What the last reply shows: its text lines, its inline code and its code block. */
  async function shownReply() {
    const bubble = page.locator('#ha-log .ha-msg-assistant .ha-bubble').last();
    return {
      lines: (await bubble.locator('p').first().innerText()).split('\n'),
      inlineCode: await bubble.locator('p code').innerText(),
      blockCode: (await bubble.locator('pre code').innerText()).trim(),
    };
  }

  it('backslashes show as written, in text and in code, and again after a reload', async function () {
    this.timeout(60_000);
    await page.goto(`${api.baseURL}/embed/${agentId}`);
    await page.locator('#ha-input:enabled').fill(MESSAGE);
    await page.locator('#ha-input').press('Enter');
    await page.locator('#ha-log .ha-msg-assistant[aria-busy="false"]').last().waitFor({ timeout: 20_000 });
    const streamed = await shownReply();
    assert.deepEqual(streamed.lines, [`(offline model) You said: ${LINES[0]}`, LINES[1], `Code: ${INLINE_CODE}`]);
    assert.equal(streamed.inlineCode, INLINE_CODE);
    assert.equal(streamed.blockCode, BLOCK_CODE);
    await shootAtWidths(page, 'reply-backslashes');

    // From history, the same markdown renders the same way.
    await page.reload();
    await page.locator('#ha-log .ha-msg-assistant').last().waitFor({ timeout: 10_000 });
    assert.deepEqual(await shownReply(), streamed);
  });
});
