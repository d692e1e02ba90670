/**
 * KIP-1176 in the browser walkthrough: the WAL toggle, the fast store's own lane (WAL
 * objects and the byte ranges of their chunks), a chunk's hops leader -> fast store ->
 * follower step by step, and the metrics and cost panel. As in walkthrough.spec.ts, the
 * page is driven only through its URL and visible controls, every wait is an auto-waiting
 * expectation, and any console or page error fails the test. Screenshots go to
 * test-results/screenshots/.
 */
import { join } from 'node:path';
import { type Page } from '@playwright/test';
import { SHOTS, expect, test } from './fixtures.js';

// ------------------------------------------------------------------ helpers

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
const stepOut = (page: Page) => page.getByTestId('step');
const currentNarration = (page: Page) => page.getByTestId('narration').locator(':scope > ol');
const walLane = (page: Page) => page.getByTestId('wal-lane');
/** A WAL object's group in the fast-store lane, by sequence number (wal#N). */
const walObject = (page: Page, seq: number) => page.locator(`[data-testid="wal-lane"] g.obj[data-seq="${seq}"]`);
const hops = (page: Page) => page.getByTestId('wal-hops');
/** Rows of the request lane drawn for the current step. */
const currentRows = (page: Page) => page.getByTestId('sequence').locator('g.row.current');

async function open(page: Page, query: string, step = 0): Promise<void> {
  await page.goto(`/?${query}`);
  await expect(stepOut(page)).toHaveText(String(step));
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
}

/** Steps forward with ArrowRight until the current narration contains `text`; returns the step. */
async function stepUntil(page: Page, text: string, limit = 40): Promise<number> {
  const from = Number(await stepOut(page).textContent());
  for (let n = from + 1; n <= from + limit; n++) {
    await page.keyboard.press('ArrowRight');
    await expect(stepOut(page)).toHaveText(String(n));
    if ((await currentNarration(page).innerText()).includes(text)) return n;
  }
  throw new Error(`no step within ${limit} of ${from} narrates ${JSON.stringify(text)}`);
}

/** Bounding boxes of the elements matching `selector` inside the page. */
async function boxes(page: Page, selector: string) {
  return page.locator(selector).evaluateAll((els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      return { x: r.x, y: r.y, w: r.width, h: r.height, text: el.textContent ?? '' };
    }),
  );
}

/** Cells of the metrics panel whose text does not fit them (cut off or spilling). */
async function cutCells(page: Page): Promise<string[]> {
  return page.getByTestId('metrics').locator('th, td').evaluateAll((cells) =>
    cells.filter((c) => c.scrollWidth > c.clientWidth + 1 || c.getBoundingClientRect().right > (c.closest('[data-testid="metrics"]') as HTMLElement).getBoundingClientRect().right + 1).map((c) => c.textContent ?? ''),
  );
}

function overlaps(a: { x: number; y: number; w: number; h: number }, b: { x: number; y: number; w: number; h: number }): boolean {
  return a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5;
}

// ------------------------------------------------------------------ tests

