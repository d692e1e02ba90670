/**
 * The bytes in flight on each replica's lane (issue 28, point 1): two empty followers catch
 * up over 1 Gbit/s links (125 MB/s each way), broker 2 one zone away from the leader. At
 * step 13 broker 1's first 1 MiB Fetch response has been on its way 1 ms alone (902 KiB
 * left at 125 MB/s); at step 15 broker 2's has started too and the two share the leader's
 * interface (62.5 MB/s each); at step 146 both are in the ISR and nothing is in flight.
 * The steps are the run's (deterministic), not the clock's. Checked at 1280x800, 700x900
 * and in presenter mode: the row's text, its numbers, the diagram's description, no text
 * over another or past the SVG, and (fixed rows) lanes that stay where they are. Screenshots
 * go to test-results/screenshots/in-flight-<name>.png.
 */
import { type Locator, type Page } from '@playwright/test';
import { catchUpScenario } from '../support/catch-up.js';
import { expect, test } from './fixtures.js';

const SCENARIO = catchUpScenario({ name: 'catch-up at 1 Gbit/s', description: 'two empty followers catch up over 1 Gbit/s links', followers: 2, zones: ['a', 'a', 'b'], kip1023: false, bytesPerSec: 125_000_000, until: 2000 });
const src = Buffer.from(SCENARIO, 'utf8').toString('base64url');

const lanes = (page: Page) => page.getByTestId('offset-lanes');
const flow = (page: Page, broker: number) => page.getByTestId(`lane-flow-${broker}`);

async function open(page: Page, step: number, extra = ''): Promise<void> {
  await page.goto(`/?src=${src}&step=${step}${extra}`);
  await expect(page.getByTestId('step')).toHaveText(String(step));
  await expect(lanes(page)).toBeVisible();
  await expect(page.getByTestId('progress')).toHaveCount(0);
}

async function description(page: Page): Promise<string> {
  return lanes(page).evaluate((el) => document.getElementById(el.getAttribute('aria-labelledby') ?? '')?.textContent ?? '');
}

/** Every flow text lies inside the SVG and overlaps no other text of it. */
async function expectClearFlows(svg: Locator, what: string): Promise<void> {
  const found = await svg.evaluate((el) => {
    const s = el.getBoundingClientRect();
    const boxes = [...el.querySelectorAll('text')]
      .filter((t) => (t.textContent ?? '').trim() !== '' && t.getBoundingClientRect().width > 0)
      .map((t) => ({ text: (t.textContent ?? '').trim(), flow: t.closest('.flows') !== null, r: t.getBoundingClientRect() }));
    const problems: string[] = [];
    for (const a of boxes.filter((b) => b.flow)) {
      if (a.r.left < s.left - 0.5 || a.r.right > s.right + 0.5 || a.r.top < s.top - 0.5 || a.r.bottom > s.bottom + 0.5) problems.push(`"${a.text}" leaves the SVG`);
      for (const b of boxes) {
        if (a === b) continue;
        const dx = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
        const dy = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
        if (dx > 1 && dy > 1) problems.push(`"${a.text}" over "${b.text}"`);
      }
    }
    return { problems, flows: boxes.filter((b) => b.flow).length };
  });
  expect(found.flows, `${what}: flow texts`).toBeGreaterThan(0);
  expect(found.problems, what).toEqual([]);
}

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 700, height: 900 },
] as const;

for (const vp of VIEWPORTS) {
  test.describe(`${vp.width}x${vp.height}`, () => {
    test.use({ viewport: vp });

    test('a follower catching up alone: its bytes left and the whole link, on its lane and the leader\'s', async ({ page }) => {
      await open(page, 13);
      // 1 MiB less 1 ms at 125,000 B/ms: 923,576 B, 902 KiB.
      await expect(flow(page, 1)).toHaveText(/^↓ 902 KiB in flight · 125 MB\/s from broker 0/);
      await expect(flow(page, 1).locator('[data-flow="receiving"]')).toHaveAttribute('data-bytes-left', '923576');
      await expect(flow(page, 1).locator('[data-flow="receiving"]')).toHaveAttribute('data-bytes-per-sec', '125000000');
      await expect(flow(page, 0)).toHaveText(/^↑ 902 KiB in flight · 125 MB\/s to broker 1/);
      await expect(flow(page, 2)).toHaveCount(0);
      expect(await description(page)).toContain('broker 1 follower not in the ISR');
      expect(await description(page)).toContain("receiving 902 KiB of 1 MiB from broker 0 at 125 MB/s (1 Gbit/s), all of a broker's 125 MB/s interface (1 transfer)");
      await expectClearFlows(lanes(page), `step 13 at ${vp.width}x${vp.height}`);
      await page.screenshot({ path: `test-results/screenshots/in-flight-step13-${vp.width}x${vp.height}.png`, fullPage: true });
    });

    test('two followers share the leader\'s interface: half the link each', async ({ page }) => {
      await open(page, 15);
      await expect(flow(page, 1)).toHaveText(/^↓ 170 KiB in flight · 62.5 MB\/s from broker 0/);
      await expect(flow(page, 2)).toHaveText(/^↓ 1 MiB in flight · 62.5 MB\/s from broker 0/);
      await expect(flow(page, 0)).toHaveText(/^↑ 1.17 MiB in flight · 125 MB\/s to brokers 1, 2/);
      // The gauge: filled to half its track for a follower, whole for the leader.
      const fill = async (b: number) =>
        flow(page, b).evaluate((g) => Number(g.querySelector('.gauge-fill')!.getAttribute('width')) / Number(g.querySelector('.gauge-track')!.getAttribute('width')));
      expect(await fill(1)).toBeCloseTo(0.5, 5);
      expect(await fill(2)).toBeCloseTo(0.5, 5);
      expect(await fill(0)).toBeCloseTo(1, 5);
      await expectClearFlows(lanes(page), `step 15 at ${vp.width}x${vp.height}`);
      await lanes(page).screenshot({ path: `test-results/screenshots/in-flight-step15-${vp.width}x${vp.height}-lanes.png` });
    });

    test('nothing in flight once both are in the ISR', async ({ page }) => {
      await open(page, 146);
      await expect(lanes(page).locator('.flows')).toHaveCount(0);
      expect(await description(page)).not.toMatch(/receiving|sending|reading/);
    });
  });
}

test('700x900 (fixed rows): the lanes stay where they are whether something is in flight or not', async ({ page }) => {
  await page.setViewportSize({ width: 700, height: 900 });
  const titles = () => lanes(page).locator('.lane-title').evaluateAll((ts) => ts.map((t) => Math.round(t.getBoundingClientRect().top - t.closest('svg')!.getBoundingClientRect().top)));
  await open(page, 15);
  const busy = await titles();
  await open(page, 146);
  expect(await titles()).toEqual(busy);
});

test('presenter mode: the row is drawn under the lanes that have something in flight, clear of the rest', async ({ page }) => {
  await open(page, 15, '&present=1');
  await expect(flow(page, 1)).toBeVisible();
  await expect(flow(page, 2)).toBeVisible();
  await expectClearFlows(lanes(page), 'presenter mode');
  await page.screenshot({ path: 'test-results/screenshots/in-flight-step15-presenter.png' });
});
