/**
 * A violation that is a known finding (issue 31, item 5): the aux-state gap, Kafka's own
 * behaviour (core/sim/checks/findings.ts), is shown as one on the page, in its own colour
 * and not the violation red, with its paragraph and a link to docs/protocol.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { ROOT, expect, test } from './fixtures.js';

test('the aux-state finding: its own colour, its paragraph and the link, no red violation', async ({ page }) => {
  const c = parse(readFileSync(join(ROOT, 'conformance', 'finding-aux-state-skipped-after-retry.yaml'), 'utf8')) as { scenario: unknown };
  const src = Buffer.from(stringify(c.scenario), 'utf8').toString('base64url');
  await page.goto(`/#src=${src}`);
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  await page.getByTestId('scrubber').focus();
  await page.keyboard.press('End');
  const f = page.getByTestId('known-finding');
  await expect(f).toHaveCount(1);
  await expect(f).toContainText('Known finding, not a model error');
  await expect(f).toContainText('TierStateMachine truncates the follower');
  await expect(page.getByTestId('known-finding-link')).toHaveAttribute('href', 'docs/protocol.md#finding-aux-state');
  // Not the violation red, and no red violation box.
  const colour = await f.evaluate((el) => getComputedStyle(el).borderColor);
  expect(colour).not.toBe('rgb(180, 35, 24)');
  await expect(page.getByTestId('narration').locator('.problems')).toHaveCount(0);
});
