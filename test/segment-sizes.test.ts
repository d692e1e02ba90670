/**
 * Kafka's own segment sizes (issue 28): Kafka 4.1+ refuses `segment.bytes` below 1 MiB
 * (LogConfig: atLeast(1024 * 1024)), so the model does, with Kafka's ConfigException text;
 * `internal.segment.bytes`, Kafka's internal test override (LogConfig.INTERNAL_SEGMENT_BYTES_CONFIG,
 * which LogConfig.segmentSize() returns in place of segment.bytes), is accepted and marks the run
 * "scaled" in the CLI, the JSON, the Markdown report (and the page, from the same function).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { SEGMENT_BYTES_MIN, segmentSize, defaultTopicConfig } from '../core/domain/config.js';
import { buildReport, renderReport } from '../core/report/report.js';
import { parseScenarioText, validateScenario } from '../core/scenario/parse.js';
import { scaledSizes, scaledSizesReason } from '../core/scenario/scaled.js';
import type { InputProblem, ParseResult, Scenario } from '../core/scenario/types.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import { compare, formatCompare } from '../core/study/compare.js';
import { ROOT } from './support/run.js';

const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'src', 'cli', 'main.ts');

/* eslint-disable @typescript-eslint/no-explicit-any */
type Raw = any;

/** One tiered topic, 100 records of 1 KiB produced at t=10 in batches of 16 KiB; `config` is the topic's. */
function raw(config: Record<string, unknown>, timeline: Raw[] = []): Raw {
  return {
    name: 'sizes',
    brokers: 2,
    topics: [{ name: 'orders', partitions: 1, replicas: [[0, 1]], config: { 'remote.storage.enable': true, ...config } }],
    timeline: [{ at: 10, produce: { topic: 'orders', partition: 0, records: 100 } }, ...timeline],
    until: 2000,
  };
}

function problemsOf(r: ParseResult): InputProblem[] {
  if (r.ok) throw new Error('expected problems, got a valid scenario');
  return r.problems;
}

function scenarioOf(r: ParseResult): Scenario {
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.scenario;
}

const REFUSAL_51200 =
  'expected an integer from 1048576 to 2147483647, got 51200: Kafka refuses it ("Invalid value 51200 for configuration segment.bytes: Value must be at least 1048576"; LogConfig: atLeast(1024 * 1024), Kafka 4.1+); for smaller segments, as in a test, set internal.segment.bytes (Kafka\'s internal test override) instead';

