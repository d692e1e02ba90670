/**
 * The statechart view (issue 31, item 1): every state and transition of each machine drawn
 * (counted here against the machine definitions, read independently of the page: the
 * configs passed to `createMachine`), the active state lit and the transition a step took
 * highlighted, all with the network outside this host blocked; the hosted inspector says it
 * is offline instead of opening an error page; axe finds nothing serious or critical.
 * Every wait is an auto-waiting expectation on the DOM, never a sleep. Screenshots go to
 * test-results/screenshots/statecharts-*.png (docs/screenshots/ keeps two of them).
 */
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type Page } from '@playwright/test';
import { MACHINES, type MachineName } from '../../core/sim/runtime/machines.js';
import { SHOTS, expect, test } from './fixtures.js';

interface Config {
  states?: Record<string, Config>;
  on?: Record<string, unknown>;
  always?: unknown;
}
const many = (x: unknown): number => (x === undefined ? 0 : Array.isArray(x) ? x.length : 1);
/** States (the machine's own box included) and transitions of a machine config. */
function count(c: Config): { states: number; transitions: number } {
  let states = 1;
  let transitions = many(c.always) + Object.values(c.on ?? {}).reduce<number>((n, l) => n + many(l), 0);
  for (const child of Object.values(c.states ?? {})) {
    const sub = count(child);
    states += sub.states;
    transitions += sub.transitions;
  }
  return { states, transitions };
}
const NAMES = Object.keys(MACHINES) as MachineName[];
const EXPECTED = Object.fromEntries(NAMES.map((n) => [n, count(MACHINES[n].config as Config)])) as Record<MachineName, { states: number; transitions: number }>;

const chart = (page: Page) => page.getByTestId('statechart');

/** Blocks every request that does not go to this test server. */
async function offline(page: Page): Promise<string[]> {
  const blocked: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.hostname === 'localhost') return route.continue();
    blocked.push(url.href);
    return route.abort('internetdisconnected');
  });
  return blocked;
}

async function openView(page: Page, query: string): Promise<void> {
  await page.goto(`/?${query}`);
  await expect(page.getByTestId('offset-lanes')).toBeVisible();
  await expect(page.getByTestId('progress')).toHaveCount(0);
  await page.getByTestId('open-statecharts').click();
  await expect(page.getByTestId('statechart-view')).toBeVisible();
  await expect(chart(page)).toHaveAttribute('data-ready', 'true');
}

async function showMachine(page: Page, name: MachineName): Promise<void> {
  await page.getByTestId(`sc-tab-${name}`).click();
  await expect(chart(page)).toHaveAttribute('data-machine', name);
  await expect(chart(page)).toHaveAttribute('data-ready', 'true');
}

/** Selects a drawn state or transition from the keyboard (it may be outside the part in view). */
async function pick(el: ReturnType<Page['locator']>): Promise<void> {
  await el.focus();
  await el.press('Enter');
}

/** Distinct transition ids drawn (arrows and internal rows). */
const transitionIds = (page: Page) => chart(page).locator('[data-transition]').evaluateAll((els) => [...new Set(els.map((e) => e.getAttribute('data-transition')))].length);

/** Messages of the blocked requests (Chromium logs each as a console error): not errors of the page. */
const dropBlockedNoise = (errors: string[]) => {
  for (let i = errors.length - 1; i >= 0; i--) if (/Failed to load resource: net::ERR_INTERNET_DISCONNECTED/.test(errors[i])) errors.splice(i, 1);
};

test('every state and every transition of each machine is drawn, offline', async ({ page, pageErrors }) => {
  const blocked = await offline(page);
  await openView(page, 'scenario=wal-steady-state');
  for (const name of NAMES) {
    await showMachine(page, name);
    const { states, transitions } = EXPECTED[name];
    await expect(chart(page).locator('g.state[data-state]'), `${name}: state boxes`).toHaveCount(states);
    expect(await transitionIds(page), `${name}: transitions`).toBe(transitions);
    // One drawn element per transition: an arrow (a target) or a row inside its state (none).
    const arrows = await chart(page).locator('g.transition.edge').count();
    const rows = await chart(page).locator('g.transition.internal').count();
    expect(arrows + rows, `${name}: arrows + internal rows`).toBe(transitions);
    // Every arrow has a path and a label.
    for (const g of await chart(page).locator('g.transition.edge').all()) {
      await expect(g.locator('path.line')).toHaveAttribute('d', /^M/);
      await expect(g.locator('text.label')).not.toHaveText('');
    }
  }
  expect(blocked).toEqual([]);
  dropBlockedNoise(pageErrors);
});

