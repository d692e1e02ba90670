/**
 * Accessibility audits (issue 18, point 6): axe-core, through @axe-core/playwright, on the
 * walkthrough, a chapter, the side-by-side view and presenter mode, at 1280x800 and in a
 * narrow window. No finding at all is allowed (the issue asks for none serious or critical;
 * the moderate ones, landmarks and headings, were fixed too).
 *
 * axe does not measure the contrast of SVG text, so a second check here does: every label
 * drawn in the diagrams, its fill blended through the opacities above it onto the panel's
 * white, against WCAG AA's 4.5:1 (all diagram text is under 18 px).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { parse, stringify } from 'yaml';
import { type Page } from '@playwright/test';
import { ROOT, expect, test } from './fixtures.js';

interface Finding { id: string; impact: string; help: string; targets: string[] }

async function audit(page: Page): Promise<Finding[]> {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations.map((v) => ({ id: v.id, impact: v.impact ?? 'unknown', help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
}

async function ready(page: Page, query: string): Promise<void> {
  await page.goto(`/?${query}`);
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  await expect(page.getByTestId('progress')).toHaveCount(0);
}

/** SVG labels whose contrast against white is under 4.5:1 (fill and every opacity on the way up counted). */
async function lowContrastSvgText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const lin = (c: number) => { const s = c / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
    const lum = (r: number, g: number, b: number) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    const out: string[] = [];
    for (const t of document.querySelectorAll<SVGTextElement>('svg text')) {
      if (t.closest('[aria-hidden="true"]') || t.getClientRects().length === 0 || (t.textContent ?? '').trim() === '') continue;
      const s = getComputedStyle(t);
      if (s.visibility === 'hidden' || s.display === 'none') continue;
      const m = s.fill.match(/rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/);
      if (!m) continue;
      let alpha = (m[4] === undefined ? 1 : Number(m[4])) * Number(s.fillOpacity || 1);
      for (let e: Element | null = t; e && e.tagName.toLowerCase() !== 'html'; e = e.parentElement) alpha *= Number(getComputedStyle(e).opacity || 1);
      const [r, g, b] = [1, 2, 3].map((i) => Number(m[i]) * alpha + 255 * (1 - alpha));
      const ratio = (1 + 0.05) / (lum(r, g, b) + 0.05);
      if (ratio < 4.5) out.push(`"${t.textContent!.trim().slice(0, 30)}" ${s.fill} x${alpha.toFixed(2)}: ${ratio.toFixed(2)}:1`);
    }
    return out;
  });
}

test.describe('axe: no finding', () => {
  test('the "Your partition" form: a field with a problem, a what-if refused, one built and running', async ({ page }) => {
    await ready(page, 'scenario=kip1023-bootstrap');
    await page.getByTestId('wi-local').fill('5Mb');
    await expect(page.getByTestId('wi-local-error')).toBeVisible();
    expect(await audit(page)).toEqual([]);
    await page.getByTestId('wi-local').fill('50GiB');
    await page.getByTestId('whatif-build').click();
    await expect(page.getByTestId('whatif-refused')).toBeVisible();
    expect(await audit(page)).toEqual([]);
    await page.goto('/?whatif=--tiered+1GiB+--local+5MiB+--segment-bytes+1MiB+--record-bytes+1KiB+--produce+0');
    await expect(page.getByTestId('whatif-running')).toBeVisible();
    await expect(page.getByTestId('progress')).toHaveCount(0);
    expect(await audit(page)).toEqual([]);
  });

  test('the walkthrough, at its start and after some steps, has no finding at all', async ({ page }) => {
    await ready(page, 'scenario=kip1023-bootstrap');
    expect(await audit(page)).toEqual([]);
    for (let i = 0; i < 6; i++) await page.getByTestId('step-forward').click();
    await expect(page.getByTestId('step')).toHaveText('6');
    // The offsets as a table, the event log and the earlier narration open.
    await page.getByText('The offsets as a table').click();
    await page.getByTestId('event-log').locator('summary').click();
    expect(await audit(page)).toEqual([]);
  });

  test('a chapter stop, with the fast store lane (chapter 2, stop 5; chapter 6, stop 2)', async ({ page }) => {
    await ready(page, 'chapter=kip1023-bootstrap&stop=5');
    expect(await audit(page)).toEqual([]);
    await ready(page, 'chapter=wal-steady-state&stop=2');
    expect(await audit(page)).toEqual([]);
  });

  test('presenter mode', async ({ page }) => {
    await ready(page, 'chapter=wal-steady-state&stop=2&present=1');
    expect(await audit(page)).toEqual([]);
  });

  test('the help dialog', async ({ page }) => {
    await ready(page, 'scenario=kip1023-bootstrap');
    await page.keyboard.press('?');
    await expect(page.getByRole('dialog', { name: 'Keyboard' })).toBeVisible();
    expect(await audit(page)).toEqual([]);
  });

  test('a narrow window (800 px)', async ({ page }) => {
    await page.setViewportSize({ width: 800, height: 900 });
    await ready(page, 'chapter=kip1023-bootstrap&stop=5');
    expect(await audit(page)).toEqual([]);
  });

  test('a phone (390x844): a chapter stop, and side by side (issue 31)', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await ready(page, 'chapter=classic-bootstrap&stop=3');
    expect(await audit(page)).toEqual([]);
    await page.goto('/?compare=wal-steady-state&chapter=wal-steady-state&stop=2');
    await expect(page.getByTestId('compare-table')).toBeVisible();
    expect(await audit(page)).toEqual([]);
  });

  test('a known finding on the page (the aux-state gap, in its own colour)', async ({ page }) => {
    const c = parse(readFileSync(join(ROOT, 'conformance', 'finding-aux-state-skipped-after-retry.yaml'), 'utf8')) as { scenario: unknown };
    await page.goto(`/#src=${Buffer.from(stringify(c.scenario), 'utf8').toString('base64url')}`);
    await expect(page.getByTestId('offset-lanes')).toBeVisible();
    await page.getByTestId('scrubber').focus();
    await page.keyboard.press('End');
    await expect(page.getByTestId('known-finding')).toHaveCount(1);
    expect(await audit(page)).toEqual([]);
  });

  test('the side-by-side view', async ({ page }) => {
    await page.goto('/?compare=wal-steady-state');
    await expect(page.getByTestId('compare-table')).toBeVisible();
    expect(await audit(page)).toEqual([]);
    await page.goto('/?compare=kip1023-bootstrap&present=1');
    await expect(page.getByTestId('compare-table')).toBeVisible();
    expect(await audit(page)).toEqual([]);
  });
});

test.describe('diagram text meets 4.5:1', () => {
  for (const [name, query, steps] of [
    ['chapter 2, stop 5', 'chapter=kip1023-bootstrap&stop=5', 0],
    ['the unknown-EPUO retry, with its error and backoff rows', 'chapter=kip1023-unknown-epuo-retry&stop=3', 0],
    ['chapter 6, stop 2 (the fast store)', 'chapter=wal-steady-state&stop=2', 0],
    ['a fast-store outage', 'chapter=wal-fast-store-outage&stop=3', 0],
  ] as const) {
    test(name, async ({ page }) => {
      await ready(page, query);
      for (let i = 0; i < steps; i++) await page.getByTestId('step-forward').click();
      expect(await lowContrastSvgText(page)).toEqual([]);
    });
  }
});
