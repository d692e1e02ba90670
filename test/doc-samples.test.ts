/**
 * The output samples the README and docs/scenario-format.md quote are what the current model
 * prints (issue 28: figures regenerated after the bandwidth model, Kafka's read limits and
 * Kafka-sized segments). Each sample is compared whole, so a model change that moves a figure
 * fails here, naming the document to update. Times measured on a wall clock are not checked
 * (they are quoted with the load they were measured at); exhaustive-search figures are checked
 * in test/exhaustive.test.ts, machine coverage in test/coverage.test.ts and the number of
 * conformance cases in test/conformance.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseScenarioText } from '../core/scenario/parse.js';
import type { InputProblem } from '../core/scenario/types.js';
import { IMPORT_DEFAULTS, buildImport } from '../core/scenario/import/build.js';
import { main } from '../src/cli/main.js';
import { ROOT, cliIn } from './support/run.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const FORMAT = readFileSync(join(ROOT, 'docs', 'scenario-format.md'), 'utf8');

/** The lines of the first fenced block after `marker` in `doc`. */
function blockAfter(doc: string, marker: string): string[] {
  const at = doc.indexOf(marker);
  expect(at, `"${marker}" not found`).toBeGreaterThanOrEqual(0);
  const open = doc.indexOf('```', at);
  const start = doc.indexOf('\n', open) + 1;
  return doc.slice(start, doc.indexOf('```', start)).replace(/\n$/, '').split('\n');
}

const problemLines = (problems: InputProblem[]) => problems.map((p) => `${p.path}: ${p.message}`);

describe('the README\'s CLI samples', () => {
  test('the narration excerpt (run classic-two-rounds) and the compare table (compare wal-steady-state) are what the CLI prints', async () => {
    const [run, compare] = await Promise.all([cliIn(['run', 'classic-two-rounds'], ROOT), cliIn(['compare', 'wal-steady-state'], ROOT)]);
    expect(run.code, run.stderr).toBe(0);
    expect(compare.code, compare.stderr).toBe(0);
    // The excerpt: consecutive lines of the narration.
    const excerpt = blockAfter(README, 'A narration excerpt (`npm run sim -- run classic-two-rounds`)');
    expect(excerpt.length).toBeGreaterThan(3);
    const lines = run.stdout.split('\n');
    const first = lines.indexOf(excerpt[0]);
    expect(first, `README's narration excerpt: its first line is not in the output:\n${excerpt[0]}`).toBeGreaterThanOrEqual(0);
    expect(lines.slice(first, first + excerpt.length)).toEqual(excerpt);
    // The compare sample: the table as printed, from the title to its assumed: line.
    const sample = blockAfter(README, '`compare` runs one workload in each design with the same seed');
    expect(sample[0]).toBe('$ npm run sim -- compare wal-steady-state');
    const out = compare.stdout.replace(/\n$/, '').split('\n');
    expect(out.slice(0, sample.length - 1)).toEqual(sample.slice(1));
    // The steady-state excerpt after it: every line shown (but the elisions and the wrapped
    // warning) is a line of the output.
    const steady = blockAfter(README, 'and the assumptions under them (excerpt):');
    expect(steady.length).toBeGreaterThan(5);
    for (const line of steady) {
      if (line.trim() === '...' || line.startsWith('  !') || line.startsWith('    ')) continue;
      expect(out, `README's steady-state excerpt: not in compare's output:\n${line}`).toContain(line);
    }
  }, 60000);
});

describe("the README's whatif samples", () => {
  // Every fenced block that starts with a whatif command: each line it shows (but the "..."
  // elisions) is a line of what that command prints now, in the same order.
  const blocks = [...README.matchAll(/```\n(\$ npm run sim -- whatif [^\n]*)\n([\s\S]*?)```/g)].map((m) => ({ command: m[1], lines: m[2].replace(/\n$/, '').split('\n') }));
  test('there are whatif samples to check', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
  });
  for (const b of blocks) {
    test(b.command.slice(2), async () => {
      const args = b.command.replace('$ npm run sim -- ', '').split(' ');
      const r = await cliIn(args, ROOT);
      expect(r.code, r.stderr).toBe(0);
      const out = r.stdout.split('\n');
      let at = 0;
      for (const line of b.lines) {
        if (line.trim() === '...') continue;
        const i = out.indexOf(line, at);
        expect(i, `README's sample of "${b.command}": not in the output (or out of order):\n${line}`).toBeGreaterThanOrEqual(0);
        at = i + 1;
      }
    }, 300_000);
  }
});

