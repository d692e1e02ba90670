/**
 * The drawing of the offsets picture, the request lane and the fast-store lane (issue 18,
 * points 6, 7 and 10), at the moments the issue names and at two window sizes
 * (1280x800 and 800x900): no text over another text, no text past its SVG's edge or over
 * the request lane's time column, marker labels clear of the axis, the follower's fetch
 * marker never left of its log start while it builds the remote auxiliary state, the
 * backoff's pause sign drawn as a shape, every text at least 4.5:1 against white with
 * nothing faded, and diagram titles that name the state. Geometry comes from the browser
 * (getBoundingClientRect), colours from getComputedStyle; with reduced motion, so a marker
 * is measured where it stops, not half-way through its move. Screenshots of each moment go
 * to test-results/screenshots/lanes-<name>.png (the whole page) and lanes-<name>-<lane>.png.
 */
import { type Locator, type Page } from '@playwright/test';
import { expect, test } from './fixtures.js';

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 800, height: 900 },
] as const;

const stepOut = (page: Page) => page.getByTestId('step');
const lanes = (page: Page) => page.getByTestId('offset-lanes');
const sequence = (page: Page) => page.getByTestId('sequence').locator('svg:not([data-no-export])');
const marker = (page: Page, field: string, broker: number) => page.locator(`[data-testid="offset-lanes"] g[data-marker="${field}"][data-broker="${broker}"]`);

/** Opens `?query` and waits for the picture (a chapter stop, or `step` when given). */
async function open(page: Page, query: string, step?: number): Promise<void> {
  await page.goto(`/?${query}`);
  if (step !== undefined) await expect(stepOut(page)).toHaveText(String(step));
  await expect(lanes(page)).toBeVisible();
  await expect(page.getByTestId('progress')).toHaveCount(0);
}

async function shots(page: Page, name: string, parts: Record<string, Locator> = {}): Promise<void> {
  await page.screenshot({ path: `test-results/screenshots/lanes-${name}.png`, fullPage: true });
  for (const [part, loc] of Object.entries(parts)) await loc.screenshot({ path: `test-results/screenshots/lanes-${name}-${part}.png` });
}

interface Box {
  text: string;
  cls: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The visible, non-empty texts of an SVG with their boxes, and the SVG's own box. */
async function textBoxes(svg: Locator): Promise<{ svg: Box; texts: Box[] }> {
  return svg.evaluate((el) => {
    const box = (e: Element) => {
      const r = e.getBoundingClientRect();
      return { text: (e.textContent ?? '').trim(), cls: e.getAttribute('class') ?? '', left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    };
    const texts = [...el.querySelectorAll('text')]
      .filter((t) => (t.textContent ?? '').trim() !== '' && t.getBoundingClientRect().width > 0)
      .map(box);
    return { svg: box(el), texts };
  });
}

/** No two texts overlap (by more than `slack` px each way) and none leaves the SVG. */
function expectClearTexts({ svg, texts }: { svg: Box; texts: Box[] }, what: string, slack = 1): void {
  for (const t of texts) {
    expect(t.left, `${what}: "${t.text}" starts left of the SVG`).toBeGreaterThanOrEqual(svg.left - 0.5);
    expect(t.right, `${what}: "${t.text}" ends past the SVG's right edge`).toBeLessThanOrEqual(svg.right + 0.5);
    expect(t.top, `${what}: "${t.text}" above the SVG`).toBeGreaterThanOrEqual(svg.top - 0.5);
    expect(t.bottom, `${what}: "${t.text}" below the SVG`).toBeLessThanOrEqual(svg.bottom + 0.5);
  }
  const overlaps: string[] = [];
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i];
      const b = texts[j];
      const dx = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const dy = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (dx > slack && dy > slack) overlaps.push(`"${a.text}" (${a.cls}) and "${b.text}" (${b.cls}): ${dx.toFixed(1)} x ${dy.toFixed(1)} px`);
    }
  }
  expect(overlaps, `${what}: texts overlapping`).toEqual([]);
}

/**
 * Every text's computed fill against white: at least 4.5:1, with no opacity below 1 on the
 * text or any of its ancestors inside the SVG. Returns the ratios by colour.
 */
