/**
 * `explore`: the swarm. Seeds 1..N spread over the scenarios (seed s runs scenario
 * (s - 1) mod S with the seed's fault schedule), on every core through worker threads.
 * By default it stops at the first violation that no known finding explains; with
 * `keepGoing` it runs every seed, so what it reports does not depend on which worker was
 * faster. A `shard` K of M runs only the seeds s with (s - 1) mod M == K: the M shares are
 * disjoint and together are 1..N (src/explore-shards.ts writes and merges them).
 * Deliberate bugs (core/util/bugs.ts) are passed to the workers through `bugs`.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { BugName } from '../core/util/bugs.js';
import type { SwarmRun } from '../core/check/explore.js';
import { type FaultKind, withFaults } from '../core/check/faults.js';
import type { Scenario } from '../core/scenario/types.js';

export interface ExploreOptions {
  scenarios: Array<{ file: string; scenario: Scenario }>;
  seeds: number;
  kinds: FaultKind[];
  workers?: number;
  bugs?: BugName[];
  /** Run only this share of 1..seeds (0-based index, as JOB_COMPLETION_INDEX). */
  shard?: { index: number; count: number };
  /** Run every seed of the share, never stopping at a violation. */
  keepGoing?: boolean;
  onProgress?: (done: number, total: number) => void;
  /** Each run as it ends, in the order the workers finish them (not by seed). */
  onRun?: (r: SwarmRun) => void;
  /** Stops the workers (a signal): the report then holds the runs finished before it. */
  signal?: AbortSignal;
}

export type ExploreFailure = SwarmRun & { scenarioObject: Scenario };

export interface ExploreReport {
  runs: number;
  steps: number;
  seconds: number;
  seedsPerSecond: number;
  workers: number;
  /** Known findings met: id to the number of runs, ids in alphabetical order. */
  known: Record<string, number>;
  /** The first run with a new violation (or a model error), if any: the smallest such seed. */
  failure: ExploreFailure | null;
  /** Every run with a new violation or a model error, by seed (without keepGoing: those met before it stopped). */
  failures: ExploreFailure[];
  /** The seed space, 1..seeds. */
  seeds: number;
  /** The share run, or null for all of 1..seeds. */
  shard: { index: number; count: number } | null;
}

/**
 * The seeds of share `index` of `count` in 1..n: s with (s - 1) mod count == index, ascending.
 * Yielded one at a time: a share may be a billion seeds, which as an array would not fit in
 * memory (nothing in explore holds the whole range).
 */
export function* shardSeeds(n: number, shard?: { index: number; count: number }): Generator<number> {
  const { index, count } = shard ?? { index: 0, count: 1 };
  for (let s = index + 1; s <= n; s += count) yield s;
}

/** The `i`-th (0-based) seed of share `index` of `count`. */
export function shardSeed(i: number, shard?: { index: number; count: number }): number {
  const { index, count } = shard ?? { index: 0, count: 1 };
  return index + 1 + i * count;
}

/**
 * What one of `workers` workers runs of a share of 1..n: the share's seeds with position
 * w, w + workers, w + 2 workers, ..., as a range (first, step, last) rather than a list.
 */
export interface SeedRange {
  first: number;
  step: number;
  last: number;
}
export function workerSeeds(n: number, shard: { index: number; count: number } | undefined, workers: number, w: number): SeedRange {
  const { count } = shard ?? { index: 0, count: 1 };
  return { first: shardSeed(w, shard), step: count * workers, last: n };
}

/** How many seeds of 1..n share `index` of `count` holds. */
export function shardSize(n: number, shard: { index: number; count: number }): number {
  return shard.index >= n ? 0 : Math.floor((n - 1 - shard.index) / shard.count) + 1;
}

export function failed(r: SwarmRun): boolean {
  return r.violations.length > 0 || r.error !== undefined;
}

/** Known-finding counts with their ids in order, so the same runs give the same document. */
export function sortedKnown(known: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(known).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export async function explore(o: ExploreOptions): Promise<ExploreReport> {
  const started = performance.now();
  const total = shardSize(o.seeds, o.shard ?? { index: 0, count: 1 });
  const workers = Math.max(1, Math.min(o.workers ?? availableParallelism(), total));
  const known: Record<string, number> = {};
  let runs = 0;
  let steps = 0;
  const failures: SwarmRun[] = [];
  const pool: Worker[] = [];
  if (total > 0 && o.signal?.aborted !== true) {
    await new Promise<void>((resolve, reject) => {
      o.signal?.addEventListener('abort', () => {
        for (const p of pool) void p.terminate();
      });
      let live = workers;
      for (let w = 0; w < workers; w++) {
        const worker = new Worker(new URL('./explore-worker.mjs', import.meta.url), {
          workerData: { scenarios: o.scenarios, seeds: workerSeeds(o.seeds, o.shard, workers, w), kinds: o.kinds, bugs: o.bugs ?? [] },
        });
        pool.push(worker);
        worker.on('message', (r: SwarmRun) => {
          runs++;
          steps += r.steps;
          for (const id of r.known) known[id] = (known[id] ?? 0) + 1;
          o.onRun?.(r);
          o.onProgress?.(runs, total);
          if (failed(r)) {
            failures.push(r);
            if (o.keepGoing !== true) for (const p of pool) void p.terminate();
          }
        });
        worker.on('error', (e) => {
          for (const p of pool) void p.terminate();
          reject(e);
        });
        worker.on('exit', () => {
          if (--live === 0) resolve();
        });
      }
    });
  }
  const seconds = (performance.now() - started) / 1000;
  failures.sort((a, b) => a.seed - b.seed);
  const withScenario = failures.map((f) => ({ ...f, scenarioObject: withFaults(o.scenarios.find((s) => s.file === f.scenario)!.scenario, f.seed, o.kinds) }));
  return {
    runs,
    steps,
    seconds: Math.round(seconds * 100) / 100,
    seedsPerSecond: Math.round((runs / Math.max(seconds, 1e-9)) * 10) / 10,
    workers: total === 0 ? 0 : workers,
    known: sortedKnown(known),
    failure: withScenario[0] ?? null,
    failures: withScenario,
    seeds: o.seeds,
    shard: o.shard ?? null,
  };
}
