/**
 * The CLI (README, "The CLI"; docs/json-output.md), run as a user runs it (a child process through tsx):
 * JSON against the contract, narration, exit codes, bad input without stack traces.
 */
import { spawnSync } from 'node:child_process';
import { linkSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from './support/run.js';

const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'src', 'cli', 'main.ts');

function cli(...args: string[]) {
  const r = spawnSync(TSX, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('CLI', () => {
  test('run --json prints exactly one JSON document with the contract fields', () => {
    const r = cli('run', 'scenarios/kip1023-bootstrap.yaml', '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(['scenario', 'seed', 'endMs', 'config', 'partitions', 'trace', 'violations', 'metrics']));
    expect(doc.endMs).toBe(3000);
    expect(doc.config['follower.fetch.last.tiered.offset.enable']).toBe(true);
    expect(doc.config['replica.fetch.backoff.ms']).toBe(1000);
    const p = doc.partitions[0];
    expect(p).toMatchObject({ topic: 'orders', partition: 0, leader: 0, leaderEpoch: 0 });
    const follower = p.replicas.find((x: { broker: number }) => x.broker === 1);
    expect(follower).toMatchObject({
      role: 'follower', inIsr: true, logStartOffset: 10, localLogStartOffset: 150, logEndOffset: 200, highWatermark: 200,
      fetcher: { state: 'fetching', fetchOffset: 200, delayed: false, failed: false },
    });
    expect(p.replicas.find((x: { broker: number }) => x.broker === 0).fetcher).toBeNull();
    expect(p.remoteSegments[0]).toMatchObject({ baseOffset: 10, endOffset: 59, state: 'COPY_SEGMENT_FINISHED' });
    const first = doc.trace.find((e: { type: string }) => e.type === 'request');
    expect(first).toMatchObject({ type: 'request', api: 'Fetch', source: 1, target: 0, topic: 'orders', partition: 0, fetchOffset: 0 });
    expect(typeof first.correlationId).toBe('number');
    const oor = doc.trace.find((e: { type: string; error?: string }) => e.type === 'response' && e.error === 'OFFSET_OUT_OF_RANGE');
    expect(oor).toMatchObject({ api: 'Fetch', source: 0, target: 1, records: 0 });
    const lo = doc.trace.find((e: { type: string; timestamp?: number }) => e.type === 'response' && e.timestamp === -6);
    expect(lo).toMatchObject({ api: 'ListOffsets', error: null, offset: 150, leaderEpoch: 0 });
    expect(doc.violations).toEqual([]);
    expect(r.stderr).toBe('');
  });

  test('the same file twice prints byte-identical JSON', () => {
    const a = cli('run', 'scenarios/kip1023-leader-epochs.yaml', '--json');
    const b = cli('run', 'scenarios/kip1023-leader-epochs.yaml', '--json');
    expect(a.stdout).toBe(b.stdout);
  });

  test('narration names the rule and ends with a summary', () => {
    const r = cli('run', 'classic-one-round');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('answered OFFSET_MOVED_TO_TIERED_STORAGE');
    expect(r.stdout).toContain('LSO <= o < LLSO');
    expect(r.stdout).toContain('Summary at t=5000ms');
    expect(r.stdout).toContain('invariants: all held');
  });

  test('list shows every bundled scenario with its description', () => {
    const r = cli('list', '--json');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<{ file: string; description: string }>;
    const files = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml'));
    expect(list).toHaveLength(files.length);
    for (const s of list) expect(s.description.length).toBeGreaterThan(20);
  });

  test.each([
    ['gap-and-unknown-key.yaml', ['topics[0].retention', 'topics[0].replicas[0][1]', 'topics[0].initial[0].segments[1].baseOffset']],
    ['missing-until.yaml', ['until']],
    ['wrong-types.json', ['seed', 'brokers', 'topics[0].partitions']],
    ['bad-prices.yaml', ['model.clientZone', 'prices.crossZoneUsdPerGbEachDirection', 'prices.walPriceList', 'prices.s3GlacierUsdPerGbMonth']],
    ['kafka-refuses-topic.yaml', ['topics[0].config']],
  ])('run on the broken file %s prints every problem with its path, exit 2, no stack', (file, paths) => {
    const r = cli('run', join('test', 'fixtures', 'bad', file));
    expect(r.code).toBe(2);
    for (const p of paths) expect(r.stderr).toContain(`${p}:`);
    expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/);
    expect(r.stdout).toBe('');
    const v = cli('validate', join('test', 'fixtures', 'bad', file));
    expect(v.code).toBe(2);
  });

  test('a missing file, an unknown option and a bad seed exit 2 with a message', () => {
    expect(cli('run', 'no-such-file.yaml').code).toBe(2);
    const o = cli('run', 'kip1023-bootstrap', '--frobnicate');
    expect(o.code).toBe(2);
    expect(o.stderr).toContain('unknown option --frobnicate');
    expect(cli('run', 'kip1023-bootstrap', '--seed', 'x').code).toBe(2);
  });

  test('--store fs --dir writes Kafka-format objects and prints the same JSON as memory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-cli-fs-'));
    try {
      const mem = cli('run', 'kip1023-leader-epochs', '--json');
      const fs = cli('run', 'kip1023-leader-epochs', '--json', '--store', 'fs', '--dir', dir);
      expect(fs.code).toBe(0);
      expect(fs.stdout).toBe(mem.stdout);
      expect(readdirSync(join(dir, 'tiered', 'orders-0')).some((f) => f.endsWith('.log'))).toBe(true);
      const noDir = cli('run', 'kip1023-leader-epochs', '--store', 'fs');
      expect(noDir.code).toBe(2);
      expect(noDir.stderr).toContain('--store fs needs --dir PATH');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('--latency measured follows the real store, says the run is not deterministic, and keeps every invariant', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-cli-lat-'));
    try {
      const r = cli('run', 'kip1023-leader-epochs', '--json', '--store', 'fs', '--dir', dir, '--latency', 'measured');
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(doc.latency).toEqual({ mode: 'measured', deterministic: false });
      expect(doc.violations).toEqual([]);
      const text = cli('run', 'kip1023-leader-epochs', '--store', 'fs', '--dir', dir, '--latency', 'measured');
      expect(text.stdout).toContain('this run is not deterministic');
      // The default is the model's latency: no latency field, the contract's JSON unchanged.
      expect(JSON.parse(cli('run', 'kip1023-leader-epochs', '--json').stdout).latency).toBeUndefined();
      const bad = cli('run', 'kip1023-leader-epochs', '--latency', 'fast');
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--latency expects model or measured, got "fast"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('compare prints one table of the modes; --json one document; bad --modes exits 2', () => {
    const t = cli('compare', 'wal-steady-state', '--modes', 'classic,wal');
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/classic\s+wal\n/);
    expect(t.stdout).toContain('produce latency acks=all, p50 / p99');
    // The steady-state month after the table: each mode's lines, assumptions and the run's warnings.
    expect(t.stdout).toContain('Cost per month at steady state');
    expect(t.stdout).toMatch(/\nclassic: \$\d+ a month at steady state \(the run, 20 s, scaled to 30 days: \$162\)/);
    expect(t.stdout).toMatch(/\n  cross-zone replication +\$[\d.]+ +\$[\d.]+ +204,800 B\/s × 2,592,000 s × 2 copies/);
    expect(t.stdout).toContain('  - KIP-1176 batching: the producer sends 100 records (102,400 B) every 500 ms to orders-0');
    expect(t.stdout).toContain('remote retention was not reached');
    const j = cli('compare', 'wal-steady-state', '--json', '--modes', 'wal');
    const doc = JSON.parse(j.stdout);
    expect(doc.modes.map((m: { mode: string }) => m.mode)).toEqual(['wal']);
    expect(doc.modes[0].bytesFromLeader).toBe(0);
    const steady = doc.modes[0].steadyStateCostUsd;
    expect(Object.keys(steady)).toEqual(['month', 'lines', 'assumptions', 'warnings']);
    expect(steady.lines.map((l: { id: string }) => l.id)).toContain('walPut');
    for (const l of steady.lines) expect(Object.keys(l)).toEqual(['id', 'name', 'formula', 'calculation', 'inputs', 'usdPerMonth', 'runMeasuredUsdPerMonth']);
    expect(steady.month).toBeCloseTo(steady.lines.reduce((n: number, l: { usdPerMonth: number }) => n + l.usdPerMonth, 0), 6);
    const bad = cli('compare', 'wal-steady-state', '--modes', 'classic,raft');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--modes expects a comma-separated list of classic, kip1023, wal, got "classic,raft"');
  });

  test('--help on every command', () => {
    for (const c of [['--help'], ['run', '--help'], ['list', '--help'], ['validate', '--help'], ['compare', '--help']]) {
      const r = cli(...c);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Usage');
    }
  });

  test('validate accepts every bundled scenario (one process for all of them), and checks every file given even after a bad one', () => {
    const files = readdirSync(join(ROOT, 'scenarios')).map((f) => join('scenarios', f));
    const all = cli('validate', ...files);
    expect(all.code).toBe(0);
    for (const f of files) expect(all.stdout).toContain(`${f}: valid`);
    expect(all.stdout).toContain(`${files.length} of ${files.length} files valid`);
    const mixed = cli('validate', 'test/fixtures/does-not-exist.yaml', files[0], '--json');
    expect(mixed.code).toBe(2);
    const docs = JSON.parse(mixed.stdout) as Array<{ file: string; valid: boolean }>;
    expect(docs.map((d) => [d.file, d.valid])).toEqual([
      ['test/fixtures/does-not-exist.yaml', false],
      [files[0], true],
    ]);
  });

  test('addBroker: validate and run handle it; a broker used before its addBroker exits 2 naming the event that adds it', () => {
    expect(cli('validate', 'test/fixtures/add-broker.yaml')).toMatchObject({ code: 0, stdout: expect.stringContaining('valid') });
    const run = cli('run', 'test/fixtures/add-broker.yaml');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('t=500ms broker 2 joins the cluster in zone a: a new broker starts and registers with the controller');
    expect(run.stdout).toContain('broker 2 follower in ISR: LSO 10, LLSO 150, HW 200, LEO 200');
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-add-broker-'));
    try {
      const bad = join(dir, 'bad.yaml');
      const text = readFileSync(join(ROOT, 'test', 'fixtures', 'add-broker.yaml'), 'utf8').replace('  - at: 500\n    addBroker: {}\n', '');
      writeFileSync(bad, `${text.replace('until: 3000', '')}  - at: 600\n    addBroker: {}\nuntil: 3000\n`);
      const r = cli('validate', bad);
      expect(r.code).toBe(2);
      expect(r.stdout + r.stderr).toContain('timeline[0].addReplica.broker: expected an integer from 0 to 1 (a broker id; brokers: 2), got 2: broker 2 joins the cluster only at timeline[1] (addBroker), after this event');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('--max-steps: a budget the run fits exactly still ends at until; one step less is exit 2', () => {
    const whole = JSON.parse(cli('run', 'kip1023-bootstrap', '--json').stdout);
    const steps = whole.metrics.steps as number;
    const exact = cli('run', 'kip1023-bootstrap', '--json', '--max-steps', String(steps));
    expect(exact.code).toBe(0);
    expect(JSON.parse(exact.stdout).endMs).toBe(whole.endMs);
    expect(exact.stdout).toBe(cli('run', 'kip1023-bootstrap', '--json').stdout);
    const short = cli('run', 'kip1023-bootstrap', '--json', '--max-steps', String(steps - 1));
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(new RegExp(`^run: stopped after ${steps - 1} steps at t=\\d+ms of 3000ms`));
  });

  test('--no-work-budget: a scenario over the work budget is refused without it, accepted with it, and the CLI says the budget is off', () => {
    // 600,000 produces: within the budget of run and validate (the trace streamed), over that
    // of compare, whose runs keep their traces.
    const file = join('bench', 'one-record-per-ms.yaml');
    expect(cli('validate', file).code).toBe(0);
    const refused = cli('compare', file);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/kernel events, more than the limit of 500,000 for a run that keeps its whole trace/);
    const accepted = cli('validate', file, '--no-work-budget');
    expect(accepted.code).toBe(0);
    expect(accepted.stderr).toMatch(/^validate: note: the scenario work budget is off \(--no-work-budget\)/);
    const short = cli('run', file, '--no-work-budget', '--max-steps', '1000');
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/run: stopped after 1000 steps/);
  });
});


describe('no output path may name an input', () => {
  test('report --out, run --trace-out and explore --out naming the scenario (itself, a symbolic link to it, or a hard link) exit 2 and leave it as it was', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-out-is-in-'));
    try {
      const scenario = join(dir, 'my.yaml');
      const text = readFileSync(join(ROOT, 'scenarios', 'classic-two-rounds.yaml'), 'utf8');
      writeFileSync(scenario, text);
      symlinkSync(scenario, join(dir, 'link.yaml'));
      linkSync(scenario, join(dir, 'hard.yaml'));
      const report = cli('report', scenario, '--out', scenario);
      expect(report.code).toBe(2);
      expect(report.stderr.trim()).toBe(`report: --out ${scenario} is the scenario being read (${scenario}); nothing was written: give --out another file`);
      const run = cli('run', scenario, '--trace-out', join(dir, 'link.yaml'));
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`run: --trace-out ${join(dir, 'link.yaml')} is the scenario being run`);
      expect(run.stdout).toBe('');
      const explore = cli('explore', '--scenario', scenario, '--seeds', '1', '--out', join(dir, 'hard.yaml'));
      expect(explore.code).toBe(2);
      expect(explore.stderr).toContain(`explore: --out ${join(dir, 'hard.yaml')} is the scenario being explored`);
      expect(readFileSync(scenario, 'utf8')).toBe(text);
      // Another file beside it is fine.
      expect(cli('report', scenario, '--out', join(dir, 'report.md')).code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('repeated warnings are capped', () => {
  test('2,500 pinned choices the run never reaches: ten warnings, then one line counting the rest', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-pins-'));
    try {
      const text = readFileSync(join(ROOT, 'scenarios', 'classic-two-rounds.yaml'), 'utf8');
      const pins = Array.from({ length: 2500 }, (_, i) => `  - { step: ${1_000_000 + i}, n: 0, kind: order, pick: 1 }`).join('\n');
      const file = join(dir, 'pins.yaml');
      writeFileSync(file, `${text.trimEnd()}\nchoices:\n${pins}\n`);
      const r = cli('run', file);
      expect(r.code).toBe(0);
      const warnings = r.stderr.split('\n').filter((l) => l.startsWith('run: warning: '));
      expect(warnings).toHaveLength(11);
      expect(warnings[10]).toBe('run: warning: ... and 2,490 more pinned choices were never reached (2,500 in all)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a store belongs to one run at a time (CLI)', () => {
  test('run --store fs on a directory another live run holds: exit 2 naming the holder, its objects untouched', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-held-'));
    try {
      // A first run took the store; this test's own process stands for it (alive, on this host).
      expect(cli('run', 'kip1023-bootstrap', '--store', 'fs', '--dir', dir).code).toBe(0);
      const objects = readdirSync(join(dir, 'tiered'), { recursive: true }).length;
      writeFileSync(join(dir, '.tierscope-store.lock'), JSON.stringify({ pid: process.pid, host: hostname(), startedAt: '2026-12-03T08:00:00.000Z' }) + '\n');
      const r = cli('run', 'kip1023-bootstrap', '--store', 'fs', '--dir', dir);
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(`run: --store fs: ${dir} is in use by another run (process ${process.pid} on ${hostname()}, since 2026-12-03T08:00:00.000Z): two runs on one store would delete each other's objects; wait for it, or give another --dir`);
      expect(readdirSync(join(dir, 'tiered'), { recursive: true }).length).toBe(objects);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