async function expectContrast(svg: Locator, what: string): Promise<Record<string, number>> {
  const found = await svg.evaluate((el) => {
    const lin = (c: number) => {
      const v = c / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    };
    const lum = (rgb: number[]) => 0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2]);
    const out: Array<{ text: string; fill: string; ratio: number; opacity: number }> = [];
    for (const t of el.querySelectorAll('text, tspan')) {
      if ((t.textContent ?? '').trim() === '') continue;
      const cs = getComputedStyle(t);
      const rgb = (cs.fill.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
      let opacity = Number(cs.fillOpacity);
      for (let e: Element | null = t; e !== null && e !== el.parentElement; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
      out.push({ text: (t.textContent ?? '').trim().slice(0, 40), fill: cs.fill, ratio: (1.05 / (lum(rgb) + 0.05)), opacity });
    }
    return out;
  });
  expect(found.length, `${what}: texts`).toBeGreaterThan(0);
  const bad = found.filter((f) => f.ratio < 4.5 || f.opacity < 1).map((f) => `${f.text}: ${f.fill} ${f.ratio.toFixed(2)}:1, opacity ${f.opacity}`);
  expect(bad, `${what}: texts under 4.5:1 on white, or faded`).toEqual([]);
  return Object.fromEntries(found.map((f) => [f.fill, Number(f.ratio.toFixed(2))]));
}

/** The title that names the diagram (aria-labelledby). */
async function diagramName(svg: Locator): Promise<string> {
  return svg.evaluate((el) => document.getElementById(el.getAttribute('aria-labelledby') ?? '')?.textContent ?? '');
}

/** The offset of a marker, and its line's x on screen. */
async function markerAt(page: Page, field: string, broker: number): Promise<{ offset: number; x: number }> {
  const m = marker(page, field, broker);
  const offset = Number(await m.getAttribute('data-offset'));
  const x = await m.locator('line').evaluate((l) => l.getBoundingClientRect().left + l.getBoundingClientRect().width / 2);
  return { offset, x };
}

