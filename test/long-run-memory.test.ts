/**
 * A long run in bounded memory (issue 33 item 7): 300 s of one record a millisecond passes the
 * default work budget, and its `run --json` (about 315 MB) and its narration go out through a
 * pipe from a CLI whose heap is 96 MB. Output to a pipe is held by Node until the reader takes
 * it, so a CLI that writes without waiting for the pipe held the whole document (1.66 GB
 * measured); it now waits for the pipe to drain. The child's output is counted, not kept.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { loadScenario } from '../src/cli/scenarios.js';

const ROOT = resolve(import.meta.dirname, '..');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'one-record-per-ms-300s.yaml');

function piped(args: string[]): Promise<{ code: number | null; bytes: number; tail: string; stderr: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, ['--max-old-space-size=96', '--import', 'tsx', join(ROOT, 'src', 'cli', 'main.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    let tail = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => {
      bytes += d.length;
      tail = (tail + d.toString('utf8')).slice(-4000);
    });
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => done({ code, bytes, tail, stderr }));
  });
}

test('300 s of one record a millisecond passes the default work budget', () => {
  const r = loadScenario(FIXTURE);
  expect(r.ok ? [] : r.problems).toEqual([]);
});

test('run --json of it streams through a pipe from a 96 MB heap: exit 0, the whole document', async () => {
  const r = await piped(['run', FIXTURE, '--json']);
  expect(r.stderr).not.toMatch(/heap|FATAL/i);
  expect(r.code).toBe(0);
  expect(r.bytes).toBeGreaterThan(250_000_000);
  expect(r.tail).toMatch(/"costUsd": \{[\s\S]*"total": [^\n]*\n    \}\n  \}\n\}\n$/);
}, 600_000);

test('its narration streams through a pipe from a 96 MB heap too', async () => {
  const r = await piped(['run', FIXTURE]);
  expect(r.stderr).not.toMatch(/heap|FATAL/i);
  expect(r.code).toBe(0);
  expect(r.tail).toContain('Summary at t=300000ms');
}, 600_000);
