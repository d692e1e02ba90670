/**
 * Design-review demos in the browser (issue 8): the guided chapters play through with
 * narration at every stop and open from their URL; presenter mode; exports from the page
 * (diagram SVG and PNG, Mermaid, JSON trace, Markdown report) that parse.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Download, type Page } from '@playwright/test';
import { CHAPTERS } from '../../core/report/chapters.js';
import { ROOT, SHOTS, expect, test } from './fixtures.js';

const stopTitle = (page: Page) => page.getByTestId('stop-title');
const narrationLines = (page: Page) => page.locator('[data-testid=narration] > ol > li');
const step = async (page: Page) => Number(await page.getByTestId('step').textContent());

for (const c of CHAPTERS) {
  test(`chapter ${c.id}: every stop has its script and the model's narration, in order`, async ({ page }) => {
    await page.goto(`/?chapter=${c.id}`);
    await expect(page.getByTestId('chapter-title')).toHaveText(c.title);
    let lastStep = -1;
    for (let i = 0; i < c.stops.length; i++) {
      if (i > 0) await page.keyboard.press('ArrowRight');
      await expect(stopTitle(page)).toHaveText(c.stops[i].title);
      await expect(page.getByTestId('stop-text')).toHaveText(c.stops[i].text);
      await expect(page).toHaveURL(new RegExp(`chapter=${c.id}&stop=${i + 1}(&|$)`));
      // Narration at every stop: the model's own lines for the step shown.
      expect(await narrationLines(page).count(), `narration at stop ${i + 1}`).toBeGreaterThan(0);
      const s = await step(page);
      expect(s, 'stops move forward in the run').toBeGreaterThan(lastStep);
      lastStep = s;
    }
    await expect(page.getByTestId('chapter')).not.toContainText('out of date');
    // Back goes to the previous stop.
    if (c.stops.length > 1) {
      await page.keyboard.press('ArrowLeft');
      await expect(stopTitle(page)).toHaveText(c.stops[c.stops.length - 2].title);
    }
  });
}

test('a chapter URL opens its stop directly, and a reload keeps it', async ({ page }) => {
  await page.goto('/?chapter=kip1023-unknown-epuo-retry&stop=5');
  await expect(stopTitle(page)).toHaveText('The leader learns Ry');
  const s = await step(page);
  await page.reload();
  await expect(stopTitle(page)).toHaveText('The leader learns Ry');
  expect(await step(page)).toBe(s);
  await expect(page.getByRole('link', { name: 'KIP-1023: retry while the EPUO is unknown' })).toHaveAttribute('aria-current', 'page');
});

test('the chapter list opens a chapter, and Continue at the last stop opens the next one', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('chapter-list').getByRole('link', { name: 'KIP-1023: EPUO below the Log-Start-Offset' }).click();
  await expect(page.getByTestId('chapter-title')).toHaveText(CHAPTERS[3].title);
  await page.getByRole('button', { name: `Stop ${CHAPTERS[3].stops.length}: ` }).click();
  await expect(page.getByTestId('stop-next')).toContainText(`Next chapter: ${CHAPTERS[4].title}`);
  await page.getByTestId('stop-next').click();
  await expect(page.getByTestId('chapter-title')).toHaveText(CHAPTERS[4].title);
  await expect(page).toHaveURL(/chapter=kip1023-promoted-follower&stop=1/);
});

test('Shift+→ steps once inside a chapter; the stop card says where the stop is', async ({ page }) => {
  // Stop 1 is at step 1 and stop 2 at step 3: one step lands between them.
  await page.goto('/?chapter=classic-bootstrap&stop=1');
  const s = await step(page);
  await page.keyboard.press('Shift+ArrowRight');
  expect(await step(page)).toBe(s + 1);
  await expect(page.getByTestId('chapter')).toContainText(`you are at step ${s + 1}, the stop is step ${s}`);
  await expect(page).toHaveURL(new RegExp(`stop=1&step=${s + 1}`));
});

test('an action leaves the chapter for a free run, and says so', async ({ page }) => {
  await page.goto('/?chapter=kip1023-bootstrap&stop=2');
  await expect(stopTitle(page)).toHaveText(CHAPTERS[1].stops[1].title);
  await page.keyboard.press('p');
  await expect(page.getByTestId('chapter')).toHaveCount(0);
  await expect(page.getByText(/took the run off the script/)).toBeVisible();
  await expect(page).not.toHaveURL(/chapter=/);
});

test('a link to a chapter that does not exist says so and opens the walkthrough', async ({ page }) => {
  await page.goto('/?chapter=no-such-chapter&stop=zero');
  await expect(page.getByText('chapter: no chapter "no-such-chapter"')).toBeVisible();
  await expect(page.getByText('stop: expected a stop number from 1, got "zero"')).toBeVisible();
  await expect(page.getByTestId('chapter')).toHaveCount(0);
  await expect(page.getByTestId('scenario-picker')).toHaveValue('kip1023-bootstrap');
});

test('presenter mode: controls hidden, large type, keyboard driven, Escape leaves; ?present=1 opens it', async ({ page }) => {
  await page.goto('/?chapter=kip1023-bootstrap&stop=2');
  const before = await page.getByTestId('stop-text').evaluate((e) => e.getBoundingClientRect().height);
  await page.keyboard.press('Shift+P');
  await expect(page.locator('body')).toHaveClass(/presenter/);
  await expect(page.getByTestId('scenario-picker')).toBeHidden();
  await expect(page.getByTestId('play')).toBeHidden();
  await expect(page.getByTestId('export')).toBeHidden();
  await expect(page.getByTestId('chapter')).toBeVisible();
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  const after = await page.getByTestId('stop-text').evaluate((e) => e.getBoundingClientRect().height);
  expect(after, 'the stop text is larger').toBeGreaterThan(before * 1.2);
  await expect(page).toHaveURL(/present=1/);
  await page.keyboard.press('ArrowRight');
  await expect(stopTitle(page)).toHaveText(CHAPTERS[1].stops[2].title);
  await page.screenshot({ path: join(SHOTS, 'presenter.png') });
  await page.keyboard.press('Escape');
  await expect(page.locator('body')).not.toHaveClass(/presenter/);
  await expect(page.getByTestId('play')).toBeVisible();
  await page.goto('/?chapter=wal-steady-state&stop=3&present=1');
  await expect(page.locator('body')).toHaveClass(/presenter/);
  await expect(page.getByTestId('leave-presenter')).toBeVisible();
  await page.getByTestId('leave-presenter').click();
  await expect(page.locator('body')).not.toHaveClass(/presenter/);
});

async function saved(page: Page, testId: string): Promise<{ name: string; body: Buffer }> {
  const [d]: [Download, void] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  const path = await d.path();
  return { name: d.suggestedFilename(), body: readFileSync(path) };
}

test('exports: the diagram as SVG (valid XML, every panel, styles inlined) and PNG', async ({ page }) => {
  await page.goto('/?chapter=wal-steady-state&stop=4');
  const svg = await saved(page, 'export-svg');
  expect(svg.name).toMatch(/^wal-steady-state-step-\d+\.svg$/);
  const text = svg.body.toString('utf8');
  const parsed = await page.evaluate((t) => {
    const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
    const err = doc.querySelector('parsererror');
    const out = {
      error: err?.textContent ?? null,
      root: doc.documentElement.nodeName,
      title: doc.querySelector('title')?.textContent ?? '',
      nested: doc.documentElement.querySelectorAll(':scope > svg').length,
      varLeft: t.includes('var(--'),
      texts: [...doc.querySelectorAll('text')].map((x) => x.textContent).join(' '),
      references: [] as string[],
      dangling: [] as string[],
    };
    for (const el of doc.querySelectorAll('*')) {
      for (const a of [...el.attributes]) {
        for (const m of a.value.matchAll(/url\(\s*["']?([^"')]*)["']?\s*\)/g)) {
          out.references.push(m[1]);
          if (!m[1].startsWith('#') || doc.getElementById(m[1].slice(1)) === null) out.dangling.push(m[1]);
        }
      }
    }
    return out;
  }, text);
  expect(parsed.error).toBeNull();
  expect(parsed.root).toBe('svg');
  expect(parsed.title).toContain('KIP-1176: steady state');
  expect(parsed.nested, 'offsets, fast store and requests').toBe(3);
  expect(parsed.varLeft, 'no CSS custom property left unresolved').toBe(false);
  // Every pattern or marker the file references is defined in the file.
  expect(parsed.dangling, 'references to ids the file does not define').toEqual([]);
  expect(parsed.references.some((r) => r.includes('wal-p-')), 'the chunk patterns are referenced').toBe(true);
  expect(parsed.texts).toContain('OFFSETS OF ORDERS-0');
  expect(parsed.texts).toContain('HW');
  const png = await saved(page, 'export-png');
  expect(png.name).toMatch(/\.png$/);
  expect(png.body.subarray(1, 4).toString('latin1')).toBe('PNG');
  const width = png.body.readUInt32BE(16);
  expect(width, 'drawn at 2x').toBeGreaterThan(1000);
});

test('exports: the JSON trace is the run so far', async ({ page }) => {
  await page.goto('/?chapter=kip1023-bootstrap&stop=3');
  const s = await step(page);
  const json = JSON.parse((await saved(page, 'export-json')).body.toString('utf8'));
  expect(json.step).toBe(s);
  expect(json.scenario).toBeTruthy();
  expect(json.trace.some((e: { api?: string; timestamp?: number }) => e.api === 'ListOffsets' && e.timestamp === -6)).toBe(true);
  expect(json.partitions[0].replicas.length).toBe(2);
});

test('exports: the Mermaid sequence diagram parses in Mermaid, the Markdown report has every stop', async ({ page }) => {
  await page.goto('/?chapter=kip1023-bootstrap&stop=6');
  const mermaidText = (await saved(page, 'export-mermaid')).body.toString('utf8');
  expect(mermaidText).toMatch(/^sequenceDiagram/m);
  await page.addScriptTag({ path: join(ROOT, 'node_modules/mermaid/dist/mermaid.min.js') });
  const result = await page.evaluate(async (t) => {
    const m = (window as unknown as { mermaid: { initialize: (o: object) => void; parse: (t: string) => Promise<unknown>; render: (id: string, t: string) => Promise<{ svg: string }> } }).mermaid;
    m.initialize({ startOnLoad: false });
    try {
      await m.parse(t);
      const { svg } = await m.render('exported', t);
      return { ok: true, svg: svg.length };
    } catch (e) {
      return { ok: false, error: String((e as Error).message ?? e) };
    }
  }, mermaidText);
  expect(result, mermaidText.slice(0, 400)).toMatchObject({ ok: true });
  const md = (await saved(page, 'export-md')).body.toString('utf8');
  for (const s of CHAPTERS[1].stops) expect(md).toContain(s.title);
  expect(md).toContain('follower.fetch.last.tiered.offset.enable');
});

test('the walkthrough links to the side-by-side view of its workload at the same moment', async ({ page }) => {
  await page.goto('/?scenario=wal-steady-state&step=12');
  const t = Number(await page.getByTestId('time').textContent());
  await page.getByTestId('open-compare').click();
  await expect(page).toHaveURL(new RegExp(`compare=wal-steady-state&.*t=${t}$`));
  await expect(page.getByText(/cross-zone bytes 7\.62 MiB → 18\.3 KiB/).first()).toBeVisible();
});
