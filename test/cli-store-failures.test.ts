/**
 * The CLI against a failing directory store and unwritable outputs (README, "The CLI"):
 * nothing the run did not create is deleted, a full or read-only file system ends the run
 * with exit 3 and one line, nothing half-written is left looking complete, outputs are
 * checked before the run, flags of another store are refused, and signals stop a run.
 *
 * The full and read-only file systems are small tmpfs mounts, which need root (as on this
 * project's CI machines); elsewhere those two tests say why they did not run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decodeBatches } from '../core/format/record-batch.js';
import { FsObjectStore, STORE_MARKER } from '../src/stores/fs-store.js';
import { ROOT } from './support/run.js';

const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'src', 'cli', 'main.ts');
const work = mkdtempSync(join(tmpdir(), 'tierscope-store-failures-'));
const mounts: string[] = [];

function cli(...args: string[]) {
  const r = spawnSync(TSX, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** stderr's lines without Node's own warnings. */
function errLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.trim() !== '');
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}

/** A tmpfs of `size` bytes (or read-only), or the reason there is none. */
function mountTmpfs(name: string, opts: string): string | { why: string } {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', opts, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) return { why: `cannot mount a tmpfs here (${(r.stderr || r.error?.message || '').trim()}); run as root to test a full or read-only file system` };
  mounts.push(dir);
  return dir;
}

let full: string | { why: string };
let readOnly: string | { why: string };
beforeAll(() => {
  full = mountTmpfs('full', 'size=64k');
  readOnly = mountTmpfs('ro', 'ro,size=64k');
});
afterAll(() => {
  for (const m of mounts) spawnSync('umount', [m]);
  rmSync(work, { recursive: true, force: true });
});

describe('--store fs never deletes what a run did not create', () => {
  test('a non-empty directory without the marker is refused (exit 2) and left as it was', () => {
    const dir = join(work, 'foreign');
    mkdirSync(join(dir, 'tiered'), { recursive: true });
    writeFileSync(join(dir, 'precious.txt'), 'mine');
    writeFileSync(join(dir, 'tiered', 'also-mine.bin'), 'mine too');
    const r = cli('run', 'kip1023-bootstrap', '--store', 'fs', '--dir', dir);
    expect(r.code).toBe(2);
    expect(errLines(r.stderr)).toEqual([expect.stringMatching(/is not empty and holds no \.tierscope-store marker/)]);
    expect(readFileSync(join(dir, 'precious.txt'), 'utf8')).toBe('mine');
    expect(readFileSync(join(dir, 'tiered', 'also-mine.bin'), 'utf8')).toBe('mine too');
    expect(existsSync(join(dir, STORE_MARKER))).toBe(false);
  });

  test('a file given as --dir is refused', () => {
    const f = join(work, 'a-file');
    writeFileSync(f, 'x');
    const r = cli('run', 'kip1023-bootstrap', '--store', 'fs', '--dir', f);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is a file, not a directory/);
    expect(readFileSync(f, 'utf8')).toBe('x');
  });

  test('a new directory is marked; a second run clears only tiered/ and wal/', () => {
    const dir = join(work, 'ours');
    expect(cli('run', 'rlm-upload-and-local-retention', '--store', 'fs', '--dir', dir).code).toBe(0);
    expect(existsSync(join(dir, STORE_MARKER))).toBe(true);
    const first = walk(join(dir, 'tiered'));
    expect(first.some((f) => f.endsWith('.log'))).toBe(true);
    writeFileSync(join(dir, 'notes.md'), 'kept');
    writeFileSync(join(dir, 'tiered', 'stale.log'), 'from an earlier run');
    expect(cli('run', 'rlm-upload-and-local-retention', '--store', 'fs', '--dir', dir).code).toBe(0);
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('kept');
    expect(existsSync(join(dir, 'tiered', 'stale.log'))).toBe(false);
    expect(walk(join(dir, 'tiered')).sort()).toEqual(first.sort());
  });
});

