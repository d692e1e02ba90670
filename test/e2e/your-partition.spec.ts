/**
 * "Your partition" (issue 29): `npm run sim -- whatif` as a form. Fill it, build, run the
 * scenario to its end (the new replica joins the ISR: read from the offsets heading by step,
 * never by time), and open the link: the form is refilled and the same scenario built, its
 * YAML and figures the same. A bad size is named beside its field; a what-if past the page's
 * work budget is refused with the builder's estimate and the CLI command.
 */
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures.js';

const heading = (page: Page) => page.locator('[data-export^="Offsets of"] h2');
const field = (page: Page, flag: string) => page.getByTestId(`wi-${flag}`);

async function toEnd(page: Page): Promise<string> {
  await expect(page.getByTestId('progress')).toHaveCount(0, { timeout: 30_000 });
  const total = (await page.getByTestId('total-steps').textContent()) ?? '';
  // End, pressed outside the form's fields (where keys type).
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('End');
  await expect(page.getByTestId('step')).toHaveText(total, { timeout: 30_000 });
  return total;
}

test('fill the form, build and run it: the new replica joins the ISR; the link rebuilds the same scenario', async ({ page }) => {
  await page.goto('/?scenario=kip1023-bootstrap');
  await expect(page.getByTestId('step')).toHaveText('0');
  const form = page.getByTestId('whatif-form');
  await expect(form).toBeVisible();
  // The CLI's defaults.
  await expect(field(page, 'tiered')).toHaveValue('1TiB');
  await expect(field(page, 'local')).toHaveValue('50GiB');
  await expect(field(page, 'produce')).toHaveValue('1MB/s');

  // A size in bits is named beside its field, with the parser's words, and nothing is built.
  await field(page, 'local').fill('5Mb');
  await expect(page.getByTestId('wi-local-error')).toContainText('--local: "5Mb": unknown unit "Mb": Mb is bits');
  await expect(field(page, 'local')).toHaveAttribute('aria-invalid', 'true');
  await page.getByTestId('whatif-build').click();
  await expect(page).toHaveURL(/scenario=kip1023-bootstrap/);
  await expect(field(page, 'local')).toBeFocused();

  await field(page, 'tiered').fill('1GiB');
  await field(page, 'local').fill('5MiB');
  await field(page, 'segment-bytes').fill('1MiB');
  await field(page, 'record-bytes').fill('1KiB');
  await field(page, 'produce').fill('0');
  await page.getByTestId('wi-mode-wal').uncheck();
  await expect(page.getByTestId('wi-local-error')).toHaveCount(0);
  // Enter in a field builds, as a form does.
  await field(page, 'produce').press('Enter');

  await expect(page.getByTestId('whatif-running')).toContainText('What if a replica is added to a partition with 1 GiB tiered and 5 MiB local?');
  await expect(page.getByTestId('whatif-assumptions')).toContainText('t=1000ms: broker 3 (zone a, the leader\'s) joins and an empty replica of events-0 is added on it');
  await expect(page.getByTestId('whatif-command')).toHaveText('npm run sim -- whatif --brokers 3 --zones 3 --partitions 1 --replication-factor 3 --tiered 1GiB --local 5MiB --segment-bytes 1MiB --produce 0 --record-bytes 1KiB --linger-ms 5 --consumers-per-zone 0 --producer-zones leader --event add-replica --event-at-ms 1000 --outage-ms 10000 --down-ms 10000 --seed 1 --modes classic,kip1023');
  await expect(page.getByTestId('whatif-compare').getByRole('link')).toHaveText(['classic vs kip1023']);
  const yaml = page.getByTestId('scenario-text');
  await expect(yaml).toHaveValue(/^name: What if a replica is added to a partition with 1 GiB tiered and 5 MiB local\?/);
  await expect(heading(page)).toContainText('Offsets of events-0');
  await expect(heading(page)).toContainText('ISR [0, 1, 2]');

  // The link holds the options, not the YAML.
  await expect(page).toHaveURL(/whatif=--brokers\+3\+.*--tiered\+1GiB\+--local\+5MiB/);
  expect(page.url()).not.toContain('src=');

  const total = await toEnd(page);
  await expect(heading(page)).toContainText('ISR [0, 1, 2, 3]');
  const narration = await page.getByTestId('narration').textContent();
  const text = await yaml.inputValue();

  // The link, opened afresh: the form refilled, the same YAML, steps and picture.
  await page.waitForFunction((t) => location.search.includes(`step=${t}`), total);
  const link = page.url();
  const again = await page.context().newPage();
  await again.goto(link);
  await expect(again.getByTestId('step')).toHaveText(total, { timeout: 30_000 });
  await expect(field(again, 'tiered')).toHaveValue('1GiB');
  await expect(field(again, 'produce')).toHaveValue('0');
  await expect(again.getByTestId('wi-mode-wal')).not.toBeChecked();
  await expect(again.getByTestId('scenario-text')).toHaveValue(text);
  await expect(heading(again)).toContainText('ISR [0, 1, 2, 3]');
  await expect(again.getByTestId('narration')).toHaveText(narration ?? '');
  await again.close();

  // The side-by-side view of the chosen designs: its link carries the options too.
  const compare = page.getByTestId('whatif-compare').getByRole('link', { name: 'classic vs kip1023' });
  expect((await compare.getAttribute('href'))!.length).toBeLessThan(600);
  await compare.click();
  await expect(page.getByTestId('compare-scenario')).toContainText('What if a replica is added to a partition with 1 GiB tiered and 5 MiB local?');
  await expect(page.getByTestId('compare-headline')).toContainText('new follower caught up after');
  await expect(page.getByTestId('walkthrough-link')).toHaveAttribute('href', /whatif=--brokers\+3/);
});

