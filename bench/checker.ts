/**
 * Checker (figure 9): the exhaustive bounded search (core/check/exhaustive.ts,
 * docs/checking.md) on small bundled scenarios, and each deliberate bug's time to detection
 * in both modes: exhaustive (states and seconds to the first violation) and the random
 * swarm on the same scenario (seeds, steps and seconds to the first failing seed).
 * Budget: KIP-1023's bootstrap (2 brokers) with one crash and one store fault exhausted in
 * under 5 minutes.
 *
 *   node --import tsx bench/checker.ts '{"scenarios": ["kip1023-bootstrap"], "bugs": true}'
 */
import { fileURLToPath } from 'node:url';
import { exhaustive } from '../core/check/exhaustive.js';
import { FAULT_KINDS } from '../core/check/faults.js';
import type { Scenario } from '../core/scenario/types.js';
import { BUGS, BUG_SCENARIOS, type BugName, withBugs } from '../core/util/bugs.js';
import { explore } from '../src/explore.js';
import { loadScenario } from '../src/cli/scenarios.js';

export interface CheckerSpec {
  /** Scenarios exhausted with one crash and one store fault (the first is the budget's). */
  scenarios?: string[];
  /** Also time each deliberate bug in both modes. */
  bugs?: boolean;
  /** Most seeds the swarm runs per bug. */
  swarmSeeds?: number;
  /** Distinct states at most, per scenario (a guard: the figures say whether it was reached). */
  maxStates?: number;
}

export interface ScenarioFigure {
  scenario: string;
  brokers: number;
  distinctStates: number;
  statesExplored: number;
  depth: number;
  exhausted: boolean;
  seconds: number;
  statesPerSecond: number;
  ends: number;
  known: Record<string, number>;
  newViolations: number;
}

export interface BugFigure {
  bug: BugName;
  scenario: string;
  invariant: string | null;
  exhaustive: { found: boolean; states: number; seconds: number; depth: number };
  swarm: { found: boolean; seeds: number; steps: number; seconds: number; seed: number | null };
}

export interface CheckerFigures {
  scenarios: ScenarioFigure[];
  bugs: BugFigure[];
}


/** A bundled scenario by name (the CLI's loader, which resolves bundled names). */
function load(name: string): Scenario {
  const r = loadScenario(name);
  if (!r.ok) throw new Error(`${name} is not valid`);
  return r.scenario;
}

const now = () => performance.now();

export async function measureChecker(spec: CheckerSpec): Promise<CheckerFigures> {
  const scenarios: ScenarioFigure[] = [];
  for (const name of spec.scenarios ?? ['kip1023-bootstrap']) {
    const s = load(name);
    const r = exhaustive(s, name, { bounds: { crashes: 1, storeFaults: 1, maxStates: spec.maxStates ?? 2_000_000 }, clock: now });
    const known: Record<string, number> = {};
    for (const v of r.violations) if (v.known !== null) known[v.known] = r.violationStates[v.known] ?? 1;
    scenarios.push({
      scenario: name,
      brokers: s.brokers,
      distinctStates: r.distinctStates,
      statesExplored: r.statesExplored,
      depth: r.depth,
      exhausted: r.exhausted,
      seconds: r.seconds,
      statesPerSecond: r.statesPerSecond,
      ends: r.ends,
      known,
      newViolations: r.violations.filter((v) => v.known === null).length,
    });
  }
  const bugs: BugFigure[] = [];
  if (spec.bugs) {
    for (const bug of Object.keys(BUGS) as BugName[]) {
      const name = BUG_SCENARIOS[bug];
      const s = load(name);
      const r = withBugs([bug], () => exhaustive(s, name, { bounds: { crashes: 1, storeFaults: 1, maxStates: spec.maxStates ?? 2_000_000 }, stopAtFirst: true, clock: now }));
      const v = r.violations.find((x) => x.known === null);
      const started = now();
      const w = await explore({ scenarios: [{ file: name, scenario: s }], seeds: spec.swarmSeeds ?? 2000, kinds: [...FAULT_KINDS], bugs: [bug], workers: 2 });
      const swarmSeconds = (now() - started) / 1000;
      bugs.push({
        bug,
        scenario: name,
        invariant: v?.invariant ?? null,
        exhaustive: { found: v !== undefined, states: v?.foundAfterStates ?? r.statesExplored, seconds: v?.foundAfterSeconds ?? r.seconds, depth: v?.depth ?? 0 },
        swarm: { found: w.failure !== null, seeds: w.runs, steps: w.steps, seconds: Math.round(swarmSeconds * 100) / 100, seed: w.failure?.seed ?? null },
      });
    }
  }
  return { scenarios, bugs };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as CheckerSpec;
  const figures = await measureChecker(spec);
  if (process.argv.includes('--json')) console.log(JSON.stringify(figures));
  else console.log(JSON.stringify(figures, null, 2));
}