for (const vp of VIEWPORTS) {
  const size = `${vp.width}x${vp.height}`;

  test.describe(`at ${size}`, () => {
    test.use({ viewport: vp, reducedMotion: 'reduce' });

    // Point 7: "fetch 0" left of the log start while the narration says truncateFullyAndStartAt(150).
    for (const [chapter, stop, start, held] of [
      ['kip1023-bootstrap', 4, 150, 0],
      ['classic-bootstrap', 4, 100, 10],
    ] as const) {
      test(`${chapter}: the fetch marker moves with the truncation while the aux state is built (${size})`, async ({ page }) => {
        await open(page, `chapter=${chapter}&stop=${stop}`);
        await expect(page.getByTestId('narration')).toContainText(`truncateFullyAndStartAt(${start})`);
        // The three steps after the truncation: checkpoint, producer snapshot, ListOffsets -1.
        for (let k = 0; k < 3; k++) {
          if (k > 0) await page.keyboard.press('Shift+ArrowRight');
          const fetch = marker(page, 'fetchOffset', 1);
          await expect(fetch).toHaveAttribute('data-offset', String(start));
          await expect(fetch).toHaveAttribute('data-held-offset', String(held));
          await expect(fetch.locator('text')).toHaveText(`next fetch ${start}`);
          await expect(fetch.locator('title')).toContainText(`holds ${held}`);
          const f = await markerAt(page, 'fetchOffset', 1);
          const lso = await markerAt(page, 'logStartOffset', 1);
          const llso = await markerAt(page, 'localLogStartOffset', 1);
          expect(f.x, 'fetch marker not left of the log start').toBeGreaterThanOrEqual(lso.x - 0.5);
          expect(f.x, 'fetch marker at the truncation point').toBeCloseTo(llso.x, 0);
          expect(await diagramName(lanes(page))).toContain(`next fetch offset ${start} (fetch state still ${held})`);
          expectClearTexts(await textBoxes(lanes(page)), `offset lanes, step ${k}`);
        }
        await shots(page, `${chapter}-aux-${size}`, { offsets: lanes(page) });
        // Once TierStateMachine.start returns, the fetch state itself is at the start.
        await page.keyboard.press('Shift+ArrowRight');
        await expect(marker(page, 'fetchOffset', 1)).toHaveAttribute('data-offset', String(start));
        await expect(marker(page, 'fetchOffset', 1)).not.toHaveAttribute('data-held-offset', /./);
        await expect(marker(page, 'fetchOffset', 1).locator('text')).toHaveText(`fetch ${start}`);
      });
    }

    // Point 10: "'EPUO 48' over the axis ticks" (wal-steady-state: LSO 0, LLSO 0, Ry 47, EPUO 48 on the leader).
    test(`marker labels clear of the axis ticks and of each other: EPUO 48 (${size})`, async ({ page }) => {
      await open(page, 'scenario=wal-steady-state&step=87', 87);
      await expect(marker(page, 'earliestPendingUploadOffset', 0)).toHaveAttribute('data-offset', '48');
      const boxes = await textBoxes(lanes(page));
      expectClearTexts(boxes, 'offset lanes');
      // Every marker label is below every tick label.
      const ticks = await lanes(page).locator('g.axis text').evaluateAll((ts) => ts.map((t) => t.getBoundingClientRect().bottom));
      const labels = await lanes(page).locator('g.marker text').evaluateAll((ts) => ts.map((t) => t.getBoundingClientRect().top));
      expect(Math.min(...labels)).toBeGreaterThanOrEqual(Math.max(...ticks));
      // Offset 0 is on the axis.
      await expect(lanes(page).locator('g.axis text[data-tick="0"]')).toHaveCount(1);
      const ratios = await expectContrast(lanes(page), 'offset lanes');
      console.log(`contrast, offset lanes at ${size}: ${JSON.stringify(ratios)}`);
      expectClearTexts(await textBoxes(page.getByTestId('wal-svg')), 'fast-store lane');
      const walRatios = await expectContrast(page.getByTestId('wal-svg'), 'fast-store lane');
      console.log(`contrast, fast-store lane at ${size}: ${JSON.stringify(walRatios)}`);
      expect(await diagramName(page.getByTestId('wal-svg'))).toMatch(/^KIP-1176 fast store \(up\): \d+ WAL objects?/);
      await shots(page, `epuo48-${size}`, { offsets: lanes(page), wal: page.getByTestId('wal-svg') });
    });

    // Point 10: the axis keeps 0 and does not rescale between a chapter's stops.
    test(`the offsets axis starts at 0 and does not change between stops (${size})`, async ({ page }) => {
      await open(page, 'chapter=kip1023-bootstrap&stop=1');
      const axis = () => lanes(page).locator('g.axis text').allTextContents();
      const first = await axis();
      expect(first[0]).toBe('0');
      for (let stop = 2; stop <= 6; stop++) {
        await page.keyboard.press('ArrowRight');
        await expect(page).toHaveURL(new RegExp(`stop=${stop}`));
        expect(await axis(), `axis at stop ${stop}`).toEqual(first);
      }
    });

    // Point 10: "'OFFSET_MOVED_TO_TIERED_STORAG' clipped" and "long error names over the time column".
    test(`request lane: error names fit inside the lane, clear of the time column (${size})`, async ({ page }) => {
      await open(page, 'chapter=classic-bootstrap&stop=3');
      const seq = sequence(page);
      const row = seq.locator('g.row[data-error="true"]', { hasText: 'OFFSET_MOVED_TO_TIERED_STORAGE' });
      await expect(row).toHaveCount(1);
      await expect(row.locator('title')).toContainText('OFFSET_MOVED_TO_TIERED_STORAGE');
      const label = (await row.locator('text.label').textContent()) ?? '';
      expect(label === '⚠ OFFSET_MOVED_TO_TIERED_STORAGE' || label.endsWith('…'), label).toBe(true);
      const boxes = await textBoxes(seq);
      expectClearTexts(boxes, 'request lane');
      const timeRight = Math.max(...boxes.texts.filter((t) => t.cls.includes('time')).map((t) => t.right));
      for (const t of boxes.texts.filter((t) => t.cls.split(' ').includes('label'))) expect(t.left, `"${t.text}" over the time column`).toBeGreaterThan(timeRight);
      // Each row names its step, for scrolling the current one into view.
      const steps = await seq.locator('g.row').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-step')));
      expect(steps.length).toBeGreaterThan(0);
      for (const s of steps) expect(s).toMatch(/^\d+$/);
      const current = Number(await stepOut(page).textContent());
      await expect(seq.locator(`g.row.current[data-step="${current}"]`)).not.toHaveCount(0);
      await expect(seq.locator('g.row.current rect.now')).not.toHaveCount(0);
      expect(await diagramName(seq)).toContain('This step: broker 0 to broker 1: OFFSET_MOVED_TO_TIERED_STORAGE (error)');
      const ratios = await expectContrast(seq, 'request lane');
      console.log(`contrast, request lane at ${size}: ${JSON.stringify(ratios)}`);
      await shots(page, `omtts-${size}`, { requests: page.getByTestId('sequence') });
    });

    // Point 10: "a missing glyph before 'backoff' with common fonts".
    test(`request lane: the backoff's pause sign is a shape, not U+23F8 (${size})`, async ({ page }) => {
      await open(page, 'chapter=kip1023-unknown-epuo-retry&stop=4');
      const seq = sequence(page);
      const backoff = seq.locator('g.row[data-kind="backoff"]');
      await expect(backoff).not.toHaveCount(0);
      await expect(backoff.first().locator('rect.pause')).toHaveCount(2);
      // The label is whole, or cut with … at a narrow width; the row's tooltip has it in full.
      await expect(backoff.first().locator('title')).toContainText('backoff');
      const label = (await backoff.first().locator('text.label').textContent()) ?? '';
      const full = ((await backoff.first().locator('title').textContent()) ?? '').replace(/^\d+ ms: /, '');
      expect(label === full || (label.endsWith('…') && full.startsWith(label.slice(0, -1))), `${label} / ${full}`).toBe(true);
      expect(await seq.textContent()).not.toContain('⏸');
      expectClearTexts(await textBoxes(seq), 'request lane');
      expectClearTexts(await textBoxes(lanes(page)), 'offset lanes');
      await expectContrast(seq, 'request lane');
      await expectContrast(lanes(page), 'offset lanes');
      await shots(page, `backoff-${size}`, { requests: page.getByTestId('sequence'), offsets: lanes(page) });
    });
  });
}