describe('a failing file system ends the run with exit 3 and one line', () => {
  test('a full disk: exit 3 naming ENOSPC and the object; no partial or truncated segment left', (ctx) => {
    if (typeof full !== 'string') return ctx.skip(full.why);
    const r = cli('run', 'steady-state-upload', '--store', 'fs', '--dir', full);
    expect(r.code).toBe(3);
    const lines = errLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^run: the fs store failed at t=\d+ms: PUT tiered\/\S+: ENOSPC/);
    expect(lines[0]).toMatch(/--store-failures fault/);
    const files = walk(full);
    expect(files.filter((f) => f.includes('.partial'))).toEqual([]);
    // Every segment file left behind is whole: its batches decode with valid CRCs.
    for (const f of files.filter((x) => x.endsWith('.log'))) expect(() => decodeBatches(readFileSync(f))).not.toThrow();
  });

  test('a full disk with --store-failures fault: the run goes on and the JSON counts the failures', (ctx) => {
    if (typeof full !== 'string') return ctx.skip(full.why);
    const r = cli('run', 'steady-state-upload', '--store', 'fs', '--dir', full, '--store-failures', 'fault', '--json');
    expect([0, 129]).toContain(r.code);
    const doc = JSON.parse(r.stdout);
    expect(doc.storeFailures.count).toBeGreaterThan(0);
    expect(doc.storeFailures.first).toMatchObject({ op: 'PUT', store: 'tiered', cause: expect.stringMatching(/ENOSPC/) });
    expect(doc.trace.some((e: { type: string; error?: string }) => e.type === 'objectStore' && e.error === 'ENOSPC')).toBe(true);
  });

  test('with --json the run as far as it got is printed, with storeFailures', (ctx) => {
    if (typeof full !== 'string') return ctx.skip(full.why);
    const r = cli('run', 'steady-state-upload', '--store', 'fs', '--dir', full, '--json');
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.stdout);
    // The run stops after the step that failed; a copy PUTs its four objects in one step, and any of them may fail.
    expect(doc.storeFailures).toMatchObject({ first: { op: 'PUT', store: 'tiered' } });
    expect(doc.storeFailures.count).toBeGreaterThanOrEqual(1);
    expect(doc.storeFailures.count).toBeLessThanOrEqual(4);
    expect(doc.endMs).toBeLessThan(120_000);
  });

  test('a read-only directory: exit 3, one line naming EROFS', (ctx) => {
    if (typeof readOnly !== 'string') return ctx.skip(readOnly.why);
    const r = cli('run', 'kip1023-bootstrap', '--store', 'fs', '--dir', readOnly);
    expect(r.code).toBe(3);
    expect(errLines(r.stderr)).toEqual([expect.stringMatching(/^run: --store fs: cannot use .*EROFS/)]);
  });

  test('an object name the file system refuses is a failed request, not a crash', () => {
    const store = new FsObjectStore(join(work, 'long-names'));
    const key = `${'t'.repeat(300)}-0/00000000000000000000-x.log`;
    const r = store.execute({ op: 'put', store: 'tiered', key, object: { kind: 'blob', bytes: 1, data: 'x' } as never });
    expect(r).toMatchObject({ ok: false, error: 'ENAMETOOLONG' });
    expect(store.failures.first).toMatchObject({ op: 'PUT', store: 'tiered', cause: expect.stringMatching(/ENAMETOOLONG/) });
  });
});

describe('outputs are checked before the run', () => {
  test('--trace-out into a missing directory or onto a directory: exit 2 at once, nothing run', () => {
    for (const [path, msg] of [
      [join(work, 'no-such-dir', 'trace.jsonl'), /no directory/],
      [work, /is a directory/],
    ] as const) {
      const r = cli('run', 'kip1023-bootstrap', '--trace-out', path);
      expect(r.code).toBe(2);
      expect(errLines(r.stderr)).toEqual([expect.stringMatching(msg)]);
      expect(r.stdout).toBe('');
    }
  });

  test('--trace-out that fails while written (a full device): exit 3, the JSON still printed', () => {
    if (!existsSync('/dev/full')) return;
    const r = cli('run', 'kip1023-bootstrap', '--json', '--trace-out', '/dev/full');
    expect(r.code).toBe(3);
    expect(errLines(r.stderr)).toEqual([expect.stringMatching(/^run: --trace-out \/dev\/full could not be written \(ENOSPC\)/)]);
    expect(JSON.parse(r.stdout).scenario).toBeTruthy();
    expect(statSync('/dev/full').isCharacterDevice()).toBe(true);
  });

  test('--trace-out is written whole: the file holds every trace entry', () => {
    const out = join(work, 'trace.jsonl');
    const r = cli('run', 'kip1023-bootstrap', '--json', '--trace-out', out);
    expect(r.code).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines.length).toBe(JSON.parse(r.stdout).trace.length);
    expect(readdirSync(work).filter((f) => f.includes('.partial'))).toEqual([]);
  });
});

describe('a model too small for Kafka\'s files is refused before the run', () => {
  test('model.recordBytes below a one-record RecordBatch v2 (68 bytes): exit 2 with the reason on a file store; the memory store runs it', () => {
    const file = join(work, 'tiny-records.yaml');
    const yaml = readFileSync(join(ROOT, 'scenarios', 'classic-one-round.yaml'), 'utf8');
    writeFileSync(file, /^model:/m.test(yaml) ? yaml.replace(/^model:\n/m, 'model:\n  recordBytes: 67\n') : `${yaml}\nmodel:\n  recordBytes: 67\n`);
    const dir = join(work, 'tiny-store');
    const r = cli('run', file, '--store', 'fs', '--dir', dir);
    expect(r.code).toBe(2);
    expect(errLines(r.stderr)).toEqual([
      `run: ${file}: model.recordBytes is 67, but --store fs writes each batch as a Kafka RecordBatch v2 of exactly the model's size, and a one-record batch needs at least 68 bytes (a 61-byte header and a 7-byte record): give model.recordBytes 68 or more, or run on --store memory`,
    ]);
    expect(existsSync(dir)).toBe(false);
    expect(cli('run', file, '--json').code).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8').replace('recordBytes: 67', 'recordBytes: 68'));
    expect(cli('run', file, '--store', 'fs', '--dir', dir, '--json').code).toBe(0);
  });
});

