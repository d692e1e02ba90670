/**
 * `explore`: the swarm. Seeds 1..N spread over the scenarios (seed s runs scenario
 * (s - 1) mod S with the seed's fault schedule), on every core through worker threads.
 * Stops at the first violation that no known finding explains, saves that run as a
 * scenario file, and says how to replay it. Deliberate bugs (tests only) are passed
 * through `bugs`; the CLI has no way to set them.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { BugName } from '../core/util/bugs.js';
import { type SwarmRun, swarmRun } from '../core/check/explore.js';
import type { FaultKind } from '../core/check/faults.js';
import type { Scenario } from '../core/scenario/types.js';

export interface ExploreOptions {
  scenarios: Array<{ file: string; scenario: Scenario }>;
  seeds: number;
  kinds: FaultKind[];
  workers?: number;
  bugs?: BugName[];
  onProgress?: (done: number, total: number) => void;
}

export interface ExploreReport {
  runs: number;
  steps: number;
  seconds: number;
  seedsPerSecond: number;
  workers: number;
  known: Record<string, number>;
  /** The first run with a new violation (or a model error), if any. */
  failure: (SwarmRun & { scenarioObject: Scenario }) | null;
}

export async function explore(o: ExploreOptions): Promise<ExploreReport> {
  const started = performance.now();
  const workers = Math.max(1, Math.min(o.workers ?? availableParallelism(), o.seeds));
  const known: Record<string, number> = {};
  let runs = 0;
  let steps = 0;
  let failure: SwarmRun | null = null;
  const seeds = Array.from({ length: o.seeds }, (_, i) => i + 1);
  const pool: Worker[] = [];
  await new Promise<void>((resolve, reject) => {
    let live = workers;
    for (let w = 0; w < workers; w++) {
      const mine = seeds.filter((_, i) => i % workers === w);
      const worker = new Worker(new URL('./explore-worker.mjs', import.meta.url), {
        workerData: { scenarios: o.scenarios, seeds: mine, kinds: o.kinds, bugs: o.bugs ?? [] },
      });
      pool.push(worker);
      worker.on('message', (r: SwarmRun) => {
        runs++;
        steps += r.steps;
        for (const id of r.known) known[id] = (known[id] ?? 0) + 1;
        if ((r.violations.length > 0 || r.error !== undefined) && (failure === null || r.seed < failure.seed)) failure = r;
        o.onProgress?.(runs, o.seeds);
        if (failure !== null) for (const p of pool) void p.terminate();
      });
      worker.on('error', reject);
      worker.on('exit', () => {
        if (--live === 0) resolve();
      });
    }
  });
  const seconds = (performance.now() - started) / 1000;
  const f = failure as SwarmRun | null;
  return {
    runs,
    steps,
    seconds: Math.round(seconds * 100) / 100,
    seedsPerSecond: Math.round((runs / Math.max(seconds, 1e-9)) * 10) / 10,
    workers,
    known,
    failure: f === null ? null : { ...f, scenarioObject: swarmRun(o.scenarios.find((s) => s.file === f.scenario)!.scenario, f.scenario, f.seed, o.kinds).scenario },
  };
}