test('WAL steady state: a flush puts wal#1 in the fast-store lane with its chunk range, then a follower reads it', async ({ page }) => {
  // Goal: a learner sees one chunk go leader -> fast store -> followers, a step at a time:
  //   the object appears at its PUT (dashed: no metadata record yet) with chunk orders-0
  //   [0, 99] at bytes 0-102399, goes live when its record is published, is read by a
  //   ranged GET by each follower, and the followers append it; the follower's Fetch is
  //   answered "no records, HW only".
  // Method: open ?scenario=wal-steady-state; step with ArrowRight until the narration names
  //   each hop; check the lane's object and chunk attributes, the hop list, the details
  //   table and the request lane's current row at each.
  await open(page, 'scenario=wal-steady-state');
  await expect(walLane(page)).toBeVisible();
  await expect(page.getByTestId('wal-empty')).toContainText('no WAL objects now');
  await expect(page.getByTestId('toggle-wal')).toHaveAttribute('aria-pressed', 'true');

  // 1. The leader's combiner flushes: PUT wal#1. Before it, the followers' Fetch was
  //    answered with the high watermark only (the request lane keeps the latest rows).
  await stepUntil(page, 'PUT wal store broker-0/00000000000000000001.wal');
  await expect(page.getByTestId('sequence').locator('g.row[data-kind="response"]', { hasText: 'no records, HW only' })).not.toHaveCount(0);
  const o1 = walObject(page, 1);
  await expect(o1).toHaveAttribute('data-state', 'putting');
  await expect(o1).toHaveAttribute('data-bytes', '102400');
  await expect(o1).toHaveAttribute('data-touched', 'put');
  const chunk = o1.locator('g.chunk');
  await expect(chunk).toHaveCount(1);
  await expect(chunk).toHaveAttribute('data-partition', 'orders-0');
  await expect(chunk).toHaveAttribute('data-range', '0-102399');
  await expect(chunk).toHaveAttribute('data-offsets', '0-99');
  await expect(chunk).toHaveAttribute('data-epoch', '0');
  await expect(chunk.locator('text.chunk-label')).toHaveText('orders-0 [0, 99] e0');
  await expect(hops(page).locator('li[data-kind="put"]')).toHaveText('broker 0 → fast store: PUT wal#1 (100 KiB)');
  const details = page.getByTestId('wal-object-details');
  await expect(details).toContainText('broker-0/00000000000000000001.wal');
  await expect(details).toContainText('being put');
  await expect(details.locator('tr[data-partition="orders-0"]')).toContainText('0–102399');
  await expect(details.locator('tr[data-partition="orders-0"]')).toContainText('not yet');
  await expect(currentRows(page).filter({ hasText: 'PUT wal#1' })).toHaveAttribute('data-kind', 'objectStore');
  await shot(page, 'wal-steady-state-flush');

  // 2. The PUT is done: one record per chunk to __remote_wal_log_metadata.
  await stepUntil(page, 'metadata offset 0');
  await expect(o1).toHaveAttribute('data-state', 'live');
  await expect(hops(page).locator('li[data-kind="publish"]')).toContainText('__remote_wal_log_metadata');
  await expect(page.getByTestId('wal-metadata-retained')).toContainText('1 metadata records');
  await expect(details.locator('tr[data-partition="orders-0"] td').last()).toHaveText('0');

  // 3. Broker 1 reads the chunk's byte range.
  await stepUntil(page, 'broker 1 GET wal store');
  const get = hops(page).locator('li[data-kind="get"][data-broker="1"]');
  await expect(get).toHaveText('fast store → broker 1: ranged GET wal#1 bytes 0–102399 (orders-0)');
  await expect(o1).toHaveAttribute('data-touched', 'get');
  await expect(o1.locator('.badge')).toHaveText('GET by broker 1');
  await expect(o1.locator('rect.range-hit')).toHaveCount(1);
  await expect(currentRows(page).filter({ hasText: 'GET wal#1 bytes 0–102399' })).toHaveAttribute('data-kind', 'objectStore');
  await shot(page, 'wal-steady-state-follower-get');

  // 4. Broker 1 appends it as follower: the chunk reaches its log.
  await stepUntil(page, 'broker 1 orders-0: WAL chunk [0, 99]');
  await expect(hops(page).locator('li[data-kind="append"]')).toHaveText('broker 1 appended orders-0 [0, 99] from wal#1 as follower (100 records)');
  const arrived = currentRows(page).filter({ hasText: 'chunk [0, 99] appended' });
  await expect(arrived).toHaveAttribute('data-kind', 'walChunk');
  await expect(page.locator('[data-testid="offset-lanes"] g[data-marker="logEndOffset"][data-broker="1"]')).toHaveAttribute('data-offset', '100');
  await shot(page, 'wal-steady-state-follower-append');
});

test('the fast-store lane draws both partitions of a combined object, and its labels do not collide', async ({ page }) => {
  // Goal: in wal-acks-all-latency each object carries a chunk of clicks-0 and of
  //   payments-0 (patterns differ, and the legend names them); at 24 objects the lane
  //   says how many older ones it leaves out; no two boxes or object names overlap and
  //   the metrics panel fits its column at 1280x800.
  // Method: open at step 600 by URL; read the lane's attributes and the text boxes.
  await open(page, 'scenario=wal-acks-all-latency&step=600', 600);
  const objects = page.locator('[data-testid="wal-lane"] g.obj');
  await expect(objects).toHaveCount(24);
  await expect(page.getByTestId('wal-hidden')).toContainText(/^\+\d+ older not shown$/);
  const first = objects.first();
  await expect(first.locator('g.chunk')).toHaveCount(2);
  await expect(first.locator('g.chunk').nth(0)).toHaveAttribute('data-partition', 'clicks-0');
  await expect(first.locator('g.chunk').nth(1)).toHaveAttribute('data-partition', 'payments-0');
  const fills = await first.locator('g.chunk rect').evaluateAll((rs) => rs.map((r) => r.getAttribute('fill')));
  expect(new Set(fills).size).toBe(2);
  await expect(walLane(page).locator('.legend')).toContainText('clicks-0');
  await expect(walLane(page).locator('.legend')).toContainText('payments-0');

  const frames = await boxes(page, '[data-testid="wal-lane"] g.obj rect.outline');
  const names = await boxes(page, '[data-testid="wal-lane"] g.obj text.name');
  for (const list of [frames, names]) {
    for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) expect(overlaps(list[i], list[j]), `${list[i].text} / ${list[j].text}`).toBe(false);
  }
  // Everything inside the lane's width, and the metrics panel inside its column.
  const lane = (await walLane(page).boundingBox())!;
  for (const f of frames) expect(f.x + f.w).toBeLessThanOrEqual(lane.x + lane.width + 0.5);
  const metrics = page.getByTestId('metrics');
  expect(await metrics.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  expect(await cutCells(page)).toEqual([]);
  await shot(page, 'wal-acks-all-latency-step-600');
});

