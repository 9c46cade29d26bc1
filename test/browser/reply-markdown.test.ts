import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useBrowserPage } from '../support/browser-page';
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
  const chromium = useBrowserPage({ colorScheme: 'light' });
  const { api } = chromium;
  let agentId: string;
  let page: Page;

  before(async function () {
    this.timeout(120_000);
    const { ws } = chromium.workspace();
    const agent = await ws.agents.create({ name: 'Path Helper', role: 'freelancer' });
    await ws.agents.deployToProd(agent.versionId);
    agentId = agent.id;
  });
  beforeEach(() => {
    ({ page } = chromium.now());
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