describe('docs/scenario-format.md\'s samples', () => {
  test('the refusal of a segment.bytes below 1 MiB', () => {
    const text = readFileSync(join(ROOT, 'scenarios', 'classic-two-rounds.yaml'), 'utf8').replace('internal.segment.bytes: 51200', 'segment.bytes: 51200');
    const r = parseScenarioText(text, 'x.yaml');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const sample = blockAfter(FORMAT, 'with Kafka\'s own reason:');
    expect(problemLines(r.problems)).toEqual(sample);
  });

  test('the two work-budget problems of "Limits"', () => {
    const sample = blockAfter(FORMAT, 'which `run`\naccepts and `compare` refuses):');
    const records = parseScenarioText(readFileSync(join(ROOT, 'test', 'fixtures', 'limits', 'over-budget.yaml'), 'utf8'), 'over-budget.yaml');
    expect(records.ok).toBe(false);
    if (records.ok) return;
    expect(problemLines(records.problems)).toContain(sample[0]);
    // Ten idle partitions of three replicas (leaders spread) until 20,000,000 ms.
    const idle = {
      name: 'idle',
      brokers: 3,
      topics: [{ name: 'orders', partitions: 10, replicas: Array.from({ length: 10 }, (_, p) => [0, 1, 2].map((b) => (b + p) % 3)) }],
      until: 20_000_000,
    };
    expect(parseScenarioText(JSON.stringify(idle), 'idle.json').ok).toBe(true);
    const kept = parseScenarioText(JSON.stringify(idle), 'idle.json', { traceKept: true });
    expect(kept.ok).toBe(false);
    if (kept.ok) return;
    expect(problemLines(kept.problems)).toEqual([sample[1]]);
  });
});

describe('the import samples (README, docs/import.md)', () => {
  const IMPORT_DOC = readFileSync(join(ROOT, 'docs', 'import.md'), 'utf8');
  const fixture = (f: string) => readFileSync(join(ROOT, 'test', 'fixtures', 'import', f), 'utf8');

  test('the README\'s import command prints what the README shows', async () => {
    const sample = blockAfter(README, 'two log directories a broker, a future replica):');
    expect(sample[0].startsWith('$ npm run sim -- import ')).toBe(true);
    const tmp = mkdtempSync(join(tmpdir(), 'import-sample-'));
    try {
      // The command as shown, run from the repository with the --out file in a temporary folder.
      const args = sample[0].replace('$ npm run sim -- ', '').split(' ').map((a) => (a.startsWith('test/') ? join(ROOT, a) : a === 'cluster.yaml' ? join(tmp, a) : a));
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
      expect(err.join('\n')).toBe('');
      expect(code).toBe(0);
      expect(out.join('\n').split(join(tmp, 'cluster.yaml')).join('cluster.yaml').split('\n')).toEqual(sample.slice(1));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('docs/import.md\'s refusals are what import says of those inputs', () => {
    const sample = blockAfter(IMPORT_DOC, 'nothing is written. For example:');
    const topics = fixture('topics.txt');
    const logDirs = fixture('log-dirs.txt');
    const configs = fixture('configs.txt');
    const run = (over: { topics?: string; configs?: string; logDirs?: string }) => {
      const r = buildImport({ topics: { text: over.topics ?? topics, source: 'topics.txt' }, configs: [{ text: over.configs ?? configs, source: 'configs.txt' }], logDirs: { text: over.logDirs ?? logDirs, source: 'log-dirs.txt' } }, IMPORT_DEFAULTS);
      return r.ok ? 'accepted' : r.problem;
    };
    expect([
      run({ topics: topics.split('\n').filter((l) => !l.includes('orders\tPartition: 1')).join('\n') }),
      run({ configs: configs.replace(' sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:segment.bytes=1048576, DEFAULT_CONFIG:log.segment.bytes=1073741824}', '') }),
      run({ logDirs: fixture('log-dirs-truncated.txt') }),
      run({ logDirs: logDirs.replace('{"partition":"orders-0","size":3500000,"offsetLag":0,"isFuture":false},', '') }),
      run({ topics: topics.replace('Partition: 1\tLeader: 3', 'Partition: 1\tLeader: none') }),
    ]).toEqual(sample);
  });
});
