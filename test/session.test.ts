/**
 * Sessions: visible steps, step back restores the previous picture exactly, recorded
 * actions replay, and a session is a pure function of (scenario, seed, actions).
 */
import { describe, expect, test } from 'vitest';
import { readdirSync } from 'node:fs';
import { Session, VisibleStepCounter } from '../core/session/session.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildView } from '../core/session/view.js';
import { loadBundled } from './support/run.js';

const BUNDLED_IDS = readdirSync(new URL('../scenarios', import.meta.url)).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, '')).sort();

const picture = (s: Session) => JSON.stringify({ step: s.step, view: buildView(s.kernel), trace: s.kernel.trace.length });

describe('Session', () => {
  test('every visible step adds narrated trace entries; the run ends', () => {
    const s = new Session(loadBundled('kip1023-bootstrap'));
    let steps = 0;
    while (s.forward()) {
      steps++;
      // Every step shows something, except a last step that only ran out the clock.
      if (!s.done) expect(s.currentEntries.length).toBeGreaterThan(0);
    }
    expect(s.done).toBe(true);
    expect(steps).toBeGreaterThan(10);
  });

  test('step back gives exactly the previous picture, at every step', () => {
    const s = new Session(loadBundled('kip1023-leader-epochs'));
    const pictures = [picture(s)];
    while (s.forward()) pictures.push(picture(s));
    for (let n = pictures.length - 2; n >= 0; n -= 3) {
      s.goTo(n);
      expect(picture(s)).toBe(pictures[n]);
    }
    s.goTo(pictures.length - 1);
    expect(picture(s)).toBe(pictures[pictures.length - 1]);
  });

  test('recorded actions replay: a new session with the same actions reaches the same picture', () => {
    const a = new Session(loadBundled('kip1023-bootstrap'));
    for (let i = 0; i < 5; i++) a.forward();
    a.act({ kind: 'produce', topic: 'orders', partition: 0, records: 100, acks: 'all' });
    for (let i = 0; i < 5; i++) a.forward();
    a.act({ kind: 'setConfig', values: { 'follower.fetch.last.tiered.offset.enable': false } });
    for (let i = 0; i < 10; i++) a.forward();
    const b = new Session(loadBundled('kip1023-bootstrap'), a.seed, [...a.actions]);
    b.goTo(a.step);
    expect(picture(b)).toBe(picture(a));
    // Step back across an action and forward again: the same.
    const at = a.step;
    a.goTo(3);
    a.goTo(at);
    expect(picture(a)).toBe(picture(b));
  });

  test('an action after stepping back drops the later actions (a new branch)', () => {
    const s = new Session(loadBundled('kip1023-bootstrap'));
    for (let i = 0; i < 8; i++) s.forward();
    s.act({ kind: 'produce', topic: 'orders', partition: 0, records: 10, acks: 1 });
    s.goTo(4);
    s.act({ kind: 'crash', broker: 1 });
    expect(s.actions.map((a) => [a.step, a.action.kind])).toEqual([[4, 'crash']]);
  });

  test('jumps forward and back over checkpoints give the pictures of the first pass', () => {
    // Goal: a jump ahead restores a later checkpoint instead of replaying from where it is,
    //   and the picture is the one the first pass drew.
    // Method: wal-metadata-growth (thousands of steps, several checkpoints); record the
    //   picture at every 97th step on the first pass; go back to 0, then jump to each in
    //   an order mixing forward and backward jumps.
    const s = new Session(loadBundled('wal-metadata-growth'));
    const pictures = new Map<number, string>([[0, picture(s)]]);
    while (s.forward()) if (s.step % 97 === 0) pictures.set(s.step, picture(s));
    const steps = [...pictures.keys()];
    s.goTo(0);
    const order = steps.map((_, i) => steps[(i * 7) % steps.length]);
    for (const n of order) {
      s.goTo(n);
      expect(picture(s)).toBe(pictures.get(n));
    }
  });

  test('after an action, jumps use only the checkpoints of the new branch', () => {
    // Goal: checkpoints taken after the step of an action belong to the old branch.
    // Method: play wal-metadata-growth far, go back, crash a broker, play on; each picture
    //   of the new branch equals a fresh session's with the same action.
    const s = new Session(loadBundled('wal-metadata-growth'));
    for (let i = 0; i < 2500; i++) s.forward();
    s.goTo(300);
    s.act({ kind: 'crash', broker: 1 });
    for (let i = 0; i < 1500; i++) s.forward();
    const fresh = new Session(loadBundled('wal-metadata-growth'), undefined, [...s.actions]);
    for (const n of [1700, 350, 1200, 299, 1800]) {
      s.goTo(n);
      fresh.goTo(n);
      expect(picture(s)).toBe(picture(fresh));
    }
  });
});

describe('VisibleStepCounter: the CLI counts the steps the walkthrough shows', () => {
  // Issue 18, point 10: the CLI said 33 steps where the page said 16 for the same run.
  test.each(BUNDLED_IDS)('%s: the count of a kernel stepped by hand equals the Session\'s steps', (id) => {
    const scenario = loadBundled(id);
    const s = new Session(scenario, scenario.seed, [], { lean: true });
    let steps = 0;
    while (s.forward()) steps++;
    const k = new Kernel(scenario);
    const counter = new VisibleStepCounter();
    while (k.hasNext()) {
      const before = k.trace.length;
      counter.after(k.step(), k.trace, before, k.hasNext());
    }
    expect(counter.count).toBe(steps);
    expect(counter.count).toBeLessThan(k.state.stepCount);
  });
});
