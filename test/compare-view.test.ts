/**
 * The side-by-side view's pure parts (issue 8): the shared cursor over two runs' step
 * times, the runs resolved once with their figures per step, the sampled chart series,
 * the URL, the metrics table's words and the chart layouts.
 */
import { describe, expect, test } from 'vitest';
import { Session } from '../core/session/session.js';
import { compare, formatCompare, type Mode, MONTH_MIN_WINDOW_MS, MONTH_MS, MONTH_TOO_EARLY, monthAtRate } from '../core/study/compare.js';
import {
  cursorAt,
  mergeStepTimes,
  pointAt,
  resolveSide,
  sampleSeries,
  type SeriesMetric,
  stepAtOrBefore,
  stepsAt,
} from '../core/study/compare-timeline.js';
import { barChartLayout, integerTicks, labelWidth, lineChartLayout, tickFormat, wrapLabel } from '../web/compare/charts.js';
import { MONTH_EARLY_CELL, MONTH_NOTE, breakdown, difference, headline, runsAsWritten, steadyNone, steadyRows, tableRows } from '../web/compare/figures.js';
import { defaultModes, encodeCompareQuery, parseCompareQuery, walkthroughHref } from '../web/compare/params.js';
import { decodeUrlState, encodePageLink, encodeUrlState } from '../web/lib/url.js';
import { loadBundled } from './support/run.js';

describe('the shared cursor', () => {
  test('merged step times are the distinct times of both runs, ascending', () => {
    expect(mergeStepTimes([0, 0, 2, 5, 5, 9], [0, 1, 5, 12], [12])).toEqual([0, 1, 2, 5, 9, 12]);
    expect(mergeStepTimes([], [])).toEqual([]);
  });

  test.each([
    // times, t, latest step at or before t
    [[0, 0, 2, 5, 5, 9], 0, 1],
    [[0, 0, 2, 5, 5, 9], 1, 1],
    [[0, 0, 2, 5, 5, 9], 5, 4],
    [[0, 0, 2, 5, 5, 9], 8, 4],
    [[0, 0, 2, 5, 5, 9], 9, 5],
    [[0, 0, 2, 5, 5, 9], 100, 5],
    [[3, 4], 1, 0],
    [[], 7, 0],
  ])('stepAtOrBefore(%j, %i) = %i', (times, t, step) => {
    expect(stepAtOrBefore(times, t)).toBe(step);
  });

  test('a cursor position maps each side to the steps it took to get there', () => {
    const a = [0, 0, 2, 5, 5, 9];
    const b = [0, 1, 5, 12];
    const merged = mergeStepTimes(a, b); // [0, 1, 2, 5, 9, 12]
    expect(cursorAt(merged, 6)).toBe(3);
    // Position 0 (t = 0): everything up to the last step at 0, from the trace's start.
    expect(stepsAt(a, merged, 0)).toEqual({ from: -1, to: 1 });
    // t = 1: nothing happened in run a, step 1 in run b.
    expect(stepsAt(a, merged, 1)).toEqual({ from: 1, to: 1 });
    expect(stepsAt(b, merged, 1)).toEqual({ from: 0, to: 1 });
    // t = 5: two steps of run a at once.
    expect(stepsAt(a, merged, 3)).toEqual({ from: 2, to: 4 });
    expect(stepsAt(b, merged, 5)).toEqual({ from: 2, to: 3 });
  });
});

