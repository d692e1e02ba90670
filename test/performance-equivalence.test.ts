/**
 * The kernel's speed-ups must not change a run: each shortcut is compared here with the
 * plain way of doing the same thing, on every bundled scenario and on seeded fault
 * schedules (where invariants do fail, so the violations are compared too).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BUGS, type BugName, withBugs } from '../core/util/bugs.js';
import { FAULT_KINDS, withFaults } from '../core/check/faults.js';
import type { Scenario } from '../core/scenario/types.js';
import { Kernel, type KernelOptions } from '../core/sim/loop/kernel.js';
import { MACHINES, type MachineStep, xstateStep } from '../core/sim/runtime/machines.js';
import { fastTransition } from '../core/sim/runtime/fast-transition.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import { loadConformance } from '../src/conformance.js';
import { ROOT, loadBundled } from './support/run.js';

const bundled = readdirSync(join(ROOT, 'scenarios'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.replace(/\.yaml$/, ''))
  .sort();

/** Seeded fault schedules over the bundled scenarios, as `explore` makes them. */
const swarm: Array<[string, number]> = Array.from({ length: 40 }, (_, i) => [bundled[i % bundled.length], i + 1]);

function runJson(scenario: Scenario, options: KernelOptions = {}): string {
  const k = new Kernel(scenario, options);
  k.runToEnd(2_000_000);
  return JSON.stringify(buildRunJson(k));
}

/**
 * A machine step that takes every transition both ways, XState's `transition()` and the
 * kernel's fast step, and records where they differ (state value, context, node list,
 * tags, effects, or whether the snapshot is a new one); the run goes on with XState's.
 */
function comparingStep(differences: string[]): MachineStep {
  const view = (s: Record<string, unknown>, actions: unknown[]) =>
    JSON.stringify([
      s.status,
      s.value,
      s.context,
      (s._nodes as Array<{ id: string }>).map((n) => n.id),
      [...(s.tags as Set<string>)],
      s.historyValue,
      s.children,
      (actions as Array<{ type: string; params?: unknown }>).map((a) => [a.type, a.params]),
    ]);
  return (name, snapshot, event) => {
    const [xs, xa] = xstateStep(name, snapshot, event);
    const [fs, fa] = fastTransition(MACHINES[name], snapshot, event);
    const x = view(xs as never, xa);
    const f = view(fs as never, fa);
    if ((x !== f || (xs === snapshot) !== (fs === snapshot)) && differences.length < 5) differences.push(`${name} ${event.type}:\n  xstate ${x}\n  fast   ${f}`);
    return [xs, xa];
  };
}

describe('the fast machine step is XState\'s transition()', () => {
  test.each(bundled)('%s: every transition, both ways', (name) => {
    const differences: string[] = [];
    new Kernel(loadBundled(name), { transition: comparingStep(differences) }).runToEnd();
    expect(differences).toEqual([]);
  });

  test('seeded fault schedules: every transition, both ways', () => {
    const differences: string[] = [];
    for (const [name, seed] of swarm) new Kernel(withFaults(loadBundled(name), seed, FAULT_KINDS), { transition: comparingStep(differences) }).runToEnd(2_000_000);
    expect(differences).toEqual([]);
  });

  test.each(bundled)('%s: the run is the same with XState stepping the machines', (name) => {
    const s = loadBundled(name);
    expect(runJson(s)).toBe(runJson(s, { transition: xstateStep }));
  });

  // The conformance cases reach corners the bundled scenarios do not (throttles, read
  // limits, KIP-1023's retries, elections): an XState upgrade that changed a semantics the
  // fast step copies would show here as a different trace.
  const { cases, problems } = loadConformance();
  test('the conformance cases load', () => {
    expect(problems).toEqual([]);
    expect(cases.length).toBeGreaterThan(40);
  });
  test.each(cases.map((c) => [c.file, c] as const))('conformance %s: the same run, byte for byte, with XState stepping the machines', (_file, c) => {
    const options: KernelOptions = c.seed === undefined ? {} : { seed: c.seed };
    expect(runJson(c.scenario, options)).toBe(runJson(c.scenario, { ...options, transition: xstateStep }));
  });
});

describe('speed-ups give the same run', () => {
  test.each(bundled)('%s: invariants checked on the partitions a step touched = on every partition', (name) => {
    const s = loadBundled(name);
    expect(runJson(s)).toBe(runJson(s, { checkEveryPartition: true }));
  });

  test.each(swarm)('%s with the faults of seed %i: invariants on touched partitions = on every partition', (name, seed) => {
    const s = withFaults(loadBundled(name), seed, FAULT_KINDS);
    expect(runJson(s)).toBe(runJson(s, { checkEveryPartition: true }));
  });

  // The deliberate bugs make invariants fail in many ways (the runs above rarely do).
  const violationsByBug: Record<string, number> = {};
  test.each(Object.keys(BUGS) as BugName[])('with the bug %s: invariants on touched partitions = on every partition', (bug) => {
    let violations = 0;
    for (const [name, seed] of swarm.slice(0, 26)) {
      const s = withFaults(loadBundled(name), seed, FAULT_KINDS);
      const [a, b] = withBugs([bug], () => [runJson(s), runJson(s, { checkEveryPartition: true })]);
      expect(a).toBe(b);
      violations += (JSON.parse(a) as { violations: unknown[] }).violations.length;
    }
    violationsByBug[bug] = violations;
  });

  test('those runs did fail invariants, for most bugs', () => {
    expect(Object.values(violationsByBug).filter((n) => n > 0).length).toBeGreaterThanOrEqual(3);
  });
});
