/**
 * What the XState machines cost (figure 2): the same workload run in one process, once
 * stepping the real machines as the kernel does (its default step, core/sim/fast-transition.ts:
 * XState's transition computed from the machine definitions) and once with the machines
 * replaced by a no-op handler that returns, without computing anything, what the machines
 * returned in a recorded run: the same next snapshot and the same actions, in order. The
 * kernel then does all of its own work (queue, network, logs, effects, trace, invariants)
 * exactly as in the real run, so the ratio real / no-op is the factor the machines add
 * (budget: at most 3). For comparison the same ratio is given for XState's own
 * `transition()` stepping the machines (`xstateRatio`, no budget).
 *
 * The no-op run is checked to be the same run (the same event and trace entry counts).
 * Runs alternate (real, no-op, no-op, real, ...) after a warm-up of each, and the figure
 * compares medians, so machine noise and JIT state hit both sides alike.
 *
 *   node --import tsx bench/xstate-overhead.ts '{"workload": {...}, "rounds": 3}'
 */
import type { AnyMachineSnapshot } from 'xstate';
import { Kernel, type MachineStep, fastStep, xstateStep } from '../core/sim/kernel.js';
import type { Scenario } from '../core/scenario/types.js';
import { type WorkloadOptions, workload } from './workloads.js';

export interface XStateSpec {
  workload: WorkloadOptions;
  rounds?: number;
  /** Also time XState's own transition() (slower; for comparison). */
  withXState?: boolean;
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
  /** XState's transition() stepping the machines: median time and ratio to the no-op run. */
  xstateMs?: number[];
  xstateRatio?: number;
  xstateUsPerTransition?: number;
}

let traceCount = 0;
const countTrace = (): void => void traceCount++;

function timeRun(scenario: Scenario, transition: MachineStep): { ms: number; steps: number; trace: number } {
  traceCount = 0;
  const t0 = performance.now();
  const k = new Kernel(scenario, { keepTrace: false, onTrace: countTrace, transition });
  k.runToEnd();
  return { ms: performance.now() - t0, steps: k.state.stepCount, trace: traceCount };
}

type Mode = 'real' | 'record' | 'noop' | 'xstate';
let mode: Mode = 'real';
let recording: Array<[AnyMachineSnapshot, unknown[]]> = [];
let replaying: Array<[AnyMachineSnapshot, unknown[]]> = [];
let replayAt = 0;

/**
 * The one machine step every measured run passes to the kernel, switching on `mode`: a
 * kernel whose machine-step call site met different functions from run to run would be
 * deoptimized at each change, and the runs after a change would be slow for that reason
 * alone. In `noop` mode it is the no-op handler: what the machines returned in the recorded
 * run, in order, with nothing computed.
 */
const harnessStep: MachineStep = (name, snapshot, event) => {
  switch (mode) {
    case 'noop':
      return replaying[replayAt++];
    case 'real':
      return fastStep(name, snapshot, event);
    case 'record': {
      const r = fastStep(name, snapshot, event);
      recording.push(r);
      return r;
    }
    case 'xstate':
      return xstateStep(name, snapshot, event);
  }
};

function timeMode(scenario: Scenario, m: Mode): { ms: number; steps: number; trace: number } {
  mode = m;
  return timeRun(scenario, harnessStep);
}

export function measureXStateOverhead(spec: XStateSpec): XStateFigures {
  const scenario = workload(spec.workload);
  const rounds = spec.rounds ?? 3;
  // A recorded run: every machine step's result, in order. The recording (every snapshot
  // of the run) is held only while no-op runs use it: held during a real run, it would
  // slow that run's garbage collection and count against the machines. The recorder and
  // the no-op handler are made once: a kernel that met a new function at every run would
  // find its machine-step call site megamorphic, and run slower in the real runs too.
  const record = (): { steps: number; trace: number; results: Array<[AnyMachineSnapshot, unknown[]]> } => {
    recording = [];
    const r = timeMode(scenario, 'record');
    const results = recording;
    recording = [];
    return { steps: r.steps, trace: r.trace, results };
  };
  const reference = record();
  const transitions = reference.results.length;
  reference.results = [];
  const same = (r: { steps: number; trace: number }) => r.steps === reference.steps && r.trace === reference.trace;
  // No forced collection between runs: a forced full GC throws away compiled code and
  // type feedback, and a run after it is slow for reasons that have nothing to do with it.
  const run = (m: 'real' | 'xstate'): number => {
    const r = timeMode(scenario, m);
    if (!same(r)) throw new Error('the real run differs from the recorded one');
    return r.ms;
  };
  const noopRun = (): number => {
    replaying = record().results;
    replayAt = 0;
    const r = timeMode(scenario, 'noop');
    const complete = replayAt === replaying.length;
    replaying = [];
    if (!same(r) || !complete) throw new Error('the no-op run is not the same run');
    return r.ms;
  };
  // Warm-up, not counted: the JIT settles over a few runs.
  for (let w = 0; w < 6; w++) run('real');
  noopRun();
  noopRun();
  const realMs: number[] = [];
  const noopMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      realMs.push(run('real'));
      noopMs.push(noopRun());
    } else {
      noopMs.push(noopRun());
      realMs.push(run('real'));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const mr = median(realMs);
  const mn = median(noopMs);
  const figures: XStateFigures = {
    steps: reference.steps,
    transitions,
    realMs: realMs.map(Math.round),
    noopMs: noopMs.map(Math.round),
    ratio: +(mr / mn).toFixed(2),
    usPerTransition: +(((mr - mn) * 1000) / transitions).toFixed(2),
  };
  if (spec.withXState) {
    const xs = [run('xstate'), run('xstate'), run('xstate')];
    const mx = median(xs);
    figures.xstateMs = xs.map(Math.round);
    figures.xstateRatio = +(mx / mn).toFixed(2);
    figures.xstateUsPerTransition = +(((mx - mn) * 1000) / transitions).toFixed(2);
  }
  return figures;
}

if (process.argv[1]?.endsWith('xstate-overhead.ts')) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as XStateSpec;
  console.log(JSON.stringify(measureXStateOverhead({ ...spec, workload: spec.workload ?? { durationMs: 60_000 } })));
}
