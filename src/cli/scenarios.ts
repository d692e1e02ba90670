/** Scenario files for the CLI: a path or a bundled scenario's name, read and checked. */
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MAX_SCENARIO_CHARS, parseScenarioText, problemCount } from '../../core/scenario/parse.js';
import type { InputProblem, Scenario } from '../../core/scenario/types.js';
import type { Io } from './flags.js';

const here = dirname(fileURLToPath(import.meta.url));
export const SCENARIO_DIR = resolve(here, '../../scenarios');

/** A path, or the name of a bundled scenario without extension. */
export function resolveScenarioPath(arg: string): string {
  if (existsSync(arg)) return arg;
  for (const ext of ['.yaml', '.yml', '.json']) {
    const p = join(SCENARIO_DIR, arg + ext);
    if (existsSync(p)) return p;
  }
  return arg;
}

export type Loaded = { ok: true; scenario: Scenario } | { ok: false; problems: InputProblem[] };

/**
 * `workBudget: false` (`--no-work-budget`) skips the work budget; every other limit still
 * applies. `traceKept`: the command keeps the run's whole trace (the stricter kernel-event limit).
 */
export function loadScenario(file: string, opts: { workBudget?: boolean; traceKept?: boolean } = {}): Loaded {
  const path = resolveScenarioPath(file);
  let text: string;
  try {
    // A file larger than any scenario is refused before it is read (docs/scenario-format.md, Limits).
    const stat = statSync(path);
    const size = stat.size;
    if (stat.isFile() && size > MAX_SCENARIO_CHARS) {
      return { ok: false, problems: [{ path: '', message: `${file}: the file is ${size.toLocaleString('en-US')} bytes; a scenario file may be at most ${MAX_SCENARIO_CHARS.toLocaleString('en-US')} bytes (128 KiB; docs/scenario-format.md, Limits)` }] };
    }
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file (and no bundled scenario of that name)' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? 'error'})`;
    return { ok: false, problems: [{ path: '', message: `${file}: ${why}` }] };
  }
  return parseScenarioText(text, basename(path), { checkWork: opts.workBudget !== false, traceKept: opts.traceKept === true });
}

export function printProblems(io: Io, file: string, problems: InputProblem[], json: boolean): void {
  if (json) {
    io.out(JSON.stringify({ file, valid: false, problems }, null, 2));
    return;
  }
  const n = problemCount(problems);
  io.err(`${file}: ${n.toLocaleString('en-US')} problem${n === 1 ? '' : 's'}`);
  for (const p of problems) io.err(`  ${p.path === '' ? '(file)' : p.path}: ${p.message}`);
}

export function listScenarios(): Array<{ file: string; name: string; description: string }> {
  const out: Array<{ file: string; name: string; description: string }> = [];
  for (const f of readdirSync(SCENARIO_DIR).sort()) {
    if (!/\.(ya?ml|json)$/.test(f)) continue;
    const r = loadScenario(join(SCENARIO_DIR, f));
    if (r.ok) out.push({ file: f.replace(/\.(ya?ml|json)$/, ''), name: r.scenario.name, description: r.scenario.description });
  }
  return out;
}
