/**
 * Every stop fits (issue 31, item 3): for every stop of every chapter, not a sample, at
 * 1280x800 and 1920x1080 the offsets picture, the request the stop is about (the current
 * step's rows of the request lane), the stop's title and text and the controls (playback and
 * the chapter's Back/Continue) lie inside the window and are not scrolled out of their box;
 * the stop's title is not cut (scrollWidth <= clientWidth). On a 390x844 phone the stop card
 * and the step controls are in the first screen (the page not scrolled).
 *
 * Each test collects every problem of its chapter and fails once with the whole list.
 * Waiting is on the page's state (the stop's title, boxes that no longer move between
 * animation frames), never on a time.
 */
import { type Page } from '@playwright/test';
import { CHAPTERS } from '../../core/report/chapters.js';
import { expect, test } from './fixtures.js';

interface Probe { what: string; sel: string; all?: boolean; seen?: boolean; optional?: boolean; clip?: boolean }

/** Waits until the boxes of the picture, the lane and the stop card stop moving (measured per frame, not per time). */
async function settle(page: Page): Promise<string | null> {
  return page.evaluate(async () => {
    const frame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));
    const key = () => ['[data-testid="offset-lanes"]', '[data-testid="requests-scroll"]', '[data-testid="chapter"]', '.toolbar']
      .map((s) => { const e = document.querySelector(s); if (!e) return '-'; const r = e.getBoundingClientRect(); return `${r.x},${r.y},${r.width},${r.height},${(e as HTMLElement).scrollTop}`; })
      .join('|');
    let last = '';
    let same = 0;
    const seen: string[] = [];
    for (let n = 0; same < 3; n++) {
      // A layout that never settles is a failure of its own (counted in frames, not in time).
      if (n > 240) return seen.slice(-4).join(' / ');
      await frame();
      const k = key();
      same = k === last ? same + 1 : 0;
      last = k;
      seen.push(k);
    }
    return null;
  });
}

/** What is outside the window (or its scrolling box), or cut, among the probes. */
async function outside(page: Page, probes: Probe[]): Promise<string[]> {
  return page.evaluate((ps) => {
    const out: string[] = [];
    const W = innerWidth;
    const H = innerHeight;
    for (const p of ps) {
      const els = [...document.querySelectorAll<Element>(p.sel)].filter((e) => e.getClientRects().length > 0);
      if (els.length === 0) {
        if (!p.optional) out.push(`${p.what}: not drawn`);
        continue;
      }
      for (const el of p.all ? els : [els[0]]) {
        const r = el.getBoundingClientRect();
        const where = `${p.what}: box x ${Math.round(r.left)}-${Math.round(r.right)}, y ${Math.round(r.top)}-${Math.round(r.bottom)} in ${W}x${H}`;
        if (r.top < -0.5 || r.bottom > H + 0.5 || r.left < -0.5 || r.right > W + 0.5) { out.push(`${where}: outside the window`); continue; }
        if (p.seen !== false) {
          for (let a = el.parentElement; a; a = a.parentElement) {
            const s = getComputedStyle(a);
            if (s.display === 'contents') continue; // no box of its own (the one-column layout's columns)
            if (!/(auto|scroll|hidden|clip)/.test(s.overflowY + s.overflowX)) continue;
            const q = a.getBoundingClientRect();
            if (r.top < q.top - 0.5 || r.bottom > q.bottom + 0.5 || r.left < q.left - 0.5 || r.right > q.right + 0.5) {
              out.push(`${where}: hidden by its box ${a.className || a.tagName} (y ${Math.round(q.top)}-${Math.round(q.bottom)})`);
              break;
            }
          }
        }
        if (p.clip && el instanceof HTMLElement && el.scrollWidth > el.clientWidth) out.push(`${p.what}: text cut (${el.scrollWidth} px in ${el.clientWidth} px)`);
      }
    }
    return out;
  }, probes);
}

const WIDE: Probe[] = [
  { what: 'the offsets picture', sel: '[data-testid="offset-lanes"]' },
  { what: 'the request of the stop (the current step\'s rows)', sel: '[data-testid="sequence"] g.row.current', all: true, optional: true },
  { what: 'the request lane\'s column names', sel: '[data-testid="sequence-head"]' },
  { what: 'the stop\'s title', sel: '[data-testid="stop-title"]', clip: true },
  { what: 'the stop\'s text', sel: '[data-testid="stop-text"]' },
  { what: 'the chapter\'s Back', sel: '[data-testid="stop-back"]' },
  { what: 'the chapter\'s Continue', sel: '[data-testid="stop-next"]', optional: true },
  ...['step-back', 'play', 'step-forward', 'restart', 'scrubber'].map((id) => ({ what: id, sel: `[data-testid="${id}"]` })),
];

const PHONE: Probe[] = [
  { what: 'the stop card\'s title', sel: '[data-testid="stop-title"]', clip: true },
  { what: 'the stop\'s text', sel: '[data-testid="stop-text"]' },
  { what: 'the chapter\'s Back', sel: '[data-testid="stop-back"]' },
  { what: 'the chapter\'s Continue', sel: '[data-testid="stop-next"]', optional: true },
  ...['step-back', 'play', 'step-forward', 'restart'].map((id) => ({ what: id, sel: `[data-testid="${id}"]` })),
];

for (const [w, h, probes] of [[1280, 800, WIDE], [1920, 1080, WIDE], [390, 844, PHONE]] as const) {
  test.describe(`every stop fits at ${w}x${h}`, () => {
    test.use({ viewport: { width: w, height: h } });
    for (const c of CHAPTERS) {
      test(`${c.id}: all ${c.stops.length} stops`, async ({ page }) => {
        const problems: string[] = [];
        await page.goto(`/?chapter=${c.id}`);
        await expect(page.getByTestId('offset-lanes')).toBeVisible();
        await expect(page.getByTestId('progress')).toHaveCount(0);
        for (let i = 0; i < c.stops.length; i++) {
          // The key, not a click: a click would scroll the page to the button first.
          if (i > 0) await page.keyboard.press('ArrowRight');
          await expect(page.getByTestId('stop-title')).toHaveText(c.stops[i].title);
          const moving = await settle(page);
          if (moving !== null) problems.push(`stop ${i + 1} (${c.stops[i].title}): the layout did not settle in 240 frames: ${moving}`);
          for (const p of await outside(page, [...probes])) problems.push(`stop ${i + 1} (${c.stops[i].title}): ${p}`);
        }
        expect(problems).toEqual([]);
      });
    }
  });
}
