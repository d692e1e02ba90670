/**
 * `run` spools its trace (src/cli/trace-spool.ts) for --json and --trace-out: what is read
 * back is exactly what was added, in pieces that end at line ends, across the spool's
 * flushes and reads (4 MiB) and multi-byte characters; --trace-out's spool is renamed into place.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { TraceSpool, spoolBeside } from '../src/cli/trace-spool.js';

const dir = mkdtempSync(join(tmpdir(), 'tierscope-spool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('drainLines gives back the text added, line by line, and removes the file', async () => {
  const spool = new TraceSpool(dir);
  const parts: string[] = [];
  for (let i = 0; i < 60_000; i++) {
    const text = `${i > 0 ? ',\n' : ''}    {\n      "n": ${i},\n      "zone": "zöne-${'é'.repeat(i % 50)}"\n    }`;
    parts.push(text);
    spool.add(text);
  }
  const out: string[] = [];
  await spool.drainLines((s) => out.push(s));
  expect(out.length).toBeGreaterThan(1);
  expect(out.join('\n')).toBe(parts.join(''));
  expect(existsSync(spool.path)).toBe(false);
});

test('moveTo renames the spool onto the target, whole', () => {
  const target = join(dir, 'trace.jsonl');
  const spool = spoolBeside(target);
  for (let i = 0; i < 10_000; i++) spool.add(`${JSON.stringify({ i })}\n`);
  expect(spool.moveTo(target)).toBeNull();
  const lines = readFileSync(target, 'utf8').split('\n');
  expect(lines).toHaveLength(10_001);
  expect(lines[9_999]).toBe('{"i":9999}');
  expect(existsSync(spool.path)).toBe(false);
});
