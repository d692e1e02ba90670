/**
 * Golden outputs for the performance work: every optimisation must leave the model's
 * behaviour byte-identical. Writes, into DIR, the `run --json` document of every
 * conformance case, of swarm runs (bundled scenarios with seeded fault schedules), and a
 * session walk (every visible step's trace entries, then jumps back and forth), so a diff
 * of two such directories shows any change in behaviour.
 *
 *   npx tsx bench/golden.ts DIR [--seeds N]
 *
 * (The CLI's own `run --json` of every bundled scenario is captured by bench/golden.sh.)
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScenarioText } from '../core/scenario/parse.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import { withFaults, FAULT_KINDS } from '../core/check/faults.js';
import { Session } from '../core/session/session.js';
import { loadConformance } from '../src/conformance.js';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const out = process.argv[2];
if (out === undefined) throw new Error('usage: golden.ts DIR [--seeds N]');
const si = process.argv.indexOf('--seeds');
const seeds = si > 0 ? Number(process.argv[si + 1]) : 52;
mkdirSync(out, { recursive: true });

const { cases } = loadConformance();
for (const c of cases) {
  const k = new Kernel(c.scenario, c.seed === undefined ? {} : { seed: c.seed });
  k.runToEnd();
  writeFileSync(join(out, `conf-${basename(c.file, '.yaml')}.json`), JSON.stringify(buildRunJson(k), null, 2));
}

const dir = join(root, 'scenarios');
const scenarios = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort().map((f) => {
  const r = parseScenarioText(readFileSync(join(dir, f), 'utf8'), f);
  if (!r.ok) throw new Error(`${f} invalid`);
  return { id: basename(f, '.yaml'), scenario: r.scenario };
});

// Swarm runs: seed s takes scenario (s - 1) mod S, as `explore` does.
for (let s = 1; s <= seeds; s++) {
  const { id, scenario } = scenarios[(s - 1) % scenarios.length];
  const k = new Kernel(withFaults(scenario, s, FAULT_KINDS));
  let error = '';
  try {
    k.runToEnd(2_000_000);
  } catch (e) {
    error = (e as Error).message;
  }
  writeFileSync(join(out, `swarm-${s}-${id}.json`), JSON.stringify({ error, run: buildRunJson(k) }));
}

// Session walks: visible steps, then jumps (back, to the start, to the middle, to the end).
for (const id of ['steady-state-upload', 'kip1023-leader-epochs', 'wal-failover-chunks-in-flight', 'failover-during-bootstrap']) {
  const { scenario } = scenarios.find((x) => x.id === id)!;
  const s = new Session(scenario);
  const lines: string[] = [];
  while (s.forward()) lines.push(`${s.step} ${JSON.stringify(s.currentEntries)}`);
  const last = s.step;
  for (const n of [last - 1, 0, Math.floor(last / 2), 1, last, Math.floor(last / 3), last - 70]) {
    s.goTo(n);
    lines.push(`goTo ${n} -> ${s.step} ${s.kernel.trace.length} ${JSON.stringify(s.currentEntries)}`);
  }
  writeFileSync(join(out, `session-${id}.txt`), lines.join('\n'));
}
console.log(`golden: ${cases.length} conformance cases, ${seeds} swarm runs, 4 session walks -> ${out}`);
