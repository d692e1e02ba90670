/**
 * Seeking in an interactive run (figure 4): a Session (core/session/session.ts, what the
 * walkthrough steps) over the reference workload, played forward until the kernel has
 * processed `events` events; then step back from the end, and jump to steps picked at
 * random (a fixed LCG, so every run asks for the same steps) anywhere in the run,
 * backwards and forwards. Each operation is timed; the figure is the p95 (budget 50 ms).
 *
 *   node --import tsx bench/seek.ts '{"events": 100000, "backs": 40, "jumps": 120}'
 */
import { getHeapStatistics } from 'node:v8';
import { Session } from '../core/session/session.js';
import { type WorkloadOptions, workload } from './workloads.js';

export interface SeekSpec {
  events: number;
  backs?: number;
  jumps?: number;
  workload?: WorkloadOptions;
}

export interface SeekFigures {
  events: number;
  visibleSteps: number;
  /** Wall time to play the run forward once (checkpoints included). */
  forwardMs: number;
  backMsP50: number;
  backMsP95: number;
  jumpMsP50: number;
  jumpMsP95: number;
  /** p95 over every back and jump. */
  p95Ms: number;
  maxMs: number;
  heapBytesAfter: number;
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
};

export function measureSeek(spec: SeekSpec): SeekFigures {
  // Long enough for `events`; the session stops there.
  const scenario = workload({ durationMs: 3_600_000, ...spec.workload });
  const session = new Session(scenario);
  const t0 = performance.now();
  while (session.kernel.state.stepCount < spec.events && session.forward()) {
    /* play */
  }
  const forwardMs = performance.now() - t0;
  const last = session.step;
  const events = session.kernel.state.stepCount;
  const backMs: number[] = [];
  for (let i = 0; i < (spec.backs ?? 40); i++) {
    const t = performance.now();
    session.back();
    backMs.push(performance.now() - t);
  }
  let seed = 12345;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % (last + 1);
  const jumpMs: number[] = [];
  for (let i = 0; i < (spec.jumps ?? 120); i++) {
    const target = next();
    const t = performance.now();
    session.goTo(target);
    jumpMs.push(performance.now() - t);
    if (session.step !== target) throw new Error(`goTo(${target}) reached ${session.step}`);
  }
  const all = [...backMs, ...jumpMs];
  const r = (x: number) => +x.toFixed(1);
  return {
    events,
    visibleSteps: last,
    forwardMs: Math.round(forwardMs),
    backMsP50: r(pct(backMs, 0.5)),
    backMsP95: r(pct(backMs, 0.95)),
    jumpMsP50: r(pct(jumpMs, 0.5)),
    jumpMsP95: r(pct(jumpMs, 0.95)),
    p95Ms: r(pct(all, 0.95)),
    maxMs: r(Math.max(...all)),
    heapBytesAfter: getHeapStatistics().used_heap_size,
  };
}

if (process.argv[1]?.endsWith('seek.ts')) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as SeekSpec;
  console.log(JSON.stringify(measureSeek({ ...spec, events: spec.events ?? 100_000 })));
}
