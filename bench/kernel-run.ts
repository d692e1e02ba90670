/**
 * One headless run of a benchmark workload, measured: wall time, kernel events, trace
 * entries and the heap. The benchmark (bench/run.ts) starts it in a child process of its
 * own, so each measured run starts from a fresh heap and no run's garbage or JIT state
 * leaks into another's figures.
 *
 *   node --import tsx bench/kernel-run.ts '{"workload": {...WorkloadOptions}, "maxWallMs": 600000}'
 *
 * prints one JSON document (RunFigures). The trace streams to a sink that counts entries
 * by type (keepTrace: false): a headless hour holds no trace in memory, and nothing here
 * serializes it (a run that writes the trace to disk pays for that on top).
 */
import { getHeapStatistics } from 'node:v8';
import { Kernel } from '../core/sim/loop/kernel.js';
import type { TraceEntry } from '../core/sim/state/trace.js';
import { type WorkloadOptions, workload } from './workloads.js';

export interface RunSpec {
  workload: WorkloadOptions;
  /** Stop after this much wall time (ms) and report how far the run got. */
  maxWallMs?: number;
  /** Keep the trace in memory (as `run --json` does) instead of counting it. */
  keepTrace?: boolean;
  /** Sample the heap every this many kernel events. */
  sampleEvery?: number;
}

export interface RunFigures {
  steps: number;
  simulatedMs: number;
  /** The run reached the workload's end (false when maxWallMs stopped it). */
  complete: boolean;
  wallMs: number;
  eventsPerSecond: number;
  traceEntries: number;
  /** Trace entries by type (what the counting sink saw). */
  traceByType: Record<string, number>;
  producedBytes: number;
  remoteSegments: number;
  violations: number;
  /** The largest V8 used-heap size seen (sampled every `sampleEvery` events, garbage not yet collected included). */
  peakHeapBytes: number;
  /** The heap after the run and a full collection (needs --expose-gc; else -1). */
  retainedHeapBytes: number;
  /** What the run holds at its end: the retained heap less the heap before it started (needs --expose-gc; else -1). */
  heldHeapBytes: number;
  /** The process's largest resident set. */
  maxRssBytes: number;
}

export function measureRun(spec: RunSpec): RunFigures {
  const scenario = workload(spec.workload);
  const sampleEvery = spec.sampleEvery ?? 2048;
  const maxWallMs = spec.maxWallMs ?? Number.MAX_SAFE_INTEGER;
  let traceEntries = 0;
  const byType: Record<string, number> = {};
  const sink = (e: TraceEntry): void => {
    traceEntries++;
    byType[e.type] = (byType[e.type] ?? 0) + 1;
  };
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const baseline = getHeapStatistics().used_heap_size;
  let peak = baseline;
  const t0 = performance.now();
  const k = spec.keepTrace ? new Kernel(scenario) : new Kernel(scenario, { keepTrace: false, onTrace: sink });
  let complete = true;
  for (let n = 1; ; n++) {
    if (!k.step()) break;
    if (n % sampleEvery === 0) {
      const used = getHeapStatistics().used_heap_size;
      if (used > peak) peak = used;
      if (performance.now() - t0 > maxWallMs) {
        complete = !k.hasNext();
        break;
      }
    }
  }
  const wallMs = performance.now() - t0;
  peak = Math.max(peak, getHeapStatistics().used_heap_size);
  if (spec.keepTrace) traceEntries = k.trace.length;
  const steps = k.state.stepCount;
  const remoteSegments = Object.values(k.state.partitions).reduce((n, p) => n + p.remoteMetadata.length, 0);
  const figures: RunFigures = {
    steps,
    simulatedMs: k.state.nowMs,
    complete,
    wallMs: Math.round(wallMs),
    eventsPerSecond: Math.round((steps / wallMs) * 1000),
    traceEntries,
    traceByType: byType,
    producedBytes: k.state.metrics.produced.bytes,
    remoteSegments,
    violations: k.state.violations.length,
    peakHeapBytes: peak,
    retainedHeapBytes: -1,
    heldHeapBytes: -1,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
  if (gc !== undefined) {
    gc();
    figures.retainedHeapBytes = getHeapStatistics().used_heap_size;
    figures.heldHeapBytes = figures.retainedHeapBytes - baseline;
  }
  // Keep the kernel alive until the retained heap is measured.
  if (k.state.stepCount < 0) console.log(k);
  return figures;
}

if (process.argv[1]?.endsWith('kernel-run.ts')) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as RunSpec;
  console.log(JSON.stringify(measureRun({ ...spec, workload: spec.workload ?? {} })));
}
