/**
 * The side-by-side view's way there and back, and its figures (issue 18, points 8 and 9).
 * Point 8: the walkthrough's "Side by side" link carries where the user was (a chapter and
 * its stop, or a loaded or pasted scenario with its seed, actions and step); "Back to the
 * walkthrough" returns there; a scenario that is not bundled travels as `src=` and a bad one
 * shows its problems. Point 9: the month's cost is not extrapolated from the first
 * milliseconds; chart ticks are whole numbers for counts, dollars read without a leading
 * dot, and no tick label is cut, at 1280x800 and at 800x900. Every layout check takes a
 * screenshot (test-results/screenshots/), looked at by hand as well.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Page } from '@playwright/test';
import { ROOT, SHOTS, expect, test } from './fixtures.js';


const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const bundled = (id: string) => readFileSync(join(ROOT, 'scenarios', `${id}.yaml`), 'utf8');

async function openCompare(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('cursor')).toHaveText(/^\d+$/);
}

/** Every tick label and message of every chart lies inside its chart (nothing cut at either edge). */
async function tickLabelsInside(page: Page): Promise<void> {
  for (const id of ['crossZone', 'requests', 'cost', 'bytesFromLeader', 'catchUp', 'remoteReads']) {
    const chart = page.getByTestId(`chart-${id}`);
    const box = (await chart.boundingBox())!;
    const ticks = await chart.locator('text.tick, text.none tspan, text.none:not(:has(tspan)), text.value, text.name').evaluateAll((ts) => ts.map((t) => {
      const r = t.getBoundingClientRect();
      return { label: t.textContent ?? '', left: r.left, right: r.right };
    }));
    expect(ticks.length, `${id} has ticks`).toBeGreaterThan(0);
    for (const t of ticks) {
      expect(t.left, `${id} tick "${t.label}" starts inside the chart`).toBeGreaterThanOrEqual(box.x - 0.5);
      expect(t.right, `${id} tick "${t.label}" ends inside the chart`).toBeLessThanOrEqual(box.x + box.width + 0.5);
    }
  }
}

async function yTicks(page: Page, id: string): Promise<string[]> {
  // y labels are anchored at the end, x labels below the axis: the y ones share one x.
  return page.getByTestId(`chart-${id}`).locator('text.tick[text-anchor="end"]').evaluateAll((ts) =>
    ts.filter((t) => t.getAttribute('x') === ts[0].getAttribute('x')).map((t) => t.textContent ?? ''));
}