describe('segment.bytes: Kafka 4.1+ refuses less than 1 MiB', () => {
  test('below the minimum: one problem at the path, with Kafka\'s reason on one line', () => {
    // Goal: the refusal quotes Kafka's ConfigException ("Invalid value V for configuration NAME: Value must be at least MIN").
    const problems = problemsOf(validateScenario(raw({ 'segment.bytes': 51200 })));
    expect(problems).toEqual([{ path: 'topics[0].config["segment.bytes"]', message: REFUSAL_51200 }]);
    expect(problems[0].message).not.toContain('\n');
  });

  test('one byte below is refused; exactly 1 MiB, and Kafka\'s default, are accepted', () => {
    expect(SEGMENT_BYTES_MIN).toBe(1024 * 1024);
    expect(problemsOf(validateScenario(raw({ 'segment.bytes': 1048575 })))[0].message).toContain('Value must be at least 1048576');
    const s = scenarioOf(validateScenario(raw({ 'segment.bytes': 1048576 })));
    expect(s.topics[0].config['segment.bytes']).toBe(1048576);
    expect(scaledSizesReason(s)).toBeNull();
    expect(validateScenario(raw({ 'segment.bytes': 1073741824 })).ok).toBe(true);
  });

  test('past Kafka\'s INT: "Not a number of type INT"', () => {
    const problems = problemsOf(validateScenario(raw({ 'segment.bytes': 2147483648 })));
    expect(problems[0].message).toContain('"Invalid value 2147483648 for configuration segment.bytes: Not a number of type INT"');
    expect(problems[0].message).not.toContain('internal.segment.bytes');
    expect(validateScenario(raw({ 'segment.bytes': 2147483647 })).ok).toBe(true);
  });

  test('every problem is named: two topics and a setConfig below the minimum are three problems', () => {
    // Goal: Kafka refuses the alteration too (IncrementalAlterConfigs validates with LogConfig.validate);
    // the model has no refusal at run time, so a timeline that would alter it below the minimum is refused at load.
    const r = raw({ 'segment.bytes': 10240 }, [
      { at: 500, setConfig: { 'segment.bytes': 20480 } },
      { at: 600, setConfig: { topic: 'orders', 'segment.bytes': 1048576 } },
    ]);
    r.topics.push({ name: 'payments', partitions: 1, replicas: [[1]], config: { 'segment.bytes': 4096 } });
    const problems = problemsOf(validateScenario(r));
    expect(problems.map((p) => p.path)).toEqual([
      'topics[0].config["segment.bytes"]',
      'topics[1].config["segment.bytes"]',
      'timeline[1].setConfig["segment.bytes"]',
    ]);
    expect(problems.map((p) => /"Invalid value (\d+) /.exec(p.message)?.[1])).toEqual(['10240', '4096', '20480']);
  });

  test('the scenario text: YAML as a user writes it', () => {
    const text = 'name: x\nbrokers: 1\nuntil: 100\ntopics:\n  - name: t\n    partitions: 1\n    replicas: [[0]]\n    config:\n      segment.bytes: 51200\n';
    expect(problemsOf(parseScenarioText(text, 'x.yaml'))).toEqual([{ path: 'topics[0].config["segment.bytes"]', message: REFUSAL_51200 }]);
  });
});

describe('internal.segment.bytes: Kafka\'s internal test override', () => {
  test('accepted in a topic config and in a setConfig, below the minimum; 0 and past INT refused', () => {
    const s = scenarioOf(validateScenario(raw({ 'internal.segment.bytes': 51200 }, [{ at: 500, setConfig: { topic: 'orders', 'internal.segment.bytes': 10240 } }])));
    expect(s.topics[0].config['internal.segment.bytes']).toBe(51200);
    expect(s.timeline[1].action).toEqual({ kind: 'setConfig', topic: 'orders', values: { 'internal.segment.bytes': 10240 } });
    expect(problemsOf(validateScenario(raw({ 'internal.segment.bytes': 0 })))).toEqual([
      { path: 'topics[0].config["internal.segment.bytes"]', message: 'expected an integer from 1 to 2147483647, got 0' },
    ]);
    expect(problemsOf(validateScenario(raw({ 'internal.segment.bytes': 2147483648 })))[0].path).toBe('topics[0].config["internal.segment.bytes"]');
    // A broker config it is not.
    const broker = raw({});
    broker.config = { 'internal.segment.bytes': 51200 };
    expect(problemsOf(validateScenario(broker))[0].message).toMatch(/is a topic config; put it under topics\[i\]\.config/);
  });

  test('LogConfig.segmentSize(): the override wins over segment.bytes, and is absent by default', () => {
    const c = defaultTopicConfig();
    expect('internal.segment.bytes' in c).toBe(false);
    expect(segmentSize(c)).toBe(1073741824);
    expect(segmentSize({ ...c, 'segment.bytes': 2097152 })).toBe(2097152);
    expect(segmentSize({ ...c, 'segment.bytes': 2097152, 'internal.segment.bytes': 4096 })).toBe(4096);
  });

  test('segments roll at the override: 100 records of 1 KiB in 16 KiB batches roll every 3 batches at 51200 bytes', () => {
    // Hand calculation: a batch is 16 records (16384 bytes); 3 batches are 49152 bytes and a 4th would
    // make 65536 > 51200, so a segment holds 48 records: rolls at offsets 48 and 96 (100 records: 7 batches).
    const s = scenarioOf(validateScenario(raw({ 'segment.bytes': 1048576, 'internal.segment.bytes': 51200 })));
    const k = new Kernel(s);
    k.runToEnd();
    const rolled = k.trace.filter((e) => e.type === 'log' && (e as { action?: string }).action === 'segmentRolled' && (e as { broker?: number }).broker === 0);
    expect(rolled.map((e) => (e as { baseOffset?: number }).baseOffset)).toEqual([48, 96]);
    // At segment.bytes 1 MiB alone, the 100 KiB stay in the active segment.
    const plain = new Kernel(scenarioOf(validateScenario(raw({ 'segment.bytes': 1048576 }))));
    plain.runToEnd();
    expect(plain.trace.some((e) => e.type === 'log' && (e as { action?: string }).action === 'segmentRolled')).toBe(false);
  });

  test('the run is scaled: the JSON says so with the reason; an unscaled run says false and gives no reason', () => {
    const s = scenarioOf(validateScenario(raw({ 'internal.segment.bytes': 51200 })));
    const k = new Kernel(s);
    k.runToEnd();
    const json = buildRunJson(k);
    expect(json.sizesScaled).toBe(true);
    expect(json.sizesScaledReason).toBe("internal.segment.bytes 51200 on topic orders (below Kafka's 1 MiB minimum of segment.bytes; Kafka accepts it only as an internal test override)");
    expect((json.config.topics as Raw).orders).toMatchObject({ 'segment.bytes': 1073741824, 'internal.segment.bytes': 51200 });

    const u = new Kernel(scenarioOf(validateScenario(raw({ 'segment.bytes': 1048576 }))));
    u.runToEnd();
    const plain = buildRunJson(u);
    expect(plain.sizesScaled).toBe(false);
    expect('sizesScaledReason' in plain).toBe(false);
    expect('internal.segment.bytes' in (plain.config.topics as Raw).orders).toBe(false);
  });

  test('a setConfig of the override scales the run too, and the reason says from when', () => {
    const s = scenarioOf(validateScenario(raw({}, [{ at: 500, setConfig: { 'internal.segment.bytes': 2097152 } }])));
    expect(scaledSizes(s)).toEqual([{ value: 2097152, atMs: 500 }]);
    expect(scaledSizesReason(s)).toBe('internal.segment.bytes 2097152 on every topic from t=500ms (Kafka accepts it only as an internal test override)');
  });

  test('the Markdown report says the sizes are scaled and lists the override among the configs', () => {
    const s = scenarioOf(validateScenario(raw({ 'internal.segment.bytes': 51200 })));
    const md = renderReport(buildReport(s, { modes: [] }), 'md');
    expect(md).toMatch(/\*\*Sizes scaled:\*\* .*51200 on topic orders .*internal test override\)\./);
    expect(md).toMatch(/\| `internal\.segment\.bytes` \| topic `orders` \(Kafka's internal test override\) \| `51200` \| not set \|/);
    const plain = renderReport(buildReport(scenarioOf(validateScenario(raw({}))), { modes: [] }), 'md');
    expect(plain).not.toContain('Sizes scaled');
  });

  test('compare: the JSON gives the reason and the table ends with it (then the assumptions, then the month at steady state), only when scaled', () => {
    const r = compare(scenarioOf(validateScenario(raw({ 'internal.segment.bytes': 51200 }))), ['classic']);
    expect(r.sizesScaledReason).toMatch(/^internal\.segment\.bytes 51200 on topic orders/);
    // The table's part of the text ends where the steady-state month (docs/protocol.md §8.1) begins, after a blank line.
    const text = formatCompare(r).split('\n');
    const table = text.slice(0, text.findIndex((l) => l.startsWith('Cost per month at steady state')) - 1);
    expect(table.at(-2)).toBe(`sizes scaled: ${r.sizesScaledReason}`);
    expect(table.at(-1)).toBe(`assumed: ${r.assumed}`);
    const plain = compare(scenarioOf(validateScenario(raw({}))), ['classic']);
    expect('sizesScaledReason' in plain).toBe(false);
    expect(formatCompare(plain)).not.toContain('sizes scaled');
  });
});

describe('the bundled files follow Kafka', () => {
  // Goal: no scenario, conformance case or fixture sets segment.bytes below Kafka's minimum
  // (they load, so none can); those with small segments use the override and are scaled.
  test('every bundled scenario with small segments is scaled, none below the minimum as segment.bytes', () => {
    const scaled: string[] = [];
    for (const f of readdirSync(join(ROOT, 'scenarios')).filter((x) => x.endsWith('.yaml')).sort()) {
      const s = scenarioOf(parseScenarioText(readFileSync(join(ROOT, 'scenarios', f), 'utf8'), f));
      for (const t of s.topics) expect(t.config['segment.bytes'] ?? SEGMENT_BYTES_MIN).toBeGreaterThanOrEqual(SEGMENT_BYTES_MIN);
      if (scaledSizesReason(s) !== null) scaled.push(f);
    }
    expect(scaled.length).toBe(23);
    expect(scaled).toContain('kip1023-bootstrap.yaml');
  });

  test('the conformance cases and the fixtures use the override for segments under 1 MiB', () => {
    const files = [
      ...readdirSync(join(ROOT, 'conformance')).map((f) => join('conformance', f)),
      ...readdirSync(join(ROOT, 'test', 'fixtures')).filter((f) => f.endsWith('.yaml')).map((f) => join('test', 'fixtures', f)),
    ].filter((f) => f.endsWith('.yaml'));
    for (const f of files) {
      const text = readFileSync(join(ROOT, f), 'utf8');
      for (const m of text.matchAll(/(?<![\w.])segment\.bytes\s*:\s*(\d+)/g)) expect(Number(m[1]), f).toBeGreaterThanOrEqual(SEGMENT_BYTES_MIN);
    }
    // A conformance case's scenario is a scenario: it still loads.
    const doc = parse(readFileSync(join(ROOT, 'conformance', 'remote-size-retention-local-only.yaml'), 'utf8'));
    expect(scaledSizesReason(scenarioOf(validateScenario(doc.scenario)))).toMatch(/^internal\.segment\.bytes 1024 on topic orders/);
  });
});

describe('CLI', () => {
  function cli(...args: string[]) {
    const r = spawnSync(TSX, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  test('run and validate refuse segment.bytes below 1 MiB: exit 2, the path and Kafka\'s reason, no stack trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sizes-'));
    try {
      const file = join(dir, 'small.yaml');
      writeFileSync(file, 'name: small\nbrokers: 1\nuntil: 100\ntopics:\n  - name: t\n    partitions: 1\n    replicas: [[0]]\n    config:\n      segment.bytes: 51200\n');
      const r = cli('run', file);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`${file}: 1 problem\n  topics[0].config["segment.bytes"]: ${REFUSAL_51200}\n`);
      const j = cli('run', file, '--json');
      expect(j.code).toBe(2);
      expect(JSON.parse(j.stdout).problems).toEqual([{ path: 'topics[0].config["segment.bytes"]', message: REFUSAL_51200 }]);
      const v = cli('validate', file);
      expect(v.code).toBe(2);
      expect(v.stderr).toContain('Value must be at least 1048576');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a scaled bundled scenario says so in the header and the summary', () => {
    const r = cli('run', 'scenarios/classic-one-round.yaml');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const line = "sizes scaled: internal.segment.bytes 51200 on topic orders (below Kafka's 1 MiB minimum of segment.bytes; Kafka accepts it only as an internal test override)";
    expect(lines.slice(0, 4)).toContain(line);
    expect(lines).toContain(`  ${line}`);
  });
});
