/**
 * The side-by-side view (issue 8): two runs of one workload in two designs, their
 * timelines in step, a metrics table and D3 charts. Driven through the URL and the
 * keyboard; every wait is an auto-waiting expectation; any console or page error fails
 * the test (fixtures.ts). Screenshots go to test-results/screenshots/.
 */
import { join } from 'node:path';
import { type Page } from '@playwright/test';
import { SHOTS, expect, test } from './fixtures.js';

const WAL_STEADY = '/?compare=wal-steady-state&modes=classic,wal';

const time = (page: Page) => page.getByTestId('time');
const cursor = (page: Page) => page.getByTestId('cursor');
const cell = (page: Page, row: string, col: 'a' | 'b' | 'diff' | 'at-a' | 'at-b') => page.getByTestId(`row-${row}-${col}`);

async function open(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 30_000 });
  await expect(cursor(page)).toHaveText(/^\d+$/);
}

/** True when the element lies entirely inside the viewport (no scrolling needed). */
async function inViewport(page: Page, testId: string): Promise<boolean> {
  const vp = page.viewportSize()!;
  const box = await page.getByTestId(testId).boundingBox();
  return box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= vp.height && box.x + box.width <= vp.width;
}

test.describe('side by side: wal-steady-state, classic and WAL', () => {
  test('the headline and the table show the cross-zone saving and its cost in object-store requests', async ({ page }) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await open(page, `${WAL_STEADY}&t=10000`);
    const headline = page.getByTestId('compare-headline');
    await expect(headline).toContainText('From classic KIP-405 to KIP-1176 WAL');
    await expect(headline).toContainText(/cross-zone bytes 7\.6\d? MiB → 18\.3 KiB \(−99\.8 %\)/);
    await expect(headline).toContainText('fast-store requests 0 → 140');
    await expect(page.getByTestId('side-0-label')).toHaveText('classic KIP-405');
    await expect(page.getByTestId('side-1-label')).toHaveText('KIP-1176 WAL');
    await expect(cell(page, 'crossZone', 'a')).toHaveText(/^7\.6\d? MiB$/);
    await expect(cell(page, 'crossZone', 'b')).toHaveText('18.3 KiB');
    await expect(cell(page, 'crossZone', 'diff')).toHaveText('−99.8 %');
    await expect(cell(page, 'walRequests', 'a')).toHaveText('0');
    await expect(cell(page, 'walRequests', 'b')).toHaveText('140');
    await expect(cell(page, 'walRequests', 'diff')).toHaveText('+140');
    await expect(cell(page, 'tieredRequests', 'b')).toHaveText('220');
    await expect(cell(page, 'bytesFromLeader', 'b')).toHaveText('0 B');
    await expect(cell(page, 'acksAllP50', 'a')).toHaveText('14 ms');
    await expect(cell(page, 'acksAllP50', 'b')).toHaveText('32 ms');
    await expect(page.getByTestId('breakdown-crossZone')).toContainText('WAL metadata 18.3 KiB');
    // Half way through, the figures at the cursor are on their way to the whole run's.
    await expect(time(page)).toHaveText(/^(9\d{3}|10000)$/);
    const walNow = Number(await cell(page, 'walRequests', 'at-b').textContent());
    expect(walNow).toBeGreaterThan(0);
    expect(walNow).toBeLessThan(140);
    await expect(cell(page, 'crossZone', 'at-a')).toHaveText(/MiB$/);
    await expect(cell(page, 'crossZone', 'at-b')).toHaveText(/KiB$/);
    // One screen: the table and the cross-zone and object-store charts without scrolling.
    for (const id of ['compare-headline', 'compare-table', 'chart-crossZone', 'chart-requests']) expect(await inViewport(page, id), id).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'compare.png') });
    await page.screenshot({ path: join(SHOTS, 'compare-full.png'), fullPage: true });
  });

  test('the cost per month at steady state: one line per row, both designs, the warnings and assumptions beside them', async ({ page }) => {
    await open(page, WAL_STEADY);
    const steady = page.getByTestId('compare-steady');
    await expect(steady).toBeVisible();
    await expect(steady.locator('caption')).toHaveText('Cost per month at steady state');
    await expect(page.getByTestId('steady-crossZoneReplication-a')).toHaveText('$19.78');
    await expect(page.getByTestId('steady-crossZoneReplication-b')).toHaveText('$0.0463');
    // The fast store's lines exist only on the WAL side.
    await expect(page.getByTestId('steady-walPut-a')).toHaveText('—');
    await expect(page.getByTestId('steady-walPut-b')).toHaveText('$5.86');
    await expect(page.getByTestId('steady-walPut-b')).toHaveAttribute('title', /^5,184,000 objects × \$0\.00113 ÷ 1000 = /);
    await expect(page.getByTestId('steady-total-a')).toHaveText('$261');
    await expect(page.getByTestId('steady-total-b')).toHaveText('$249');
    // The 20 s run reaches no remote retention: said beside the figures.
    await expect(page.getByTestId('steady-warnings-1')).toContainText('remote retention was not reached');
    await page.getByTestId('steady-assumptions').locator('summary').click();
    await expect(page.getByTestId('steady-assumptions')).toContainText('KIP-1176 batching: the producer sends 100 records (102,400 B) every 500 ms');
    await steady.screenshot({ path: join(SHOTS, 'compare-steady.png') });
  });

  test('at 1280x800 the table and the key charts still fit on one screen', async ({ page }) => {
    await open(page, WAL_STEADY);
    for (const id of ['compare-headline', 'compare-table', 'chart-crossZone', 'chart-requests']) expect(await inViewport(page, id), id).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'compare-1280.png') });
  });

  test('the keys move the shared cursor; each side shows its latest step at or before it', async ({ page }) => {
    await open(page, WAL_STEADY);
    await expect(cursor(page)).toHaveText('0');
    await expect(time(page)).toHaveText('0');
    for (let n = 1; n <= 6; n++) {
      await page.keyboard.press('ArrowRight');
      await expect(cursor(page)).toHaveText(String(n));
    }
    const t = Number(await time(page).textContent());
    expect(t).toBeGreaterThan(0);
    for (const i of [0, 1]) expect(Number(await page.getByTestId(`side-${i}-time`).textContent())).toBeLessThanOrEqual(t);
    // At least one side took a step exactly at the cursor time.
    const times = await Promise.all([0, 1].map(async (i) => Number(await page.getByTestId(`side-${i}-time`).textContent())));
    expect(times).toContain(t);
    await page.keyboard.press('ArrowLeft');
    await expect(cursor(page)).toHaveText('5');
    await expect(page).toHaveURL(/compare=wal-steady-state&modes=classic,wal&t=\d+/);
    await page.keyboard.press('End');
    await expect(time(page)).toHaveText('20000');
    // At the end the figures at the cursor are the whole run's.
    await expect(cell(page, 'crossZone', 'at-b')).toHaveText('18.3 KiB');
    await expect(cell(page, 'walRequests', 'at-b')).toHaveText('140');
    await page.keyboard.press('Home');
    await expect(cursor(page)).toHaveText('0');
    await expect(cell(page, 'walRequests', 'at-b')).toHaveText('0');
    // Space plays, Space pauses.
    await page.keyboard.press('Space');
    await expect(page.getByTestId('play')).toHaveAttribute('aria-pressed', 'true');
    await expect.poll(async () => Number(await cursor(page).textContent())).toBeGreaterThan(0);
    await page.keyboard.press('Space');
    await expect(page.getByTestId('play')).toHaveAttribute('aria-pressed', 'false');
  });

  test('a link with t opens at that time; the pictures of both designs are drawn', async ({ page }) => {
    await open(page, `${WAL_STEADY}&t=5000`);
    await expect(time(page)).toHaveText(/^\d+$/);
    const t = Number(await time(page).textContent());
    expect(t).toBeLessThanOrEqual(5000);
    expect(t).toBeGreaterThan(4000);
    for (const i of [0, 1]) {
      await expect(page.getByTestId(`side-${i}-offsets`).getByTestId('offset-lanes')).toBeVisible();
      await expect(page.getByTestId(`side-${i}-requests`).getByTestId('sequence')).toBeVisible();
      await expect(page.getByTestId(`side-${i}-metrics`).getByTestId('metrics')).toBeVisible();
    }
    // Only the WAL side has a fast store.
    await expect(page.getByTestId('side-1-wal').getByTestId('wal-lane')).toBeVisible();
    await expect(page.getByTestId('side-0-wal').getByTestId('wal-lane')).toHaveCount(0);
    await expect(page.getByTestId('side-0-no-wal')).toContainText('wal.enable is off');
    // The two designs' lanes start at the same height (drawn row by row).
    const tops = await Promise.all([0, 1].map(async (i) => (await page.getByTestId(`side-${i}-requests`).boundingBox())!.y));
    expect(Math.abs(tops[0] - tops[1])).toBeLessThan(1);
    // The WAL side is the scenario as written: a link to its step in the walkthrough.
    await expect(page.getByTestId('side-1-walkthrough')).toHaveAttribute('href', /scenario=wal-steady-state&step=\d+/);
    await expect(page.getByTestId('walkthrough-link')).toHaveAttribute('href', /scenario=wal-steady-state/);
  });

  test('charts: lines for both designs with a cursor, bars for catch-up and remote reads', async ({ page }) => {
    await open(page, `${WAL_STEADY}&t=10000`);
    for (const id of ['crossZone', 'requests', 'cost', 'bytesFromLeader']) {
      const chart = page.getByTestId(`chart-${id}`);
      await expect(chart.locator('path.series')).toHaveCount(2);
      for (const d of await chart.locator('path.series').evaluateAll((ps) => ps.map((p) => p.getAttribute('d') ?? ''))) expect(d).toMatch(/^M[\d.]+,[\d.]+/);
      // Told apart by dash pattern, not only colour.
      const dashes = await chart.locator('path.series').evaluateAll((ps) => ps.map((p) => p.getAttribute('stroke-dasharray')));
      expect(dashes[0]).not.toBe(dashes[1]);
      await expect(chart.getByTestId('chart-cursor')).toHaveCount(1);
    }
    await expect(page.getByTestId('chart-catchUp').locator('g.bar')).toHaveCount(2);
    await expect(page.getByTestId('chart-remoteReads').locator('g.bar')).toHaveCount(2);
    // The cursor moves with the keys.
    const x = async () => Number(await page.getByTestId('chart-crossZone').getByTestId('chart-cursor').getAttribute('x1'));
    const before = await x();
    await page.keyboard.press('End');
    await expect.poll(x).toBeGreaterThan(before);
  });
});