test('a step lights the active state and highlights the transition it took; details on click', async ({ page }) => {
  await offline(page);
  await openView(page, 'scenario=kip1023-bootstrap');
  await showMachine(page, 'fetcher');
  await page.getByTestId('sc-broker').selectOption('1');
  const lit = chart(page).locator('[data-lit="true"]');
  const taken = chart(page).locator('[data-taken="true"]');
  await expect(lit).toHaveCount(1);
  await expect(lit).toHaveAttribute('data-state', (await page.getByTestId('sc-active').innerText()).trim());
  // Step until the fetcher of broker 1 takes a transition that moves it (an arrow).
  let step = Number(await page.getByTestId('sc-step').innerText());
  let found = false;
  for (let i = 0; i < 40 && !found; i++) {
    await page.getByTestId('sc-forward').click();
    step++;
    await expect(page.getByTestId('sc-step')).toHaveText(String(step));
    found = (await chart(page).locator('g.edge[data-taken="true"]').count()) > 0;
  }
  expect(found, 'a step moved the fetcher of broker 1 along an arrow').toBe(true);
  const active = (await page.getByTestId('sc-active').innerText()).trim();
  await expect(lit).toHaveAttribute('data-state', active);
  await expect(taken.first()).toBeVisible();
  await expect(page.getByTestId('sc-status')).toContainText('this step');
  // The arrow taken last ends at the lit state or at one of its ancestors.
  const target = await chart(page).locator('g.edge[data-taken="true"]').last().getAttribute('aria-label');
  expect(target).toMatch(/ to [\w.]+: /);
  const to = /to ([\w.]+):/.exec(target!)![1];
  expect(active === to || active.startsWith(`${to}.`)).toBe(true);
  // Click the taken transition: its event, guard and actions.
  await pick(chart(page).locator('g.edge[data-taken="true"]').last());
  await expect(page.getByTestId('sc-details')).toContainText('Transition');
  await expect(page.getByTestId('sc-details')).toContainText('Taken in this step.');
  await expect(page.getByTestId('sc-details')).toContainText('Guard');
  await expect(page.getByTestId('sc-details')).toContainText('Actions');
  await page.screenshot({ path: join(SHOTS, `statecharts-fetcher-step${step}-1280x800.png`) });
  // The same on a phone: the active state centred, the taken arrow in the picture.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByTestId('sc-focus').click();
  await expect(lit).toBeInViewport();
  await page.screenshot({ path: join(SHOTS, `statecharts-fetcher-step${step}-390x844.png`) });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByTestId('sc-focus').click();
  await expect(lit).toBeInViewport();

  // Click a state: its doc comment and transitions.
  await pick(chart(page).locator(`g.state[data-state="${active}"]`));
  await expect(page.getByTestId('sc-details')).toContainText(`State ${active}`);
  await expect(page.getByTestId('sc-details')).toContainText('Active now on broker 1.');

  // A rule behind a transition: the log retention machine's roll explains rollForLocalRetention.
  await showMachine(page, 'logRetention');
  await chart(page).locator('g.internal[data-transition="running|retention.step|1"]').click();
  await expect(page.getByTestId('sc-details')).toContainText('shouldRollActive');
  await expect(page.getByTestId('sc-details')).toContainText('rollForLocalRetention');

  // Back on the page: the view closes and the walkthrough goes on.
  await page.getByTestId('statechart-close').click();
  await expect(page.getByTestId('statechart-view')).toHaveCount(0);
  await expect(page.getByTestId('step')).toHaveText(String(step));
});

