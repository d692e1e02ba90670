/**
 * The fast machine step covers everything the model's machines do: over every bundled
 * scenario no step is handed to XState's `transition()` (a fall-back would still be right,
 * only slow, so nothing else would notice one). And the count does count.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import { assign, createMachine, raise } from 'xstate';
import { fallbacks, fastTransition } from '../core/sim/runtime/fast-transition.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { pureInitialTransition } from '../core/sim/runtime/pure-transition.js';
import { ROOT, loadBundled } from './support/run.js';

const bundled = readdirSync(join(ROOT, 'scenarios'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.replace(/\.yaml$/, ''))
  .sort();

beforeEach(() => {
  fallbacks.count = 0;
  fallbacks.last = null;
});

describe('the fast machine step never falls back to XState on the model', () => {
  test.each(bundled)('%s: no fall-back', (name) => {
    new Kernel(loadBundled(name)).runToEnd();
    expect(fallbacks.last).toBeNull();
    expect(fallbacks.count).toBe(0);
  });
});

describe('fall-backs are counted', () => {
  const supported = createMachine({
    initial: 'a',
    context: { n: 0 },
    states: { a: { on: { go: { target: 'b', actions: assign({ n: 1 }) } } }, b: {} },
  });

  test('a step the fast path covers is not counted', () => {
    const [s] = pureInitialTransition(supported, undefined);
    const [next] = fastTransition(supported, s, { type: 'go' });
    expect(next.value).toBe('b');
    expect(fallbacks.count).toBe(0);
  });

  test('an `xstate.` event is handed to XState and counted', () => {
    const [s] = pureInitialTransition(supported, undefined);
    fastTransition(supported, s, { type: 'xstate.anything' });
    expect(fallbacks.count).toBe(1);
    expect(fallbacks.last).toContain('XState event');
  });

  test('a machine with parallel states is handed to XState and counted', () => {
    const parallel = createMachine({
      type: 'parallel',
      states: { x: { initial: 'a', states: { a: { on: { go: 'b' } }, b: {} } }, y: {} },
    });
    const [s] = pureInitialTransition(parallel, undefined);
    const [next] = fastTransition(parallel, s, { type: 'go' });
    expect(next.value).toEqual({ x: 'b', y: {} });
    expect(fallbacks.count).toBe(1);
    expect(fallbacks.last).toContain('unsupported machine');
  });

  test('an action the fast path does not cover (raise) is handed to XState and counted', () => {
    const raising = createMachine({
      initial: 'a',
      states: { a: { on: { go: { actions: raise({ type: 'next' }) }, next: 'b' } }, b: {} },
    });
    const [s] = pureInitialTransition(raising, undefined);
    const [next] = fastTransition(raising, s, { type: 'go' });
    expect(next.value).toBe('b');
    expect(fallbacks.count).toBe(1);
    expect(fallbacks.last).toContain('unsupported: xstate.raise');
  });
});

describe('the working state is not shared by two steps at once', () => {
  test('a machine function that steps a machine itself throws, naming the machine and event', () => {
    const inner = createMachine({ id: 'inner', initial: 'a', states: { a: { on: { go: 'b' } }, b: {} } });
    const [innerSnap] = pureInitialTransition(inner, undefined);
    const outer = createMachine({
      id: 'outer',
      initial: 'a',
      states: { a: { on: { go: { target: 'b', guard: () => fastTransition(inner, innerSnap, { type: 'go' })[0].value === 'b' } } }, b: {} },
    });
    const [outerSnap] = pureInitialTransition(outer, undefined);
    expect(() => fastTransition(outer, outerSnap, { type: 'go' })).toThrow(/inner go: a machine step begun inside another/);
    // The module is usable again afterwards.
    expect(fastTransition(inner, innerSnap, { type: 'go' })[0].value).toBe('b');
  });
});
