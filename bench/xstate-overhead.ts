/**
 * What the XState machines cost (figure 2): the same workload run with the real machines,
 * stepped as the kernel steps them (its default step, core/sim/runtime/fast-transition.ts: XState's
 * transition computed from the machine definitions), and with the machines replaced by a
 * no-op handler that returns, without computing anything, what the machines returned in a
 * recorded run: the same next snapshot and the same actions, in order. The kernel then
 * does all of its own work (queue, network, logs, effects, trace, invariants) exactly as
 * in the real run, so real / no-op is the factor the machines add (budget: at most 3). For
 * comparison the factor is also given for XState's own `transition()` stepping the
 * machines (`xstateRatio`, no budget).
 *
 * One process, runs in pairs (real then no-op, or the other way round, alternating), the
 * figure the median of the pairs' ratios: this machine's speed changes by up to twice from
 * one minute to the next (other tenants), and the two runs of a pair, a fraction of a
 * second apart, meet the same conditions. The kernel meets one step function throughout
 * (it switches inside between real, record and replay): a kernel that met a second one
 * would be deoptimized at the change. Every run is checked to be the recorded run (events,
 * trace entries; the no-op run replays every recorded step).
 *
 *   node --import tsx bench/xstate-overhead.ts '{"workload": {...}, "pairs": 9}'
 */
import type { AnyMachineSnapshot } from 'xstate';
import { Kernel } from '../core/sim/loop/kernel.js';
import { type MachineStep, fastStep, xstateStep } from '../core/sim/runtime/machines.js';
import type { Scenario } from '../core/scenario/types.js';
import { type WorkloadOptions, workload } from './workloads.js';

export interface XStateSpec {
  workload: WorkloadOptions;
  /** Timed pairs (real, no-op). */
  pairs?: number;
  /** Untimed runs first (the JIT settles). */
  warmup?: number;
  /** Also time XState's own transition() (slower; for comparison). */
  withXState?: boolean;
}

export interface XStateFigures {
  steps: number;
  transitions: number;
  realMs: number[];
  noopMs: number[];
  /** The median of the pairs' real / no-op. */
  ratio: number;
  /** Microseconds per machine transition: the median of the pairs' (real - no-op) / transitions. */
  usPerTransition: number;
  /** XState's transition() in place of the real machines: times and the median pair ratio. */
  xstateMs?: number[];
  xstateRatio?: number;
  xstateUsPerTransition?: number;
}

type Mode = 'real' | 'record' | 'noop' | 'xstate';
let mode: Mode = 'real';
let recording: Array<[AnyMachineSnapshot, unknown[]]> = [];
let at = 0;

/** The one step function the kernel meets: the real machines, recording, the no-op handler, or XState. */
const harnessStep: MachineStep = (name, snapshot, event) => {
  switch (mode) {
    case 'noop':
      return recording[at++];
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

let traceCount = 0;
const countTrace = (): void => void traceCount++;

function timeRun(scenario: Scenario, m: Mode): { ms: number; steps: number; trace: number } {
  mode = m;
  at = 0;
  traceCount = 0;
  const t0 = performance.now();
  const k = new Kernel(scenario, { keepTrace: false, onTrace: countTrace, transition: harnessStep });
  k.runToEnd();
  return { ms: performance.now() - t0, steps: k.state.stepCount, trace: traceCount };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function measureXStateOverhead(spec: XStateSpec): XStateFigures {
  const scenario = workload(spec.workload);
  const pairs = spec.pairs ?? 9;
  // Warm-up runs of the real machines first, then the recording (the no-op runs' data).
  const reference = timeRun(scenario, 'real');
  for (let w = 1; w < (spec.warmup ?? 4); w++) timeRun(scenario, 'real');
  recording = [];
  timeRun(scenario, 'record');
  const transitions = recording.length;
  const run = (m: Mode): number => {
    const r = timeRun(scenario, m);
    if (r.steps !== reference.steps || r.trace !== reference.trace || (m === 'noop' && at !== transitions)) throw new Error(`the ${m} run is not the recorded run`);
    return r.ms;
  };
  run('noop');
  const pairRuns = (other: Mode): { a: number[]; b: number[]; ratios: number[]; us: number[] } => {
    const a: number[] = [];
    const b: number[] = [];
    const ratios: number[] = [];
    const us: number[] = [];
    for (let p = 0; p < pairs; p++) {
      let x: number;
      let n: number;
      if (p % 2 === 0) {
        x = run(other);
        n = run('noop');
      } else {
        n = run('noop');
        x = run(other);
      }
      a.push(x);
      b.push(n);
      ratios.push(x / n);
      us.push(((x - n) * 1000) / transitions);
    }
    return { a, b, ratios, us };
  };
  const real = pairRuns('real');
  const figures: XStateFigures = {
    steps: reference.steps,
    transitions,
    realMs: real.a.map(Math.round),
    noopMs: real.b.map(Math.round),
    ratio: +median(real.ratios).toFixed(2),
    usPerTransition: +median(real.us).toFixed(2),
  };
  if (spec.withXState) {
    run('xstate');
    const x = pairRuns('xstate');
    figures.xstateMs = x.a.map(Math.round);
    figures.xstateRatio = +median(x.ratios).toFixed(2);
    figures.xstateUsPerTransition = +median(x.us).toFixed(2);
  }
  recording = [];
  return figures;
}

if (process.argv[1]?.endsWith('xstate-overhead.ts')) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as XStateSpec;
  console.log(JSON.stringify(measureXStateOverhead({ ...spec, workload: spec.workload ?? { durationMs: 60_000 } })));
}
