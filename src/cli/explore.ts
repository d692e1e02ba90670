/**
 * `explore`: the swarm on the command line (README, "Swarm"; src/explore.ts runs it), a
 * share of its seeds (`--shard K/M`) written to a file (`--out`, src/explore-shards.ts), and
 * `explore merge FILES...`, which joins the shards into the report one run of all the
 * seeds gives. Exit codes: 0 no new violation, 2 bad input (bad options, shard files that
 * do not belong together), 3 the --out file could not be written, 129 a new violation,
 * 130/143 stopped by SIGINT/SIGTERM.
 */
import { basename, join } from 'node:path';
import type { Scenario } from '../../core/scenario/types.js';
import { type ExploreReport, explore, failed, shardSize } from '../explore.js';
import { ShardWriter, failureFile, mergeShardFiles, shardHeader } from '../explore-shards.js';
import { FAULT_KINDS, type FaultKind, withFaults } from '../../core/check/faults.js';
import { KNOWN_FINDINGS } from '../../core/check/findings.js';
import { BUGS, type BugName } from '../../core/util/bugs.js';
import { toScenarioFile } from '../../core/scenario/serialize.js';
import { EXIT, signalExit } from './exit.js';
import { HELP } from './help.js';
import { type Flags, type Io, UsageError } from './flags.js';
import { SCENARIO_DIR, listScenarios, loadScenario, printProblems, resolveScenarioPath } from './scenarios.js';
import { checkOutputPath, inputNamedBy } from './output-file.js';
import { cmdExhaustive } from './exhaustive.js';
import { saveReplay } from './replay-file.js';

export async function cmdExplore(flags: Flags, io: Io): Promise<number> {
  if (flags.help) return io.out(HELP.explore), EXIT.ok;
  if (flags.positional[0] === 'merge') return cmdExploreMerge(flags, io);
  if (flags.exhaustive) {
    if (flags.shard !== undefined || flags.keepGoing || flags.out !== undefined) throw new UsageError('--shard, --out and --keep-going are for the random swarm; --exhaustive runs on one machine');
    return cmdExhaustive(flags, io);
  }
  if (Object.keys(flags.bounds).length > 0) throw new UsageError('--crashes, --store-faults, --partitions, --delays, --delay-ms, --fault-ms, --max-depth, --max-states, --settle-ms and --strategy need --exhaustive');
  if (flags.positional.length > 0) throw new UsageError('explore takes no FILE; use --scenario FILE (or: explore merge FILES...)');
  const scenarios: Array<{ file: string; scenario: Scenario }> = [];
  if (flags.scenario !== undefined) {
    const loaded = loadScenario(flags.scenario, { workBudget: flags.workBudget });
    if (!loaded.ok) return printProblems(io, flags.scenario, loaded.problems, flags.json), EXIT.badInput;
    scenarios.push({ file: basename(resolveScenarioPath(flags.scenario)).replace(/\.(ya?ml|json)$/, ''), scenario: loaded.scenario });
  } else {
    for (const s of listScenarios()) {
      const loaded = loadScenario(join(SCENARIO_DIR, `${s.file}.yaml`));
      if (loaded.ok) scenarios.push({ file: s.file, scenario: loaded.scenario });
    }
  }
  return runExplore(flags, io, scenarios);
}

