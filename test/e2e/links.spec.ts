/**
 * Links that always open (issue 33 item 5; web/lib/url.ts, web/lib/session-link.ts).
 * Goal: a long view (a 96 KiB pasted scenario, about 130 toggles) reloads without HTTP 431
 * or a blank page, and the page says the view is too long for a link and offers a file.
 * Method: build the view, read the address bar, reload (the server's answer must be 200),
 * check the view is the same; save the session file and load it back in a fresh tab.
 * Regression: the page kept everything in the query, so past 16 KB the preview server
 * answered 431 and the reload was blank.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, expect, test } from './fixtures.js';

test('a 96 KiB pasted scenario reloads: the address bar stays short, the reload is 200 and shows it', async ({ page }) => {
  await page.goto('/?scenario=kip1023-bootstrap');
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  const base = readFileSync(join(ROOT, 'scenarios', 'classic-one-round.yaml'), 'utf8').replace('name: Classic bootstrap, one round', 'name: a very long paste');
  const text = `${base}\n# ${'padding '.repeat((96 * 1024) / 8)}\n`;
  expect(text.length).toBeGreaterThan(96 * 1024);
  await page.getByRole('button', { name: 'Edit / paste' }).click();
  await page.getByTestId('scenario-text').fill(text);
  await page.getByTestId('scenario-load').click();
  await expect(page.getByTestId('scenario-picker')).toHaveValue('');
  await expect(page.getByTestId('link-too-long')).toBeVisible();
  await expect(page).toHaveURL(/#view=\w+$/);
  expect(page.url().length).toBeLessThan(8000);
  for (let i = 0; i < 2; i++) await page.getByTestId('step-forward').click();
  await expect(page).toHaveURL(/[?&]step=2#view=/);
  const response = await page.reload();
  expect(response?.status()).toBe(200);
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  await expect(page.getByTestId('step')).toHaveText('2');
  await expect(page.getByTestId('scenario-description')).toContainText('docs/protocol.md §9, example 1');
  await expect(page.getByTestId('scenario-picker')).toHaveValue('');
  await expect(page.getByTestId('link-too-long')).toBeVisible();
});

test('about 130 toggles reload into the same view; a session file opens it again in another tab', async ({ page, context }) => {
  await page.goto('/?scenario=classic-two-rounds');
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  await page.getByTestId('step-forward').click();
  for (let i = 0; i < 131; i++) await page.keyboard.press('k');
  await expect(page.getByTestId('toggle-kip1023')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('link-too-long')).toBeVisible();
  await expect(page).toHaveURL(/#view=\w+$/);
  /** The recorded actions the page counts: kept for the tab, not in the link, which is too long. */
  const actions = async (p = page) => Number((await p.getByText(/^\d+ recorded actions, kept for this tab \(the link is too long: save the session to keep them\)\.$/).textContent())!.split(' ')[0]);
  const n = await actions();
  expect(n).toBeGreaterThanOrEqual(130);
  const response = await page.reload();
  expect(response?.status()).toBe(200);
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  await expect(page.getByTestId('toggle-kip1023')).toHaveAttribute('aria-pressed', 'true');
  expect(await actions()).toBe(n);

  // The short link in another tab has no view kept: the page says so and what to do.
  const short = page.url();
  const other = await context.newPage();
  await other.goto(short);
  await expect(other.getByText('only the browser tab that made it keeps')).toBeVisible();

  // Save session, then Load file in that tab: the same view.
  const download = page.waitForEvent('download');
  await page.getByTestId('save-session').click();
  const file = await (await download).path();
  const session = JSON.parse(readFileSync(file, 'utf8'));
  expect(session.format).toBe('tierscope-session/1');
  await other.getByTestId('scenario-file').setInputFiles(file);
  await expect(other.getByTestId('toggle-kip1023')).toHaveAttribute('aria-pressed', 'true');
  expect(await actions(other)).toBe(n);
  await expect(other).toHaveURL(/#view=\w+$/);
  await other.close();
});
