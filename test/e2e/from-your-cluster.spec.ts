/**
 * "From your cluster" (issue 29): `npm run sim -- import` on the page. Paste the outputs of
 * kafka-topics.sh, kafka-configs.sh and kafka-log-dirs.sh (test/fixtures/import/), build and
 * run: the page shows the cluster's partitions with their leaders and ISR (the cluster's
 * broker ids 1, 2, 3 are the model's 0, 1, 2), the racks as zones in the YAML, and what was
 * assumed. A paste in the wrong box, or a broken one, is named in the CLI's words and
 * nothing runs. Nothing here waits on the wall clock: each check waits for what it reads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Page } from '@playwright/test';
import { ROOT, expect, test } from './fixtures.js';

const fixture = (f: string) => readFileSync(join(ROOT, 'test', 'fixtures', 'import', f), 'utf8');
const heading = (page: Page) => page.locator('[data-export^="Offsets of"] h2');

async function openPanel(page: Page) {
  await page.goto('/?scenario=kip1023-bootstrap');
  await expect(page.getByTestId('step')).toHaveText('0');
  await page.getByTestId('import').locator('summary').first().click();
  await expect(page.getByTestId('import-form')).toBeVisible();
}

test('paste the three outputs, build and run: the brokers, partitions, leaders and ISR of the cluster', async ({ page }) => {
  await openPanel(page);
  await page.getByTestId('import-topics').fill(fixture('topics.txt'));
  await page.getByTestId('import-configs').fill(fixture('configs.txt'));
  await page.getByTestId('import-log-dirs').fill(fixture('log-dirs.txt'));
  await page.getByTestId('import-tiered').fill('orders=10MiB');
  await page.getByTestId('import-build').click();

  await expect(page.getByTestId('import-problem')).toHaveCount(0);
  await expect(page.getByTestId('import-running')).toContainText('Running “Imported from a cluster: 3 brokers, topics clicks, orders”: 4 partitions on 3 brokers');
  const assumed = page.getByTestId('import-assumptions');
  await expect(assumed).toContainText("the cluster's ids 1, 2, 3 are the model's 0, 1, 2");
  await expect(assumed).toContainText('racks as zones: 1 in use1-az1, 2 in use1-az2, 3 in use1-az3');
  await expect(assumed).toContainText('orders: 10 MiB (10,485,760 bytes) a partition in remote storage only');
  await expect(assumed).toContainText('replicas out of the ISR, added empty at t=0 to catch up from the leader');
  // The YAML, in the scenario editor to edit and run again.
  const yaml = page.getByTestId('scenario-text');
  await expect(yaml).toHaveValue(/zones: \["use1-az1", "use1-az2", "use1-az3"\]/);
  await expect(yaml).toHaveValue(/segment\.bytes: 1048576 {3}# set on the topic \(DYNAMIC_TOPIC_CONFIG\)/);
  // The first partition: clicks-0, led by the cluster's broker 2 (the model's 1), broker 1 in sync.
  await expect(heading(page)).toContainText('Offsets of clicks-0 · leader broker 1 · epoch 0 · ISR [1, 0]');
  const lanes = page.locator('[data-export^="Offsets of"] g.lane[data-broker]');
  await expect(lanes.locator('.lane-title')).toHaveText(['broker 1', 'broker 0']);
  // The cluster's broker 3 (the model's 2), out of the ISR, is added at t=0 by the first steps.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await expect(async () => {
    await page.keyboard.press('ArrowRight');
    await expect(lanes.locator('.lane-title')).toHaveText(['broker 1', 'broker 0', 'broker 2'], { timeout: 500 });
  }).toPass();
  await expect(heading(page)).toContainText('ISR [1, 0]');
  // Every partition of the imported topics is there; orders-2 is led by the cluster's broker 3 with ISR 3,1.
  const picker = page.getByRole('combobox', { name: 'Partition', exact: true });
  await expect(picker.locator('option')).toHaveText(['clicks-0', 'orders-0', 'orders-1', 'orders-2']);
  await picker.selectOption('orders-2');
  await expect(heading(page)).toContainText('Offsets of orders-2 · leader broker 2 · epoch 0 · ISR [2, 0]');
  await picker.selectOption('orders-0');
  await expect(heading(page)).toContainText('Offsets of orders-0 · leader broker 0 · epoch 0 · ISR [0, 1, 2]');
  // The panel, open with its assumptions, has no accessibility finding.
  const axe = await new AxeBuilder({ page }).include('[data-testid="import"]').analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
});

test('a paste in the wrong box, or a broken one, is named in the CLI\'s words and nothing runs', async ({ page }) => {
  await openPanel(page);
  await page.getByTestId('import-topics').fill(fixture('log-dirs.txt'));
  await page.getByTestId('import-build').click();
  await expect(page.getByTestId('import-problem')).toHaveText(
    'the topics paste line 1: this is the output of kafka-log-dirs.sh --describe (LogDirsCommand), not of kafka-topics.sh --describe (TopicCommand): give it as --log-dirs',
  );
  await page.getByTestId('import-topics').fill(fixture('topics.txt'));
  await page.getByTestId('import-log-dirs').fill(fixture('log-dirs-truncated.txt'));
  await page.getByTestId('import-build').click();
  await expect(page.getByTestId('import-problem')).toHaveText(/^the log-dirs paste line 3: not valid JSON \(Unterminated string\)/);
  await page.getByTestId('import-log-dirs').fill('');
  await page.getByTestId('import-tiered').fill('5Mb');
  await page.getByTestId('import-build').click();
  await expect(page.getByTestId('import-problem')).toContainText('--tiered 5Mb: "5Mb": unknown unit "Mb": Mb is bits');
  const axe = await new AxeBuilder({ page }).include('[data-testid="import"]').analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  // The bundled scenario still runs.
  await expect(page).toHaveURL(/scenario=kip1023-bootstrap/);
  await expect(page.getByTestId('import-running')).toHaveCount(0);
});
