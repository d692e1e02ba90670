/**
 * What the XState machines cost (figure 2): the same workload run twice in one process,
 * once stepping the real machines (XState's pure `transition()`) and once with the
 * machines replaced by a no-op handler that returns, without computing anything, what the
 * machines returned in a recorded run: the same next snapshot and the same actions, in
 * order. The kernel then does all of its own work (queue, network, logs, effects, trace,
 * invariants) exactly as in the real run, so the ratio real / no-op is the factor the
 * machines add (budget: at most 3).
 *
 * The no-op run is checked to be the same run (the same event and trace entry counts).
 * Runs alternate (real, no-op, no-op, real, ...) after a warm-up of each, and the figure
 * compares medians, so machine noise and JIT state hit both sides alike.
 *
 *   node --import tsx bench/xstate-overhead.ts '{"workload": {...}, "rounds": 3}'
 */
import type { AnyMachineSnapshot } from 'xstate';
import { Kernel, type MachineStep, xstateStep } from '../core/sim/kernel.js';
import type { Scenario } from '../core/scenario/types.js';
import { type WorkloadOptions, workload } from './workloads.js';

export interface XStateSpec {
  workload: WorkloadOptions;
  rounds?: number;
}

export interface XStateFigures {
  steps: number;
  transitions: number;
  realMs: number[];
  noopMs: number[];
  /** median(real) / median(no-op). */
  ratio: number;
  /** Microseconds per machine transition: (median real - median no-op) / transitions. */
  usPerTransition: number;
}

function timeRun(scenario: Scenario, transition: MachineStep): { ms: number; steps: number; trace: number } {
  let trace = 0;
  const t0 = performance.now();
  const k = new Kernel(scenario, { keepTrace: false, onTrace: () => void trace++, transition });
  k.runToEnd();
  return { ms: performance.now() - t0, steps: k.state.stepCount, trace };
}

export function measureXStateOverhead(spec: XStateSpec): XStateFigures {
  const scenario = workload(spec.workload);
  const rounds = spec.rounds ?? 3;
  // The recorded run: every machine step's result, in order.
  const recorded: Array<[AnyMachineSnapshot, unknown[]]> = [];
  const recorder: MachineStep = (name, snapshot, event) => {
    const r = xstateStep(name, snapshot, event);
    recorded.push(r);
    return r;
  };
  const reference = timeRun(scenario, recorder);
  let i = 0;
  const noop: MachineStep = () => recorded[i++];
  const real = (): number => {
    const r = timeRun(scenario, xstateStep);
    if (r.steps !== reference.steps || r.trace !== reference.trace) throw new Error('the real run differs from the recorded one');
    return r.ms;
  };
  const replay = (): number => {
    i = 0;
    const r = timeRun(scenario, noop);
    if (r.steps !== reference.steps || r.trace !== reference.trace || i !== recorded.length) throw new Error('the no-op run is not the same run');
    return r.ms;
  };
  // Warm-up: one of each, not counted.
  real();
  replay();
  const realMs: number[] = [];
  const noopMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      realMs.push(real());
      noopMs.push(replay());
    } else {
      noopMs.push(replay());
      realMs.push(real());
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const mr = median(realMs);
  const mn = median(noopMs);
  return {
    steps: reference.steps,
    transitions: recorded.length,
    realMs: realMs.map(Math.round),
    noopMs: noopMs.map(Math.round),
    ratio: +(mr / mn).toFixed(2),
    usPerTransition: +(((mr - mn) * 1000) / recorded.length).toFixed(2),
  };
}

if (process.argv[1]?.endsWith('xstate-overhead.ts')) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as XStateSpec;
  console.log(JSON.stringify(measureXStateOverhead({ ...spec, workload: spec.workload ?? { durationMs: 60_000 } })));
}
