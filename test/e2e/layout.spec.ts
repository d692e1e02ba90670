/**
 * What matters stays on screen (issue 18, points 1, 2, 5 and part of 10): at 1280x800 the
 * offsets picture, the latest requests, the narration and the playback controls are all in
 * the window together; pressing a control never scrolls the picture away; presenter mode
 * fits the fast-store lane on a 1280x800 screen and on a 1920x1080 projector; below 1100 px
 * the page is one column and nothing is clipped down to 360 px; the keyboard presses a
 * focused button with Space and the help dialog keeps the focus.
 *
 * Each layout test saves a screenshot under test-results/screenshots/ (layout-*.png).
 */
import { join } from 'node:path';
import { type Locator, type Page } from '@playwright/test';
import { ROOT, SHOTS, expect, test } from './fixtures.js';

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `layout-${name}.png`) });
const stepOut = (page: Page) => page.getByTestId('step');

async function open(page: Page, query: string, step?: number): Promise<void> {
  await page.goto(`/?${query}`);
  if (step !== undefined) await expect(stepOut(page)).toHaveText(String(step));
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  await expect(page.getByTestId('progress')).toHaveCount(0);
}

/** The element's box lies wholly inside the window (no scrolling needed to see it). */
async function expectInWindow(page: Page, el: Locator, what: string): Promise<void> {
  const vp = page.viewportSize()!;
  const box = await el.boundingBox();
  expect(box, `${what} is rendered`).not.toBeNull();
  const b = box!;
  expect(b.y, `${what}: top ${b.y} is in the window`).toBeGreaterThanOrEqual(-0.5);
  expect(b.y + b.height, `${what}: bottom ${b.y + b.height} is in the ${vp.height} px window`).toBeLessThanOrEqual(vp.height + 0.5);
  expect(b.x, `${what}: left edge in the window`).toBeGreaterThanOrEqual(-0.5);
  expect(b.x + b.width, `${what}: right edge ${b.x + b.width} in the ${vp.width} px window`).toBeLessThanOrEqual(vp.width + 0.5);
}

/** The element's box is in the window and not hidden by its scrolling box (it can be seen). */
async function expectSeen(page: Page, el: Locator, what: string): Promise<void> {
  await expectInWindow(page, el, what);
  const hidden = await el.evaluate((node) => {
    const r = node.getBoundingClientRect();
    for (let p = node.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (!/(auto|scroll|hidden)/.test(s.overflowY + s.overflowX)) continue;
      const q = p.getBoundingClientRect();
      if (r.top < q.top - 0.5 || r.bottom > q.bottom + 0.5) return `clipped by ${p.className || p.tagName}`;
    }
    return null;
  });
  expect(hidden, `${what} is not scrolled out of its box`).toBeNull();
}

/** Horizontal overflow anywhere: the page, or a panel whose content is wider than the panel. */
async function clipped(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth + 1) out.push(`page is ${doc.scrollWidth} px wide in a ${doc.clientWidth} px window`);
    for (const el of document.querySelectorAll<HTMLElement>('.panel, header, .toolbar')) {
      if (el.offsetParent === null) continue;
      if (el.scrollWidth > el.clientWidth + 1) out.push(`${el.getAttribute('aria-label') ?? el.className}: content ${el.scrollWidth} px in ${el.clientWidth} px`);
      const r = el.getBoundingClientRect();
      if (r.right > doc.clientWidth + 1) out.push(`${el.getAttribute('aria-label') ?? el.className}: right edge at ${Math.round(r.right)} px`);
    }
    // Buttons and labels must not be cut: their text fits their box.
    for (const el of document.querySelectorAll<HTMLElement>('button, select, label, h2')) {
      if (el.offsetParent === null) continue;
      if (el.scrollWidth > el.clientWidth + 2 && getComputedStyle(el).overflow !== 'visible') out.push(`"${el.textContent?.trim().slice(0, 40)}" is cut`);
    }
    return out;
  });
}

