/**
 * Loads the conformance suite (conformance/*.yaml) for the CLI and the tests; the cases
 * themselves are checked by core/check/conformance.ts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { type ConformanceCase, parseCase } from '../core/check/conformance.js';
import { parseScenarioText } from '../core/scenario/parse.js';
import type { Scenario } from '../core/scenario/types.js';

export const CONFORMANCE_DIR = resolve(fileURLToPath(import.meta.url), '../../conformance');
const SCENARIO_DIR = resolve(fileURLToPath(import.meta.url), '../../scenarios');

function resolveScenario(s: unknown): { ok: true; scenario: Scenario } | { ok: false; problems: string[] } {
  if (typeof s === 'string') {
    let text: string;
    try {
      text = readFileSync(join(SCENARIO_DIR, `${s}.yaml`), 'utf8');
    } catch {
      return { ok: false, problems: [`no bundled scenario named "${s}"`] };
    }
    const r = parseScenarioText(text, `${s}.yaml`);
    return r.ok ? { ok: true, scenario: r.scenario } : { ok: false, problems: r.problems.map((p) => `${p.path}: ${p.message}`) };
  }
  if (s === null || typeof s !== 'object') return { ok: false, problems: ['expected a bundled scenario name or a scenario'] };
  const r = parseScenarioText(JSON.stringify(s), 'inline.json');
  return r.ok ? { ok: true, scenario: r.scenario } : { ok: false, problems: r.problems.map((p) => `${p.path}: ${p.message}`) };
}

/** Every case in `dir`, or the problems of the files that are not valid cases. */
export function loadConformance(dir = CONFORMANCE_DIR): { cases: ConformanceCase[]; problems: string[] } {
  const cases: ConformanceCase[] = [];
  const problems: string[] = [];
  for (const f of readdirSync(dir).filter((x) => /\.ya?ml$/.test(x)).sort()) {
    let doc: unknown;
    try {
      doc = parse(readFileSync(join(dir, f), 'utf8'));
    } catch (e) {
      problems.push(`${f}: not valid YAML: ${(e as Error).message.split('\n')[0]}`);
      continue;
    }
    const c = parseCase(f, doc, resolveScenario);
    if (c.ok) cases.push(c.c);
    else problems.push(...c.problems);
  }
  return { cases, problems };
}