test.describe('the way there and back (issue 18, point 8)', () => {
  test('from a chapter stop to side by side and back to the same stop', async ({ page }) => {
    await page.goto('/?chapter=kip1023-bootstrap&stop=3');
    const stopTitle = await page.getByTestId('stop-title').textContent();
    expect(stopTitle).toBeTruthy();
    const link = page.getByTestId('open-compare');
    await expect(link).toHaveAttribute('href', /^\?compare=kip1023-bootstrap&chapter=kip1023-bootstrap&stop=3&t=\d+$/);
    const t = Number((await link.getAttribute('href'))!.match(/t=(\d+)/)![1]);
    expect(t).toBe(Number(await page.getByTestId('time').textContent()));
    await link.click();
    await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('compare-scenario')).toHaveText('kip1023-bootstrap');
    // The cursor is where the walkthrough was (the latest moment of either run at or before t).
    expect(Number(await page.getByTestId('time').textContent())).toBeLessThanOrEqual(t);
    await expect(page.getByTestId('compare-from')).toContainText('stop 3');
    await expect(page.getByTestId('compare-actions-note')).toHaveCount(0);
    // Moving the cursor keeps the way back in the link (a reload still has it).
    await page.keyboard.press('End');
    await expect(page).toHaveURL(/chapter=kip1023-bootstrap&stop=3&t=3000/);
    const back = page.getByTestId('walkthrough-link');
    await expect(back).toHaveText('← Back to the walkthrough');
    await expect(back).toHaveAttribute('href', './?chapter=kip1023-bootstrap&stop=3');
    await back.click();
    await expect(page.getByTestId('stop-title')).toHaveText(stopTitle!);
    await expect(page).toHaveURL(/chapter=kip1023-bootstrap&stop=3/);
    await page.screenshot({ path: join(SHOTS, 'compare-nav-chapter-back.png') });
  });

  test('a pasted scenario with a recorded action: side by side by its text, the action named, and back to the same step', async ({ page }) => {
    await page.goto('/?scenario=kip1023-bootstrap');
    await page.getByRole('button', { name: 'Edit / paste' }).click();
    const text = bundled('kip1023-bootstrap').replace('name: KIP-1023 bootstrap in one round', 'name: my pasted bootstrap');
    await page.getByTestId('scenario-text').fill(text);
    await page.getByTestId('scenario-load').click();
    await expect(page.getByTestId('scenario-picker')).toHaveValue('');
    for (let i = 0; i < 3; i++) await page.getByTestId('step-forward').click();
    await page.getByTestId('produce').click();
    for (let i = 0; i < 2; i++) await page.getByTestId('step-forward').click();
    const step = await page.getByTestId('step').textContent();
    const link = page.getByTestId('open-compare');
    await expect(link).toBeVisible();
    await expect(link).toHaveAttribute('href', new RegExp(`^\\?compare=&step=${step}&t=\\d+#src=[\\w-]+&actions=[\\w-]+$`));
    await link.click();
    await expect(page.getByTestId('compare-table')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('compare-scenario')).toHaveText('my pasted bootstrap (loaded)');
    await expect(page.getByTestId('side-1-label')).toHaveText('KIP-1023');
    // The view runs the scenario as written and says so of the user's action.
    const note = page.getByTestId('compare-actions-note');
    await expect(note).toContainText("The walkthrough's 1 recorded action (produce after step 3) is not replayed here");
    await expect(note).toContainText('"Back to the walkthrough" keeps it');
    await expect(page.getByTestId('compare-notes')).toHaveCount(0);
    await page.screenshot({ path: join(SHOTS, 'compare-nav-pasted.png') });
    await page.getByTestId('walkthrough-link').click();
    await expect(page.getByTestId('step')).toHaveText(step!);
    await expect(page.getByTestId('scenario-picker')).toHaveValue('');
    await expect(page.getByText('1 recorded action, kept in the link.')).toBeVisible();
    await expect(page.getByTestId('scenario-description')).toContainText("KIP-1023's main case");
    await expect(page).toHaveURL(new RegExp(`step=${step}#src=[\\w-]+&actions=[\\w-]+`));
  });

  test('a bad scenario in src= shows its problems, no run and no stack trace', async ({ page }) => {
    const bad = 'name: broken\nbrokers: two\ntopics: []\nuntil: -5\n';
    await page.goto(`/?compare=&src=${b64url(bad)}`);
    const problems = page.getByTestId('compare-problems');
    await expect(problems).toBeVisible({ timeout: 30_000 });
    await expect(problems).toContainText('The scenario in the link cannot be compared');
    await expect(problems).toContainText('brokers');
    await expect(problems).not.toContainText(/at \w+ \(|Error:/);
    await expect(page.getByTestId('compare-table')).toHaveCount(0);
    await expect(page.getByTestId('walkthrough-link')).toHaveAttribute('href', `./#src=${b64url(bad)}`);
    await page.screenshot({ path: join(SHOTS, 'compare-nav-bad-src.png') });
  });

  test('a scenario past the work budget in src= is refused with the budget\'s problem', async ({ page }) => {
    const text = readFileSync(join(ROOT, 'test', 'fixtures', 'limits', 'over-budget.yaml'), 'utf8');
    await page.goto(`/?compare=&src=${b64url(text)}`);
    await expect(page.getByTestId('compare-problems')).toContainText(/Limits|at most/, { timeout: 30_000 });
    await expect(page.getByTestId('compare-table')).toHaveCount(0);
  });

  test('an unreadable src= is named', async ({ page }) => {
    await page.goto('/?compare=&src=%25%25%25');
    await expect(page.getByTestId('compare-problems')).toContainText('not a readable scenario', { timeout: 30_000 });
    await expect(page.getByTestId('compare-notes')).toContainText('src: not a readable scenario');
  });
});

