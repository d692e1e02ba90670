/**
 * Narration after a leader crash (issue 18, point 4): a request to a broker that is down is
 * told as a network error, with no "undefined" and no claim that contradicts the ISR, and a
 * partition with no live in-sync replica reads "no leader" (never "broker -1").
 */
import { join } from 'node:path';
import { SHOTS, expect, test } from './fixtures.js';

test('crashing the only in-sync replica: "no leader", a network error, nothing undefined', async ({ page }) => {
  // Method: kip1023-bootstrap (leader 0, ISR [0], an empty follower 1); step until the
  // follower fetches, crash broker 0, step on; read the heading, the narration (current and
  // earlier) and the offsets table.
  await page.goto('/?scenario=kip1023-bootstrap');
  await expect(page.getByTestId('step')).toHaveText('0');
  for (let n = 1; n <= 3; n++) {
    await page.getByTestId('step-forward').click();
    await expect(page.getByTestId('step')).toHaveText(String(n));
  }
  await page.getByTestId('crash-0').click();
  const heading = page.locator('#offsets-title');
  await expect(heading).toContainText('no leader');
  await expect(heading).not.toContainText('-1');
  let sawNetworkError = false;
  for (let n = 4; n <= 12 && (await page.getByTestId('step-forward').isEnabled()); n++) {
    await page.getByTestId('step-forward').click();
    await expect(page.getByTestId('step')).toHaveText(String(n));
    const text = await page.getByTestId('narration').innerText();
    expect(text, `step ${n}`).not.toContain('undefined');
    expect(text, `step ${n}`).not.toContain('broker -1');
    if (/NETWORK_EXCEPTION|cannot be reached|unreachable|network/i.test(text)) sawNetworkError = true;
  }
  expect(sawNetworkError, 'a request to the crashed broker is narrated as a network error').toBe(true);
  await page.getByTestId('narration').locator('summary').click();
  const all = await page.getByTestId('narration').innerText();
  expect(all).not.toContain('undefined');
  expect(all).not.toMatch(/NETWORK_EXCEPTION[^\n]*removes it from the ISR/);
  // Broker 0 stays the last member of the ISR (Kafka keeps the last in-sync replica there).
  await expect(heading).toContainText('ISR [0]');
  await page.getByText('The offsets as a table').click();
  await expect(page.getByTestId('offset-table')).toContainText('broker 0 · down');
  await expect(page.getByTestId('offset-table')).toContainText('leader broker none');
  await page.screenshot({ path: join(SHOTS, 'narration-leader-crashed.png') });
});