test("toggling WAL with 'w' on a classic scenario turns the fast store on for the topic, in the link too", async ({ page }) => {
  // Goal: w sets wal.enable on the selected partition's topic (a recorded action), the
  //   view says so, the fast-store lane and the request lane's fast-store column appear,
  //   and a reload of the link shows the same; w again turns it off.
  // Method: open steady-state-upload (classic), step twice, press w; check the toggle,
  //   the narration, the lane and the columns; reload; press w again.
  await open(page, 'scenario=steady-state-upload');
  const toggle = page.getByTestId('toggle-wal');
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(walLane(page)).toHaveCount(0);
  await expect(page.getByTestId('sequence')).not.toContainText('fast store');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(stepOut(page)).toHaveText('2');

  await page.keyboard.press('w');
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(toggle).toContainText('KIP-1176 WAL on');
  await expect(currentNarration(page)).toContainText('config wal.enable = true on orders');
  await expect(walLane(page)).toBeVisible();
  await expect(page.getByTestId('sequence').locator('svg[role=img] text.col-label', { hasText: 'fast store' })).toHaveCount(1);
  await expect(page.getByText('1 recorded action, kept in the link.')).toBeVisible();
  await expect(page).toHaveURL(/[?&#]actions=/);
  await shot(page, 'steady-state-upload-wal-toggled-on');

  await page.reload();
  await expect(stepOut(page)).toHaveText('2');
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(walLane(page)).toBeVisible();

  await page.keyboard.press('w');
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(currentNarration(page)).toContainText('config wal.enable = false on orders');
  await expect(walLane(page)).toHaveCount(0);
});

test("WAL turned on with 'w' replicates the next produce through the fast store; off again, Fetch carries records", async ({ page }) => {
  // Goal: the toggle changes the run, not only the config: after w on a classic scenario
  //   the leader's combiner PUTs the next records as a WAL object, the followers read it
  //   and append it, their Fetch is answered "no records, HW only", and no replication
  //   bytes cross zones; w again returns replication to Fetch.
  // Method: open steady-state-upload, press w at step 0, step until the first fast-store
  //   PUT and then a follower's append; End: fast-store PUTs, 0 replication bytes. Then
  //   Home, w on at step 0 and off again a few steps after the first append; End:
  //   replication bytes cross zones again.
  await open(page, 'scenario=steady-state-upload');
  await page.keyboard.press('w');
  await expect(page.getByTestId('toggle-wal')).toHaveAttribute('aria-pressed', 'true');
  await stepUntil(page, 'PUT wal store broker-0/00000000000000000001.wal', 60);
  await expect(walObject(page, 1)).toHaveAttribute('data-state', 'putting');
  await expect(walObject(page, 1).locator('g.chunk')).toHaveAttribute('data-partition', 'orders-0');
  const appended = await stepUntil(page, 'WAL chunk [0, 99] of broker-0/00000000000000000001.wal appended', 20);
  await expect(hops(page).locator('li[data-kind="append"]')).toContainText('from wal#1 as follower');
  await stepUntil(page, 'Fetch orders-0 at offset 100', 10);
  await shot(page, 'steady-state-upload-wal-on-first-append');
  await page.keyboard.press('End');
  await expect(page.getByTestId('step-forward')).toBeDisabled();
  expect(Number(await page.getByTestId('store-wal-puts').textContent())).toBeGreaterThan(30);
  await expect(page.getByTestId('cz-replication')).toHaveAttribute('data-value', '0');
  await expect(page.getByTestId('sequence').locator('g.row[data-kind="response"]', { hasText: 'no records, HW only' })).not.toHaveCount(0);

  // Off again mid-run: replication returns to Fetch and crosses zones.
  await page.keyboard.press('Home');
  await expect(stepOut(page)).toHaveText('0');
  for (let n = 1; n <= appended + 4; n++) await page.keyboard.press('ArrowRight');
  await expect(stepOut(page)).toHaveText(String(appended + 4));
  await page.keyboard.press('w');
  await expect(page.getByTestId('toggle-wal')).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByText('2 recorded actions, kept in the link.')).toBeVisible();
  await page.keyboard.press('End');
  await expect(page.getByTestId('step-forward')).toBeDisabled();
  expect(Number(await page.getByTestId('cz-replication').getAttribute('data-value'))).toBeGreaterThan(0);
  expect(Number(await page.getByTestId('store-wal-puts').textContent())).toBeLessThan(5);
});

test("the fast store goes down with 'f' (and only it): PUTs fail, records wait outside any object", async ({ page }) => {
  // Goal: f takes the WAL's fast store down without touching the tiered store (o); the
  //   lane says DOWN, the leader's PUT fails as an error row and a failed hop, and the
  //   records it could not write are listed as not in an object yet.
  // Method: open wal-steady-state, press f at step 0; step until the narration says the
  //   object was not written; press f again: up.
  await open(page, 'scenario=wal-steady-state');
  await page.keyboard.press('f');
  await expect(page.getByTestId('toggle-fast-store')).toContainText('fast store (WAL) DOWN');
  await expect(page.getByTestId('toggle-fast-store')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('toggle-store')).toContainText('tiered object store up');
  await expect(page.getByTestId('wal-store-down')).toBeVisible();
  await stepUntil(page, 'not written');
  await expect(hops(page).locator('li.failed')).toContainText('not written');
  await expect(page.getByTestId('sequence').locator('g.row[data-error="true"]', { hasText: 'PUT wal#1' })).toHaveCount(1);
  await expect(page.getByTestId('wal-pending')).toContainText('orders-0 [0, 99] on broker 0');
  await expect(page.getByTestId('wal-pending')).toContainText('the fast store is down');
  await expect(walObject(page, 1)).toHaveCount(0);
  await shot(page, 'wal-steady-state-fast-store-down');
  await page.keyboard.press('f');
  await expect(page.getByTestId('toggle-fast-store')).toContainText('fast store (WAL) up');
  await expect(page.getByTestId('wal-store-down')).toHaveCount(0);
});

test('the metrics panel: no replication bytes (and no cross-zone cost) with WAL, about twice the produced bytes without', async ({ page }) => {
  // Goal: beside the picture, the run's cross-zone bytes, object-store requests, produce
  //   latency by acks and cost, updated as the run steps (the figures of the JSON output).
  // Method: wal-steady-state: at step 0 everything is zero; step to the first metadata
  //   record (WAL metadata bytes appear); End: replication 0, fast-store PUTs, acks=all
  //   p50, a cost. Then steady-state-upload (classic) at its end: replication bytes.
  await open(page, 'scenario=wal-steady-state');
  const panel = page.getByTestId('metrics');
  await expect(panel).toBeVisible();
  await expect(page.getByTestId('cz-total')).toHaveText('0 B');
  await expect(page.getByTestId('cost-total')).toHaveText('$0');
  await stepUntil(page, 'metadata offset 0');
  await expect(page.getByTestId('cz-walMetadata')).not.toHaveAttribute('data-value', '0');
  await expect(page.getByTestId('store-wal-puts')).toHaveText('1');

  await page.keyboard.press('End');
  await expect(page.getByTestId('step-forward')).toBeDisabled();
  await expect(page.getByTestId('cz-replication')).toHaveAttribute('data-value', '0');
  await expect(page.getByTestId('cz-replication')).toHaveText('0 B');
  expect(Number(await page.getByTestId('store-wal-puts').textContent())).toBeGreaterThan(30);
  expect(Number(await page.getByTestId('store-wal-gets').textContent())).toBeGreaterThan(60);
  await expect(page.getByTestId('latency-acksAll-p50')).toHaveText(/^\d+$/);
  const walCost = Number(await page.getByTestId('cost-total').getAttribute('data-value'));
  expect(walCost).toBeGreaterThan(0);
  await expect(page.getByTestId('cost-crossZone')).toHaveText('$0');
  await expect(page.getByTestId('cost-total')).toHaveText(/^\$0\.0\d+$/);
  await expect(page.getByTestId('metrics-wal-metadata')).toContainText('records written');
  expect(await cutCells(page)).toEqual([]);
  await shot(page, 'wal-steady-state-end-metrics');

  await open(page, 'scenario=steady-state-upload');
  await page.keyboard.press('End');
  await expect(page.getByTestId('step-forward')).toBeDisabled();
  const replication = Number(await page.getByTestId('cz-replication').getAttribute('data-value'));
  // 40 produces of 100 KiB, replicated to two followers in other zones.
  expect(replication).toBeGreaterThan(1.5 * 40 * 102400);
  await expect(page.getByTestId('store-wal-puts')).toHaveText('0');
  await expect(page.getByTestId('cost-crossZone')).not.toHaveText('$0');
  expect(await cutCells(page)).toEqual([]);
  await shot(page, 'steady-state-upload-end-metrics');
});
