/** A swarm worker: runs the seeds it is given and posts each result back (see src/explore.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { withBugs, type BugName } from '../core/util/bugs.js';
import { swarmRun } from '../core/check/explore.js';
import type { FaultKind } from '../core/check/faults.js';
import type { Scenario } from '../core/scenario/types.js';
import type { SeedRange } from './explore.js';

interface Job {
  scenarios: Array<{ file: string; scenario: Scenario }>;
  /** This worker's seeds, as a range (a share may be a billion seeds). */
  seeds: SeedRange;
  kinds: FaultKind[];
  bugs: BugName[];
}

const job = workerData as Job;
withBugs(job.bugs, () => {
  const { first, step, last } = job.seeds;
  for (let seed = first; seed <= last; seed += step) {
    const { file, scenario } = job.scenarios[(seed - 1) % job.scenarios.length];
    const { run } = swarmRun(scenario, file, seed, job.kinds);
    parentPort!.postMessage(run);
  }
});
