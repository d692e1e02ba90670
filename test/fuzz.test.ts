/**
 * Model-based tests, item 6: hostile scenario files. Every bundled scenario is mutated with
 * a catalogue of hostile edits (wrong types, huge and non-finite numbers, deep nesting,
 * unknown keys, offsets out of order, prototype-pollution keys) and written back as YAML or
 * JSON. Each must end in validation messages naming a path, or, when the edit happens to
 * be valid, in a run that neither throws nor runs away; through the CLI, exit 2 with one
 * line per problem and no stack trace.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { afterAll, describe, expect, test } from 'vitest';
import { parseScenarioText } from '../core/scenario/parse.js';
import { toScenarioFile } from '../core/scenario/serialize.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { ROOT, loadBundled } from './support/run.js';

type Raw = Record<string, unknown>;

const bundled = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));
const files = bundled.map((n) => toScenarioFile(loadBundled(n)) as Raw);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Every (container, key) in a file object. */
function slots(root: unknown): Array<[Raw, string]> {
  const out: Array<[Raw, string]> = [];
  const walk = (n: unknown) => {
    if (n === null || typeof n !== 'object') return;
    for (const k of Object.keys(n as Raw)) {
      out.push([n as Raw, k]);
      walk((n as Raw)[k]);
    }
  };
  walk(root);
  return out;
}

let deep: unknown = 1;
for (let i = 0; i < 2000; i++) deep = [deep];

const HOSTILE_VALUES: unknown[] = [
  'a string', -1, 0, 2 ** 53, 1e308, -1e308, Number.NaN, Number.POSITIVE_INFINITY, 3.5, true, null, [], {}, [[[]]], deep,
  { __proto__: { polluted: true } }, 'x'.repeat(100000),
];

type Edit = { kind: 'replace'; slot: number; value: number } | { kind: 'addKey'; slot: number; key: string } | { kind: 'swapOffsets' } | { kind: 'delete'; slot: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), slot: fc.nat(), value: fc.nat({ max: HOSTILE_VALUES.length - 1 }) }),
  fc.record({ kind: fc.constant('addKey' as const), slot: fc.nat(), key: fc.constantFrom('__proto__', 'constructor', 'prototype', 'surprise', 'hasOwnProperty', '') }),
  fc.constant({ kind: 'swapOffsets' as const }),
  fc.record({ kind: fc.constant('delete' as const), slot: fc.nat() }),
);

function mutate(file: Raw, edits: Edit[]): Raw {
  const copy = structuredClone(file);
  for (const e of edits) {
    const all = slots(copy);
    if (all.length === 0) break;
    if (e.kind === 'swapOffsets') {
      const seg = all.find(([o, k]) => k === 'segments' && Array.isArray(o[k]) && (o[k] as unknown[]).length > 1);
      if (seg) (seg[0][seg[1]] as unknown[]).reverse();
      continue;
    }
    const [obj, key] = all[e.slot % all.length];
    if (e.kind === 'replace') obj[key] = typeof HOSTILE_VALUES[e.value] === 'object' && HOSTILE_VALUES[e.value] !== null ? structuredClone(HOSTILE_VALUES[e.value]) : HOSTILE_VALUES[e.value];
    else if (e.kind === 'delete') delete obj[key];
    else {
      const target = obj[key];
      if (target !== null && typeof target === 'object' && !Array.isArray(target)) Object.defineProperty(target, e.key, { value: { polluted: true }, enumerable: true, configurable: true, writable: true });
    }
  }
  return copy;
}

/** As a file: JSON, or YAML (deep nesting only survives as JSON). */
function textOf(raw: Raw, yaml: boolean): string | null {
  try {
    if (yaml) return stringify(raw, { aliasDuplicateObjects: false });
  } catch {
    /* deeper than YAML's writer goes: try JSON */
  }
  try {
    return JSON.stringify(raw);
  } catch {
    return null; // deeper than any writer goes: no such file can exist
  }
}

describe('hostile scenario files', () => {
  test('mutated bundled scenarios end in problems with paths, or in a run that does not throw or run away', () => {
    fc.assert(
      fc.property(fc.nat({ max: files.length - 1 }), fc.array(edit, { minLength: 1, maxLength: 4 }), fc.boolean(), (which, edits, yaml) => {
        const text = textOf(mutate(files[which], edits), yaml);
        if (text === null) return;
        const r = parseScenarioText(text, yaml ? 'fuzz.yaml' : 'fuzz.json');
        expect(({}) as Raw).not.toHaveProperty('polluted');
        if (!r.ok) {
          expect(r.problems.length).toBeGreaterThan(0);
          for (const p of r.problems) {
            expect(typeof p.path).toBe('string');
            expect(p.message.length).toBeGreaterThan(0);
            expect(p.message).not.toMatch(/\n\s+at /);
          }
          return;
        }
        // A valid edit: the run must not throw; a runaway one is cut by a step budget.
        const k = new Kernel(r.scenario);
        k.runToEnd(20000);
      }),
      { numRuns: 250, seed: 11, includeErrorInReport: true },
    );
  }, 120000);

  const cli = (file: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'src', 'cli', 'main.ts'), 'run', file, '--json', '--max-steps', '20000'], { cwd: ROOT });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      p.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  test('through the CLI: exit 2, one line per problem naming its path, no stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-fuzz-'));
    dirs.push(dir);
    const cases: Array<[string, string]> = [
      ['proto.json', JSON.stringify({ ...files[0], __proto__: { polluted: 1 }, constructor: { prototype: { polluted: 1 } } })],
      ['deep.json', JSON.stringify({ ...files[1], description: deep })],
      ['huge.yaml', stringify({ ...files[2], until: 1e308, brokers: 2 ** 53 })],
      ['types.yaml', stringify({ ...files[3], topics: 'orders', timeline: { at: 'now' } })],
      ['nan.yaml', `${stringify({ ...files[4], seed: 0 }).replace('seed: 0', 'seed: .nan')}`],
      ['offsets.yaml', stringify(mutate(files[bundled.indexOf('kip1023-bootstrap')], [{ kind: 'swapOffsets' }]))],
    ];
    for (const [name, text] of cases) {
      const file = join(dir, name);
      writeFileSync(file, text);
      const r = await cli(file);
      expect(r.code, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('{\n  "file": ' + JSON.stringify(file) + ',\n  "valid": false,\n' + r.stdout.slice(r.stdout.indexOf('  "problems"')));
      const doc = JSON.parse(r.stdout) as { problems: Array<{ path: string; message: string }> };
      expect(doc.problems.length).toBeGreaterThan(0);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    }
  }, 120000);

  // The same file with until 10000000000 no longer validates (the work budget, docs/scenario-format.md, Limits; test/scenario-limits.test.ts).
  test('a valid scenario longer than --max-steps stops at the step budget with exit 2 and one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-fuzz-'));
    dirs.push(dir);
    const file = join(dir, 'forever.yaml');
    writeFileSync(file, 'name: forever\nbrokers: 2\ntopics:\n  - { name: t, partitions: 1, replicas: [[0, 1]] }\ntimeline:\n  - { at: 0, produce: { topic: t, partition: 0, records: 1, everyMs: 1 } }\nuntil: 60000\n');
    const r = await cli(file);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/stopped after 20000 steps at t=\d+ms of 60000ms/);
  }, 120000);
});
