/**
 * Side by side on every width from 360 px (issue 31, item 4): at 360, 390, 800 and 1280 px
 * nothing is wider than the window (document.documentElement.scrollWidth <= innerWidth),
 * the banner is readable (not one word per line, not cut), and "Back to the walkthrough"
 * and the Start and End buttons are inside the window.
 */
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures.js';

async function inWindowX(page: Page, testId: string): Promise<string | null> {
  const el = page.getByTestId(testId);
  await expect(el).toBeVisible();
  const b = (await el.boundingBox())!;
  const w = page.viewportSize()!.width;
  return b.x >= -0.5 && b.x + b.width <= w + 0.5 ? null : `${testId}: x ${Math.round(b.x)}-${Math.round(b.x + b.width)} in a ${w} px window`;
}

for (const [width, height] of [[360, 800], [390, 844], [800, 900], [1280, 800]] as const) {
  test(`side by side at ${width}x${height}: nothing wider than the window, the banner readable, the way back and Start/End in it`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await page.goto('/?compare=wal-steady-state&chapter=wal-steady-state&stop=2');
    await expect(page.getByTestId('compare-table')).toBeVisible();
    await expect(page.getByTestId('compare-headline')).not.toHaveText('');
    const wide = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: innerWidth }));
    expect(wide.scroll, `the page is ${wide.scroll} px wide in a ${wide.inner} px window`).toBeLessThanOrEqual(wide.inner);
    const problems = (await Promise.all(['walkthrough-link', 'home', 'end', 'step-forward', 'compare-headline'].map((id) => inWindowX(page, id)))).filter((p) => p !== null);
    expect(problems).toEqual([]);
    // The way back and the playback are in the first screen.
    for (const id of ['walkthrough-link', 'home', 'end']) {
      const b = (await page.getByTestId(id).boundingBox())!;
      expect(b.y + b.height, `${id} in the first screen`).toBeLessThanOrEqual(height);
    }
    // The banner: not cut, and at least four words a line on average (not one word per line).
    const banner = await page.getByTestId('compare-headline').evaluate((el) => {
      const words = (el.textContent ?? '').trim().split(/\s+/).length;
      const lh = parseFloat(getComputedStyle(el).lineHeight) || 19;
      const lines = Math.round((el.clientHeight - parseFloat(getComputedStyle(el).paddingTop) - parseFloat(getComputedStyle(el).paddingBottom)) / lh);
      return { words, lines, cut: el.scrollWidth > el.clientWidth, width: el.getBoundingClientRect().width };
    });
    expect(banner.cut, 'the banner is cut').toBe(false);
    expect(banner.words / Math.max(1, banner.lines), `${banner.words} words on ${banner.lines} lines (${Math.round(banner.width)} px wide)`).toBeGreaterThanOrEqual(4);
    if (process.env.DOC_SHOTS && (width === 1280 || width === 390)) await page.screenshot({ path: `docs/screenshots/compare-wal-steady-state-${width}x${height}.png` });
  });
}
