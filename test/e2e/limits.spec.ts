/**
 * Scenarios too big to run, and runs long enough to take a while, on the page (issue 17,
 * item 1; docs/scenario-format.md, "Limits"): a `?src=` past the limits shows the same
 * problems as the CLI and runs nothing; a long run counts its steps and jumps in slices,
 * with progress and Cancel, and the page answers meanwhile.
 *
 * Driven through the URL and visible controls; every wait is an auto-waiting expectation.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Page } from '@playwright/test';
import { SHOTS, expect, test } from './fixtures.js';

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

/** `?src=` of a scenario text, as the page writes it (base64url of the UTF-8 bytes). */
function srcQuery(text: string): string {
  return `src=${Buffer.from(text, 'utf8').toString('base64url')}`;
}

/** The scenario: 10,000,000 records every 1 ms until 10^10 ms (shared with test/scenario-limits.test.ts). */
const HUGE = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'limits', 'over-budget.yaml'), 'utf8');

/**
 * Within the limits, but long: 20 followers idle for about 66 simulated minutes, about
 * 480,000 kernel events (the budget is 500,000), several seconds of counting in the browser.
 */
const LONG = [
  'name: long idle run',
  'brokers: 6',
  'topics:',
  '  - name: t',
  '    partitions: 10',
  `    replicas: [${Array.from({ length: 10 }, (_, p) => `[${p % 6}, ${(p + 1) % 6}, ${(p + 2) % 6}]`).join(', ')}]`,
  'until: 4000000',
  '',
].join('\n');

/** Records the longest main-thread task (Long Tasks API) from when `mark()` is called. */
async function watchLongTasks(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { longest: number; watching: boolean };
    w.longest = 0;
    w.watching = false;
    new PerformanceObserver((list) => {
      if (!w.watching) return;
      for (const e of list.getEntries()) w.longest = Math.max(w.longest, e.duration);
    }).observe({ type: 'longtask', buffered: false });
  });
}

test('a ?src= past the work budget shows the limit problems and runs nothing', async ({ page }) => {
  // Goal: the scenario of issue 17 (10,000,000 records every 1 ms, until 10^10 ms), which
  //   crashed the tab, is refused before it starts, naming the fields, as the CLI does.
  // Method: open it as ?src=; expect the problems box with the records and timeline-events
  //   limits at their paths, no lanes drawn; the picker still loads a bundled scenario.
  await page.goto(`/?${srcQuery(HUGE)}`);
  const problems = page.getByTestId('scenario-problems');
  await expect(problems).toBeVisible();
  await expect(problems).toContainText('problems; nothing changed');
  await expect(problems.locator('li code', { hasText: /^timeline\[0\]\.produce\.records$/ }).first()).toBeVisible();
  await expect(problems.locator('li code', { hasText: /^timeline\[0\]\.produce\.everyMs$/ }).first()).toBeVisible();
  await expect(problems).toContainText('more than the limit of 100,000,000');
  await expect(problems).toContainText('more than the limit of 1,000,000');
  await expect(page.getByTestId('offset-lanes')).toHaveCount(0);
  await shot(page, 'limits-src-past-budget');
  await page.getByTestId('scenario-picker').selectOption('kip1023-bootstrap');
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  await expect(problems).toHaveCount(0);
});

test('a file or a paste larger than 128 KiB shows the size problem and changes nothing', async ({ page }) => {
  // Goal: a text past the size limit is not even read, and says so; the scenario shown stays.
  // Method: open kip1023-bootstrap; load a 200,000-character scenario through the file input,
  //   then paste it. (A ?src= that long does not reach the page: `vite preview`, like many
  //   servers, answers 431 to a request line over 16 KB.)
  await page.goto('/?scenario=kip1023-bootstrap');
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  const big = `name: big\nbrokers: 1\ndescription: "${'x'.repeat(200_000)}"\n`;
  await page.getByTestId('scenario-file').setInputFiles({ name: 'big.yaml', mimeType: 'text/yaml', buffer: Buffer.from(big) });
  const problems = page.getByTestId('scenario-problems');
  await expect(problems).toContainText('1 problem; nothing changed');
  await expect(problems).toContainText('the scenario is 200,');
  await expect(problems).toContainText('at most 131,072 (128 KiB) are read');
  await expect(page.getByTestId('scenario-picker')).toHaveValue('kip1023-bootstrap');
  await page.getByTestId('scenario-text').fill(big);
  await page.getByTestId('scenario-load').click();
  await expect(problems).toContainText('1 problem; nothing changed');
  await expect(page.getByTestId('scenario-picker')).toHaveValue('kip1023-bootstrap');
});

