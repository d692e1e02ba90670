// @vitest-environment happy-dom
/**
 * The statechart view's helpers: the ELK layout holds every state and transition of each
 * machine (boxes, arrows, internal rows; nested boxes inside their parents), the arrow labels'
 * lines, pan/zoom's arithmetic, the machines' doc comments, and the hosted inspector's
 * offline answer (no window opened).
 */
import { describe, expect, test } from 'vitest';
import { MACHINES, type MachineName } from '../core/sim/runtime/machines.js';
import { GUARD_CHECKS } from '../web/lib/chart-kit.js';
import { InspectionLog } from '../web/lib/inspect.js';
import { docsOf } from '../web/lib/machine-docs.js';
import { PanZoom, transformString } from '../web/lib/pan-zoom.js';
import { machineGraph } from '../web/lib/statechart-graph.js';
import { labelLines, layoutMachine } from '../web/lib/statechart-layout.js';
import { OFFLINE_NOTE, attach } from '../web/lib/stately-host.js';

const NAMES = Object.keys(MACHINES) as MachineName[];

describe('layoutMachine', () => {
  test.each(NAMES)('%s: a box per state, inside its parent; an arrow or a row per transition', async (name) => {
    const g = machineGraph(MACHINES[name], GUARD_CHECKS);
    const l = await layoutMachine(g);
    expect(l.boxes.map((b) => b.path).sort()).toEqual(g.states.map((s) => s.path).sort());
    const drawn = [...l.edges.map((e) => e.transition.id), ...l.boxes.flatMap((b) => b.internal.map((t) => t.id))];
    expect(new Set(drawn).size).toBe(g.transitions.length);
    expect(drawn.length).toBe(g.transitions.reduce((n, t) => n + Math.max(1, t.targets.length), 0));
    const box = new Map(l.boxes.map((b) => [b.path, b]));
    for (const s of g.states) {
      if (s.parent === null) continue;
      const [c, p] = [box.get(s.path)!, box.get(s.parent)!];
      expect(c.x).toBeGreaterThanOrEqual(p.x - 0.5);
      expect(c.y).toBeGreaterThanOrEqual(p.y - 0.5);
      expect(c.x + c.width).toBeLessThanOrEqual(p.x + p.width + 0.5);
      expect(c.y + c.height).toBeLessThanOrEqual(p.y + p.height + 0.5);
    }
    for (const e of l.edges) expect(e.d).toMatch(/^M[\d.-]+,[\d.-]+( L[\d.-]+,[\d.-]+)+/);
    expect(l.width).toBeGreaterThan(0);
  });
});

describe('labelLines', () => {
  test('event, then the guard in brackets, broken before && and || when long', () => {
    const g = machineGraph(MACHINES.fetcher, GUARD_CHECKS);
    const t = g.transitions.find((x) => x.guard === '(isOffsetOutOfRange || isOffsetMovedToTieredStorage) && isKip1023Eligible')!;
    expect(labelLines(t)).toEqual(['fetch.responded', '[(isOffsetOutOfRange', '|| isOffsetMovedToTieredStorage)', '&& isKip1023Eligible]']);
    const plain = g.transitions.find((x) => x.guard === null && !x.eventless)!;
    expect(labelLines(plain)).toEqual([plain.event]);
  });
});

describe('PanZoom', () => {
  test('zooms about a point, clamps the scale, centres a point', () => {
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    Object.defineProperty(svg, 'clientWidth', { value: 400 });
    Object.defineProperty(svg, 'clientHeight', { value: 300 });
    const seen: string[] = [];
    const z = new PanZoom(svg, (t) => seen.push(transformString(t)), 0.1, 4);
    z.set({ x: 10, y: 20, k: 1 });
    z.scaleBy(2, 110, 120);
    // The point under (110, 120) stays there.
    expect(z.t).toEqual({ x: -90, y: -80, k: 2 });
    expect(z.apply(100, 100)).toEqual([110, 120]);
    z.scaleBy(100);
    expect(z.t.k).toBe(4);
    z.translateTo(50, 50);
    expect(z.apply(50, 50)).toEqual([200, 150]);
    expect(seen.at(-1)).toBe('translate(0.00,-50.00) scale(4.0000)');
    z.destroy();
  });
});

describe('doc comments', () => {
  test("a machine's opening comment, its states' and guards'", () => {
    const d = docsOf('logRetention');
    expect(d.file).toBe('core/machines/log-retention.ts');
    expect(d.machine).toMatch(/^Local retention of one partition replica/);
    expect(d.names.get('idle')).toBe("Waiting for the broker's next log retention run.");
    expect(d.names.get('scheduleTask')).toMatch(/^Effect: fire `retention.due`/);
    for (const n of NAMES) expect(docsOf(n).machine.length, n).toBeGreaterThan(40);
  });
});

describe('the hosted inspector offline', () => {
  test('says so and opens nothing when stately.ai cannot be reached', async () => {
    const opened: unknown[] = [];
    const open = window.open;
    window.open = ((...a: unknown[]) => (opened.push(a), null)) as typeof window.open;
    try {
      expect(await attach(new InspectionLog(), async () => false)).toBe(OFFLINE_NOTE);
      expect(opened).toEqual([]);
    } finally {
      window.open = open;
    }
  });
});
