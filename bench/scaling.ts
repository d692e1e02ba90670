/**
 * Scaling (figure 3): the reference workload for `durationMs`, beside the same with 10x the
 * records at the same segment count (records 10x per produce, batch.size, segment.bytes and
 * local.retention.bytes 10x: the same batches and segments, each standing for 10x the
 * records) and with 10x the segments (segment.bytes and local.retention.bytes / 10).
 * Budgets: 10x records at most 1.2x the time and the memory, 10x segments at most 10x.
 *
 * One process, in rounds of one run of each (the order rotating): the figure for a variant
 * is the median over rounds of its time over the base run's time in the same round, a few
 * seconds apart, since this machine's speed changes by up to twice from one minute to the
 * next. Memory is what a run holds at its end: the heap after a full collection, less the
 * heap before the run (needs --expose-gc).
 *
 *   node --expose-gc --import tsx bench/scaling.ts '{"workload": {"durationMs": 600000}, "rounds": 3}'
 */
import { getHeapStatistics } from 'node:v8';
import { Kernel } from '../core/sim/loop/kernel.js';
import { type WorkloadOptions, workload } from './workloads.js';

export interface ScalingSpec {
  workload: WorkloadOptions;
  rounds?: number;
}

export interface VariantFigures {
  workload: WorkloadOptions;
  steps: number;
  remoteSegments: number;
  producedBytes: number;
  wallMs: number[];
  heldHeapBytes: number[];
}

export interface ScalingFigures {
  variants: Record<'base' | 'records x10' | 'segments x10', VariantFigures>;
  recordsTimeRatio: number;
  recordsMemoryRatio: number;
  segmentsTimeRatio: number;
  segmentsMemoryRatio: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function measureScaling(spec: ScalingSpec): ScalingFigures {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('scaling needs node --expose-gc (it measures the heap a run holds)');
  const names = ['base', 'records x10', 'segments x10'] as const;
  const options: Record<(typeof names)[number], WorkloadOptions> = {
    base: spec.workload,
    'records x10': { ...spec.workload, recordScale: 10 },
    'segments x10': { ...spec.workload, segmentScale: 10 },
  };
  const scenarios = Object.fromEntries(names.map((n) => [n, workload(options[n])]));
  const variants = Object.fromEntries(names.map((n) => [n, { workload: options[n], steps: 0, remoteSegments: 0, producedBytes: 0, wallMs: [] as number[], heldHeapBytes: [] as number[] }])) as ScalingFigures['variants'];
  const run = (name: (typeof names)[number]): void => {
    gc();
    const before = getHeapStatistics().used_heap_size;
    const t0 = performance.now();
    const k = new Kernel(scenarios[name], { keepTrace: false, onTrace: () => {} });
    k.runToEnd();
    const ms = performance.now() - t0;
    gc();
    const held = getHeapStatistics().used_heap_size - before;
    const v = variants[name];
    v.steps = k.state.stepCount;
    v.remoteSegments = Object.values(k.state.partitions).reduce((n, p) => n + p.remoteMetadata.length, 0);
    v.producedBytes = k.state.metrics.produced.bytes;
    v.wallMs.push(Math.round(ms));
    v.heldHeapBytes.push(held);
  };
  // Warm-up: one of each, not counted.
  for (const n of names) run(n);
  for (const n of names) {
    variants[n].wallMs = [];
    variants[n].heldHeapBytes = [];
  }
  const rounds = spec.rounds ?? 3;
  for (let r = 0; r < rounds; r++) for (let i = 0; i < names.length; i++) run(names[(i + r) % names.length]);
  const ratios = (name: 'records x10' | 'segments x10', key: 'wallMs' | 'heldHeapBytes') =>
    +median(variants[name][key].map((x, r) => x / variants.base[key][r])).toFixed(2);
  return {
    variants,
    recordsTimeRatio: ratios('records x10', 'wallMs'),
    recordsMemoryRatio: ratios('records x10', 'heldHeapBytes'),
    segmentsTimeRatio: ratios('segments x10', 'wallMs'),
    segmentsMemoryRatio: ratios('segments x10', 'heldHeapBytes'),
  };
}

if (process.argv[1]?.endsWith('scaling.ts')) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as ScalingSpec;
  console.log(JSON.stringify(measureScaling({ ...spec, workload: spec.workload ?? { durationMs: 600_000 } })));
}