describe('resolving a side', () => {
  const s = loadBundled('wal-steady-state');
  const modes: Mode[] = ['classic', 'wal'];
  const started = performance.now();
  const sides = modes.map((m) => resolveSide(s, m));
  const ms = performance.now() - started;
  const rows = compare(s, modes).modes;

  test('the end figures are exactly compare()\'s rows', () => {
    // eslint-disable-next-line no-console
    console.log(`wal-steady-state resolved in ${ms.toFixed(0)} ms: ${sides.map((x) => `${x.mode} ${x.stepTimes.length - 1} steps`).join(', ')}`);
    for (let i = 0; i < 2; i++) {
      expect(sides[i].row).toEqual(rows[i]);
      const e = sides[i].end;
      expect(e.atMs).toBe(rows[i].endMs);
      expect(e.bytesFromLeader).toBe(rows[i].bytesFromLeader);
      expect(e.crossZoneBytes).toBe(rows[i].crossZoneBytes);
      expect(e.tieredRequests + e.walRequests).toBe(rows[i].objectStore.requests);
      expect(e.walRequests).toBe(rows[i].objectStore.walRequests);
      expect(e.costUsd).toBe(rows[i].costUsd?.run);
      expect(e.costUsdMonth).toBe(rows[i].costUsd?.month);
      expect(e.acksAllP50).toBe(rows[i].produce.acksAll.p50);
      expect(e.catchUpMs).toBe(rows[i].catchUpMs);
      expect(e.remoteReadsAfterFailover).toBe(rows[i].remoteReadsAfterFailover.count);
    }
    // The design-review figures: the WAL saves the cross-zone replication and pays in fast-store requests.
    expect(rows[0].crossZoneBytes).toBeGreaterThan(7 * 1024 * 1024);
    expect(rows[1].crossZoneBytes).toBeLessThan(32 * 1024);
    expect(rows[0].objectStore.walRequests).toBe(0);
    expect(rows[1].objectStore.walRequests).toBeGreaterThan(100);
  });

  test('step times and trace ends are those of a plain session; points follow the steps', () => {
    const plain = new Session(sides[1].scenario, sides[1].seed);
    const times = [plain.kernel.state.nowMs];
    while (plain.forward()) times.push(plain.kernel.state.nowMs);
    expect(sides[1].stepTimes).toEqual(times);
    for (const side of sides) {
      expect(side.points.length).toBe(side.stepTimes.length);
      expect(side.traceEnds.length).toBe(side.stepTimes.length);
      for (let i = 1; i < side.stepTimes.length; i++) {
        expect(side.stepTimes[i]).toBeGreaterThanOrEqual(side.stepTimes[i - 1]);
        expect(side.traceEnds[i]).toBeGreaterThanOrEqual(side.traceEnds[i - 1]);
        expect(side.points[i].atMs).toBe(side.stepTimes[i]);
      }
    }
  });

  test('the session can show any step again after resolving (goTo restores and replays)', () => {
    const side = sides[0];
    const n = Math.floor(side.stepTimes.length / 2);
    side.session.goTo(n);
    expect(side.session.step).toBe(n);
    expect(side.session.kernel.state.nowMs).toBe(side.stepTimes[n]);
    expect(side.session.kernel.trace.length).toBe(side.traceEnds[n]);
    expect(side.session.kernel.state.metrics.bytesFetchedByFollowers).toBe(side.points[n].bytesFromLeader);
  });

  test.each<SeriesMetric>(['bytesFromLeader', 'crossZoneBytes', 'requests', 'walRequests', 'costUsd'])('the sampled series of %s is monotone and ends at the compare() figure', (metric) => {
    for (let i = 0; i < 2; i++) {
      const series = sampleSeries(sides[i], metric, 100);
      expect(series.length).toBe(101);
      expect(series[0].atMs).toBe(0);
      for (let j = 1; j < series.length; j++) {
        expect(series[j].atMs).toBeGreaterThan(series[j - 1].atMs);
        expect(series[j].value).toBeGreaterThanOrEqual(series[j - 1].value);
      }
      const last = series[series.length - 1];
      expect(last.atMs).toBe(rows[i].endMs);
      const r = rows[i];
      const expected = {
        bytesFromLeader: r.bytesFromLeader,
        crossZoneBytes: r.crossZoneBytes,
        requests: r.objectStore.requests,
        walRequests: r.objectStore.walRequests,
        costUsd: r.costUsd?.run,
      }[metric as string];
      expect(last.value).toBe(expected);
    }
  });

  test('pointAt: the latest step at or before the cursor, and the end figures from the end on', () => {
    const side = sides[1];
    expect(pointAt(side, side.endMs)).toBe(side.end);
    const t = side.stepTimes[100];
    expect(pointAt(side, t)).toBe(side.points[stepAtOrBefore(side.stepTimes, t)]);
    expect(pointAt(side, 0).crossZoneBytes).toBe(0);
  });

  test('resolving is deterministic', () => {
    const again = resolveSide(s, 'wal');
    expect(again.stepTimes).toEqual(sides[1].stepTimes);
    expect(again.points).toEqual(sides[1].points);
  });

  test('catch-up and remote reads per step agree with compare() on a failover scenario', () => {
    const f = loadBundled('kip1023-promoted-follower-remote-reads');
    const r = compare(f, ['classic', 'kip1023']).modes;
    for (const [i, m] of (['classic', 'kip1023'] as const).entries()) {
      const side = resolveSide(f, m);
      expect(side.end.remoteReadsAfterFailover).toBe(r[i].remoteReadsAfterFailover.count);
      expect(side.points[side.points.length - 1].remoteReadsAfterFailover).toBe(r[i].remoteReadsAfterFailover.count);
      expect(side.points[side.points.length - 1].catchUpMs).toBe(r[i].catchUpMs);
    }
    expect(r[1].remoteReadsAfterFailover.count).toBeGreaterThan(0);
  });
});

