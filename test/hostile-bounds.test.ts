/**
 * Bounded checking (issue 33 item 4): the swarm's seeds and a shard file's header are never
 * built as an array of the whole range, and the exhaustive checker's search is bounded by
 * memory and reports what it found when stopped by a signal. The CLI runs in a child process
 * with a small heap, so a change that builds the range again dies here at once; the tests
 * wait for output, never for time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'src', 'cli', 'main.ts');
const dir = mkdtempSync(join(tmpdir(), 'tierscope-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The CLI in a child process with a `heapMb` heap; `until(stdout, stderr)` true sends `sig` once. */
export function cliUntil(args: string[], o: { heapMb: number; until?: (out: string, err: string) => boolean; sig?: NodeJS.Signals }): Promise<Ended> {
  return new Promise((done) => {
    const p: ChildProcess = spawn(process.execPath, [`--max-old-space-size=${o.heapMb}`, '--import', 'tsx', CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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
