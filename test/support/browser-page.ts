import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Config } from '../../config/env';
import { launchChromium } from '../../harness/browser';
import { Service } from '../../sdk/src';
import { lazyApi, type RunningApi, startTestApi, type TestApi } from './api';
import { fixture } from './fixture';

export interface BrowserPageOptions {
  /** The API's settings over the fixture's; the public chat limits are lifted already. */
  config?: Partial<Config>;
  /** An API of the describe's own (an isolated stack's) instead of the one started here. */
  api?: RunningApi;
  /** Credits of the workspace made in `before` (default 10 000). */
  credits?: number;
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
}

/** What runs for the current test (`now()` of the handle). */
interface BrowserNow {
  browser: Browser;
  /** The current test's context and page (new for each test). */
  context: BrowserContext;
  page: Page;
  /** Console lines of every frame of the current test's page, as `[type] text (url)`. */
  consoleLines: string[];
}

/** The members of `api` read the running API; `workspace()` is for hooks and tests, `now()` for `beforeEach` and tests. */
export interface BrowserPage {
  api: RunningApi;
  /** The workspace made in `before`: its key and a client of it. */
  workspace: () => { apiKey: string; ws: Service };
  now: () => BrowserNow;
}

interface Current {
  browser: Browser;
  apiKey: string;
  ws: Service;
  context?: BrowserContext;
  page?: Page;
  consoleLines: string[];
}

/**
 * Chromium, a test API and a workspace for the browser tests of the calling `describe`, and a
 * fresh page for each of its tests, printing the page's console when a test fails (or always
 * with EMBED_TEST_CONSOLE set). Every visitor of these tests is one address on one machine, so
 * the public chat and read limits are lifted.
 */
export function useBrowserPage(options: BrowserPageOptions = {}): BrowserPage {
  let current: Current | undefined;
  // Apart from `current`, so that a `before` failing half-way still closes what it started.
  let browser: Browser | undefined;
  let own: TestApi | undefined;
  const now = (): Current => {
    if (!current) throw new Error('useBrowserPage: the browser runs between the before and after hooks of the describe that called it');
    return current;
  };
  const api =
    options.api ??
    lazyApi(() => {
      if (!own) throw new Error('useBrowserPage: the API runs between the before and after hooks of the describe that called it');
      return own;
    });

  before(async function () {
    this.timeout(120_000);
    // First, so a machine without Chromium fails here with a clear message instead of skipping.
    browser = await launchChromium();
    if (!options.api) {
      own = await startTestApi({
        config: { ...fixture().config, PUBLIC_CHAT_PER_VISITOR: 1000, PUBLIC_CHAT_PER_ADDRESS: 10_000, PUBLIC_READS_PER_ADDRESS: 100_000, ...options.config },
      });
    }
    const { apiKey } = await api.newWorkspace({ credits: options.credits ?? 10_000 });
    current = { browser, apiKey, ws: new Service({ apiKey, baseURL: api.baseURL }), consoleLines: [] };
  });
  after(async () => {
    await browser?.close().catch(() => undefined);
    await own?.stop();
    [browser, own, current] = [undefined, undefined, undefined];
  });

  beforeEach(async () => {
    const c = now();
    c.context = await c.browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 }, colorScheme: options.colorScheme });
    c.page = await c.context.newPage();
    const lines: string[] = [];
    c.consoleLines = lines;
    c.page.on('console', (m) => lines.push(`[${m.type()}] ${m.text()} (${m.location().url})`));
  });
  afterEach(async function () {
    // A failure's story often is in the browser console (all frames): show it.
    if (this.currentTest?.state === 'failed' || process.env.EMBED_TEST_CONSOLE) {
      const lines = current?.consoleLines ?? [];
      process.stderr.write(`browser console during "${this.currentTest?.title}":\n${lines.map((l) => `  ${l}`).join('\n') || '  (nothing)'}\n`);
    }
    await current?.context?.close().catch(() => undefined);
  });

  return {
    api,
    workspace: () => ({ apiKey: now().apiKey, ws: now().ws }),
    now: () => {
      const c = now();
      if (!c.context || !c.page) throw new Error('useBrowserPage: the page is made for each test, in its beforeEach');
      return { browser: c.browser, context: c.context, page: c.page, consoleLines: c.consoleLines };
    },
  };
}
