/**
 * One swarm run (model-based tests, item 3): a scenario with the seed's random fault
 * schedule, run to the end; its invariant violations split into known findings and new
 * ones. Pure and synchronous, so worker threads (src/explore.ts) run it as is.
 */
import type { Scenario } from '../scenario/types.js';
import { Kernel } from '../sim/loop/kernel.js';
import { type FaultKind, withFaults } from './faults.js';
import { knownFinding } from './findings.js';

export interface SwarmRun {
  scenario: string;
  seed: number;
  steps: number;
  /** Violations no known finding explains. */
  violations: Array<{ atMs: number; invariant: string; message: string }>;
  /** Known findings met (ids). */
  known: string[];
  /** The model threw (a bug in the model itself). */
  error?: string;
}

export function swarmRun(base: Scenario, file: string, seed: number, kinds: readonly FaultKind[], maxSteps = 2_000_000): { run: SwarmRun; scenario: Scenario } {
  const scenario = withFaults(base, seed, kinds);
  const k = new Kernel(scenario);
  const run: SwarmRun = { scenario: file, seed, steps: 0, violations: [], known: [] };
  try {
    k.runToEnd(maxSteps);
  } catch (e) {
    run.error = (e as Error).message;
  }
  run.steps = k.state.stepCount;
  for (const v of k.state.violations) {
    const f = knownFinding(v, k.trace);
    if (f !== undefined) {
      if (!run.known.includes(f.id)) run.known.push(f.id);
    } else run.violations.push({ atMs: v.atMs, invariant: v.invariant, message: v.message });
  }
  return { run, scenario };
}