test.describe('side by side: bad links', () => {
  test('bad modes give a note naming them and the default pair', async ({ page }) => {
    await open(page, '/?compare=wal-steady-state&modes=classic,bogus');
    await expect(page.getByTestId('compare-notes')).toContainText('modes');
    await expect(page.getByTestId('compare-notes')).toContainText('classic,bogus');
    await expect(page.getByTestId('side-0-label')).toHaveText('classic KIP-405');
    await expect(page.getByTestId('side-1-label')).toHaveText('KIP-1176 WAL');
  });

  test('an unknown scenario, a bad t and a t past the end each get a note; the page still works', async ({ page }) => {
    await open(page, '/?compare=no-such-scenario&t=abc');
    await expect(page.getByTestId('compare-notes')).toContainText('no bundled scenario "no-such-scenario"');
    await expect(page.getByTestId('compare-notes')).toContainText('t: expected a whole number');
    await expect(page.getByTestId('compare-scenario')).toHaveText('wal-steady-state');
    await open(page, `${WAL_STEADY}&t=999999`);
    await expect(page.getByTestId('compare-notes')).toContainText('past the end');
    await expect(time(page)).toHaveText('20000');
  });

});

test.describe('side by side: other scenarios', () => {
  test('a failover scenario: remote reads after the failover in the table and the bars', async ({ page }) => {
    await open(page, '/?compare=kip1023-promoted-follower-remote-reads');
    await expect(cell(page, 'remoteReads', 'a')).toHaveText('0');
    await expect(cell(page, 'remoteReads', 'b')).toHaveText(/^1 \(/);
    await expect(page.getByTestId('chart-remoteReads').locator('g.bar[data-value="1"] path')).toHaveCount(1);
    await expect(page.getByTestId('compare-headline')).toContainText('remote reads after a failover 0 → 1');
    await expect(page.getByTestId('chart-crossZone-none')).toHaveText('0 in both runs');
  });

  test('a classic scenario opens as classic against KIP-1023; m switches the pair', async ({ page }) => {
    await open(page, '/?compare=kip1023-bootstrap');
    await expect(page.getByTestId('side-0-label')).toHaveText('classic KIP-405');
    await expect(page.getByTestId('side-1-label')).toHaveText('KIP-1023');
    await expect(page.getByTestId('compare-headline')).toContainText('new follower caught up after');
    await expect(page.getByTestId('compare-notes')).toHaveCount(0);
    // m: the next pair (classic/KIP-1023 -> KIP-1023/WAL), resolved again, kept in the link.
    await page.keyboard.press('m');
    await expect(page.getByTestId('side-0-label')).toHaveText('KIP-1023');
    await expect(page.getByTestId('side-1-label')).toHaveText('KIP-1176 WAL');
    await expect(page).toHaveURL(/compare=kip1023-bootstrap&modes=kip1023,wal/);
  });
});
