import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { chatFrame, type CustomerSite, startCustomerSite } from '../../harness/browser';
import { useBrowserPage } from '../support/browser-page';
import { call } from '../../harness/http';
import { freelancer } from '../support/publishing';

/**
 * The embed as a visitor meets it: a customer's page (http://shop.localhost:<port>, another site
 * than the API) with the one-line script tag, driven in headless Chromium against the real API,
 * PostgreSQL, Temporal and worker. The offline model answers `(offline model) You said: <message>`,
 * streamed a word every LOCAL_MODEL_DELAY_MS (25 ms by default). Screenshots of the key states go
 * to test-artifacts/screenshots/.
 */

const SHOTS = path.resolve(__dirname, '../../test-artifacts/screenshots');
const AGENT_NAME = 'Shop Helper';
const GREETING = 'Hi! How can I help?';
const echo = (message: string) => `(offline model) You said: ${message.trim()}`;

// The callbacks given to evaluate()/waitForFunction() run in the browser: this folder is
// type-checked with the DOM library by its own tsconfig.json (server code must not see browser
// globals, so the root tsconfig leaves test/browser out). Keep those callbacks free of named inner functions (`const f = () => …`): tsx compiles them with
// esbuild's keepNames, and the `__name(…)` helper it inserts does not exist in the page.

/** What v1.js puts on the customer page (spec, section C). */
declare global {
  interface Window {
    Service?: { open(): void; close(): void; identify(user: { id: string; name?: string; email?: string }): void };
  }
}

type Conversation = { id: string; channel?: string; endUser?: { id: string; name?: string; email?: string; verified: boolean } };