test('opened at a step already taken (a link to step 1), the view shows what that step did', async ({ page }) => {
  await offline(page);
  await page.goto('/?scenario=kip1023-bootstrap&step=1');
  await expect(page.getByTestId('step')).toHaveText('1');
  await expect(page.getByTestId('progress')).toHaveCount(0);
  const before = await page.getByTestId('machine-states').innerText();
  await page.getByTestId('open-statecharts').click();
  await expect(chart(page)).toHaveAttribute('data-ready', 'true');
  await showMachine(page, 'fetcher');
  await page.getByTestId('sc-broker').selectOption('1');
  await expect(chart(page).locator('g.edge[data-taken="true"]')).not.toHaveCount(0);
  await expect(page.getByTestId('sc-step')).toHaveText('1');
  await page.getByTestId('statechart-close').click();
  // Taking the step again changed nothing on the page.
  await expect(page.getByTestId('step')).toHaveText('1');
  expect(await page.getByTestId('machine-states').innerText()).toBe(before);
});

test('the hosted inspector says it is offline instead of failing', async ({ page, pageErrors }) => {
  const blocked = await offline(page);
  await openView(page, 'scenario=kip1023-bootstrap');
  const popups: string[] = [];
  page.on('popup', (p) => popups.push(p.url()));
  await page.getByTestId('sc-open-inspector').click();
  await expect(page.getByTestId('sc-inspector-note')).toContainText('Offline');
  await expect(page.getByTestId('sc-inspector-note')).toContainText('works offline');
  expect(popups).toEqual([]);
  expect(blocked.every((u) => u.startsWith('https://stately.ai/'))).toBe(true);
  dropBlockedNoise(pageErrors);
});

test('axe: nothing serious or critical in the view, wide and on a phone', async ({ page }) => {
  await offline(page);
  for (const vp of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    await page.setViewportSize(vp);
    await openView(page, 'scenario=kip1023-bootstrap');
    await showMachine(page, 'fetcher');
    await page.getByTestId('sc-forward').click();
    await expect(page.getByTestId('sc-step')).toHaveText('1');
    await pick(chart(page).locator('g.state[data-state=""]'));
    const r = await new AxeBuilder({ page }).include('[data-testid="statechart-view"]').analyze();
    const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')})`);
    expect(bad, `${vp.width}x${vp.height}`).toEqual([]);
    // Nothing clipped: the dialog fits the window, its bar and the chart are inside it.
    const box = await page.getByTestId('statechart-view').boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(vp.width + 1);
    const svgBox = await chart(page).boundingBox();
    expect(svgBox!.width).toBeGreaterThan(vp.width * (vp.width < 900 ? 0.9 : 0.6));
    expect(svgBox!.height).toBeGreaterThan(200);
    if (vp.width < 500) await page.screenshot({ path: join(SHOTS, `statecharts-axe-${vp.width}x${vp.height}.png`) });
    await page.getByTestId('statechart-close').click();
  }
});

test('pan and zoom: Fit shows the whole machine, the buttons and the wheel scale it', async ({ page }) => {
  await offline(page);
  await openView(page, 'scenario=kip1023-bootstrap');
  await showMachine(page, 'fetcher');
  const g = chart(page).locator(':scope > g');
  const scale = async () => Number(/scale\(([\d.]+)/.exec((await g.getAttribute('transform')) ?? '')?.[1] ?? 'NaN');
  await page.getByTestId('sc-fit').click();
  await expect.poll(scale).toBeGreaterThan(0);
  const whole = await scale();
  // The whole machine fits the drawing area.
  const area = (await chart(page).boundingBox())!;
  const drawn = (await g.boundingBox())!;
  expect(drawn.width).toBeLessThanOrEqual(area.width + 1);
  expect(drawn.height).toBeLessThanOrEqual(area.height + 1);
  await page.getByRole('button', { name: 'Zoom in' }).click();
  await expect.poll(scale).toBeGreaterThan(whole);
  const zoomed = await scale();
  await chart(page).hover();
  await page.mouse.wheel(0, 400);
  await expect.poll(scale).toBeLessThan(zoomed);
  await page.getByTestId('sc-fit').click();
  await expect.poll(scale).toBeCloseTo(whole, 3);
  // Active: back at a readable scale on the lit state.
  await page.getByTestId('sc-focus').click();
  await expect.poll(scale).toBeGreaterThan(whole);
});