test('a long run counts its steps in slices: progress, the page answers meanwhile, Cancel stops it', async ({ page }) => {
  // Goal: a run within the limits but long never freezes the tab: its steps are counted in
  //   slices with progress shown; stepping works while it counts; Cancel stops counting and
  //   the page goes on (the scrubber covers what was counted).
  // Method: open LONG as ?src=; expect the progress box; step forward twice while it counts;
  //   screenshot; no main-thread task over 500 ms meanwhile (Long Tasks API); Cancel; the
  //   progress box goes, the note and a "+" on the total say counting was cancelled; step on.
  await watchLongTasks(page);
  await page.goto(`/?${srcQuery(LONG)}`);
  const progress = page.getByTestId('progress');
  await expect(progress).toBeVisible();
  await expect(progress).toContainText('Counting steps');
  await page.evaluate(() => { (window as unknown as { watching: boolean }).watching = true; });
  await page.getByTestId('step-forward').click();
  await expect(page.getByTestId('step')).toHaveText('1');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('step')).toHaveText('2');
  await expect(progress).toBeVisible();
  // Progress moves.
  const first = await page.getByTestId('progress-detail').textContent();
  await expect(page.getByTestId('progress-detail')).not.toHaveText(first ?? '');
  await shot(page, 'limits-counting-progress');
  await page.getByTestId('cancel-work').click();
  await expect(progress).toHaveCount(0);
  await expect(page.getByTestId('count-cancelled')).toBeVisible();
  await expect(page.getByTestId('total-steps')).toHaveText(/^\d+\+$/);
  await page.getByTestId('step-forward').click();
  await expect(page.getByTestId('step')).toHaveText('3');
  const longest = await page.evaluate(() => (window as unknown as { longest: number }).longest);
  expect(longest, 'longest main-thread task while counting (ms)').toBeLessThan(500);
  await shot(page, 'limits-counting-cancelled');
});

test('End on a long run jumps in slices, with progress; Cancel leaves it part way and the page answers', async ({ page }) => {
  // Goal: a jump that replays many steps (End, the scrubber, a link's step) shows progress
  //   and can be cancelled, instead of freezing the tab.
  // Method: open LONG; let counting reach 30,000 steps, Cancel it; press End: the session
  //   replays from step 0 (no checkpoint ahead of it yet), so progress "Going to step N"
  //   shows; Cancel: the step shown is past 0 and short of N; step back and forward work.
  await page.goto(`/?${srcQuery(LONG)}`);
  const progress = page.getByTestId('progress');
  await expect(progress).toContainText('Counting steps');
  await expect.poll(async () => Number((await page.getByTestId('total-steps').textContent())?.replace(/\D/g, '')), { timeout: 60_000 }).toBeGreaterThan(30_000);
  await page.getByTestId('cancel-work').click();
  await expect(progress).toHaveCount(0);
  const total = Number((await page.getByTestId('total-steps').textContent())?.replace(/\D/g, ''));
  // Held between slices (web/lib/jobs.ts), the jump is part way when Cancel is pressed, on a
  // fast machine as on a slow one.
  await page.evaluate(() => {
    (globalThis as { __tierscopeHoldJobs?: boolean }).__tierscopeHoldJobs = true;
  });
  await page.keyboard.press('End');
  await expect(progress).toContainText(`Going to step ${total.toLocaleString('en-US')}`);
  await shot(page, 'limits-jump-progress');
  await page.getByTestId('cancel-work').click();
  await expect(progress).toHaveCount(0);
  await page.evaluate(() => {
    (globalThis as { __tierscopeHoldJobs?: boolean }).__tierscopeHoldJobs = false;
  });
  const reached = Number(await page.getByTestId('step').textContent());
  expect(reached).toBeGreaterThan(0);
  expect(reached).toBeLessThan(total);
  await page.getByTestId('step-back').click();
  await expect(page.getByTestId('step')).toHaveText(String(reached - 1));
  await page.getByTestId('step-forward').click();
  await expect(page.getByTestId('step')).toHaveText(String(reached));
});

test('the Markdown report of a long run is built off the page, with progress and Cancel', async ({ page }) => {
  // Goal: the report runs the scenario again in each design (seconds near the budget); the
  //   page stays usable meanwhile and Cancel stops it.
  // Method: open LONG, cancel counting; Export > Markdown report: the progress box says the
  //   report is being built; step forward works meanwhile; Cancel: the box goes and the
  //   export panel says it was cancelled. Then a short scenario's report still downloads.
  await page.goto(`/?${srcQuery(LONG)}`);
  const progress = page.getByTestId('progress');
  await expect(progress).toContainText('Counting steps');
  await page.getByTestId('cancel-work').click();
  await expect(progress).toHaveCount(0);
  await page.getByTestId('export-md').click();
  await expect(progress).toContainText('Building the report');
  await expect(page.getByTestId('export-status')).toHaveText('Building the report…');
  await page.getByTestId('step-forward').click();
  await expect(page.getByTestId('step')).toHaveText('1');
  await shot(page, 'limits-report-progress');
  await page.getByTestId('cancel-work').click();
  await expect(progress).toHaveCount(0);
  await expect(page.getByTestId('export-status')).toHaveText('Export cancelled');

  await page.goto('/?scenario=kip1023-bootstrap');
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  const download = page.waitForEvent('download');
  await page.getByTestId('export-md').click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/\.md$/);
  await expect(page.getByTestId('export-status')).toContainText('Saved');
});
