/**
 * Exports: no title or label cut (issue 31, item 6). The diagram SVG exported from the page
 * (ExportPanel, web/lib/export.ts) is drawn in the page at its own size and every <text>'s
 * box is measured against the SVG's viewBox and against the (nested) SVG it is drawn in,
 * at 1280x800, 1920x1080 and on a 390x844 phone, at the last stop of every chapter and at
 * chapter 1's stop 3 (the long OFFSET_MOVED_TO_TIERED_STORAGE title). The report's SVG
 * (core/report/svg.ts) is measured the same way for every chapter.
 */
import { readFileSync } from 'node:fs';
import { type Page } from '@playwright/test';
import { CHAPTERS, findChapter } from '../../core/report/chapters.js';
import { buildReport, renderReport } from '../../core/report/report.js';
import { loadBundled } from '../support/run.js';
import { expect, test } from './fixtures.js';

/** Each visible <text> of `svgText` drawn past its SVG: the whole picture's viewBox or the nested SVG that holds it. */
async function cutTexts(page: Page, svgText: string): Promise<string[]> {
  return page.evaluate((text) => {
    const host = document.createElement('div');
    host.style.cssText = 'position:absolute;left:0;top:0;z-index:99;background:#fff;zoom:1';
    host.innerHTML = text.replace(/^<\?xml[^>]*>\s*/, '');
    document.body.append(host);
    const root = host.querySelector('svg')!;
    const out: string[] = [];
    const vb = root.viewBox.baseVal;
    const R = root.getBoundingClientRect();
    if (Math.abs(R.width - vb.width) > 1) out.push(`the picture is drawn ${R.width} px wide for a ${vb.width} viewBox`);
    for (const t of root.querySelectorAll('text')) {
      if ((t.textContent ?? '').trim() === '' || t.getClientRects().length === 0) continue;
      const cs = getComputedStyle(t);
      if (cs.display === 'none' || cs.visibility === 'hidden') continue;
      const r = t.getBoundingClientRect();
      for (const box of new Set([root, t.ownerSVGElement ?? root])) {
        const q = box.getBoundingClientRect();
        if (r.left < q.left - 1 || r.right > q.right + 1 || r.top < q.top - 1 || r.bottom > q.bottom + 1) {
          out.push(`"${(t.textContent ?? '').trim().slice(0, 50)}" x ${Math.round(r.left - q.left)}-${Math.round(r.right - q.left)}, y ${Math.round(r.top - q.top)}-${Math.round(r.bottom - q.top)} in ${Math.round(q.width)}x${Math.round(q.height)}${box === root ? ' (the viewBox)' : ' (its panel)'}`);
          break;
        }
      }
    }
    host.remove();
    return out;
  }, svgText);
}

const STOPS = [...CHAPTERS.map((c) => [c.id, c.stops.length] as const), ['classic-bootstrap', 3] as const];

for (const [width, height] of [[1280, 800], [1920, 1080], [390, 844]] as const) {
  test(`the page's diagram export at ${width}x${height}: no text past its picture`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const problems: string[] = [];
    for (const [id, stop] of STOPS) {
      await page.goto(`/?chapter=${id}&stop=${stop}`);
      await expect(page.getByTestId('offset-lanes')).toBeVisible();
      await expect(page.getByTestId('progress')).toHaveCount(0, { timeout: 120_000 });
      const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-svg').click()]);
      const svg = readFileSync((await dl.path())!, 'utf8');
      for (const p of await cutTexts(page, svg)) problems.push(`${id} stop ${stop}: ${p}`);
    }
    expect(problems).toEqual([]);
  });
}

test('the report SVG of every chapter: no text past its picture', async ({ page }) => {
  await page.goto('/?scenario=kip1023-bootstrap');
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  const problems: string[] = [];
  for (const c of CHAPTERS) {
    const report = buildReport(loadBundled(c.scenario), { chapter: findChapter(c.id)!, scenarioRef: c.scenario });
    for (const p of await cutTexts(page, renderReport(report, 'svg'))) problems.push(`${c.id}: ${p}`);
  }
  expect(problems).toEqual([]);
});