test.describe('figures that read right (issue 18, point 9)', () => {
  for (const [w, h] of [[1280, 800], [800, 900]] as const) {
    test(`at ${w}x${h}: no month's cost from the first milliseconds; whole-number ticks; no label cut`, async ({ page }) => {
      await page.setViewportSize({ width: w, height: h });
      // kip1023-bootstrap, classic against the WAL, at t = 8 ms: one GET so far.
      await openCompare(page, '/?compare=kip1023-bootstrap&modes=classic,wal&t=8');
      await expect(page.getByTestId('time')).toHaveText('8');
      await expect(page.getByTestId('row-costMonth-at-b')).toHaveText('too early');
      await expect(page.getByTestId('row-costMonth-at-a')).toHaveText('too early');
      await expect(page.getByTestId('month-window-note')).toContainText('at least 1 s of simulated time');
      await expect(page.getByTestId('row-costMonth-at-b')).not.toContainText('129');
      // The whole run (3 s) is long enough: as the CLI prints it.
      await expect(page.getByTestId('row-costMonth-b')).toHaveText(/^\$0\.\d{2,}$/);
      // Request counts: whole numbers only.
      const requests = await yTicks(page, 'requests');
      expect(requests.length).toBeGreaterThan(1);
      for (const l of requests) expect(l).toMatch(/^\d+(\.\d+k)?$/);
      expect(requests).not.toContain('0.5');
      // Cost: a tiny total counts in µ$ (the title names the unit); never "$.0000005".
      const cost = await yTicks(page, 'cost');
      for (const l of cost) expect(l).not.toMatch(/(^|[^\d])\.\d/);
      await expect(page.getByTestId('chart-cost-unit')).toHaveText(/µ\$|USD/);
      await tickLabelsInside(page);
      // The table keeps to its panel: the at-cursor columns are not scrolled out of sight.
      const panel = (await page.getByTestId('compare-table').locator('..').boundingBox())!;
      const lastCell = (await page.getByTestId('row-costMonth-at-b').boundingBox())!;
      expect(lastCell.x + lastCell.width).toBeLessThanOrEqual(panel.x + panel.width + 0.5);
      await page.screenshot({ path: join(SHOTS, `compare-figures-${w}.png`) });
      // Past 1 s the month is the rate so far; at the end the whole run's.
      await page.keyboard.press('End');
      await expect(page.getByTestId('row-costMonth-at-b')).toHaveText(/^\$\d/);
      await expect(page.getByTestId('row-costMonth-at-b')).toHaveText((await page.getByTestId('row-costMonth-b').textContent())!);
      await tickLabelsInside(page);
    });
  }

  for (const [w, h] of [[1280, 800], [800, 900]] as const) {
    test(`wal-steady-state at ${w}x${h}: the cost axis in dollars, every label inside its chart`, async ({ page }) => {
      await page.setViewportSize({ width: w, height: h });
      await openCompare(page, '/?compare=wal-steady-state&modes=classic,wal&t=10000');
      await expect(page.getByTestId('row-costMonth-b')).toHaveText('$151');
      await expect(page.getByTestId('row-costMonth-a')).toHaveText('$162');
      // At 10 s both runs have covered the window: the rate so far.
      await expect(page.getByTestId('row-costMonth-at-b')).toHaveText(/^\$\d+$/);
      const cost = await yTicks(page, 'cost');
      expect(cost[0]).toBe('$0');
      for (const l of cost.slice(1)) expect(l).toMatch(/^\$0\.\d{4}$/);
      await expect(page.getByTestId('chart-cost-unit')).toHaveText('(USD)');
      for (const l of await yTicks(page, 'requests')) expect(l).toMatch(/^\d+$/);
      // The catch-up chart's message wraps instead of being cut.
      await expect(page.getByTestId('chart-catchUp-none')).toHaveText('no new follower joined the ISR');
      await tickLabelsInside(page);
      await page.getByTestId('compare-charts').screenshot({ path: join(SHOTS, `compare-charts-${w}.png`) });
      await page.screenshot({ path: join(SHOTS, `compare-wal-steady-${w}.png`) });
    });
  }
});