describe('embed in a real browser', () => {
  const chromium = useBrowserPage();
  const { api } = chromium;
  let apiKey: string;
  let agentId: string;
  let undeployedId: string;
  let site: CustomerSite;

  let context: BrowserContext;
  let page: Page;
  /** Console lines of every frame of the current test's page, as `[type] text (url)`. */
  let consoleLines: string[];
  let dialogs: string[];

  before(async function () {
    this.timeout(120_000);
    ({ apiKey } = chromium.workspace());
    const agent = await freelancer(api.baseURL, apiKey, { name: AGENT_NAME, greeting: GREETING });
    agentId = agent.agentId;
    const [v1] = await agent.versionIds();
    const deployed = await call(api.baseURL, 'POST', '/v1/deployments/prod', { apiKey, body: { versionId: v1!.id } });
    assert.equal(deployed.status, 200, JSON.stringify(deployed.body));
    undeployedId = (await freelancer(api.baseURL, apiKey, { name: 'Draft Helper' })).agentId;
    site = await startCustomerSite({ embedBase: api.baseURL, agentId });
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await site?.close();
  });

  beforeEach(() => {
    ({ context, page, consoleLines } = chromium.now());
    dialogs = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss().catch(() => undefined);
    });
  });

  const shot = (name: string, target: Page = page) => target.screenshot({ path: path.join(SHOTS, `${name}.png`) });
  const launcher = (p: Page = page) => p.locator('hosted-agents-chat button.launcher');

  /** Loads a shop page and waits for the bubble. */
  async function visitShop(opts: Parameters<CustomerSite['url']>[0] = {}): Promise<void> {
    await page.goto(site.url(opts));
    await launcher().waitFor({ state: 'visible', timeout: 10_000 });
  }

  /** The hosted page is ready for a message: booted and not loading history or streaming. */
  async function composerReady(frame: Frame): Promise<void> {
    await frame.locator('#ha-input:enabled').waitFor({ timeout: 10_000 });
    await frame.locator('#ha-send[aria-disabled="false"]').waitFor({ state: 'attached', timeout: 10_000 });
  }

  /** Clicks the bubble and returns the chat frame once the panel is open and the page is ready. */
  async function openPanel(): Promise<Frame> {
    await launcher().click();
    assert.equal(await launcher().getAttribute('aria-expanded'), 'true');
    await page.locator('hosted-agents-chat iframe').waitFor({ state: 'visible', timeout: 10_000 });
    const frame = await chatFrame(page);
    await composerReady(frame);
    return frame;
  }

  async function send(frame: Frame, text: string): Promise<void> {
    await frame.locator('#ha-input').fill(text);
    await frame.locator('#ha-input').press('Enter');
  }

  /** What the log shows, message by message: `user: …` / `assistant: …` (greeting marked). */
  function transcript(frame: Frame): Promise<string[]> {
    return frame.evaluate(() =>
      Array.from(document.querySelectorAll('#ha-log .ha-msg')).map((m) => {
        const role = m.classList.contains('ha-msg-user') ? 'user' : m.classList.contains('ha-greeting') ? 'greeting' : m.classList.contains('ha-msg-assistant') ? 'assistant' : 'other';
        return `${role}: ${(m.querySelector('.ha-bubble')?.textContent ?? m.textContent ?? '').trim()}`;
      }),
    );
  }

  /** Waits until the last assistant message is finished (aria-busy false) and reads `text`. */
  async function replyFinished(frame: Frame, text: string, timeoutMs = 20_000): Promise<void> {
    try {
      await frame.waitForFunction(
        (expected) => {
          const all = document.querySelectorAll('#ha-log .ha-msg-assistant');
          const last = all[all.length - 1];
          return last?.getAttribute('aria-busy') === 'false' && (last.querySelector('.ha-bubble')?.textContent ?? '').trim() === expected;
        },
        text,
        { timeout: timeoutMs },
      );
    } catch (error) {
      throw new Error(`no finished reply ${JSON.stringify(text)} within ${timeoutMs} ms; the log shows ${JSON.stringify(await transcript(frame))}`, { cause: error });
    }
  }

  /** Waits until the log shows exactly `expected` (see `transcript`). */
  async function logShows(frame: Frame, expected: string[], timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let seen: string[] = [];
    while (Date.now() < deadline) {
      seen = await transcript(frame).catch(() => []);
      if (JSON.stringify(seen) === JSON.stringify(expected)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(seen, expected, `the log did not come to show the expected messages within ${timeoutMs} ms`);
  }

  async function conversations(): Promise<Conversation[]> {
    const r = await call<{ data: Conversation[] }>(api.baseURL, 'GET', `/v1/agents/${agentId}/conversations`, { apiKey });
    assert.equal(r.status, 200);
    return r.body.data;
  }

  /** Tabs (at most 10 times) until the bubble has focus. */
  async function tabToLauncher(): Promise<void> {
    for (let i = 0; i < 10 && !(await launcherFocused()); i++) await page.keyboard.press('Tab');
    assert.equal(await launcherFocused(), true, 'Tab reaches the bubble');
  }
  const launcherFocused = () =>
    page.evaluate(() => {
      const host = document.querySelector('hosted-agents-chat');
      return document.activeElement === host && !!host?.shadowRoot?.activeElement?.classList.contains('launcher');
    });
  /** Where keystrokes go inside the chat frame. */
  const chatFocus = (frame: Frame) =>
    frame.evaluate(() => ({ documentHasFocus: document.hasFocus() as boolean, activeElement: `${document.activeElement?.tagName ?? 'none'}${document.activeElement?.id ? `#${document.activeElement.id}` : ''}` }));

  it('the bubble sits bottom-right in #059669 by default, and bottom-left in data-color when asked', async () => {
    const viewport = page.viewportSize()!;
    await visitShop();
    const box = (await launcher().boundingBox())!;
    assert.ok(box.x > viewport.width / 2, `bubble x=${box.x} is not on the right`);
    assert.ok(viewport.width - (box.x + box.width) <= 40 && box.x + box.width <= viewport.width, `right gap ${viewport.width - (box.x + box.width)} px`);
    assert.ok(viewport.height - (box.y + box.height) <= 40 && box.y + box.height <= viewport.height, `bottom gap ${viewport.height - (box.y + box.height)} px`);
    assert.ok(box.width >= 44 && box.height >= 44, `a ${box.width}×${box.height} target is too small`);
    assert.equal(await launcher().evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(5, 150, 105)');
    assert.equal(await launcher().getAttribute('aria-label'), `Open chat with ${AGENT_NAME}`);
    assert.equal(await launcher().getAttribute('aria-expanded'), 'false');
    assert.equal(await page.locator('hosted-agents-chat .panel').isHidden(), true);
    assert.equal(await page.locator('hosted-agents-chat iframe').count(), 0, 'no iframe before the first open');
    await shot('bubble-default');

    await visitShop({ data: { position: 'bottom-left', color: '#dc2626' } });
    const left = (await launcher().boundingBox())!;
    assert.ok(left.x >= 0 && left.x <= 40, `bubble x=${left.x} is not bottom-left`);
    assert.ok(viewport.height - (left.y + left.height) <= 40, `bottom gap ${viewport.height - (left.y + left.height)} px`);
    assert.equal(await launcher().evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(220, 38, 38)');
    await shot('bubble-bottom-left-red');
  });

  it('a click opens the panel and a message streams its reply in, word by word', async () => {
    await visitShop();
    const frame = await openPanel();
    assert.equal(await page.locator('hosted-agents-chat .panel').isVisible(), true);
    assert.equal(await page.locator('hosted-agents-chat .panel .title').textContent(), AGENT_NAME);
    assert.equal(await page.locator('hosted-agents-chat iframe').getAttribute('title'), AGENT_NAME);
    await logShows(frame, [`greeting: ${GREETING}`]);
    await shot('panel-open');

    // Everything the visitor could see of the reply, at every change of the log.
    await frame.evaluate(() => {
      const w = window as unknown as { __seen: Array<{ busy: string | null; text: string }> };
      w.__seen = [];
      const log = document.getElementById('ha-log')!;
      new MutationObserver(() => {
        const all = log.querySelectorAll('.ha-msg-assistant:not(.ha-greeting)');
        const last = all[all.length - 1];
        if (last) w.__seen.push({ busy: last.getAttribute('aria-busy'), text: (last.querySelector('.ha-bubble')?.textContent ?? '').trim() });
      }).observe(log, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    const message = 'Hello there, do the trail runners come in wide sizes, and could you ship a pair to Tromsø in Norway before the end of the month, please?';
    const full = echo(message);
    await send(frame, message);
    const partial = await frame.waitForFunction(
      () => {
        const all = document.querySelectorAll('#ha-log .ha-msg-assistant:not(.ha-greeting)');
        const last = all[all.length - 1];
        const text = (last?.querySelector('.ha-bubble')?.textContent ?? '').trim();
        return last?.getAttribute('aria-busy') === 'true' && text.length > 0 ? text : false;
      },
      undefined,
      { timeout: 15_000 },
    );
    await shot('reply-streaming');
    const partialText = (await partial.jsonValue()) as string;
    assert.ok(partialText.length < full.length && full.startsWith(partialText), `first visible text ${JSON.stringify(partialText)} is not a part of the reply`);
    await replyFinished(frame, full);
    await shot('reply-finished');

    const seen = await frame.evaluate(() => (window as unknown as { __seen: Array<{ busy: string | null; text: string }> }).__seen);
    const whileBusy = seen.filter((s) => s.busy === 'true' && s.text.length > 0);
    const distinct = [...new Set(whileBusy.map((s) => s.text))];
    assert.ok(distinct.length >= 2, `the reply grew in ${distinct.length} visible step(s) while aria-busy=true: ${JSON.stringify(distinct)}`);
    for (const text of distinct) assert.ok(full.startsWith(text), `${JSON.stringify(text)} is not a part of the reply`);
    const partials = distinct.filter((text) => text.length < full.length);
    assert.ok(partials.length >= 2, `the visitor saw ${partials.length} partial version(s) of the reply while aria-busy=true: ${JSON.stringify(distinct)}`);
    const lengths = whileBusy.map((s) => s.text.length);
    assert.deepEqual(lengths, [...lengths].sort((a, b) => a - b), 'the streamed text only grows');
    assert.equal(seen.at(-1)?.busy, 'false');
    await logShows(frame, [`greeting: ${GREETING}`, `user: ${message}`, `assistant: ${full}`]);
  });

  it('a reload of the customer page keeps the conversation', async () => {
    await visitShop();
    let frame = await openPanel();
    const message = 'My order number is 4711, please remember it';
    await send(frame, message);
    await replyFinished(frame, echo(message));

    await page.reload();
    await launcher().waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await launcher().getAttribute('aria-expanded'), 'false', 'a reload starts closed');
    frame = await openPanel();
    await logShows(frame, [`greeting: ${GREETING}`, `user: ${message}`, `assistant: ${echo(message)}`]);
    await shot('after-reload');
  });

  it('a reload while the reply is still streaming follows that reply to its end', async () => {
    await visitShop();
    let frame = await openPanel();
    // 120 words at 25 ms a word: about 3 s of streaming, time enough to reload in the middle.
    const message = Array.from({ length: 120 }, (_, i) => `w${i}`).join(' ');
    await send(frame, message);
    await frame.locator('#ha-log .ha-msg-assistant:not(.ha-greeting)[aria-busy="true"] .ha-bubble p').waitFor({ timeout: 15_000 });

    const history = page.waitForResponse((r) => r.url().includes('/v1/public/chat/messages'), { timeout: 15_000 });
    await page.reload();
    await launcher().click();
    const running = (await (await history).json()) as { runningTurnId: string | null };
    assert.ok(running.runningTurnId, 'the reload happened while the turn was still running');
    frame = await chatFrame(page);
    await frame.locator('#ha-log .ha-msg-assistant[aria-busy="true"]').waitFor({ timeout: 10_000 });
    await shot('reload-mid-reply');
    await replyFinished(frame, echo(message));
    await logShows(frame, [`greeting: ${GREETING}`, `user: ${message}`, `assistant: ${echo(message)}`]);
  });

  it('Service.identify switches to another visitor’s conversation and back; the owner sees one conversation per visitor', async () => {
    await visitShop();
    const frame = await openPanel();
    const anonymousId = await page.evaluate((id) => localStorage.getItem(`hosted-agents:uid:${id}`), agentId);
    assert.ok(anonymousId, 'the embed keeps an anonymous visitor id in the site’s storage');
    const first = 'First visitor here: do you sell insoles?';
    await send(frame, first);
    await replyFinished(frame, echo(first));

    await page.evaluate(() => window.Service!.identify({ id: 'another-visitor' }));
    await logShows(frame, [`greeting: ${GREETING}`]);
    await composerReady(frame);
    const second = 'Another visitor: what are your opening hours?';
    await send(frame, second);
    await replyFinished(frame, echo(second));
    await logShows(frame, [`greeting: ${GREETING}`, `user: ${second}`, `assistant: ${echo(second)}`]);
    await shot('identify-another-visitor');

    await page.evaluate((id) => window.Service!.identify({ id }), anonymousId);
    await logShows(frame, [`greeting: ${GREETING}`, `user: ${first}`, `assistant: ${echo(first)}`]);
    await shot('identify-back');

    const listed = await conversations();
    const of = (id: string) => listed.filter((c) => c.endUser?.id === id);
    assert.equal(of(anonymousId).length, 1, `conversations of ${anonymousId}: ${JSON.stringify(of(anonymousId))}`);
    assert.equal(of('another-visitor').length, 1, `conversations of another-visitor: ${JSON.stringify(of('another-visitor'))}`);
    assert.notEqual(of(anonymousId)[0]!.id, of('another-visitor')[0]!.id);
    for (const c of [...of(anonymousId), ...of('another-visitor')]) assert.equal(c.channel, 'public');
  });

  it('data-user-id and data-user-name key the conversation the owner sees', async () => {
    await visitShop({ data: { 'user-id': 'crm-42', 'user-name': 'Grace' } });
    const frame = await openPanel();
    assert.match((await frame.evaluate(() => location.hash)) ?? '', /uid=crm-42/);
    const message = 'Hello, this is Grace from the CRM';
    await send(frame, message);
    await replyFinished(frame, echo(message));
    const graces = (await conversations()).filter((c) => c.endUser?.id === 'crm-42');
    assert.equal(graces.length, 1, JSON.stringify(graces));
    assert.deepEqual(graces[0]!.endUser, { id: 'crm-42', name: 'Grace', verified: false });
    assert.equal(graces[0]!.channel, 'public');
  });

  it('markup in a visitor message and in the model’s echo of it stays inert text', async () => {
    await visitShop();
    let frame = await openPanel();

    // The control: a dialog opened inside the chat iframe does reach page.on('dialog').
    await frame.evaluate(() => setTimeout(() => alert('control'), 0));
    const deadline = Date.now() + 5000;
    while (!dialogs.includes('control') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    assert.deepEqual(dialogs, ['control'], 'a dialog inside the iframe is observed (otherwise the check below proves nothing)');
    dialogs.length = 0;

    const message = '<img src=x onerror="alert(1)"><script>alert(2)</script>**bold**';
    await send(frame, message);
    await frame.locator('#ha-log .ha-msg-assistant:not(.ha-greeting)[aria-busy="false"]').waitFor({ timeout: 20_000 });

    const inert = async (f: Frame, when: string) => {
      // An <img src=x> that had been created would have fired its error (and onerror) by now; wait a little more anyway.
      await f.waitForTimeout(300);
      assert.deepEqual(dialogs, [], `no dialog ${when}`);
      const found = await f.evaluate(() => ({
        imgX: document.querySelectorAll('img[src="x"]').length,
        imgInLog: document.querySelectorAll('#ha-log img').length,
        scriptInLog: document.querySelectorAll('#ha-log script').length,
        handlers: document.querySelectorAll('#ha-log [onerror], #ha-log [onload], #ha-log [onclick]').length,
        user: document.querySelector('#ha-log .ha-msg-user .ha-bubble')?.textContent ?? null,
        assistant: Array.from(document.querySelectorAll('#ha-log .ha-msg-assistant:not(.ha-greeting) .ha-bubble')).map((b) => b.textContent ?? '').join('\n'),
        bold: Array.from(document.querySelectorAll('#ha-log .ha-msg-assistant strong')).map((s) => s.textContent),
      }));
      assert.deepEqual({ imgX: found.imgX, imgInLog: found.imgInLog, scriptInLog: found.scriptInLog, handlers: found.handlers }, { imgX: 0, imgInLog: 0, scriptInLog: 0, handlers: 0 }, when);
      assert.equal(found.user, message, `the visitor's message shows as the text typed (${when})`);
      assert.ok(found.assistant.includes('<img src=x onerror="alert(1)">') && found.assistant.includes('<script>alert(2)</script>'), `the echo shows the markup as text (${when}): ${found.assistant}`);
      assert.deepEqual(found.bold, ['bold'], `markdown still works (${when})`);
      assert.equal(await page.evaluate(() => document.querySelectorAll('img[src="x"]').length), 0);
    };
    await inert(frame, 'while streaming and once finished');
    await shot('markup-inert');

    // History renders it again (from the server's copy): still text.
    await page.reload();
    await launcher().waitFor({ state: 'visible', timeout: 10_000 });
    frame = await openPanel();
    await frame.locator('#ha-log .ha-msg-user').waitFor({ timeout: 10_000 });
    await inert(frame, 'after a reload (history)');
  });

  it('keyboard: Tab to the bubble, Enter opens with the caret in the composer, typing and Enter send', async () => {
    await visitShop();
    await tabToLauncher();
    await shot('keyboard-launcher-focused');

    await page.keyboard.press('Enter');
    assert.equal(await launcher().getAttribute('aria-expanded'), 'true');
    const focusedInWidget = await page.evaluate(() => document.querySelector('hosted-agents-chat')?.shadowRoot?.activeElement?.tagName ?? null);
    assert.equal(focusedInWidget, 'IFRAME', 'opening moves focus to the chat iframe');
    const frame = await chatFrame(page);
    await composerReady(frame);
    // What the visitor needs: what they type now lands in the message box.
    const deadline = Date.now() + 3000;
    let focus = await chatFocus(frame);
    while (!(focus.documentHasFocus && focus.activeElement === 'TEXTAREA#ha-input') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      focus = await chatFocus(frame);
    }
    assert.deepEqual(focus, { documentHasFocus: true, activeElement: 'TEXTAREA#ha-input' }, 'after opening from the keyboard, keystrokes reach the chat composer');

    const message = 'Typed without a mouse';
    await page.keyboard.type(message);
    await page.keyboard.press('Enter');
    await replyFinished(frame, echo(message));
    await shot('keyboard-sent');
  });

  it('keyboard: Escape in the chat closes the panel and puts focus back on the bubble', async () => {
    await visitShop();
    await tabToLauncher();
    await page.keyboard.press('Enter');
    const frame = await chatFrame(page);
    await composerReady(frame);
    await frame.locator('#ha-input').click(); // (into the composer by pointer: see the test above for the keyboard path)
    const message = 'Then I press Escape';
    await page.keyboard.type(message);
    await page.keyboard.press('Enter');
    await replyFinished(frame, echo(message));

    await page.keyboard.press('Escape');
    await page.locator('hosted-agents-chat .panel').waitFor({ state: 'hidden', timeout: 5000 });
    assert.equal(await launcher().getAttribute('aria-expanded'), 'false');
    assert.equal(await launcherFocused(), true, 'focus is back on the bubble');
    await shot('keyboard-escape-closed');

    // And Enter opens it again, the conversation still there.
    await page.keyboard.press('Enter');
    assert.equal(await launcher().getAttribute('aria-expanded'), 'true');
    await logShows(frame, [`greeting: ${GREETING}`, `user: ${message}`, `assistant: ${echo(message)}`]);
  });

  it('the hosted page breaks no Content Security Policy rule, and at 320 px it has no horizontal scroll', async () => {
    await context.addInitScript(() => {
      const w = window as unknown as { __csp: string[] };
      w.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    await visitShop();
    const frame = await openPanel();
    const message = 'Show me **bold**, _em_, `code`, a [link](https://example.com/shoes), and:\n\n- a list\n- of two';
    await send(frame, message);
    await frame.locator('#ha-log .ha-msg-assistant:not(.ha-greeting)[aria-busy="false"]').waitFor({ timeout: 20_000 });
    assert.deepEqual(await frame.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? ['no listener']), []);

    const narrow = await context.newPage();
    narrow.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()} (${m.location().url})`));
    await narrow.setViewportSize({ width: 320, height: 640 });
    const response = await narrow.goto(`${api.baseURL}/embed/${agentId}`);
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    await composerReady(narrow.mainFrame());
    const long = `Please look at https://shop.example.com/${'trail-runner-'.repeat(12)}size-44 and ${'W'.repeat(80)}`;
    await send(narrow.mainFrame(), long);
    await replyFinished(narrow.mainFrame(), echo(long));
    const widths = await narrow.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
      body: document.body.scrollWidth,
      log: (document.getElementById('ha-log')?.scrollWidth ?? 0) - (document.getElementById('ha-log')?.clientWidth ?? 0),
    }));
    assert.equal(widths.client, 320);
    assert.ok(widths.scroll <= widths.client && widths.body <= widths.client, `page scrolls sideways: ${JSON.stringify(widths)}`);
    assert.ok(widths.log <= 0, `the conversation scrolls sideways: ${JSON.stringify(widths)}`);
    await shot('hosted-page-320px', narrow);
    assert.deepEqual(await narrow.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? ['no listener']), []);

    assert.deepEqual(consoleLines.filter((l) => l.includes('Content Security Policy')), []);

    // The control: a violation inside the embed's iframe does show up in what was collected above.
    await frame.evaluate(() => {
      const img = document.createElement('img');
      img.src = 'http://example.invalid/pixel.png';
      document.body.append(img);
      img.remove();
    });
    const deadline = Date.now() + 5000;
    while (!consoleLines.some((l) => l.includes('Content Security Policy')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    assert.ok(consoleLines.some((l) => l.includes('Content Security Policy')), 'a CSP violation in the iframe reaches the console listener (otherwise the check above proves nothing)');
  });

  it('an agent that is not deployed to production shows no bubble', async () => {
    const meta = page.waitForResponse((r) => r.url().endsWith(`/v1/public/agents/${undeployedId}`), { timeout: 10_000 });
    const warned = page.waitForEvent('console', { predicate: (m) => m.text().includes('not deployed to production'), timeout: 10_000 });
    await page.goto(site.url({ agentId: undeployedId }));
    assert.equal((await meta).status(), 404);
    await warned;
    assert.equal(await page.locator('hosted-agents-chat').count(), 0);
    assert.equal(await page.locator('hosted-agents-chat button.launcher').count(), 0);
    await shot('undeployed-no-bubble');
  });
});
