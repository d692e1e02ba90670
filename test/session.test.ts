/**
 * Sessions: visible steps, step back restores the previous picture exactly, recorded
 * actions replay, and a session is a pure function of (scenario, seed, actions).
 */
import { describe, expect, test } from 'vitest';
import { Session } from '../core/session/session.js';
import { buildView } from '../core/session/view.js';
import { loadBundled } from './support/run.js';

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
});