// Every stop of every chapter, at both sizes: the lanes' texts never overlap or leave their SVG.
for (const vp of VIEWPORTS) {
  const size = `${vp.width}x${vp.height}`;
  test.describe(`every chapter stop at ${size}`, () => {
    test.use({ viewport: vp, reducedMotion: 'reduce' });
    for (const chapter of ['classic-bootstrap', 'kip1023-bootstrap', 'kip1023-unknown-epuo-retry', 'kip1023-epuo-below-log-start', 'kip1023-promoted-follower', 'wal-steady-state', 'wal-fast-store-outage', 'wal-failover']) {
      test(`${chapter}: no text over another or past the edge, in the offsets, request and fast-store lanes (${size})`, async ({ page }) => {
        await open(page, `chapter=${chapter}&stop=1`);
        const stops = await page.locator('[data-testid="chapter"] ol.dots button').count();
        expect(stops).toBeGreaterThan(1);
        for (let stop = 1; stop <= stops; stop++) {
          if (stop > 1) {
            await page.keyboard.press('ArrowRight');
            await expect(page).toHaveURL(new RegExp(`stop=${stop}`));
          }
          expectClearTexts(await textBoxes(lanes(page)), `${chapter} stop ${stop}: offset lanes`);
          expectClearTexts(await textBoxes(sequence(page)), `${chapter} stop ${stop}: request lane`);
          if (await page.getByTestId('wal-svg').isVisible()) expectClearTexts(await textBoxes(page.getByTestId('wal-svg')), `${chapter} stop ${stop}: fast-store lane`);
        }
      });
    }
  });
}
