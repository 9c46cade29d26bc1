import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

/** Where the browser tests leave screenshots for a person to look at (CI keeps them as artifacts). */
export const SHOTS = path.resolve(__dirname, '../../test-artifacts/screenshots');

/** A phone and a desktop: each state worth a look is shot at both widths. */
const WIDTHS = [390, 1280] as const;

/**
 * Screenshots `page` at each width as `<name>-<width>.png`, keeping its height, then gives it back
 * its own viewport. The log keeps its end in view across the resize, as a visitor would see it.
 */
export async function shootAtWidths(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  const own = page.viewportSize() ?? { width: 1280, height: 800 };
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: own.height });
    await page.evaluate(() => {
      const log = document.getElementById('ha-log');
      if (log) log.scrollTop = log.scrollHeight;
    });
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`) });
  }
  await page.setViewportSize(own);
}
