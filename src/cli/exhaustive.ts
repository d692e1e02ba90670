/**
 * `explore FILE --exhaustive`: every order of the scenario's nondeterministic choices within
 * the bounds (core/check/exhaustive.ts; docs/checking.md). Prints the figures, and every
 * violation with its shortest path saved as a scenario that `run` replays and a walkthrough
 * URL that animates. Exit codes: 0 no new violation, 2 bad input, 129 a new violation,
 * 130/143 stopped by SIGINT/SIGTERM (the search so far is printed, its counterexamples saved).
 *
 * Memory: a search holds about STATE_BYTES of heap per distinct state, so `--max-states` is
 * checked against the heap before starting (a bound the heap cannot hold is refused; the
 * default is lowered to what it holds), and a search that fills its heap anyway stops with
 * its report instead of dying in V8.
 */
import { basename } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { DEFAULT_BOUNDS, type ExhaustiveReport, type FoundViolation, STATE_BYTES, exhaustiveSearch } from '../../core/check/exhaustive.js';
import { KNOWN_FINDINGS } from '../../core/check/findings.js';
import { toScenarioFile } from '../../core/scenario/serialize.js';
import { type BugName, withBugsAsync } from '../../core/util/bugs.js';
import { EXIT, signalExit } from './exit.js';
import { type Flags, type Io, UsageError } from './flags.js';
import { type Replay, saveReplay } from './replay-file.js';
import { loadScenario, printProblems, resolveScenarioPath } from './scenarios.js';

/** Where a counterexample is saved, and how to replay and watch it. */
interface Saved extends Replay {
  /** Why it could not be saved (it is still printed). */
  problem?: string;
}

const fmt = (n: number) => n.toLocaleString('en-US');
const mb = (bytes: number) => `${fmt(Math.round(bytes / 1e6))} MB`;

/** The share of the heap a search may fill before it stops with its report. */
const HEAP_STOP = 0.9;

/** Heap kept for the rest of the process (the model, the CLI, the counterexamples' replays), bytes. */
const HEAP_RESERVE = 64 * 2 ** 20;

/**
 * The states this process's heap can hold for a search: its limit below HEAP_STOP, less
 * HEAP_RESERVE, at STATE_BYTES a state. It reads only the limit, so one heap size always
 * gives the same figure (the default bound, printed in --json's bounds, does not vary).
 */
export function statesTheHeapHolds(h: { heap_size_limit: number } = getHeapStatistics()): number {
  return Math.max(0, Math.floor((h.heap_size_limit * HEAP_STOP - HEAP_RESERVE) / STATE_BYTES));
}

/** `--max-states` given, or the default lowered to what the heap holds; a bound the heap cannot hold is a UsageError. */
export function maxStatesFor(given: number | undefined, h: { heap_size_limit: number } = getHeapStatistics()): number {
  const holds = statesTheHeapHolds(h);
  if (given === undefined) return Math.max(1, Math.min(DEFAULT_BOUNDS.maxStates, holds));
  if (given <= holds) return given;
  throw new UsageError(
    `--max-states ${fmt(given)} needs about ${mb(given * STATE_BYTES)} of heap (${fmt(STATE_BYTES)} bytes a state), but this process's heap holds about ${fmt(holds)} states ` +
      `(limit ${mb(h.heap_size_limit)}); give --max-states ${fmt(holds)} or less, or a larger heap (NODE_OPTIONS=--max-old-space-size=MB)`,
  );
}