describe('the link', () => {
  const ids = ['wal-steady-state', 'kip1023-bootstrap'];
  const scenarioOf = (id: string) => loadBundled(id);

  test('modes, t, seed and present are read; commas stay readable', () => {
    const q = parseCompareQuery('?compare=kip1023-bootstrap&modes=kip1023,wal&t=120&seed=7&present=1', ids, scenarioOf);
    expect(q).toMatchObject({ scenario: 'kip1023-bootstrap', modes: ['kip1023', 'wal'], modesGiven: true, tMs: 120, seed: 7, present: true, problems: [] });
    expect(encodeCompareQuery({ scenario: 'wal-steady-state', modes: ['classic', 'wal'], tMs: 500 })).toBe('compare=wal-steady-state&modes=classic,wal&t=500');
  });

  test('default pair: classic and WAL for a WAL scenario, classic and KIP-1023 otherwise', () => {
    expect(defaultModes('wal-steady-state', loadBundled('wal-steady-state'))).toEqual(['classic', 'wal']);
    expect(defaultModes('kip1023-bootstrap', loadBundled('kip1023-bootstrap'))).toEqual(['classic', 'kip1023']);
    expect(defaultModes('wal-anything', null)).toEqual(['classic', 'wal']);
    expect(parseCompareQuery('?compare=kip1023-bootstrap', ids, scenarioOf).modes).toEqual(['classic', 'kip1023']);
  });

  test.each([
    ['?compare=wal-steady-state&modes=classic,bogus', /modes: .*got "classic,bogus"; showing classic, wal/],
    ['?compare=wal-steady-state&modes=wal,wal', /modes: .*got "wal,wal"/],
    ['?compare=wal-steady-state&modes=classic', /modes: .*got "classic"/],
    ['?compare=nope', /compare: no bundled scenario "nope"; showing wal-steady-state/],
    ['?compare=wal-steady-state&t=-5', /t: expected a whole number of milliseconds, got "-5"/],
    ['?compare=wal-steady-state&seed=x', /seed: expected a whole number, got "x"/],
    ['?compare=wal-steady-state&step=4', /step: kept for the way back to the walkthrough; .*t=<ms>/],
    ['?compare=wal-steady-state&present=maybe', /present: expected 1 or 0/],
  ])('%s gives a note and a sensible fallback', (search, note) => {
    const q = parseCompareQuery(search, ids, scenarioOf);
    expect(q.problems.join('\n')).toMatch(note);
    expect(ids).toContain(q.scenario);
    expect(q.modes[0]).not.toBe(q.modes[1]);
  });

  test('the way there and back: a chapter and its stop', () => {
    // Goal: issue 18, point 8. The walkthrough at chapter kip1023-bootstrap, stop 3, opens
    // the side-by-side view of its scenario; the way back is the same chapter and stop.
    const there = encodeCompareQuery({ scenario: 'kip1023-bootstrap', chapter: 'kip1023-bootstrap', stop: 3, tMs: 6, actions: [] });
    expect(there).toBe('compare=kip1023-bootstrap&chapter=kip1023-bootstrap&stop=3&t=6');
    const q = parseCompareQuery(`?${there}`, ids, scenarioOf);
    expect(q).toMatchObject({ scenario: 'kip1023-bootstrap', chapter: 'kip1023-bootstrap', stop: 3, tMs: 6, problems: [] });
    expect(walkthroughHref(q)).toBe('./?chapter=kip1023-bootstrap&stop=3');
    // compare= empty with a chapter: the chapter's scenario.
    expect(parseCompareQuery('?compare=&chapter=kip1023-bootstrap&stop=2', ids, scenarioOf).scenario).toBe('kip1023-bootstrap');
    // An unknown chapter is named, and the way back opens the scenario.
    const bad = parseCompareQuery('?compare=kip1023-bootstrap&chapter=nope&stop=2', ids, scenarioOf);
    expect(bad.problems.join('\n')).toMatch(/chapter: no chapter "nope"/);
    expect(walkthroughHref(bad)).toBe('./?scenario=kip1023-bootstrap');
  });

  test('the way there and back: a pasted scenario by its text (src), seed, recorded actions and step', () => {
    const text = 'name: pasted ünïcode\nuntil: 1000\n';
    const actions = [{ step: 12, action: { kind: 'crash' as const, broker: 1 } }];
    const there = encodeCompareQuery({ scenario: null, source: text, seed: 7, step: 40, actions, tMs: 250 });
    // The long parts in the fragment, which no server sees (issue 33: links that always open).
    expect(there).toMatch(/^compare=&seed=7&step=40&t=250#src=[\w-]+&actions=[\w-]+$/);
    // The same encoding as the walkthrough's own link.
    const walk = encodePageLink({ source: text, seed: 7, step: 40, actions }).link;
    expect(walk).toMatch(/^\?seed=7&step=40#src=[\w-]+&actions=[\w-]+$/);
    expect(there.slice(there.indexOf('#'))).toBe(walk.slice(walk.indexOf('#')));
    const [search, hash] = there.split('#');
    const q = parseCompareQuery(`?${search}`, ids, scenarioOf, `#${hash}`);
    expect(q).toMatchObject({ scenario: null, source: text, seed: 7, step: 40, actions, tMs: 250, problems: [] });
    const back = walkthroughHref(q);
    expect(back).toBe(`./${walk}`);
    const [bs, bh] = back.slice(2).split('#');
    expect(decodeUrlState(bs, `#${bh}`).state).toEqual({ source: text, seed: 7, step: 40, actions });
  });

  test('a 96 KiB paste goes side by side in the fragment: the part a server sees stays short', () => {
    const text = `name: big\ndescription: ${'x'.repeat(96 * 1024)}\nuntil: 1000\n`;
    const there = encodeCompareQuery({ scenario: null, source: text, step: 3, actions: [] });
    const [search, hash] = there.split('#');
    expect(search).toBe('compare=&step=3');
    expect(hash.length).toBeGreaterThan(96 * 1024);
    const back = walkthroughHref(parseCompareQuery(`?${search}`, ids, scenarioOf, `#${hash}`));
    expect(back.split('#')[0]).toBe('./?step=3');
  });

  test('an unreadable src is named, not replaced by another scenario', () => {
    const q = parseCompareQuery('?compare=&src=%%%', ids, scenarioOf);
    expect(q.scenario).toBeNull();
    expect(q.sourceUnreadable).toBe(true);
    expect(q.problems.join('\n')).toMatch(/src: not a readable scenario/);
  });

  test('an empty compare= opens the default scenario without a note', () => {
    const q = parseCompareQuery('?compare=', ids, scenarioOf);
    expect(q.scenario).toBe('wal-steady-state');
    expect(q.problems).toEqual([]);
  });

  test('runsAsWritten: the WAL side of wal-steady-state is the file itself; classic is not', () => {
    expect(runsAsWritten(loadBundled('wal-steady-state'), 'wal')).toBe(true);
    expect(runsAsWritten(loadBundled('wal-steady-state'), 'classic')).toBe(false);
    expect(runsAsWritten(loadBundled('kip1023-bootstrap'), 'kip1023')).toBe(true);
    expect(runsAsWritten(loadBundled('classic-one-round'), 'classic')).toBe(true);
  });
});

describe('the cost per month at this rate', () => {
  test.each([
    // usd, window ms, month (null: too early)
    [0.0000004, 8, null],
    [0.0000004, 0, null],
    [0.01, MONTH_MIN_WINDOW_MS - 1, null],
    [0.0000004, MONTH_MIN_WINDOW_MS, 1.0368],
    [0.001, 20_000, 129.6],
    [1, MONTH_MS, 1],
    [0.0000004, Number.NaN, null],
  ])('monthAtRate(%d, %d) = %s', (usd, windowMs, month) => {
    expect(monthAtRate(usd, windowMs)).toBe(month);
  });

  test('at the cursor: too early before 1 s of simulated time (one GET at t = 8 ms is not $129.60 a month), then the rate', () => {
    // Goal: issue 18, point 9. Method: kip1023-bootstrap's WAL side, whose first GET is at
    // 8 ms; every point before MONTH_MIN_WINDOW_MS has no month, every later one has.
    const s = loadBundled('kip1023-bootstrap');
    const side = resolveSide(s, 'wal');
    const early = pointAt(side, 8);
    expect(early.walRequests + early.tieredRequests).toBeGreaterThan(0);
    expect(early.costUsdMonth).toBeNull();
    for (const p of side.points) expect(p.costUsdMonth === null).toBe(p.atMs < MONTH_MIN_WINDOW_MS);
    const rows = compare(s, ['classic', 'wal']).modes;
    const table = tableRows(rows[0], rows[1], pointAt(resolveSide(s, 'classic'), 8), early);
    const month = table.find((r) => r.id === 'costMonth')!;
    expect(month.atB).toBe(MONTH_EARLY_CELL);
    expect(MONTH_NOTE).toContain('at least 1 s of simulated time');
    expect(MONTH_TOO_EARLY).toBe('too early (needs ≥ 1 s)');
    // The whole run (3 s) is long enough; the page prints it as the CLI does.
    expect(month.b).toMatch(/^\$0\.\d+$/);
    expect(formatCompare({ scenario: 'x', seed: 1, modes: rows })).toContain(month.b);
  });

  test('a run shorter than 1 s: the CLI\'s row and the page both say too early; the JSON\'s month is null', () => {
    const s = { ...loadBundled('kip1023-bootstrap'), until: 500 };
    const r = compare(s, ['classic', 'wal']);
    expect(r.modes[0].costUsd?.run).toBeGreaterThanOrEqual(0);
    expect(r.modes[0].costUsd?.month).toBeNull();
    expect(JSON.parse(JSON.stringify(r)).modes[1].costUsd).toHaveProperty('month', null);
    const line = formatCompare(r).split('\n').find((l) => l.startsWith('cost per month at this rate'))!;
    expect(line.match(/too early \(needs ≥ 1 s\)/g)).toHaveLength(2);
    const rows = tableRows(r.modes[0], r.modes[1], resolveSide(s, 'classic').end, resolveSide(s, 'wal').end);
    const month = rows.find((x) => x.id === 'costMonth')!;
    expect([month.a, month.b, month.atA, month.atB]).toEqual(Array(4).fill(MONTH_EARLY_CELL));
    expect(month.diff).toBe('—');
  });
});

describe('the table and the headline', () => {
  test.each([
    [7987200, 18720, '\u221299.8 %'],
    [332, 484, '+45.8 %'],
    [6, 32, '×5.3'],
    [2, 2, 'same'],
    [0, 152, '+152'],
    [100, 0, '\u2212100.0 %'],
    [null, 5, '—'],
    [234.417, 223.317, '\u22124.7 %'],
    [1, 30, '×30'],
  ])('difference(%s, %s) = %s', (a, b, text) => {
    expect(difference(a, b)).toBe(text);
  });

  const s = loadBundled('wal-steady-state');
  const [a, b] = compare(s, ['classic', 'wal']).modes;

  test('the headline of wal-steady-state names the cross-zone saving and the fast-store requests', () => {
    const h = headline(a, b);
    expect(h).toContain('From classic KIP-405 to KIP-1176 WAL');
    expect(h).toMatch(/cross-zone bytes 7\.6\d? MiB → 18\.3 KiB \(\u221299\.8 %\)/);
    expect(h).toContain('fast-store requests 0 → 140');
    expect(h).toContain('all object-store requests 220 → 360');
    expect(h).toContain('acks=all p50 14 → 32 ms');
  });

  test('the headline of a pair without the WAL: catch-up (when any), bytes from the leader, remote reads after a failover', () => {
    const f = loadBundled('kip1023-promoted-follower-remote-reads');
    const [c, k] = compare(f, ['classic', 'kip1023']).modes;
    const h = headline(c, k);
    expect(h).toMatch(/^From classic KIP-405 to KIP-1023: /);
    expect(h).not.toContain('caught up');
    expect(h).toContain('remote reads after a failover 0 → 1');
  });

  test('table rows: whole run, difference and the figures at the cursor', () => {
    const side = resolveSide(s, 'wal');
    const rows = tableRows(a, b, side.points[0], side.end);
    const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(byId.crossZone.diff).toBe('\u221299.8 %');
    expect(byId.walRequests).toMatchObject({ a: '0', b: '140', diff: '+140', atA: '0', atB: '140' });
    expect(byId.tieredRequests).toMatchObject({ a: '220', b: '220', diff: 'same' });
    expect(byId.acksAllP50).toMatchObject({ a: '14 ms', b: '32 ms' });
    expect(rows.map((r) => r.id)).toEqual(['catchUp', 'bytesFromLeader', 'crossZone', 'tieredRequests', 'walRequests', 'cost', 'costMonth', 'acksAllP50', 'remoteReads']);
  });
});

test('breakdown: cross-zone bytes by kind and requests by kind, from the run\'s end counters', () => {
  const s = loadBundled('wal-steady-state');
  const [c, w] = (['classic', 'wal'] as const).map((m) => breakdown(resolveSide(s, m).endCounters));
  expect(c.crossZone).toMatch(/^replication 7\.6\d? MiB$/);
  expect(c.wal).toBe('none');
  expect(w.crossZone).toBe('WAL metadata 18.3 KiB');
  expect(w.wal).toMatch(/^\d+ PUT · \d+ GET · \d+ DELETE$/);
  const total = [...w.wal.matchAll(/(\d+) (PUT|GET|DELETE)/g)].reduce((n, m) => n + Number(m[1]), 0);
  expect(total).toBe(140);
});

describe('chart layouts', () => {
  const box = { width: 300, height: 130, margin: { top: 10, right: 8, bottom: 18, left: 50 } };
  const a = [{ atMs: 0, value: 0 }, { atMs: 500, value: 4 * 1048576 }, { atMs: 1000, value: 8 * 1048576 }];
  const b = [{ atMs: 0, value: 0 }, { atMs: 500, value: 9000 }, { atMs: 1000, value: 18000 }];

  test('two step paths in the plot area, round ticks in MiB, the cursor and its dots', () => {
    const l = lineChartLayout([a, b], 1000, 500, [4 * 1048576, 9000], ['classic', 'WAL'], 'bytes', box);
    expect(l.paths[0]).toMatch(/^M/);
    expect(l.paths[1]).toMatch(/^M/);
    expect(l.yTicks.map((t) => t.label)).toEqual(['0', '2 MiB', '4 MiB', '6 MiB', '8 MiB']);
    expect(l.cursorX).toBeCloseTo((50 + 292) / 2, 5);
    expect(l.dots[0].y).toBeLessThan(l.dots[1].y);
    for (const d of l.dots) expect(d.y).toBeLessThanOrEqual(l.y0);
    // The two end labels do not overlap.
    expect(Math.abs(l.ends[0].y - l.ends[1].y)).toBeGreaterThanOrEqual(11);
  });

  test('cost ticks: a tiny cost counts in µ$ (the title says so), never "$.0000005"; all labels distinct', () => {
    const tiny = [{ atMs: 0, value: 0 }, { atMs: 1000, value: 0.0000012 }];
    const l = lineChartLayout([tiny, tiny], 1000, 0, [0, 0], ['a', 'b'], 'usd', box);
    const labels = l.yTicks.map((t) => t.label);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels).toEqual(['0', '0.5 µ$', '1 µ$']);
    expect(l.yUnit).toBe('µ$ = $0.000001');
    expect(l.allZero).toBe(false);
    // A run's cost of a few tenths of a cent: dollars with the digits the step needs.
    const run = [{ atMs: 0, value: 0 }, { atMs: 1000, value: 0.0018 }];
    const d = lineChartLayout([run, run], 1000, 0, [0, 0], ['a', 'b'], 'usd', box);
    expect(d.yTicks.map((t) => t.label)).toEqual(['$0', '$0.0005', '$0.0010', '$0.0015', '$0.0020']);
    expect(d.yUnit).toBe('USD');
    expect(lineChartLayout([[{ atMs: 0, value: 0 }], [{ atMs: 0, value: 0 }]], 1000, 0, [0, 0], ['a', 'b'], 'bytes', box).allZero).toBe(true);
  });

  test.each([
    // largest value, ticks
    [0, [0, 1]],
    [1, [0, 1]],
    [2.5, [0, 1, 2, 3]],
    [3, [0, 1, 2, 3]],
    [7, [0, 2, 4, 6, 8]],
    [152, [0, 50, 100, 150, 200]],
    [484, [0, 200, 400]],
  ])('integerTicks(%d) = %j: whole numbers, never a step below 1', (max, ticks) => {
    const r = integerTicks(max, 3);
    expect(r.ticks).toEqual(ticks);
    expect(r.top).toBeGreaterThanOrEqual(max);
    for (const t of r.ticks) expect(Number.isInteger(t)).toBe(true);
  });

  test('a count chart of one request reads 0 and 1, bytes under a KiB read in whole bytes', () => {
    const one = [{ atMs: 0, value: 0 }, { atMs: 8, value: 1 }];
    expect(lineChartLayout([one, one], 1000, 8, [1, 1], ['a', 'b'], 'count', box).yTicks.map((t) => t.label)).toEqual(['0', '1']);
    const bytes = [{ atMs: 0, value: 0 }, { atMs: 8, value: 3 }];
    expect(lineChartLayout([bytes, bytes], 1000, 8, [3, 3], ['a', 'b'], 'bytes', box).yTicks.map((t) => t.label)).toEqual(['0', '1 B', '2 B', '3 B']);
    // A run of 3 ms: whole milliseconds on the time axis.
    const l = lineChartLayout([one, one], 3, 1, [1, 1], ['a', 'b'], 'count', box);
    expect(l.xTicks.map((t) => t.label)).toEqual(['0', '1 ms', '2 ms', '3 ms']);
  });

  test.each([
    ['usd', 0.0000005, 0.0000001],
    ['usd', 0.0018, 0.0005],
    ['usd', 0.05, 0.02],
    ['usd', 234, 100],
    ['count', 1500, 500],
  ] as const)('%s ticks up to %d: no leading dot, no trailing noise', (kind, max, step) => {
    const f = tickFormat(kind, max, step);
    for (let v = 0; v <= max + step; v += step) {
      const label = f(v);
      expect(label).not.toMatch(/(^|[^\d])\.\d/);
      expect(label).not.toMatch(/\d{6,}/);
    }
  });

  test('the plot starts right of the widest y label, so no label is cut at the left edge', () => {
    const tiny = [{ atMs: 0, value: 0 }, { atMs: 1000, value: 0.00075 }];
    const narrow = { ...box, margin: { ...box.margin, left: 20 } };
    const l = lineChartLayout([tiny, tiny], 1000, 0, [0, 0], ['a', 'b'], 'usd', narrow);
    for (const t of l.yTicks) expect(l.x0 - 4 - labelWidth(t.label)).toBeGreaterThanOrEqual(0);
    expect(l.x0).toBeGreaterThan(20);
  });

  test('a chart\'s message wraps to its width, word by word', () => {
    expect(wrapLabel('no new follower joined the ISR', 400)).toEqual(['no new follower joined the ISR']);
    const lines = wrapLabel('no new follower joined the ISR', 140);
    expect(lines.join(' ')).toBe('no new follower joined the ISR');
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines) expect(labelWidth(l, 11.5)).toBeLessThanOrEqual(140);
    expect(wrapLabel('unbreakable-long-word here', 20)).toEqual(['unbreakable-long-word', 'here']);
  });

  test('bars from a common base; a missing value draws no bar', () => {
    const bars = barChartLayout([2, null], ['classic', 'WAL'], 'ms', box);
    expect(bars[0].y).toBeLessThan(bars[0].base);
    expect(bars[0].value).toBe('2 ms');
    expect(bars[1]).toMatchObject({ y: bars[1].base, value: '—', missing: true });
    expect(bars[1].x).toBeGreaterThan(bars[0].x + bars[0].width);
  });
});

