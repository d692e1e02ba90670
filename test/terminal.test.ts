/**
 * What the CLI prints is safe for a terminal (src/cli/terminal.ts, wired in main.ts): a
 * scenario whose name, description, zone names and keys hold escape sequences (a window
 * title `ESC ] 0 ; pwned BEL`, a screen clear `ESC [ 2 J`, a C1 CSI, a bidi override) puts
 * no raw control on stdout or stderr, in text or JSON; the JSON still parses to the
 * scenario's own strings; a report written with --out keeps the document as it is.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { terminalSafe } from '../src/cli/terminal.js';
import { ROOT } from './support/run.js';

const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'src', 'cli', 'main.ts');

function cli(...args: string[]) {
  const r = spawnSync(TSX, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every character terminalSafe replaces. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('terminalSafe', () => {
  test.each([
    ['\u001b]0;pwned\u0007', '\\u001b]0;pwned\\u0007'],
    ['\u001b[2J', '\\u001b[2J'],
    ['\u009b31m', '\\u009b31m'],
    ['a\rb\u0000c\u007f', 'a\\u000db\\u0000c\\u007f'],
    ['left \u202eright\u202c \u2066x\u2069 \u200f\u061c', 'left \\u202eright\\u202c \\u2066x\\u2069 \\u200f\\u061c'],
    ['line\u2028para\u2029', 'line\\u2028para\\u2029'],
    ['tab\tand\nnewline stay', 'tab\tand\nnewline stay'],
    ['plain ASCII, é, ü, 日本, 🙂, U+00A0\u00a0', 'plain ASCII, é, ü, 日本, 🙂, U+00A0\u00a0'],
  ])('%j', (input, out) => {
    expect(terminalSafe(input)).toBe(out);
    expect(terminalSafe(input)).not.toMatch(UNSAFE);
  });

  test('every code unit: only the unsafe ones change, each to its JSON escape', () => {
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      const out = terminalSafe(ch);
      if (UNSAFE.test(ch)) expect(out).toBe('\\u' + c.toString(16).padStart(4, '0'));
      else expect(out).toBe(ch);
    }
  });

  test('JSON.stringify escapes C0 controls but leaves DEL, C1, bidi controls and U+2028/2029 raw', () => {
    expect(JSON.stringify('\u001b\u0007')).toBe('"\\u001b\\u0007"');
    expect(JSON.stringify('\u007f\u009b\u202e\u2028\u2029')).toBe('"\u007f\u009b\u202e\u2028\u2029"');
  });

  test('a JSON document through terminalSafe is still JSON with the same value', () => {
    const value = { name: 'a\u001b]0;x\u0007\u007f\u009b\u202e\u2066\u2028\u2029 "q" \\ \u00e9', list: ['\u200e', 1, null, { '\u202ekey\u009b': '\u0085' }] };
    const text = JSON.stringify(value, null, 2);
    expect(text).toMatch(UNSAFE);
    const safe = terminalSafe(text);
    expect(safe).not.toMatch(UNSAFE);
    expect(JSON.parse(safe)).toEqual(value);
  });
});

describe('the CLI prints no raw control characters', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tierscope-terminal-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const name = 'Evil \u001b]0;pwned\u0007 name \u001b[2J \u202e';
  const description = 'desc \u001b]0;pwned\u0007 \u001b[2J \u009b31m \u2028 end';
  const zones = ['a\u001b[31m', 'b\u0007'];
  const evil = join(dir, 'evil.json');
  writeFileSync(
    evil,
    JSON.stringify({
      name,
      description,
      seed: 1,
      brokers: 2,
      zones,
      model: { clientZone: zones[0] },
      topics: [{ name: 'orders', partitions: 1, replicas: [[0, 1]], config: { 'remote.storage.enable': true },
        initial: [{ partition: 0, leaderEpoch: 0, segments: [{ baseOffset: 0, endOffset: 99, tier: 'remote' }, { baseOffset: 100, endOffset: 199, tier: 'local' }] }] }],
      timeline: [{ at: 0, addReplica: { topic: 'orders', partition: 0, broker: 1 } }],
      until: 2000,
    }),
  );
  // Broken: escape sequences in keys, in a topic name and in a value the problems quote.
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'name: "bad \\e]0;pwned\\a"\nbrokers: 2\n"\\e[2Jkey\\a": 1\nzones: ["\\e[2J", 7]\ntopics: [{ name: "or\\e[2Jders", partitions: 1, replicas: [[0, 1]] }]\nuntil: 10\n');

  const clean = (r: { stdout: string; stderr: string }) => {
    expect(r.stdout).not.toMatch(UNSAFE);
    expect(r.stderr).not.toMatch(UNSAFE);
  };

  test('run, validate and report (md, mermaid, svg) of a scenario with escape sequences in its text', () => {
    const run = cli('run', evil);
    expect(run.code).toBe(0);
    clean(run);
    expect(run.stdout).toContain('Evil \\u001b]0;pwned\\u0007 name \\u001b[2J \\u202e');
    const validate = cli('validate', evil);
    expect(validate.code).toBe(0);
    clean(validate);
    expect(validate.stdout).toContain('\\u001b]0;pwned\\u0007');
    for (const format of ['md', 'mermaid', 'svg']) {
      const r = cli('report', evil, '--format', format);
      expect(r.code, format).toBe(0);
      clean(r);
    }
    const compare = cli('compare', evil);
    expect(compare.code).toBe(0);
    clean(compare);
  });

  test('JSON on stdout has no raw control and parses to the scenario\'s own strings', () => {
    const run = cli('run', evil, '--json');
    expect(run.code).toBe(0);
    clean(run);
    const doc = JSON.parse(run.stdout);
    expect(doc.scenario).toBe(name);
    expect(doc.config.zones).toEqual(zones);
    const report = cli('report', evil, '--format', 'json');
    expect(report.code).toBe(0);
    clean(report);
    expect(JSON.parse(report.stdout).scenario).toBe(name);
  });

  test('problems with escape sequences in keys and values, in text and --json', () => {
    const text = cli('run', bad);
    expect(text.code).toBe(2);
    clean(text);
    expect(text.stdout + text.stderr).toContain('\\u001b[2Jkey\\u0007');
    const json = cli('validate', bad, '--json');
    expect(json.code).toBe(2);
    clean(json);
  });

  test('report --out writes the document as it is; only what reaches the terminal is escaped', () => {
    const out = join(dir, 'evil.md');
    const r = cli('report', evil, '--out', out);
    expect(r.code).toBe(0);
    clean(r);
    const md = readFileSync(out, 'utf8');
    expect(md.startsWith(`# ${'Evil \u001b]0;pwned\u0007 name \u001b[2J \u202e'}\n`)).toBe(true);
    expect(terminalSafe(md)).toBe(cli('report', evil).stdout.replace(/\n$/, '') + (md.endsWith('\n') ? '\n' : ''));
  });
});
