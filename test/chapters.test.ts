/**
 * Guided chapters (core/report/chapters.ts): every chapter's script matches the model's
 * run of its scenario, stop by stop, and the walkthrough's URL carries a chapter and stop.
 */
import { describe, expect, test } from 'vitest';
import { CHAPTERS, entryMatches, findChapter, resolveChapter } from '../core/report/chapters.js';
import type { TraceEntry } from '../core/sim/state/trace.js';
import { decodeUrlState, encodeUrlState } from '../web/lib/url.js';
import { loadBundled } from './support/run.js';

describe('chapters', () => {
  test('ids are unique and each names a bundled scenario', () => {
    expect(new Set(CHAPTERS.map((c) => c.id)).size).toBe(CHAPTERS.length);
    for (const c of CHAPTERS) expect(() => loadBundled(c.scenario), c.id).not.toThrow();
  });

  test('the eight stories of the first issue are all there, then retention (issue 30)', () => {
    const scenarios = CHAPTERS.map((c) => c.scenario);
    expect(scenarios).toEqual([
      'classic-two-rounds', 'kip1023-bootstrap', 'kip1023-unknown-epuo-retry', 'kip1023-epuo-below-log-start',
      'kip1023-promoted-follower-remote-reads', 'wal-steady-state', 'wal-fast-store-outage', 'wal-failover-chunks-in-flight',
      'retention-three-tasks',
    ]);
  });

  for (const c of CHAPTERS) {
    test(`${c.id}: every stop happens, at increasing steps, with the model's narration`, () => {
      // Goal: a chapter's script is in step with the model, or the test says which stop is not.
      // Method: resolve the stops on a run of the scenario; each must match a later step than the last.
      const r = resolveChapter(c, loadBundled(c.scenario));
      expect(r.missing, 'stops that never matched').toEqual([]);
      expect(r.stops.map((s) => s.title)).toEqual(c.stops.map((s) => s.title));
      for (let i = 1; i < r.stops.length; i++) expect(r.stops[i].step, r.stops[i].title).toBeGreaterThan(r.stops[i - 1].step);
      for (const s of r.stops) {
        expect(s.lines.length, `narration at "${s.title}"`).toBeGreaterThan(0);
        expect(s.text.length).toBeGreaterThan(20);
      }
      expect(r.totalSteps).toBeGreaterThanOrEqual(r.stops.at(-1)!.step);
    });
  }

  test('a script out of date with the model reports the stops that never happen', () => {
    const c = { ...findChapter('kip1023-bootstrap')!, id: 'x', stops: [...findChapter('kip1023-bootstrap')!.stops, { title: 'Never', text: 'never happens', match: { rule: 'noSuchRule' } }] };
    const r = resolveChapter(c, loadBundled('kip1023-bootstrap'));
    expect(r.missing).toEqual(['Never']);
    expect(r.stops.length).toBe(c.stops.length - 1);
  });

  test('entryMatches: every field given must match', () => {
    const e = { atMs: 2, type: 'response', api: 'Fetch', error: 'OFFSET_OUT_OF_RANGE', rule: 'belowLogStartOffset' } as unknown as TraceEntry;
    const table: Array<[object, boolean]> = [
      [{}, true],
      [{ api: 'Fetch' }, true],
      [{ api: 'Fetch', error: 'OFFSET_OUT_OF_RANGE' }, true],
      [{ api: 'Fetch', error: 'OFFSET_MOVED_TO_TIERED_STORAGE' }, false],
      [{ type: 'request', api: 'Fetch' }, false],
      [{ rule: 'belowLogStartOffset', op: 'put' }, false],
    ];
    for (const [m, want] of table) expect(entryMatches(e, m), JSON.stringify(m)).toBe(want);
  });
});

describe('the URL of a chapter', () => {
  test('chapter, stop and presenter mode round-trip', () => {
    const q = encodeUrlState({ chapter: 'kip1023-bootstrap', stop: 3, present: true, scenario: 'kip1023-bootstrap', actions: [] });
    expect(q).toBe('chapter=kip1023-bootstrap&stop=3&present=1');
    const { state, problems } = decodeUrlState(`?${q}`);
    expect(problems).toEqual([]);
    expect(state).toMatchObject({ chapter: 'kip1023-bootstrap', stop: 3, present: true });
  });

  test('a bad stop or present value is reported and left out', () => {
    const { state, problems } = decodeUrlState('?chapter=a&stop=0&present=maybe');
    expect(state.stop).toBeUndefined();
    expect(state.present).toBeUndefined();
    expect(problems).toEqual(['present: expected 1 or 0, got "maybe"', 'stop: expected a stop number from 1, got "0"']);
  });
});