describe('the steady-state table (issue 29)', () => {
  const [classic, wal] = compare(loadBundled('wal-steady-state'), ['classic', 'wal']).modes;

  test("one row per line of either design, in the order the lines come, then the total", () => {
    const rows = steadyRows(classic, wal)!;
    expect(rows.map((r) => r.id)).toEqual([
      'crossZoneReplication', 'crossZoneProduce', 'crossZoneConsume',
      'tieredPut', 'tieredGet', 'tieredDelete', 'tieredTransfer',
      'walPut', 'walGet', 'walDelete', 'walTransfer',
      'storageLocal', 'storageTiered', 'storageWal', 'total',
    ]);
    const row = (id: string) => rows.find((r) => r.id === id)!;
    // The same dollars as the CLI prints (FIGURE_USD), the fast store's only on the WAL side.
    expect(row('walPut')).toMatchObject({ name: 'fast store PUT', a: '—', b: '$5.86', diff: '+$5.86' });
    expect(row('tieredPut')).toMatchObject({ a: '$238', b: '$238', diff: 'same' });
    expect(row('crossZoneReplication').a).toBe('$19.78');
    expect(row('crossZoneReplication').b).toBe('$0.0463');
    expect(row('total')).toMatchObject({ name: 'total a month', a: '$261', b: '$249' });
    // Tooltips: the formula on the line, the calculation with numbers on each cell.
    expect(row('crossZoneReplication').formula).toContain('follower copies that cross zones');
    expect(row('crossZoneReplication').calcA).toBe(classic.steadyStateCostUsd!.lines[0].calculation);
    expect(row('walPut').calcA).toBe('');
    expect(row('walPut').calcB).toMatch(/^5,184,000 objects × \$0.00113 ÷ 1000 = \$5.85792$/);
  });

  test('a scenario without a repeating produce: no table of $0 lines, the reason instead', () => {
    const [a, b] = compare(loadBundled('kip1023-bootstrap'), ['classic', 'kip1023']).modes;
    expect(steadyRows(a, b)).toBeNull();
    expect(steadyNone(a, b)).toMatch(/^No steady state: the scenario has no repeating produce/);
    expect(steadyNone(classic, wal)).toBeNull();
  });

  test('no table when a row has no steady-state figure (a row read from JSON alone)', () => {
    const { steadyStateCostUsd: _, ...bare } = wal;
    expect(steadyRows(classic, bare)).toBeNull();
  });
});