test("a what-if past the page's work budget is refused with the builder's estimate, a smaller one and the CLI", async ({ page }) => {
  // The CLI's defaults: 1 TiB tiered, 50 GiB local, 1 MB/s.
  await page.goto('/?scenario=kip1023-bootstrap');
  await expect(page.getByTestId('step')).toHaveText('0');
  await page.getByTestId('whatif-build').click();
  const refused = page.getByTestId('whatif-refused');
  await expect(refused).toContainText('Too large for the page');
  await expect(refused).toContainText('more than the limit of 500,000 for a run that keeps its whole trace');
  await expect(refused).toContainText('classic copies 50 GiB, KIP-1023 0 B');
  await expect(refused).toContainText('npm run sim -- whatif --brokers 3');
  await expect(page.getByTestId('whatif-suggestion')).toHaveText('--produce 0');
  // Nothing changed on the page.
  await expect(page).toHaveURL(/scenario=kip1023-bootstrap/);
  await expect(heading(page)).toContainText('Offsets of orders-0');
  // The suggestion fills the form.
  await page.getByTestId('whatif-apply').click();
  await expect(field(page, 'produce')).toHaveValue('0');
});

test('producers in every zone and fetch from follower (KIP-392), with More options: built, shown and carried by the link', async ({ page }) => {
  await page.goto('/?scenario=kip1023-bootstrap');
  await expect(page.getByTestId('step')).toHaveText('0');
  await field(page, 'tiered').fill('1GiB');
  await field(page, 'local').fill('5MiB');
  await field(page, 'segment-bytes').fill('1MiB');
  await field(page, 'produce').fill('100kB/s');
  await field(page, 'linger-ms').fill('100');
  await field(page, 'consumers-per-zone').fill('1');
  await field(page, 'producer-zones').selectOption('spread');
  await field(page, 'fetch-from-follower').check();
  await page.getByTestId('wi-mode-wal').uncheck();
  await page.getByTestId('wi-mode-kip1023').uncheck();
  // The run's timing lives under More options.
  await page.getByText('More options:').click();
  await field(page, 'event-at-ms').fill('500');
  await field(page, 'until').fill('4000');
  await page.getByTestId('whatif-build').click();

  const assumed = page.getByTestId('whatif-assumptions');
  await expect(assumed).toContainText('one producer in each of the 3 zones, taking turns (--producer-zones spread)');
  await expect(assumed).toContainText('1 in each zone, reading from an in-sync replica of their own zone (KIP-392');
  await expect(assumed).toContainText('t=500ms: broker 3');
  await expect(page.getByTestId('whatif-command')).toContainText('--producer-zones spread --fetch-from-follower --event add-replica --event-at-ms 500');
  await expect(page.getByTestId('whatif-command')).toContainText('--until 4000');
  const yaml = page.getByTestId('scenario-text');
  await expect(yaml).toHaveValue(/replica\.selector\.class: org\.apache\.kafka\.common\.replica\.RackAwareReplicaSelector/);
  await expect(yaml).toHaveValue(/consume: \{topic: events, partition: 0, fromOffset: \d+, records: \d+, zone: b, config: \{client\.rack: b\}\}/);
  await expect(yaml).toHaveValue(/produce: \{topic: events, partition: 0, records: \d+, acks: all, everyMs: 300, zone: c\}/);

  // The link reopens the same form.
  await expect(page).toHaveURL(/whatif=.*--fetch-from-follower/);
  const again = await page.context().newPage();
  await again.goto(page.url());
  await expect(field(again, 'producer-zones')).toHaveValue('spread');
  await expect(field(again, 'fetch-from-follower')).toBeChecked();
  await expect(field(again, 'event-at-ms')).toHaveValue('500');
  await expect(field(again, 'until')).toHaveValue('4000');
  await expect(again.getByTestId('scenario-text')).toHaveValue(await yaml.inputValue());
});
