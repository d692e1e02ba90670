/**
 * The headless CLI (README, "The CLI"; its JSON: docs/json-output.md): `run`, `compare`,
 * `whatif`, `conformance`, `explore`, `list`, `validate`, `report`, `--help`.
 * Exit codes (exit.ts): 0 ok; 2 bad input; 3 an external store failed; 129 an invariant was violated.
 */
import { readFileSync, existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CompareResult, MODES, StepBudgetExceeded, compare, formatCompare } from '../../core/study/compare.js';
import { runCase } from '../../core/check/conformance.js';
import { loadConformance } from '../conformance.js';
import { encodePageLink, type UrlState } from '../../web/lib/url.js';
import { CHAPTERS, findChapter, type Chapter } from '../../core/report/chapters.js';
import { type ReportFormat, buildReport, renderReport } from '../../core/report/report.js';
import { hideNodeVersionWarning } from '../node-warnings.js';
import { watchLaunchers } from './orphan.js';
import { EXIT } from './exit.js';
import { HELP } from './help.js';
import { type Flags, type Io, UsageError, parseFlags } from './flags.js';
import { SCENARIO_DIR, listScenarios, loadScenario, printProblems, resolveScenarioPath } from './scenarios.js';
import { cmdRun } from './run.js';
import { cmdExplore } from './explore.js';
import { cmdImport } from './import.js';
import { cmdWhatIf } from './whatif.js';
import { withBugsAsync } from '../../core/util/bugs.js';
import { checkOutputPath, inputNamedBy, writeWhole } from './output-file.js';

export { EXIT } from './exit.js';
export { SCENARIO_DIR, listScenarios, loadScenario, resolveScenarioPath } from './scenarios.js';

function cmdCompare(flags: Flags, io: Io): number {
  if (flags.help) return io.out(HELP.compare), EXIT.ok;
  if (flags.positional.length !== 1) throw new UsageError('compare needs exactly one FILE');
  if (flags.store !== 'memory') throw new UsageError('compare runs in memory only (no --store)');
  const file = flags.positional[0];
  // Each mode's run keeps its trace (its figures are read from it).
  const loaded = loadScenario(file, { workBudget: flags.workBudget, traceKept: true });
  if (!loaded.ok) return printProblems(io, file, loaded.problems, flags.json), EXIT.badInput;
  // The same guard as run's: each mode's run may take at most this many steps.
  const maxSteps = flags.maxSteps ?? 5_000_000;
  let result: CompareResult;
  try {
    result = compare(loaded.scenario, flags.modes ?? [...MODES], flags.seed, { maxSteps });
  } catch (e) {
    if (!(e instanceof StepBudgetExceeded)) throw e;
    io.err(`compare: ${e.message}; the scenario needs more (raise the budget with --max-steps N)`);
    return EXIT.badInput;
  }
  io.out(flags.json ? JSON.stringify(result, null, 2) : formatCompare(result));
  return result.modes.some((m) => m.violations > 0) ? EXIT.violation : EXIT.ok;
}

