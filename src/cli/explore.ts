/**
 * `explore`: the swarm on the command line (README, "Swarm"; src/explore.ts runs it).
 */
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Scenario } from '../../core/scenario/types.js';
import { explore } from '../explore.js';
import { FAULT_KINDS } from '../../core/check/faults.js';
import { KNOWN_FINDINGS } from '../../core/check/findings.js';
import { toScenarioFile } from '../../core/scenario/serialize.js';
import { encodeUrlState } from '../../web/lib/url.js';
import { EXIT } from './exit.js';
import { HELP } from './help.js';
import { type Flags, type Io, UsageError } from './flags.js';
import { SCENARIO_DIR, listScenarios, loadScenario, printProblems, resolveScenarioPath } from './scenarios.js';
import { writeWhole } from './output-file.js';

export async function cmdExplore(flags: Flags, io: Io): Promise<number> {
  if (flags.help) return io.out(HELP.explore), EXIT.ok;
  if (flags.positional.length > 0) throw new UsageError('explore takes no FILE; use --scenario FILE');
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
  const seeds = flags.seeds ?? 200;
  const kinds = flags.faults ?? [...FAULT_KINDS];
  const tty = process.stderr.isTTY === true;
  let last = 0;
  const report = await explore({
    scenarios,
    seeds,
    kinds,
    ...(flags.workers !== undefined ? { workers: flags.workers } : {}),
    onProgress: (done, total) => {
      if (!tty || (done !== total && Date.now() - last < 250)) return;
      last = Date.now();
      process.stderr.write(`\r${done}/${total} seeds`);
    },
  });
  if (tty) process.stderr.write('\n');
  const f = report.failure;
  let replay: { file: string; command: string; url: string } | null = null;
  if (f !== null) {
    const file = join('explore-failures', `${f.scenario}-seed-${f.seed}.json`);
    const text = JSON.stringify(toScenarioFile(f.scenarioObject), null, 2);
    let bad: string | null;
    try {
      mkdirSync('explore-failures', { recursive: true });
      bad = writeWhole(file, text + '\n');
    } catch (e) {
      bad = `explore-failures cannot be made (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
    }
    // The finding is still printed below; only its saved copy is missing.
    if (bad !== null) io.err(`explore: could not save the failing run: ${bad}`);
    replay = { file, command: `npm run sim -- run ${file} --seed ${f.seed}`, url: `http://localhost:5173/?${encodeUrlState({ source: text, seed: f.seed, actions: [] })}` };
  }
  if (flags.json) {
    const { failure, ...rest } = report;
    io.out(JSON.stringify({ ...rest, failure: failure === null ? null : { scenario: failure.scenario, seed: failure.seed, violations: failure.violations, error: failure.error ?? null, replay } }, null, 2));
  } else {
    io.out(`${report.runs} seeds over ${scenarios.length} scenario${scenarios.length === 1 ? '' : 's'} (faults: ${kinds.join(', ')}) in ${report.seconds} s on ${report.workers} workers: ${report.seedsPerSecond} seeds/s, ${report.steps} steps`);
    for (const [id, n] of Object.entries(report.known)) {
      const k = KNOWN_FINDINGS.find((x) => x.id === id);
      io.out(`known finding ${id} met in ${n} run${n === 1 ? '' : 's'} (${k?.reproducedBy ?? ''})`);
    }
    if (f === null) io.out('no new violation');
    else {
      if (f.error !== undefined) io.out(`MODEL ERROR in ${f.scenario} seed ${f.seed}: ${f.error}`);
      for (const v of f.violations) io.out(`VIOLATION in ${f.scenario} seed ${f.seed} at t=${v.atMs}ms: ${v.invariant}: ${v.message}`);
      io.out(`saved the run as ${replay!.file}`);
      io.out(`replay: ${replay!.command}`);
      io.out(`watch:  npm start, then open ${replay!.url}`);
    }
  }
  return f === null ? EXIT.ok : EXIT.violation;
}
