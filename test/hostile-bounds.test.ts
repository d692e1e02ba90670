/**
 * Bounded checking (issue 33 item 4): the swarm's seeds and a shard file's header are never
 * built as an array of the whole range, and the exhaustive checker's search is bounded by
 * memory and reports what it found when stopped by a signal. The CLI runs in a child process
 * with a small heap, so a change that builds the range again dies here at once; the tests
 * wait for output, never for time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { DEFAULT_BOUNDS, STATE_BYTES } from '../core/check/exhaustive.js';
import { maxStatesFor, statesTheHeapHolds } from '../src/cli/exhaustive.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'src', 'cli', 'main.ts');
/** tsx's loader by path, so the CLI may run in a scratch directory (it saves counterexamples there). */
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const dir = mkdtempSync(join(tmpdir(), 'tierscope-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The CLI in a child process with a `heapMb` heap; `until(stdout, stderr)` true sends `sig` once. */
export function cliUntil(args: string[], o: { heapMb: number; cwd?: string; until?: (out: string, err: string) => boolean; sig?: NodeJS.Signals }): Promise<Ended> {
  return new Promise((done) => {
    const p: ChildProcess = spawn(process.execPath, [`--max-old-space-size=${o.heapMb}`, '--import', TSX, CLI, ...args], { cwd: o.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    const check = () => {
      if (!sent && o.until !== undefined && o.until(stdout, stderr)) {
        sent = true;
        p.kill(o.sig ?? 'SIGINT');
      }
    };
    p.stdout!.on('data', (d: Buffer) => ((stdout += d.toString()), check()));
    p.stderr!.on('data', (d: Buffer) => ((stderr += d.toString()), check()));
    p.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

describe('seeds and shard headers are streamed, never built as a whole range', () => {
  test('explore --seeds 1000000000 --out - starts at once in a 64 MB heap and stops cleanly on SIGINT', async () => {
    const r = await cliUntil(['explore', '--seeds', '1000000000', '--scenario', 'kip1023-bootstrap', '--out', '-', '--workers', '1'], {
      heapMb: 64,
      // The header and a first seed's line: the run is under way.
      until: (out) => out.split('\n').length > 2,
    });
    expect(r.stderr).not.toMatch(/heap|FATAL/i);
    expect(r.code).toBe(130);
    expect(r.stdout.split('\n')[0]).toContain('"seeds":1000000000');
    expect(r.stderr).toMatch(/^explore: stopped by SIGINT after \d+ of 1000000000 seeds\n$/);
  }, 120_000);

  const header = (seeds: number, count = 1) =>
    JSON.stringify({ type: 'header', format: 'tierscope-explore/1', tool: 'tierscope 0.1.0', model: 'x', seeds, shard: { index: 0, count }, scenarios: [{ name: 'kip1023-bootstrap', sha256: 'y' }], faults: ['crash'], plantBug: null });
  const run = (seed: number) => JSON.stringify({ type: 'run', seed, scenario: 'kip1023-bootstrap', steps: 1, violations: [], known: [] });
  const end = (runs: number) => JSON.stringify({ type: 'end', runs, steps: runs, failures: 0, seconds: 1, workers: 1 });

  test('explore merge of a file whose header claims 1e9 seeds names the missing seeds without listing the range', async () => {
    const f = join(dir, 'billion.jsonl');
    writeFileSync(f, [header(1_000_000_000), run(1), run(2), end(2)].join('\n') + '\n');
    const r = await cliUntil(['explore', 'merge', f], { heapMb: 64 });
    expect(r.stderr).not.toMatch(/heap|FATAL/i);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${f}: shard 0/1 has no line for seeds 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 and 999999988 more`);
  }, 120_000);

  test('explore merge refuses a header claiming more seeds or shards than explore takes, in one line', async () => {
    const f = join(dir, 'huge.jsonl');
    writeFileSync(f, [header(1e12), run(1), end(1)].join('\n') + '\n');
    const g = join(dir, 'shards.jsonl');
    writeFileSync(g, [header(10, 1_000_000_000), run(1), end(1)].join('\n') + '\n');
    const r = await cliUntil(['explore', 'merge', f, g], { heapMb: 64 });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${f}: the header's "seeds" is not a whole number from 1 to 1,000,000,000 (what --seeds takes)`);
    expect(r.stderr).toContain(`${g}: the header's "shard" count 1000000000 is over 1,000,000 (what --shard takes)`);
  }, 120_000);
});

describe('the exhaustive checker is bounded by memory and reports the search so far when stopped', () => {
  test('a --max-states the heap cannot hold is refused before starting, in one line naming the bytes a state costs', async () => {
    const r = await cliUntil(['explore', 'kip1023-bootstrap', '--exhaustive', '--max-states', '1000000'], { heapMb: 100 });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^tierscope: --max-states 1,000,000 needs about 4,096 MB of heap \(4,096 bytes a state\), but this process's heap holds about [\d,]+ states \(limit \d+ MB\); give --max-states [\d,]+ or less, or a larger heap/)]);
  }, 120_000);

  test('the default bound is lowered to what the heap holds, the same figure every time', () => {
    expect(statesTheHeapHolds({ heap_size_limit: 4096 * 2 ** 20 })).toBe(Math.floor((4096 * 2 ** 20 * 0.9 - 64 * 2 ** 20) / STATE_BYTES));
    expect(maxStatesFor(undefined, { heap_size_limit: 4096 * 2 ** 20 })).toBe(927_334);
    expect(maxStatesFor(undefined, { heap_size_limit: 64 * 2 ** 30 })).toBe(DEFAULT_BOUNDS.maxStates);
    expect(maxStatesFor(5000, { heap_size_limit: 155 * 2 ** 20 })).toBe(5000);
    expect(() => maxStatesFor(50_000, { heap_size_limit: 155 * 2 ** 20 })).toThrow(/--max-states 50,000 needs about 205 MB of heap/);
  });

  test('SIGINT during a search prints the search so far (not exhausted, stopped by SIGINT) and exits 130', async () => {
    const r = await cliUntil(['explore', 'failover-during-bootstrap', '--exhaustive'], { heapMb: 1024, cwd: dir, until: (_out, err) => /distinct states/.test(err) });
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(/^exhaustive: failover-during-bootstrap, every path/);
    expect(r.stdout).toMatch(/[\d,]+ distinct states \([\d,]+ explored\), depth \d+, NOT exhausted: stopped by SIGINT, in/);
    expect(r.stderr).toMatch(/explore: stopped by SIGINT after [\d,]+ distinct states \(depth \d+\); the search so far is above\n$/);
  }, 120_000);

  test('SIGTERM with --json: exit 143, the figures so far and each counterexample found saved and replayable', async () => {
    // The known finding auxStateIncomplete is met after about 5,000 states: stop after 10,000.
    const r = await cliUntil(['explore', 'failover-during-bootstrap', '--exhaustive', '--json'], { heapMb: 1024, cwd: dir, sig: 'SIGTERM', until: (_out, err) => /explore: 10,\d{3} distinct states/.test(err) });
    expect(r.code).toBe(143);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ mode: 'exhaustive', exhausted: false, stoppedBy: 'SIGTERM', stoppedAtMaxStates: false, stateBytes: STATE_BYTES });
    expect(doc.distinctStates).toBeGreaterThanOrEqual(10_000);
    expect(doc.depth).toBeGreaterThan(0);
    const v = doc.violations.find((x: { known: string | null }) => x.known === 'auxStateIncomplete');
    expect(v).toMatchObject({ replayed: true });
    expect(existsSync(join(dir, v.replay.file))).toBe(true);
  }, 300_000);
});