/** explore over the given scenarios (loaded by cmdExplore; tests pass a few). */
export async function runExplore(flags: Flags, io: Io, scenarios: Array<{ file: string; scenario: Scenario }>): Promise<number> {
  const seeds = flags.seeds ?? 200;
  const kinds = flags.faults ?? [...FAULT_KINDS];
  const out = flags.out;
  if (out === '-' && flags.json) throw new UsageError('--out - writes the shard file on stdout, so --json cannot print there too (drop --json, or give --out a file)');
  if (out !== undefined && out !== '-') {
    if (flags.scenario !== undefined && inputNamedBy(out, [resolveScenarioPath(flags.scenario)]) !== null) {
      io.err(`explore: --out ${out} is the scenario being explored (--scenario ${flags.scenario}); nothing was run: give --out another file`);
      return EXIT.badInput;
    }
    const bad = checkOutputPath(out);
    if (bad !== null) return io.err(`explore: --out ${bad}`), EXIT.badInput;
  }
  const shard = flags.shard;
  const plantBug = flags.plantBug ?? null;
  if (shard !== undefined) {
    const g = gcd(shard.count, scenarios.length);
    if (g > 1) {
      io.err(
        `explore: note: with ${scenarios.length} scenarios and ${shard.count} shards, shard ${shard.index} runs only the scenarios i with i mod ${g} = ${shard.index % g} ` +
          `(seed s runs scenario (s - 1) mod ${scenarios.length}), so shards can take unequal time; a shard count with no common factor with ${scenarios.length} gives each shard every scenario`,
      );
    }
  }
  // A file of results holds every seed of the share, so it does not depend on worker timing.
  const keepGoing = flags.keepGoing === true || out !== undefined;
  const writer = out === undefined ? null : new ShardWriter(out, shardHeader({ scenarios, seeds, shard: shard ?? { index: 0, count: 1 }, kinds, plantBug }), io.out);
  const tty = process.stderr.isTTY === true;
  let last = 0;
  // SIGINT and SIGTERM (a scheduler stopping the pod) stop the workers; no --out file is left.
  const stop = new AbortController();
  let stoppedBy: NodeJS.Signals | null = null;
  const onSignal = (sig: NodeJS.Signals): void => {
    stoppedBy = sig;
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let report: ExploreReport;
  try {
    report = await explore({
      scenarios,
      seeds,
      kinds,
      ...(flags.workers !== undefined ? { workers: flags.workers } : {}),
      ...(plantBug !== null ? { bugs: [plantBug] } : {}),
      ...(shard !== undefined ? { shard } : {}),
      keepGoing,
      signal: stop.signal,
      onRun: (r) => writer?.add(r, failed(r) ? toScenarioFile(withFaults(scenarios.find((s) => s.file === r.scenario)!.scenario, r.seed, kinds)) : undefined),
      onProgress: (done, total) => {
        if (!tty || (done !== total && Date.now() - last < 250)) return;
        last = Date.now();
        process.stderr.write(`\r${done}/${total} seeds`);
      },
    });
  } catch (e) {
    writer?.abort();
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  if (tty) process.stderr.write('\n');
  const share = shard === undefined ? seeds : shardSize(seeds, shard);
  if (stoppedBy !== null) {
    writer?.abort();
    io.err(`explore: stopped by ${stoppedBy} after ${report.runs} of ${share} seeds${out !== undefined && out !== '-' ? `; ${out} was not written` : ''}`);
    return signalExit(stoppedBy);
  }
  if (writer !== null) {
    const bad = writer.finish({ steps: report.steps, failures: report.failures.length, seconds: report.seconds, workers: report.workers });
    if (bad !== null) return io.err(`explore: --out ${bad}`), EXIT.storeFailed;
    if (out !== '-') io.err(`explore: wrote ${out}: ${report.runs} seeds${shard !== undefined ? ` (shard ${shard.index}/${shard.count})` : ''}, a line each`);
  }
  return printReport(flags.json, out === '-' ? io.err : io.out, io, report, {
    scenarios: scenarios.map((s) => s.file),
    kinds,
    plantBug,
    shards: 1,
    share,
  });
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** `explore merge FILES...`: the shards' report, as one run of all their seeds prints it. */
async function cmdExploreMerge(flags: Flags, io: Io): Promise<number> {
  const files = flags.positional.slice(1);
  if (files.length === 0) throw new UsageError('explore merge needs FILES: the --out files of every shard');
  const given = (['seeds', 'scenario', 'faults', 'workers', 'shard', 'keepGoing', 'plantBug', 'out'] as const).filter((k) => flags[k] !== undefined);
  if (given.length > 0) throw new UsageError(`explore merge takes FILES and --json only (the run's options are in the files), not --${given[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
  const r = await mergeShardFiles(files);
  if (!r.ok) {
    for (const p of r.problems) io.err(`explore merge: ${p}`);
    io.err(`explore merge: ${r.problems.length} problem${r.problems.length === 1 ? '' : 's'}; nothing merged`);
    return EXIT.badInput;
  }
  const { header, report, shards } = r.merged;
  return printReport(flags.json, io.out, io, report, {
    scenarios: header.scenarios.map((s) => s.name),
    kinds: header.faults,
    plantBug: header.plantBug,
    shards,
    share: header.seeds,
  });
}

interface ReportContext {
  scenarios: string[];
  kinds: FaultKind[];
  plantBug: BugName | null;
  /** Shard files merged into the report (1 for a run). */
  shards: number;
  /** Seeds the run was to run (its share, or all). */
  share: number;
}

/** Saves the first failing run, prints the report (text or JSON) on `say`; the exit code. */
function printReport(json: boolean, say: (s: string) => void, io: Io, report: ExploreReport, ctx: ReportContext): number {
  const f = report.failure;
  let replay: { file: string; command: string; url: string } | null = null;
  if (f !== null) {
    const saved = saveReplay(`${f.scenario}-seed-${f.seed}`, failureFile(f), { seed: f.seed, urlSeed: f.seed, plantBug: ctx.plantBug, url: true });
    // The finding is still printed below; only its saved copy is missing.
    if (saved.problem !== null) io.err(`explore: could not save the failing run: ${saved.problem}`);
    replay = saved.replay;
  }
  if (json) {
    say(
      JSON.stringify(
        {
          runs: report.runs,
          steps: report.steps,
          seconds: report.seconds,
          seedsPerSecond: report.seedsPerSecond,
          workers: report.workers,
          known: report.known,
          failure: f === null ? null : { scenario: f.scenario, seed: f.seed, violations: f.violations, error: f.error ?? null, replay },
          seeds: report.seeds,
          shard: report.shard,
          shards: ctx.shards,
          scenarios: ctx.scenarios,
          faults: ctx.kinds,
          plantBug: ctx.plantBug,
          failures: report.failures.map((x) => ({ scenario: x.scenario, seed: x.seed, violations: x.violations, error: x.error ?? null })),
        },
        null,
        2,
      ),
    );
    return f === null ? EXIT.ok : EXIT.violation;
  }
  const n = ctx.scenarios.length;
  const what = report.shard !== null ? ` (shard ${report.shard.index}/${report.shard.count} of seeds 1..${report.seeds})` : ctx.shards > 1 ? ` (${ctx.shards} shards merged)` : '';
  const time = ctx.shards > 1 ? `${report.seconds} s (the longest shard)` : `${report.seconds} s`;
  say(`${report.runs} seeds${what} over ${n} scenario${n === 1 ? '' : 's'} (faults: ${ctx.kinds.join(', ')}) in ${time} on ${report.workers} workers: ${report.seedsPerSecond} seeds/s, ${report.steps} steps`);
  if (ctx.plantBug !== null) say(`planted bug ${ctx.plantBug}: ${BUGS[ctx.plantBug]} (a run that finds nothing new means the checks missed it)`);
  for (const [id, count] of Object.entries(report.known)) {
    const k = KNOWN_FINDINGS.find((x) => x.id === id);
    say(`known finding ${id} met in ${count} run${count === 1 ? '' : 's'} (${k?.reproducedBy ?? ''})`);
  }
  if (f === null) say('no new violation');
  else {
    if (f.error !== undefined) say(`MODEL ERROR in ${f.scenario} seed ${f.seed}: ${f.error}`);
    for (const v of f.violations) say(`VIOLATION in ${f.scenario} seed ${f.seed} at t=${v.atMs}ms: ${v.invariant}: ${v.message}`);
    const more = report.failures.slice(1).map((x) => x.seed);
    if (more.length > 0) say(`${more.length} more run${more.length === 1 ? '' : 's'} with a new violation or error: seed${more.length === 1 ? '' : 's'} ${more.slice(0, 20).join(', ')}${more.length > 20 ? ', ...' : ''} (all in --json's "failures")`);
    if (report.runs < ctx.share) say(`stopped at the first new violation after ${report.runs} of ${ctx.share} seeds (--keep-going runs them all)`);
    say(`saved the run as ${replay!.file}`);
    say(`replay: ${replay!.command}`);
    say(`watch:  npm start, then open ${replay!.url}`);
    if (ctx.plantBug !== null) say(`(the planted bug ${ctx.plantBug} is not in the saved file: run replays it with --plant-bug, as above; the walkthrough never plants a bug, so it shows the faults without it)`);
  }
  return f === null ? EXIT.ok : EXIT.violation;
}