function cmdConformance(flags: Flags, io: Io): number {
  if (flags.help) return io.out(HELP.conformance), EXIT.ok;
  if (flags.positional.length > 1) throw new UsageError('conformance takes at most one DIR');
  const dir = flags.positional[0];
  let loaded: ReturnType<typeof loadConformance>;
  try {
    loaded = loadConformance(dir);
  } catch (e) {
    io.err(`conformance: cannot read ${dir ?? 'conformance/'}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    return EXIT.badInput;
  }
  if (loaded.problems.length > 0) {
    for (const p of loaded.problems) io.err(p);
    return EXIT.badInput;
  }
  const results = loaded.cases.map(runCase);
  const failed = results.filter((r) => r.failures.length > 0);
  if (flags.json) io.out(JSON.stringify({ cases: results.length, failed: failed.length, results }, null, 2));
  else {
    for (const r of results) {
      io.out(`${r.failures.length === 0 ? 'ok  ' : 'FAIL'} ${r.file}: ${r.name}`);
      io.out(`     from ${r.source}`);
      for (const f of r.failures) io.out(`     - ${f}`);
    }
    io.out(`${results.length - failed.length} of ${results.length} cases pass`);
  }
  return failed.length > 0 ? EXIT.violation : EXIT.ok;
}

/** The bundled scenario a path names (file name without extension), or null for a file of the user's. */
function bundledName(path: string): string | null {
  const abs = resolve(path);
  if (dirname(abs) !== SCENARIO_DIR || !existsSync(abs)) return null;
  return basename(abs).replace(/\.(ya?ml|json)$/, '');
}

function cmdReport(flags: Flags, io: Io): number {
  if (flags.help) return io.out(HELP.report), EXIT.ok;
  if (flags.positional.length > 1) throw new UsageError('report takes one FILE (a scenario file, a bundled scenario or a chapter id)');
  if (flags.store !== 'memory') throw new UsageError('report runs in memory only (no --store)');
  if (flags.fromStep !== undefined && flags.toStep !== undefined && flags.fromStep > flags.toStep) throw new UsageError(`--from ${flags.fromStep} is after --to ${flags.toStep}`);
  const format: ReportFormat = flags.format ?? (flags.json ? 'json' : 'md');
  let chapter: Chapter | undefined;
  if (flags.chapter !== undefined) {
    chapter = findChapter(flags.chapter);
    if (chapter === undefined) {
      io.err(`report: no chapter "${flags.chapter}"; the chapters are ${CHAPTERS.map((c) => c.id).join(', ')}`);
      return EXIT.badInput;
    }
  }
  let file = flags.positional[0];
  if (file === undefined) {
    if (chapter === undefined) throw new UsageError('report needs a FILE or --chapter ID');
    file = chapter.scenario;
  } else if (chapter === undefined && !existsSync(file) && findChapter(file) !== undefined) {
    // A chapter id names its scenario and its stops; a file of that name on disk wins.
    chapter = findChapter(file)!;
    file = chapter.scenario;
  }
  // The report's runs keep their traces (its figures and chapters are read from them).
  const loaded = loadScenario(file, { workBudget: flags.workBudget, traceKept: true });
  if (!loaded.ok) return printProblems(io, file, loaded.problems, false), EXIT.badInput;
  const path = resolveScenarioPath(file);
  if (flags.out !== undefined) {
    const input = inputNamedBy(flags.out, [path]);
    if (input !== null) return io.err(`report: --out ${flags.out} is the scenario being read (${file}); nothing was written: give --out another file`), EXIT.badInput;
    const bad = checkOutputPath(flags.out);
    if (bad !== null) return io.err(`report: --out ${bad}`), EXIT.badInput;
  }
  const bundled = bundledName(path);
  const seed = flags.seed ?? loaded.scenario.seed;
  const url: UrlState = bundled !== null ? { scenario: bundled, seed, actions: [] } : { source: readFileSync(path, 'utf8'), seed, actions: [] };
  if (chapter !== undefined && bundled === chapter.scenario) url.chapter = chapter.id;
  else if (flags.toStep !== undefined) url.step = flags.toStep;
  const wantsComparison = format === 'md' || format === 'json';
  const report = buildReport(loaded.scenario, {
    seed,
    ...(chapter !== undefined ? { chapter } : {}),
    modes: wantsComparison ? (flags.modes ?? MODES) : [],
    ...(flags.fromStep !== undefined ? { fromStep: flags.fromStep } : {}),
    ...(flags.toStep !== undefined ? { toStep: flags.toStep } : {}),
    ...(flags.maxMessages !== undefined ? { maxMessages: flags.maxMessages } : {}),
    ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
    scenarioRef: bundled ?? file,
    walkthroughUrl: `http://localhost:5173/${encodePageLink(url).link}`,
  });
  if (report.chapter !== null && report.chapter.missing.length > 0) {
    io.err(`report: ${report.chapter.missing.length} stop${report.chapter.missing.length === 1 ? '' : 's'} of chapter ${report.chapter.chapter.id} not reached in this run: ${report.chapter.missing.join('; ')}`);
  }
  const text = renderReport(report, format);
  if (flags.out !== undefined) {
    const bad = writeWhole(flags.out, text);
    if (bad !== null) return io.err(`report: --out ${bad}`), EXIT.storeFailed;
    if (process.stderr.isTTY === true) process.stderr.write(`wrote ${flags.out} (${format}, ${text.length} characters)\n`);
  } else {
    io.out(text.replace(/\n$/, ''));
  }
  return report.run.violations.length > 0 ? EXIT.violation : EXIT.ok;
}

function cmdList(flags: Flags, io: Io): number {
  if (flags.help) return io.out(HELP.list), EXIT.ok;
  const list = listScenarios();
  if (flags.json) io.out(JSON.stringify(list, null, 2));
  else {
    // Two tables, one line a row; the descriptions are in `list --json` and each file.
    const table = (head: [string, string], rows: Array<[string, string]>): void => {
      const w = Math.max(head[0].length, ...rows.map((r) => r[0].length));
      io.out(`${head[0].padEnd(w)}  ${head[1]}`);
      for (const [a, b] of rows) io.out(`${a.padEnd(w)}  ${b}`);
    };
    table(['SCENARIO', 'WHAT IT SHOWS'], list.map((s) => [s.file, s.name]));
    io.out('');
    table(['CHAPTER', 'TITLE (SCENARIO)'], CHAPTERS.map((c) => [c.id, `${c.title} (${c.scenario})`]));
    io.out('');
    io.out('Run one: npm run sim -- run SCENARIO. A chapter: npm run sim -- report CHAPTER, or ?chapter=CHAPTER in the walkthrough.');
    io.out('Descriptions: npm run sim -- list --json.');
  }
  return EXIT.ok;
}

