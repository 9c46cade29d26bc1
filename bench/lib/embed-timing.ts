import type { Browser, Page } from 'playwright-core';
import { readSSE } from '../../sdk/src/sse';

/**
 * What bench:embed measures in Chromium and over HTTP: when the bubble shows on a customer page,
 * and how long a send takes to its first reply character, in the hosted page and straight to the
 * API. The callbacks given to evaluate()/waitForFunction()/addInitScript() run in the browser.
 */

// This file is type-checked with the DOM library by test/browser/tsconfig.json (not the root config).

/** What the page-side stopwatches below keep on `window`. */
declare global {
  interface Window {
    __bubbleAt?: number;
    __bench: { t0: number | null; first: number | null; before: number };
  }
}

export const MESSAGE = 'Do the trail runners come in wide sizes?';
export const STEP_TIMEOUT_MS = 20_000;

/**
 * Marks, in every top-level document, the first animation frame in which the bubble is laid out.
 * A string, not a function: tsx (esbuild keepNames) would wrap inner functions in a `__name`
 * helper that does not exist in the page.
 */
const WATCH_FOR_BUBBLE = `(() => {
  if (window.top !== window) return;
  const check = () => {
    const launcher = document.querySelector('hosted-agents-chat')?.shadowRoot?.querySelector('.launcher');
    if (launcher && launcher.getBoundingClientRect().width > 0) window.__bubbleAt = performance.now();
    else requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})();`;

interface LoadTiming {
  bubble: number;
  domContentLoaded: number;
  loaderLoaded: number;
  metaAnswered: number;
}

/** Loads `url` and reads, in the page's own clock (0 = navigation start), when things happened. */
async function timedLoad(page: Page, url: string, reload: boolean): Promise<LoadTiming> {
  if (reload) await page.reload({ timeout: STEP_TIMEOUT_MS });
  else await page.goto(url, { timeout: STEP_TIMEOUT_MS });
  await page.waitForFunction(() => typeof window.__bubbleAt === 'number', undefined, { timeout: STEP_TIMEOUT_MS });
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
    const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
    return {
      bubble: window.__bubbleAt ?? Number.NaN,
      domContentLoaded: nav?.domContentLoadedEventEnd ?? Number.NaN,
      loaderLoaded: resources.find((r) => r.name.includes('/embed/v1.js'))?.responseEnd ?? Number.NaN,
      metaAnswered: resources.find((r) => r.name.includes('/v1/public/agents/'))?.responseEnd ?? Number.NaN,
    };
  });
}

/** First visits (a fresh context each, nothing cached), then reloads of one page; `warmup` of each are dropped. */
export async function measureLoads(
  browser: Browser,
  url: string,
  settings: { warmup: number; loads: number },
): Promise<{ first: LoadTiming[]; repeat: LoadTiming[] }> {
  const first: LoadTiming[] = [];
  for (let i = 0; i < settings.warmup + settings.loads; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      await context.addInitScript(WATCH_FOR_BUBBLE);
      const timing = await timedLoad(await context.newPage(), url, false);
      if (i >= settings.warmup) first.push(timing);
    } finally {
      await context.close();
    }
  }
  const repeat: LoadTiming[] = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    await context.addInitScript(WATCH_FOR_BUBBLE);
    const page = await context.newPage();
    await timedLoad(page, url, false);
    for (let i = 0; i < settings.warmup + settings.loads; i++) {
      const timing = await timedLoad(page, url, true);
      if (i >= settings.warmup) repeat.push(timing);
    }
  } finally {
    await context.close();
  }
  return { first, repeat };
}

/** In the hosted page: switches to visitor `uid` (a new conversation) and waits until it can send. */
export async function newVisitor(page: Page, uid: string): Promise<void> {
  await page.evaluate((id) => {
    window.location.hash = `uid=${encodeURIComponent(id)}`;
  }, uid);
  await page.waitForFunction(
    () =>
      document.querySelectorAll('#ha-log .ha-msg-user').length === 0 &&
      !(document.getElementById('ha-input') as HTMLTextAreaElement | null)?.disabled &&
      document.getElementById('ha-send')?.getAttribute('aria-disabled') === 'false',
    undefined,
    { timeout: STEP_TIMEOUT_MS },
  );
}

/** Installs, once, the page-side stopwatch: Enter in the composer → first reply character in the DOM. */
export async function installStopwatch(page: Page): Promise<void> {
  await page.evaluate(() => {
    const bench = { t0: null as number | null, first: null as number | null, before: 0 };
    window.__bench = bench;
    window.addEventListener(
      'keydown',
      (event: KeyboardEvent) => {
        if (event.key !== 'Enter' || event.shiftKey || document.activeElement?.id !== 'ha-input') return;
        bench.t0 = performance.now();
        bench.first = null;
        bench.before = document.querySelectorAll('#ha-log .ha-msg-assistant').length;
      },
      true, // capture: before the page's own handler sends
    );
    const log = document.getElementById('ha-log');
    new MutationObserver(() => {
      if (bench.t0 === null || bench.first !== null) return;
      const reply = document.querySelectorAll('#ha-log .ha-msg-assistant')[bench.before];
      if ((reply?.querySelector('.ha-bubble')?.textContent ?? '').trim().length > 0) bench.first = performance.now();
    }).observe(log!, { subtree: true, childList: true, characterData: true });
  });
}

/** One send from the hosted page: ms from Enter to the first character of the reply shown. */
export async function pageSend(page: Page): Promise<number> {
  await page.locator('#ha-input').fill(MESSAGE);
  await page.locator('#ha-input').press('Enter');
  const expected = `(offline model) You said: ${MESSAGE}`;
  await page.waitForFunction(
    (text) => {
      const all = document.querySelectorAll('#ha-log .ha-msg-assistant');
      const last = all[all.length - 1];
      return window.__bench.first !== null && last?.getAttribute('aria-busy') === 'false' && (last.querySelector('.ha-bubble')?.textContent ?? '').trim() === text;
    },
    expected,
    { timeout: STEP_TIMEOUT_MS },
  );
  return page.evaluate(() => (window.__bench.first ?? Number.NaN) - (window.__bench.t0 ?? Number.NaN));
}

/** The same message straight to the public chat route: ms from the request to the first `text` event. */
export async function directSend(baseURL: string, token: string, userId: string): Promise<number> {
  const signal = AbortSignal.timeout(STEP_TIMEOUT_MS);
  const started = performance.now();
  const res = await fetch(`${baseURL}/v1/public/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ content: MESSAGE, user: { id: userId } }),
    signal,
  });
  if (res.status !== 200 || !res.body) throw new Error(`POST /v1/public/chat: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
  let first: number | undefined;
  let last: string | undefined;
  for await (const m of readSSE(res.body, signal)) {
    if (m.event === 'text') first ??= performance.now() - started;
    last = m.event;
  }
  if (first === undefined || last !== 'done') throw new Error(`the public chat stream ended with ${String(last)} (first text: ${String(first)})`);
  return first;
}
