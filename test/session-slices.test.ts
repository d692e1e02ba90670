/**
 * What the page needs to run long work in slices (web/lib/jobs.ts, web/lib/run.svelte.ts):
 * a lean probe session that counts a run's steps without holding a second copy of the run,
 * and a jump (`seek`) that can stop part way and go on. Neither may change a run.
 */
import { describe, expect, test } from 'vitest';
import { CHAPTERS, StopFinder, resolveChapter } from '../core/report/chapters.js';
import { MAX_CHECKPOINTS, Session } from '../core/session/session.js';
import { validateScenario } from '../core/scenario/parse.js';
import { loadBundled } from './support/run.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './support/run.js';

const BUNDLED = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));

describe('a lean session (the page\'s step counter)', () => {
  test.each(BUNDLED)('%s: the same steps, times and step entries as a full session, and no trace kept', (id) => {
    const s = loadBundled(id);
    const full = new Session(s);
    const lean = new Session(s, s.seed, [], { lean: true });
    expect(lean.currentEntries).toEqual(full.currentEntries);
    for (;;) {
      const a = full.forward();
      const b = lean.forward();
      expect(b).toBe(a);
      if (!a) break;
      expect(lean.step).toBe(full.step);
      expect(lean.kernel.state.nowMs).toBe(full.kernel.state.nowMs);
      expect(lean.currentEntries).toEqual(full.currentEntries);
    }
    expect(lean.kernel.trace).toEqual([]);
  });

  test('with recorded actions, the same step count', () => {
    const s = loadBundled('kip1023-bootstrap');
    const actions = [
      { step: 0, action: { kind: 'setConfig' as const, values: { 'follower.fetch.last.tiered.offset.enable': false } } },
      { step: 5, action: { kind: 'produce' as const, topic: 'orders', partition: 0, records: 300, acks: 1 as const } },
    ];
    const full = new Session(s, s.seed, actions);
    const lean = new Session(s, s.seed, actions, { lean: true });
    full.runToEnd();
    lean.runToEnd();
    expect(lean.step).toBe(full.step);
    expect(lean.kernel.state.nowMs).toBe(full.kernel.state.nowMs);
  });

  test.each(CHAPTERS.map((c) => [c.id, c] as const))('chapter %s: its stops are found on a lean probe as on a full run', (_id, chapter) => {
    const s = loadBundled(chapter.scenario);
    const probe = new Session(s, s.seed, [], { lean: true });
    const finder = new StopFinder(chapter);
    while (probe.forward()) finder.observe(probe);
    expect(finder.resolved(probe.step)).toEqual(resolveChapter(chapter, s));
  });

  test('a lean session only goes forward', () => {
    const lean = new Session(loadBundled('kip1023-bootstrap'), 1, [], { lean: true });
    lean.forward();
    expect(() => lean.goTo(0)).toThrow(/only goes forward/);
  });
});

describe('seek: a jump that can stop part way', () => {
  test('stopped every few steps and called again, it reaches the same picture as goTo', () => {
    const s = loadBundled('wal-metadata-growth');
    const direct = new Session(s);
    direct.goTo(3000);
    const sliced = new Session(s);
    let calls = 0;
    let n = 0;
    while (!sliced.seek(3000, () => ++n % 97 === 0)) calls++;
    expect(calls).toBeGreaterThan(10);
    expect(sliced.step).toBe(3000);
    expect(sliced.kernel.state).toEqual(direct.kernel.state);
    expect(sliced.kernel.trace).toEqual(direct.kernel.trace);
    // Backwards, also in pieces, then forward again.
    n = 0;
    while (!sliced.seek(1200, () => ++n % 50 === 0)) { /* go on */ }
    direct.goTo(1200);
    expect(sliced.step).toBe(1200);
    expect(sliced.kernel.state).toEqual(direct.kernel.state);
  });

  test('a stop asked at once leaves the session where it is; past the end it stops at the end', () => {
    const s = loadBundled('kip1023-bootstrap');
    const session = new Session(s);
    expect(session.seek(10, () => true)).toBe(false);
    expect(session.step).toBe(0);
    expect(session.seek(1_000_000)).toBe(true);
    expect(session.done).toBe(true);
  });
});

describe('checkpoints of a long session', () => {
  test(`at most ${MAX_CHECKPOINTS}, and jumps over the thinned ones give the pictures of a replay from the start`, () => {
    const r = validateScenario({
      name: 'long idle',
      brokers: 6,
      topics: [{ name: 't', partitions: 10, replicas: Array.from({ length: 10 }, (_, p) => [p % 6, (p + 1) % 6, (p + 2) % 6]) }],
      until: 1_200_000,
    });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const session = new Session(r.scenario);
    let most = 0;
    while (session.forward()) most = Math.max(most, session.checkpointCount);
    expect(session.step).toBeGreaterThan(MAX_CHECKPOINTS * 64 * 2);
    expect(most).toBeLessThanOrEqual(MAX_CHECKPOINTS);
    expect(most).toBeGreaterThan(MAX_CHECKPOINTS / 2);
    for (const n of [session.step - 1, 17_001, 3, 40_000]) {
      session.goTo(n);
      const fresh = new Session(r.scenario);
      fresh.goTo(n);
      expect(session.step).toBe(n);
      expect(session.kernel.state).toEqual(fresh.kernel.state);
      expect(session.currentEntries).toEqual(fresh.currentEntries);
    }
  }, 120_000);
});