describe('flags that do not apply are refused, not ignored', () => {
  test.each([
    [['--dir', '/tmp/x'], /--dir applies to --store fs only/],
    [['--bucket', 'b'], /--bucket applies to --store s3 only/],
    [['--store', 'fs', '--dir', '/tmp/x', '--prefix', 'p/'], /--prefix applies to --store s3 only \(this run uses --store fs\)/],
    [['--store-failures', 'fault'], /--store-failures applies to --store fs or s3 only/],
    [['--latency', 'measured'], /--latency applies to --store fs or s3 only/],
  ])('run %j: exit 2', (flags, msg) => {
    const r = cli('run', 'kip1023-bootstrap', ...flags);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(msg);
  });
});

describe('--seed', () => {
  test('says when it changes nothing, and the summary says the run draws nothing at random', () => {
    const a = cli('run', 'kip1023-bootstrap', '--seed', '7');
    expect(a.code).toBe(0);
    expect(a.stderr).toMatch(/--seed 7 changed nothing: this scenario draws nothing at random/);
    expect(a.stdout).toMatch(/seed: nothing in this run was drawn at random/);
    const b = cli('run', 'kip1023-bootstrap', '--seed', '8', '--json');
    const c = cli('run', 'kip1023-bootstrap', '--seed', '9', '--json');
    const strip = (s: string) => ({ ...JSON.parse(s), seed: 0 });
    expect(strip(b.stdout)).toEqual(strip(c.stdout));
  });
});

describe('signals stop a run between steps', () => {
  const long = join(work, 'long.yaml');
  beforeAll(() => {
    writeFileSync(
      long,
      // About 2 s of stepping here, inside the scenario work budget (docs/scenario-format.md, Limits).
      'name: long\nuntil: 1000000\nbrokers: 3\ntopics:\n  - name: t\n    partitions: 1\n    replicas: [[0, 1, 2]]\ntimeline:\n  - at: 0\n    produce: { topic: t, partition: 0, records: 1, everyMs: 20 }\n',
    );
  });

  /** Starts `cmd`, waits until its run has started, sends `sig` to `target(pid)`, returns how it ended. */
  function stopWith(cmd: string[], sig: NodeJS.Signals, target: (pid: number) => number) {
    return new Promise<{ code: number | null; stderr: string; orphans: string }>((done) => {
      const p = spawn(cmd[0], cmd.slice(1), { cwd: ROOT });
      let stderr = '';
      p.stderr.on('data', (d) => (stderr += d));
      // The signal goes once the run has started (its first narration lines are out).
      let sent = false;
      p.stdout.on('data', () => {
        if (sent) return;
        sent = true;
        setTimeout(() => process.kill(target(p.pid!), sig), 300);
      });
      p.on('exit', (code) => {
        setTimeout(() => {
          const orphans = spawnSync('pgrep', ['-f', long], { encoding: 'utf8' }).stdout.trim();
          done({ code, stderr, orphans });
        }, 300);
      });
    });
  }

  test('SIGTERM to the CLI process: exit 143 and a line saying where it stopped', async () => {
    const r = await stopWith([process.execPath, '--import', 'tsx', CLI, 'run', long], 'SIGTERM', (pid) => pid);
    expect(r.code).toBe(143);
    expect(errLines(r.stderr)).toEqual([expect.stringMatching(/^run: stopped by SIGTERM at t=\d+ms of 1000000ms \(\d+ steps\)$/)]);
  }, 30_000);

  test('SIGINT to the tierscope bin: the CLI stops too (exit 130), no process left behind', async () => {
    const r = await stopWith([process.execPath, join(ROOT, 'bin', 'tierscope.mjs'), 'run', long], 'SIGINT', (pid) => pid);
    expect(r.stderr).toMatch(/run: stopped by SIGINT/);
    expect(r.orphans).toBe('');
  }, 30_000);

  test('SIGTERM to the bin: no orphan CLI', async () => {
    const r = await stopWith([process.execPath, join(ROOT, 'bin', 'tierscope.mjs'), 'run', long], 'SIGTERM', (pid) => pid);
    expect(r.orphans).toBe('');
    expect(r.stderr).toMatch(/run: stopped by SIGTERM/);
  }, 30_000);
});
