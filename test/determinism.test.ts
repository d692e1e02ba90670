/**
 * A run is a pure function of (scenario, seed): the same input gives byte-identical JSON,
 * and restoring a checkpoint taken at any step and running on gives the same trace.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import { ROOT, loadBundled } from './support/run.js';

const bundled = readdirSync(join(ROOT, 'scenarios'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.replace(/\.yaml$/, ''));

function runJson(name: string, seed?: number): string {
  const k = new Kernel(loadBundled(name), seed === undefined ? {} : { seed });
  k.runToEnd();
  return JSON.stringify(buildRunJson(k));
}

describe('determinism', () => {
  test.each(bundled)('%s: two runs give byte-identical JSON', (name) => {
    expect(runJson(name)).toBe(runJson(name));
  });

  test('the seed is reported, and an override is used', () => {
    const a = JSON.parse(runJson('kip1023-bootstrap', 42)) as { seed: number };
    expect(a.seed).toBe(42);
  });

  test.each(bundled)('%s: restoring a checkpoint at several steps gives the uninterrupted trace', (name) => {
    // Goal: checkpoints are plain data that capture everything the run depends on.
    // Method: take checkpoints at steps spread over the run, round-trip them through JSON,
    // restore each and run to the end; compare with the uninterrupted run.
    const scenario = loadBundled(name);
    const full = new Kernel(scenario);
    full.runToEnd();
    const total = full.state.stepCount;
    const expected = JSON.stringify(buildRunJson(full));
    const at = [0, 1, Math.floor(total / 3), Math.floor(total / 2), total - 1].filter((n, i, a) => n >= 0 && a.indexOf(n) === i);
    for (const n of at) {
      const k = new Kernel(scenario);
      for (let i = 0; i < n; i++) k.step();
      const cp = JSON.parse(JSON.stringify(k.checkpoint()));
      const restored = Kernel.restore(scenario, cp);
      restored.runToEnd();
      expect({ step: n, json: JSON.stringify(buildRunJson(restored)) }).toEqual({ step: n, json: expected });
    }
  });
});