test.describe('at 1280x800', () => {
  test.use({ viewport: { width: 1280, height: 800 } });

  test('chapter 2, stop 5: picture, the 50-record response, narration and controls are in the window together', async ({ page }) => {
    // Goal: point 1 of issue 18: the request a stop is about is on screen, not below the fold.
    // Method: open the stop by link; check the boxes of the offsets picture, the current
    // step's request rows (the 50 records among them), the narration, the chapter text and
    // the playback buttons against the window.
    await open(page, 'chapter=kip1023-bootstrap&stop=5');
    await expect(page.getByTestId('stop-title')).toHaveText('Fetch from 150');
    await expectInWindow(page, page.getByTestId('offset-lanes'), 'offsets picture');
    const response = page.locator('[data-testid="sequence"] g.row.current', { hasText: '50 records' });
    await expect(response).toHaveCount(1);
    await expectSeen(page, response, 'the 50-record response');
    // The lane has scrolled to its newest rows; the column names stay at its top.
    expect(await page.getByTestId('requests-scroll').evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
    await expectSeen(page, page.getByTestId('sequence-head'), 'the request lane\'s column names');
    await expect(page.getByTestId('sequence-head')).toContainText('broker 1');
    await expectSeen(page, page.getByTestId('narration').locator('h2'), 'the narration heading');
    await expectSeen(page, page.getByTestId('narration').locator(':scope > ol > li').first(), 'the step\'s narration');
    await expectSeen(page, page.getByTestId('stop-text'), 'the stop\'s text');
    for (const id of ['step-back', 'play', 'step-forward', 'restart', 'scrubber']) await expectInWindow(page, page.getByTestId(id), id);
    await shot(page, 'chapter2-stop5-1280x800');
  });

  test('every step of a chapter keeps its newest request in view', async ({ page }) => {
    // Goal: the request lane follows the step as it grows.
    // Method: step through the first chapter; at each step with requests, the lane's last
    // row is seen inside its box.
    await open(page, 'scenario=classic-two-rounds', 0);
    for (let n = 1; n <= 14; n++) {
      await page.getByTestId('step-forward').click();
      await expect(stepOut(page)).toHaveText(String(n));
      const rows = page.locator('[data-testid="sequence"] g.row');
      if ((await rows.count()) === 0) continue;
      await expectSeen(page, rows.last(), `the newest request at step ${n}`);
    }
  });

  test('three replicas (a broker added): the lanes keep only the label rows they use, and the newest request stays in the window', async ({ page }) => {
    // Goal: point 1 with a third lane: the fixed label rows would push the request lane out
    // of an 800 px window, so the lanes fit their rows and the keys make room.
    await open(page, 'scenario=kip1023-bootstrap', 0);
    for (let n = 1; n <= 3; n++) await page.getByTestId('step-forward').click();
    await expect(stepOut(page)).toHaveText('3');
    await page.getByTestId('add-replica').click();
    await expect(page.locator('[data-testid="offset-lanes"] g.lane[data-broker="2"]')).toHaveCount(1);
    for (let n = 4; n <= 9; n++) {
      await page.getByTestId('step-forward').click();
      await expect(stepOut(page)).toHaveText(String(n));
    }
    await expectInWindow(page, page.getByTestId('offset-lanes'), 'offsets picture with three lanes');
    await expectSeen(page, page.locator('[data-testid="sequence"] g.row').last(), 'the newest request');
    await expectSeen(page, page.getByTestId('narration').locator('h2'), 'the narration');
    await shot(page, 'three-replicas-1280x800');
  });

  test('pressing the conditions never moves the picture', async ({ page }) => {
    // Goal: point 1: "pressing Crash or Produce scrolls the picture away" no longer happens.
    // Method: note the picture's top and the window's scroll; press Produce, Crash, Restart
    // and the last condition button (the left column scrolls itself to show them); the
    // picture stays where it was and the window does not scroll.
    await open(page, 'scenario=kip1023-bootstrap', 0);
    const top = async () => (await page.getByTestId('offset-lanes').boundingBox())!.y;
    const before = await top();
    for (const id of ['produce', 'crash-1', 'crash-1', 'elect', 'toggle-fast-store']) {
      await page.getByTestId(id).click();
      expect(await page.evaluate(() => scrollY), `the window after ${id}`).toBe(0);
      expect(await top(), `the picture's top after ${id}`).toBe(before);
    }
    await expectInWindow(page, page.getByTestId('offset-lanes'), 'offsets picture');
    await shot(page, 'after-conditions-1280x800');
  });

  test('presenter mode fits the fast-store lane, the picture, the requests and the story (chapter 6, stop 2)', async ({ page }) => {
    // Goal: point 1: in presenter mode at 1280x800 the WAL lane, the point of this stop, is on screen.
    await open(page, 'chapter=wal-steady-state&stop=2&present=1');
    await expect(page.getByTestId('stop-title')).toHaveText('The combiner puts one WAL object');
    await expectInWindow(page, page.getByTestId('wal-svg'), 'the fast-store lane');
    await expectInWindow(page, page.getByTestId('offset-lanes'), 'offsets picture');
    await expectSeen(page, page.locator('[data-testid="sequence"] g.row').last(), 'the newest request');
    await expectSeen(page, page.getByTestId('stop-text'), 'the stop\'s text');
    await expectSeen(page, page.getByTestId('narration').locator(':scope > ol > li').first(), 'the narration');
    await shot(page, 'presenter-chapter6-stop2-1280x800');
  });
});

test.describe('on a 1920x1080 projector', () => {
  test.use({ viewport: { width: 1920, height: 1080 } });
  test('presenter mode: large type and everything on screen', async ({ page }) => {
    await open(page, 'chapter=wal-steady-state&stop=2&present=1');
    await expectInWindow(page, page.getByTestId('wal-svg'), 'the fast-store lane');
    await expectInWindow(page, page.getByTestId('offset-lanes'), 'offsets picture');
    await expectSeen(page, page.locator('[data-testid="sequence"] g.row').last(), 'the newest request');
    await expectSeen(page, page.getByTestId('stop-text'), 'the stop\'s text');
    // Large type: the narration's text is drawn at least 20 px high on the screen.
    const px = await page.getByTestId('narration').locator('li').first().evaluate((el) => {
      const zoom = Number(getComputedStyle(el.closest('.app')!).zoom) || 1;
      return parseFloat(getComputedStyle(el).fontSize) * zoom;
    });
    expect(px).toBeGreaterThanOrEqual(20);
    await shot(page, 'presenter-chapter6-stop2-1920x1080');
  });
});

test.describe('narrow windows: one column, nothing clipped', () => {
  for (const width of [360, 480, 800, 1024]) {
    test(`${width} px wide`, async ({ page }) => {
      // Goal: point 2: below 1100 px the page is one column, and from 360 px up nothing is clipped.
      // Method: chapter 2, stop 5 at this width: the story comes under the picture (one
      // column; above it on a phone), the offsets picture uses the width, the page does not scroll sideways, and
      // no panel, button or heading is cut.
      await page.setViewportSize({ width, height: 900 });
      await open(page, 'chapter=kip1023-bootstrap&stop=5');
      const pic = (await page.getByTestId('offset-lanes').boundingBox())!;
      const story = (await page.getByTestId('chapter').boundingBox())!;
      const conditions = (await page.getByTestId('conditions').boundingBox())!;
      // On a phone (below 600 px) the stop card comes first, in the first screen (issue 31, item 3).
      if (width < 600) expect(story.y + story.height, 'the chapter is above the picture').toBeLessThan(pic.y + 1);
      else expect(story.y, 'the chapter is under the picture').toBeGreaterThan(pic.y + pic.height - 1);
      expect(conditions.y, 'the conditions are under the picture').toBeGreaterThan(pic.y + pic.height - 1);
      expect(pic.width, 'the picture uses the width').toBeGreaterThan(width - 60);
      expect(await clipped(page)).toEqual([]);
      // The playback bar stays at the top while the page scrolls.
      await page.getByTestId('conditions').scrollIntoViewIfNeeded();
      await expectInWindow(page, page.getByTestId('step-forward'), 'Step button after scrolling');
      await page.evaluate(() => scrollTo(0, 0));
      await page.screenshot({ path: join(SHOTS, `layout-chapter2-stop5-${width}px.png`), fullPage: width === 800 });
    });
  }

  test('the wide layout at 1100 px and more has no clipping either', async ({ page }) => {
    for (const width of [1100, 1280, 1920]) {
      await page.setViewportSize({ width, height: 900 });
      await open(page, 'chapter=wal-failover&stop=2');
      expect(await clipped(page), `at ${width} px`).toEqual([]);
    }
  });
});

test.describe('keyboard', () => {
  test('Space presses the focused button instead of starting playback', async ({ page }) => {
    // Goal: point 5: Space on a focused button does what the button says.
    await open(page, 'scenario=kip1023-bootstrap', 0);
    await page.getByTestId('step-forward').focus();
    await page.keyboard.press('Space');
    await expect(stepOut(page)).toHaveText('1');
    await expect(page.getByTestId('play')).toHaveAttribute('aria-pressed', 'false');
    await page.getByTestId('toggle-kip1023').focus();
    const before = await page.getByTestId('toggle-kip1023').getAttribute('aria-pressed');
    await page.keyboard.press('Space');
    await expect(page.getByTestId('toggle-kip1023')).not.toHaveAttribute('aria-pressed', before ?? '');
    await expect(page.getByTestId('play')).toHaveAttribute('aria-pressed', 'false');
    // With nothing focused, Space still plays and pauses.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Space');
    await expect(page.getByTestId('play')).toHaveAttribute('aria-pressed', 'true');
    await page.keyboard.press('Space');
    await expect(page.getByTestId('play')).toHaveAttribute('aria-pressed', 'false');
  });

  test('the help dialog takes the focus, keeps Tab inside and gives the focus back', async ({ page }) => {
    // Goal: point 5: the ? dialog is modal for the keyboard too.
    await open(page, 'scenario=kip1023-bootstrap', 0);
    const opener = page.getByRole('button', { name: /^Help/ });
    await opener.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Keyboard' });
    await expect(dialog).toBeVisible();
    const inDialog = () => page.evaluate(() => document.activeElement?.closest('dialog') !== null);
    expect(await inDialog(), 'focus moved into the dialog').toBe(true);
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      // Tab may visit the browser's own controls; it never lands on the page behind the dialog.
      expect(await page.evaluate(() => { const a = document.activeElement; return a === null || a === document.body || a.closest('dialog') !== null; }), `Tab ${i + 1}`).toBe(true);
    }
    // Keys of the page do nothing while the dialog is open.
    await page.keyboard.press('ArrowRight');
    await expect(stepOut(page)).toHaveText('0');
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(opener).toBeFocused();
    // Opened with ?, closed with ?.
    await page.keyboard.press('?');
    await expect(dialog).toBeVisible();
    expect(await inDialog()).toBe(true);
    await page.keyboard.press('?');
    await expect(dialog).toHaveCount(0);
  });
});

test('a file that fails validation names itself with its problems; the input keeps no name', async ({ page }) => {
  // Goal: point 10: the rejected file's name no longer sits beside the scenario that keeps running.
  await open(page, 'scenario=kip1023-bootstrap', 0);
  await page.getByTestId('scenario-file').setInputFiles(join(ROOT, 'test', 'fixtures', 'bad', 'missing-until.yaml'));
  await expect(page.getByTestId('scenario-problems')).toContainText('missing-until.yaml');
  await expect(page.getByTestId('scenario-problems')).toContainText('nothing changed');
  expect(await page.getByTestId('scenario-file').evaluate((el) => (el as HTMLInputElement).value)).toBe('');
  await expect(page.getByTestId('scenario-picker')).toHaveValue('kip1023-bootstrap');
  await page.getByTestId('scenario-problems').scrollIntoViewIfNeeded();
  await shot(page, 'rejected-file');
});