export async function cmdExhaustive(flags: Flags, io: Io): Promise<number> {
  const files = [...flags.positional, ...(flags.scenario !== undefined ? [flags.scenario] : [])];
  if (files.length !== 1) throw new UsageError('explore --exhaustive needs exactly one scenario: FILE (a file or a bundled scenario name)');
  if (flags.seeds !== undefined) throw new UsageError('--seeds is for the random swarm; --exhaustive explores every path within the bounds');
  if (flags.faults !== undefined) throw new UsageError('--faults is for the random swarm; --exhaustive takes --crashes, --store-faults, --partitions and --delays');
  const file = files[0];
  const loaded = loadScenario(file, { workBudget: flags.workBudget });
  if (!loaded.ok) return printProblems(io, file, loaded.problems, flags.json), EXIT.badInput;
  const name = basename(resolveScenarioPath(file)).replace(/\.(ya?ml|json)$/, '');
  const scenario = flags.seed !== undefined ? { ...loaded.scenario, seed: flags.seed } : loaded.scenario;
  const bugs: BugName[] = flags.plantBug !== undefined ? [flags.plantBug] : [];
  const bounds = { ...flags.bounds, maxStates: maxStatesFor(flags.bounds.maxStates) };
  const tty = process.stderr.isTTY === true;
  let last = 0;
  // Without a terminal, a line at 1,000, 10,000 and 100,000 states, then every 100,000.
  let milestone = 1000;
  // SIGINT and SIGTERM stop the search between two states; the heap stops it near full.
  let signal: NodeJS.Signals | null = null;
  let heapFull = '';
  const onSignal = (sig: NodeJS.Signals): void => {
    signal ??= sig;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let report: ExhaustiveReport;
  try {
    report = await withBugsAsync(bugs, async () => {
      const search = exhaustiveSearch(scenario, name, {
        bounds,
        clock: () => performance.now(),
        shouldStop: () => {
          if (signal !== null) return signal;
          const h = getHeapStatistics();
          if (h.used_heap_size < h.heap_size_limit * HEAP_STOP) return null;
          heapFull = `${mb(h.used_heap_size)} of ${mb(h.heap_size_limit)}`;
          return 'heap';
        },
        onProgress: (p) => {
          if (!tty) {
            if (p.distinct < milestone) return;
            milestone = milestone < 100_000 ? milestone * 10 : milestone + 100_000;
            return io.err(`explore: ${fmt(p.distinct)} distinct states, ${fmt(p.explored)} explored, depth ${p.depth}, ${fmt(p.frontier)} waiting`);
          }
          if (Date.now() - last < 250) return;
          last = Date.now();
          process.stderr.write(`\r${fmt(p.distinct)} distinct states, ${fmt(p.explored)} explored, depth ${p.depth}, ${fmt(p.frontier)} waiting   `);
        },
      });
      for (;;) {
        const r = search.next();
        if (r.done === true) return r.value;
        // Lets a signal's handler run.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (tty) process.stderr.write('\n');
  const saved = report.violations.map((v) => save(name, v, flags.seed, bugs));
  for (const s of saved) if (s.problem !== undefined) io.err(`explore: could not save ${s.file}: ${s.problem}`);
  const isNew = (v: FoundViolation) => v.known === null;
  if (flags.json) io.out(JSON.stringify(jsonReport(report, saved, bugs), null, 2));
  else printReport(io, report, saved, bugs, heapFull);
  if (report.stoppedBy === 'SIGINT' || report.stoppedBy === 'SIGTERM') {
    io.err(`explore: stopped by ${report.stoppedBy} after ${fmt(report.distinctStates)} distinct states (depth ${report.depth}); the search so far is above`);
    return signalExit(report.stoppedBy);
  }
  return report.violations.some(isNew) ? EXIT.violation : EXIT.ok;
}

function save(name: string, v: FoundViolation, seed: number | undefined, bugs: BugName[]): Saved {
  const { replay, problem } = saveReplay(`${name}-exhaustive-${v.known ?? v.invariant}${bugs.length > 0 ? `-with-${bugs[0]}` : ''}`, toScenarioFile(v.scenario), {
    ...(seed !== undefined ? { seed } : {}),
    urlSeed: seed ?? v.scenario.seed,
    plantBug: bugs[0] ?? null,
    // The walkthrough never plants a bug: a path that needs one has no URL.
    url: bugs.length === 0,
  });
  return { ...replay, ...(problem !== null ? { problem } : {}) };
}

function jsonReport(r: ExhaustiveReport, saved: Saved[], bugs: BugName[]) {
  return {
    mode: 'exhaustive',
    scenario: r.scenario,
    plantedBug: bugs[0] ?? null,
    bounds: r.bounds,
    statesExplored: r.statesExplored,
    distinctStates: r.distinctStates,
    depth: r.depth,
    exhausted: r.exhausted,
    cutByDepth: r.cutByDepth,
    stoppedAtMaxStates: r.stoppedAtMaxStates,
    stoppedBy: r.stoppedBy,
    stateBytes: STATE_BYTES,
    seconds: r.seconds,
    statesPerSecond: r.statesPerSecond,
    ends: r.ends,
    livenessJudged: r.livenessJudged,
    violationStates: r.violationStates,
    violations: r.violations.map((v, i) => ({
      invariant: v.invariant,
      known: v.known,
      message: v.message,
      atMs: v.atMs,
      depth: v.depth,
      steps: v.steps,
      foundAfterStates: v.foundAfterStates,
      foundAfterSeconds: v.foundAfterSeconds,
      replayed: v.replayed,
      replay: { file: saved[i].file, command: saved[i].command, url: saved[i].url },
    })),
  };
}

function printReport(io: Io, r: ExhaustiveReport, saved: Saved[], bugs: BugName[], heapFull: string): void {
  const b = r.bounds;
  const faults = [
    `${b.crashes} crash${b.crashes === 1 ? '' : 'es'}`,
    `${b.storeFaults} store fault${b.storeFaults === 1 ? '' : 's'}`,
    `${b.partitions} partition${b.partitions === 1 ? '' : 's'}`,
    `${b.delays} late message${b.delays === 1 ? '' : 's'}${b.delays > 0 ? ` (${b.delayMs} ms)` : ''}`,
  ];
  io.out(`exhaustive: ${r.scenario}, every path with up to ${faults.join(', ')} (crashes and partitions last ${b.faultMs} ms)${bugs.length > 0 ? `, planted bug ${bugs[0]}` : ''}`);
  const how = r.exhausted
    ? r.cutByDepth === 0
      ? 'exhausted: every path reached the end'
      : `exhausted to depth ${b.maxDepth} (${fmt(r.cutByDepth)} states cut there)`
    : r.stoppedAtMaxStates
      ? `NOT exhausted: stopped at --max-states ${fmt(b.maxStates)}`
      : r.stoppedBy === 'heap'
        ? `NOT exhausted: stopped with the heap nearly full (${heapFull}; a larger heap: NODE_OPTIONS=--max-old-space-size=MB)`
        : r.stoppedBy !== null
          ? `NOT exhausted: stopped by ${r.stoppedBy}`
          : 'stopped';
  io.out(`${fmt(r.distinctStates)} distinct states (${fmt(r.statesExplored)} explored), depth ${r.depth}, ${how}, in ${r.seconds} s: ${fmt(r.statesPerSecond)} states/s`);
  io.out(`liveness: ${fmt(r.ends)} end states settled for ${b.settleMs} ms, ${fmt(r.livenessJudged)} judged (faults over, followers fetching)`);
  for (const [i, v] of r.violations.entries()) {
    const s = saved[i];
    const n = r.violationStates[v.known ?? v.invariant] ?? 1;
    if (v.known !== null) {
      const k = KNOWN_FINDINGS.find((x) => x.id === v.known);
      io.out(`known finding ${v.known} (${v.invariant}) in ${fmt(n)} state${n === 1 ? '' : 's'}; shortest path ${v.depth} transitions (${k?.reproducedBy ?? ''})`);
      io.out(`  saved as ${s.file}; replay: ${s.command}`);
      continue;
    }
    io.out(`VIOLATION ${v.invariant} in ${fmt(n)} state${n === 1 ? '' : 's'}, at t=${v.atMs}ms: ${v.message}`);
    io.out(`  shortest path: ${v.depth} transitions (${v.steps} steps), found after ${fmt(v.foundAfterStates)} states and ${v.foundAfterSeconds} s; ${v.replayed ? 'the saved scenario replays it' : 'THE SAVED SCENARIO DOES NOT REPLAY IT (a checker bug)'}`);
    io.out(`  saved as ${s.file}`);
    io.out(`  replay: ${s.command}`);
    io.out(s.url === '' ? '  watch:  (the walkthrough never plants a bug, so it would not show this path)' : `  watch:  npm start, then open ${s.url}`);
  }
  if (!r.violations.some((v) => v.known === null)) io.out('no new violation');
}

