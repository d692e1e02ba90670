/**
 * "Add empty replica" (issue 18, point 3): the Conditions panel's Add row offers the brokers
 * that are not replicas of the partition and a new broker added to the cluster, always with a
 * valid choice selected. Driven through the URL and the visible controls only.
 */
import { type Page } from '@playwright/test';
import { expect, test } from './fixtures.js';

const lanes = (page: Page) => page.getByTestId('offset-lanes');
const lane = (page: Page, broker: number) => page.locator(`[data-testid="offset-lanes"] g.lane[data-broker="${broker}"]`);
const select = (page: Page) => page.getByTestId('add-replica-broker');

async function open(page: Page, query: string): Promise<void> {
  await page.goto(`/?${query}`);
  await expect(page.getByTestId('step')).toHaveText('0');
  await expect(lanes(page)).toBeVisible();
  await expect(page.getByTestId('progress')).toHaveCount(0);
}

test('2 brokers: a new broker 2 is offered and selected; adding it draws a third lane that catches up, and the link keeps it', async ({ page }) => {
  // Goal: the row is never blank on a 2-broker scenario, and the new broker really replicates.
  // Method: kip1023-bootstrap, three steps in, add the default choice, step until the ISR has 3.
  await open(page, 'scenario=kip1023-bootstrap');
  for (let n = 1; n <= 3; n++) {
    await page.getByTestId('step-forward').click();
    await expect(page.getByTestId('step')).toHaveText(String(n));
  }
  await expect(page.getByTestId('add-replica-row')).toBeVisible();
  await expect(select(page)).toHaveValue('new-2');
  await expect(select(page).locator('option:checked')).toHaveText('a new broker 2 (added to the cluster)');
  await expect(select(page).locator('option')).toHaveCount(1);
  await expect(page.getByTestId('add-replica-note')).toContainText('Broker 2 starts in zone a and registers with the controller');
  await expect(lanes(page).locator('g.lane:not(.remote)')).toHaveCount(2);

  await page.getByTestId('add-replica').click();
  await expect(lanes(page).locator('g.lane:not(.remote)')).toHaveCount(3);
  await expect(lane(page, 2)).toBeVisible();
  const narration = page.getByTestId('narration');
  await expect(narration).toContainText('broker 2 joins the cluster in zone a: a new broker starts and registers with the controller');
  await expect(narration).toContainText('broker 2 joins orders-0 as an empty replica');
  // Both brokers are replicas now: only a new broker 3 is offered.
  await expect(select(page)).toHaveValue('new-3');

  // Step until broker 2 is in the ISR (the heading names the ISR).
  const heading = page.locator('[data-export^="Offsets of"] h2');
  for (let i = 0; i < 40; i++) {
    if ((await heading.textContent())?.includes('ISR [0, 1, 2]')) break;
    await page.getByTestId('step-forward').click();
  }
  await expect(heading).toContainText('ISR [0, 1, 2]');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: 'test-results/screenshots/add-replica.png', fullPage: true });

  // The link carries both actions: a reload shows the same picture, with nothing refused.
  await page.waitForFunction(() => location.hash.includes('actions='));
  const step = await page.getByTestId('step').textContent();
  // The link follows the step at most every 200 ms (web/lib/run.svelte.ts syncUrl): wait for it
  // to hold this one, however fast the steps above were taken.
  await page.waitForFunction((s) => new URLSearchParams(location.search).get('step') === s, step);
  await page.reload();
  await expect(page.getByTestId('step')).toHaveText(step ?? '');
  await expect(lanes(page).locator('g.lane:not(.remote)')).toHaveCount(3);
  await expect(heading).toContainText('ISR [0, 1, 2]');
  await expect(page.getByText('Parts of the link were not used')).toHaveCount(0);

  // Step back before the action: two lanes again.
  await page.getByTestId('restart').click();
  await expect(page.getByTestId('step')).toHaveText('0');
  await expect(lanes(page).locator('g.lane:not(.remote)')).toHaveCount(2);
});

test('3 brokers: the default is broker 2, a broker that is not a replica; a down broker is said in words', async ({ page }) => {
  await open(page, 'scenario=failover-during-bootstrap');
  await expect(select(page)).toHaveValue('broker-2');
  await expect(select(page).locator('option:checked')).toHaveText('broker 2');
  await expect(select(page).locator('option')).toHaveText(['broker 2', 'a new broker 3 (added to the cluster)']);
  await expect(page.getByTestId('add-replica')).toBeEnabled();
  await expect(page.getByTestId('add-replica-note')).toHaveCount(0);

  await page.getByTestId('crash-2').click();
  await expect(select(page).locator('option:checked')).toHaveText('broker 2 (down)');
  await expect(page.getByTestId('add-replica-note')).toHaveText('Broker 2 is down: it becomes a replica now and fetches once it restarts.');

  await page.getByTestId('add-replica').click();
  await expect(lane(page, 2)).toBeVisible();
  await expect(select(page)).toHaveValue('new-3');
});