function cmdValidate(flags: Flags, io: Io): number {
  if (flags.help) return io.out(HELP.validate), EXIT.ok;
  if (flags.positional.length === 0) throw new UsageError('validate needs a FILE (or several)');
  // One file: one JSON document as before; several: an array of them, in the order given.
  const docs: Array<{ file: string; valid: boolean; problems: unknown[] }> = [];
  let bad = 0;
  for (const file of flags.positional) {
    const loaded = loadScenario(file, { workBudget: flags.workBudget });
    if (!loaded.ok) {
      bad++;
      if (flags.json) docs.push({ file, valid: false, problems: loaded.problems });
      else printProblems(io, file, loaded.problems, false);
      continue;
    }
    if (flags.json) docs.push({ file, valid: true, problems: [] });
    else io.out(`${file}: valid (${loaded.scenario.name})`);
  }
  if (flags.json) io.out(JSON.stringify(docs.length === 1 ? docs[0] : docs, null, 2));
  else if (flags.positional.length > 1) io.out(`${flags.positional.length - bad} of ${flags.positional.length} files valid`);
  return bad === 0 ? EXIT.ok : EXIT.badInput;
}

export async function main(argv: string[], io: Io): Promise<number> {
  try {
    const [command, ...rest] = argv;
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.out(HELP.main);
      return command === undefined ? EXIT.badInput : EXIT.ok;
    }
    // whatif reads its own options (--partitions there is the topic's, not explore's bound).
    if (command === 'whatif') return cmdWhatIf(rest, io);
    // import reads its own options (--topics there is a file, --topic a selection).
    if (command === 'import') return cmdImport(rest, io);
    const flags = parseFlags(rest, command);
    if (!flags.workBudget && !flags.help && ['run', 'compare', 'report', 'validate', 'explore'].includes(command)) {
      io.err(`${command}: note: the scenario work budget is off (--no-work-budget): a scenario past it can take minutes and gigabytes; --max-steps still stops a run (docs/scenario-format.md, Limits)`);
    }
    switch (command) {
      case 'run':
        // --plant-bug (checking the checker: a counterexample found with a planted bug replays with it).
        return await withBugsAsync(flags.plantBug !== undefined ? [flags.plantBug] : [], () => cmdRun(flags, io));
      case 'compare':
        return cmdCompare(flags, io);
      case 'conformance':
        return cmdConformance(flags, io);
      case 'explore':
        return await cmdExplore(flags, io);
      case 'list':
        return cmdList(flags, io);
      case 'validate':
        return cmdValidate(flags, io);
      case 'report':
        return cmdReport(flags, io);
      default:
        throw new UsageError(`unknown command "${command}"; expected run, compare, whatif, import, conformance, explore, list, validate or report`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`tierscope: ${e.message}. See --help.`);
      return EXIT.badInput;
    }
    // A bug in the model, not the input: say so plainly; the stack only on request.
    io.err(`tierscope: internal error: ${(e as Error).message}`);
    if (process.env.TIERSCOPE_DEBUG) io.err((e as Error).stack ?? '');
    else io.err('Set TIERSCOPE_DEBUG=1 to see where it happened, and please report it with the scenario file.');
    return 70;
  }
}

const isEntry = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isEntry) {
  hideNodeVersionWarning();
  // Ends with whoever started it (npm, tsx, the bin wrapper), kill -9 included (orphan.ts).
  if (process.env.TIERSCOPE_NO_ORPHAN_WATCH !== '1') watchLaunchers();
  // Everything printed goes through terminalSafe (terminal.ts): no escape sequence from a
  // scenario reaches the terminal, and JSON keeps its value. Files (--out) are written as is.
  // Lines go out as they come (a long run's narration is not held in memory); a reader that
  // goes away (`| head`) ends the CLI quietly.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    process.stderr.write(`tierscope: cannot write the output: ${e.code ?? e.message}\n`);
    process.exit(EXIT.storeFailed);
  });
  void import('./terminal.js')
    .then(({ terminalSafe }) =>
      main(process.argv.slice(2), {
        out: (s) => void process.stdout.write(terminalSafe(s) + '\n'),
        err: (s) => process.stderr.write(terminalSafe(s) + '\n'),
        // A pipe takes writes into memory when its reader lags (Node does not block on it):
        // waiting for 'drain' bounds what is held to a pipe's worth.
        drained: () => (process.stdout.writableNeedDrain ? new Promise<void>((r) => process.stdout.once('drain', () => r())) : Promise.resolve()),
      }),
    )
    .then((code) => process.stdout.write('', () => process.exit(code)));
}
