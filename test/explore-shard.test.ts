/**
 * The swarm past one machine (issue 19): `explore --shard K/M --out FILE.jsonl` runs share K
 * of the seeds, `explore merge` joins the M files. M shards merged give the report one run
 * of the same seeds gives (only how it ran differs: seconds, seeds/s, workers, shards), and
 * merge refuses files that are not the M shares of one run, naming what is wrong.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { main } from '../src/cli/main.js';
import { runExplore } from '../src/cli/explore.js';
import { parseFlags, parseShard } from '../src/cli/flags.js';
import { ShardWriter, shardHeader } from '../src/explore-shards.js';
import { shardSeeds, shardSize } from '../src/explore.js';
import { loadBundled } from './support/run.js';

const small = ['kip1023-bootstrap', 'classic-two-rounds', 'failover-during-bootstrap'].map((file) => ({ file, scenario: loadBundled(file) }));
const N = 24;
const M = 4;

let dir = '';
let cwd = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tierscope-shard-'));
  // explore and merge save a failing run under ./explore-failures: keep it out of the repo.
  cwd = process.cwd();
  process.chdir(dir);
});
afterAll(() => {
  process.chdir(cwd);
  rmSync(dir, { recursive: true, force: true });
});

type Doc = Record<string, unknown>;

/** explore over the small scenarios, as the CLI runs it after loading them. */
async function explore(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runExplore(parseFlags(args, 'explore', env), { out: (s) => out.push(s), err: (s) => err.push(s) }, small);
  return { code, out, err };
}

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The report without how it ran: wall time, throughput, threads and shard files. */
function result(doc: Doc): Doc {
  const { seconds: _s, seedsPerSecond: _r, workers: _w, shards: _m, ...rest } = doc;
  return rest;
}

const lines = (file: string) => readFileSync(file, 'utf8').trimEnd().split('\n');
const runLines = (file: string) => lines(file).filter((l) => l.startsWith('{"type":"run"'));

describe('shares of the seed space', () => {
  test('shard K of M holds the seeds s with (s - 1) mod M == K: disjoint, and together 1..N', () => {
    for (const [n, m] of [[24, 3], [10, 4], [2, 3], [1, 1], [7, 7]]) {
      const all = Array.from({ length: m }, (_, k) => [...shardSeeds(n, { index: k, count: m })]);
      all.forEach((s, k) => expect(s.length).toBe(shardSize(n, { index: k, count: m })));
      expect(all.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    }
    expect([...shardSeeds(24, { index: 1, count: 3 })]).toEqual([2, 5, 8, 11, 14, 17, 20, 23]);
  });

  test('--shard K/M and auto/M: the index from JOB_COMPLETION_INDEX, else AWS_BATCH_JOB_ARRAY_INDEX; bad values name the problem', () => {
    expect(parseShard('2/5', {})).toEqual({ index: 2, count: 5 });
    expect(parseShard('auto/4', { JOB_COMPLETION_INDEX: '3' })).toEqual({ index: 3, count: 4 });
    expect(parseShard('auto/4', { AWS_BATCH_JOB_ARRAY_INDEX: '1' })).toEqual({ index: 1, count: 4 });
    expect(parseShard('auto/4', { JOB_COMPLETION_INDEX: '0', AWS_BATCH_JOB_ARRAY_INDEX: '2' })).toEqual({ index: 0, count: 4 });
    const bad = (v: string, env: Record<string, string> = {}) => () => parseShard(v, env);
    expect(bad('3/3')).toThrow('--shard 3/3: K must be below M (the shards are 0 to 2; they are numbered from 0, as JOB_COMPLETION_INDEX and AWS_BATCH_JOB_ARRAY_INDEX are)');
    expect(bad('1/0')).toThrow('--shard 1/0: M (the number of shards) must be from 1 to 1000000');
    expect(bad('1of3')).toThrow('--shard expects K/M (shard K of M, K from 0 to M - 1, e.g. 0/4) or auto/M, got "1of3"');
    expect(bad('-1/3')).toThrow('got "-1/3"');
    expect(bad('auto/3')).toThrow('--shard auto/3 takes K from JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX, and neither is set (give K/M instead)');
    expect(bad('auto/3', { JOB_COMPLETION_INDEX: '3' })).toThrow("--shard auto/3: JOB_COMPLETION_INDEX is 3, but the shards are 0 to 2 (the job's number of indexes must be 3)");
    expect(bad('auto/3', { AWS_BATCH_JOB_ARRAY_INDEX: 'one' })).toThrow('--shard auto/3: AWS_BATCH_JOB_ARRAY_INDEX is "one", not a whole number');
    expect(() => parseFlags(['--plant-bug', 'offByOne'], 'explore')).toThrow(/^--plant-bug expects one of deleteBeforeUpload, skipAuxState, .*followerServesPastHighWatermark \(core\/util\/bugs.ts\), got "offByOne"$/);
    expect(parseFlags(['--plant-bug', 'hwWithoutIsr', '--out', 'x.jsonl', '--keep-going'], 'explore')).toMatchObject({ plantBug: 'hwWithoutIsr', out: 'x.jsonl', keepGoing: true });
    for (const opt of ['--shard', '--keep-going']) expect(() => parseFlags([opt, '0/1'], 'run')).toThrow(`unknown option ${opt}`);
    // run takes --plant-bug too (a path found with a planted bug replays with it); compare does not.
    expect(parseFlags(['--plant-bug', 'hwWithoutIsr'], 'run')).toMatchObject({ plantBug: 'hwWithoutIsr' });
    expect(() => parseFlags(['--plant-bug', 'hwWithoutIsr'], 'compare')).toThrow('unknown option --plant-bug');
  });

  test('bad shard options through the CLI: one line, exit 2, no stack', async () => {
    const r = await cli(['explore', '--shard', '4/4']);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toEqual(['tierscope: --shard 4/4: K must be below M (the shards are 0 to 3; they are numbered from 0, as JOB_COMPLETION_INDEX and AWS_BATCH_JOB_ARRAY_INDEX are). See --help.']);
    expect((await cli(['explore', '--out', '-', '--json'])).code).toBe(2);
    expect((await cli(['explore', 'merge'])).err).toContain('explore merge needs FILES');
    expect((await cli(['explore', 'merge', 'a.jsonl', '--seeds', '3'])).err).toContain('explore merge takes FILES and --json only');
  });

  test('a writer cut short leaves no file at its path; finished, the file appears whole', () => {
    const file = join(dir, 'cut.jsonl');
    const w = new ShardWriter(file, shardHeader({ scenarios: small, seeds: 2, shard: { index: 0, count: 1 }, kinds: ['crash'], plantBug: null }), () => {});
    w.add({ scenario: small[1].file, seed: 2, steps: 5, violations: [], known: [] });
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir).some((f) => f.startsWith('cut.jsonl.partial-'))).toBe(true);
    // Seed 1 never came: finishing refuses, and nothing is left.
    expect(w.finish({ steps: 5, failures: 0, seconds: 0, workers: 1 })).toBe(`${file} was not written: 1 of the shard's 2 seeds has no result`);
    expect(readdirSync(dir).filter((f) => f.startsWith('cut.jsonl'))).toEqual([]);
  });
});

describe('M shards merged equal one run of the same seeds', () => {
  const shardFile = (k: number) => join(dir, `shard-${k}.jsonl`);

  test(`${N} seeds over 3 scenarios in ${M} shards (JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX, --out -, K/M)`, async () => {
    // Shard 0 as a Kubernetes Indexed Job runs it, shard 1 as an AWS Batch array job, shard 2 to stdout, shard 3 by hand.
    const s0 = await explore(['--seeds', `${N}`, '--shard', `auto/${M}`, '--out', shardFile(0), '--workers', '2', '--json'], { JOB_COMPLETION_INDEX: '0' });
    const s1 = await explore(['--seeds', `${N}`, '--shard', `auto/${M}`, '--out', shardFile(1), '--workers', '1', '--json'], { AWS_BATCH_JOB_ARRAY_INDEX: '1' });
    const s2 = await explore(['--seeds', `${N}`, '--shard', `2/${M}`, '--out', '-', '--workers', '2']);
    const s3 = await explore(['--seeds', `${N}`, '--shard', `3/${M}`, '--out', shardFile(3), '--workers', '1', '--json']);
    writeFileSync(shardFile(2), s2.out.join('\n') + '\n');
    expect(s2.err.join('\n')).toMatch(/^6 seeds \(shard 2\/4 of seeds 1\.\.24\) over 3 scenarios/m);
    for (const [k, s] of [[0, s0], [1, s1], [3, s3]] as const) {
      expect(s.code).toBe(0);
      expect(JSON.parse(s.out.join('\n'))).toMatchObject({ runs: 6, seeds: N, shard: { index: k, count: M }, shards: 1, failures: [] });
    }
    // Each file: a header, its 6 seeds in order, an end line counting them.
    for (let k = 0; k < M; k++) {
      const ls = lines(shardFile(k)).map((l) => JSON.parse(l));
      expect(ls[0]).toMatchObject({ type: 'header', format: 'tierscope-explore/1', seeds: N, shard: { index: k, count: M }, plantBug: null, scenarios: small.map((s) => ({ name: s.file })) });
      expect(ls.slice(1, -1).map((l) => l.seed)).toEqual([...shardSeeds(N, { index: k, count: M })]);
      expect(ls.at(-1)).toMatchObject({ type: 'end', runs: 6 });
    }

    const whole = await explore(['--seeds', `${N}`, '--out', join(dir, 'whole.jsonl'), '--json']);
    const direct = await explore(['--seeds', `${N}`, '--keep-going', '--json']);
    const merged = await cli(['explore', 'merge', shardFile(2), shardFile(0), shardFile(3), shardFile(1), '--json']);
    const mergedWhole = await cli(['explore', 'merge', join(dir, 'whole.jsonl'), '--json']);
    expect(merged.code).toBe(direct.code);
    const d = JSON.parse(direct.out.join('\n')) as Doc;
    const m = JSON.parse(merged.out) as Doc;
    expect(result(m)).toEqual(result(d));
    expect(result(JSON.parse(mergedWhole.out) as Doc)).toEqual(result(d));
    expect(result(JSON.parse(whole.out.join('\n')) as Doc)).toEqual(result(d));
    expect(m).toMatchObject({ runs: N, seeds: N, shard: null, shards: M, scenarios: small.map((s) => s.file) });
    expect(d).toMatchObject({ runs: N, shards: 1 });
    // The seed lines themselves: the shards' lines are the single run's, byte for byte.
    const fromShards = [0, 1, 2, 3].flatMap((k) => runLines(shardFile(k))).sort((a, b) => JSON.parse(a).seed - JSON.parse(b).seed);
    expect(fromShards).toEqual(runLines(join(dir, 'whole.jsonl')));
    // And the text report, but for its first line (how it ran).
    const text = await cli(['explore', 'merge', shardFile(0), shardFile(1), shardFile(2), shardFile(3)]);
    const directText = await explore(['--seeds', `${N}`, '--keep-going']);
    expect(text.out.split('\n')[0]).toMatch(/^24 seeds \(4 shards merged\) over 3 scenarios \(faults: crash, partition, store, slow, config\) in [\d.]+ s \(the longest shard\) on 6 workers: [\d.]+ seeds\/s, \d+ steps$/);
    expect(text.out.split('\n').slice(1)).toEqual(directText.out.slice(1));
  }, 120000);

  test('with a planted bug: the same failures, the same first failure saved, exit 129', async () => {
    const args = ['--seeds', `${N}`, '--faults', 'crash,store', '--plant-bug', 'hwWithoutIsr', '--workers', '2'];
    const files: string[] = [];
    for (let k = 0; k < M; k++) {
      files.push(join(dir, `bug-${k}.jsonl`));
      const r = await explore([...args, '--shard', `auto/${M}`, '--out', files[k]], { JOB_COMPLETION_INDEX: `${k}` });
      expect([0, 129]).toContain(r.code);
      expect(JSON.parse(lines(files[k])[0])).toMatchObject({ plantBug: 'hwWithoutIsr', faults: ['crash', 'store'] });
    }
    const direct = await explore([...args, '--keep-going', '--json']);
    const d = JSON.parse(direct.out.join('\n')) as Doc & { failures: Array<{ seed: number }>; failure: { seed: number; scenario: string; replay: { file: string } } };
    expect(direct.code).toBe(129);
    expect(d.failures.length).toBeGreaterThan(1);
    expect(d.failure.seed).toBe(d.failures[0].seed);
    const saved = readFileSync(d.failure.replay.file, 'utf8');
    rmSync('explore-failures', { recursive: true });
    const merged = await cli(['explore', 'merge', ...files, '--json']);
    expect(merged.code).toBe(129);
    expect(result(JSON.parse(merged.out) as Doc)).toEqual(result(d));
    // merge saved the same failing run, from the failing line's scenarioFile.
    expect(readFileSync(d.failure.replay.file, 'utf8')).toBe(saved);
    // A failing line holds the scenario that replays it.
    const failing = files.flatMap(runLines).map((l) => JSON.parse(l)).filter((r) => r.violations.length > 0);
    expect(failing.map((r) => r.seed).sort((a, b) => a - b)).toEqual(d.failures.map((f) => f.seed));
    for (const r of failing) expect(r.scenarioFile).toMatchObject({ seed: r.seed });
    // The text names the planted bug, the first failure and the others.
    const text = await cli(['explore', 'merge', ...files]);
    expect(text.out).toContain('planted bug hwWithoutIsr: the leader advances the high watermark to its own log end, without the ISR');
    expect(text.out).toContain(`VIOLATION in ${d.failure.scenario} seed ${d.failure.seed} at t=`);
    expect(text.out).toContain(`${d.failures.length - 1} more runs with a new violation or error: seeds ${d.failures.slice(1).map((f) => f.seed).join(', ')}`);
    expect(text.out).toContain(`saved the run as ${d.failure.replay.file}`);
  }, 120000);

  test('more shards than seeds: the empty shares still write their file, and merge', async () => {
    const files = [0, 1, 2].map((k) => join(dir, `tiny-${k}.jsonl`));
    for (let k = 0; k < 3; k++) expect((await explore(['--seeds', '2', '--shard', `${k}/3`, '--out', files[k], '--workers', '1'])).code).toBe(0);
    expect(lines(files[2]).map((l) => JSON.parse(l).type)).toEqual(['header', 'end']);
    const merged = await cli(['explore', 'merge', ...files, '--json']);
    const direct = await explore(['--seeds', '2', '--keep-going', '--json']);
    expect(result(JSON.parse(merged.out) as Doc)).toEqual(result(JSON.parse(direct.out.join('\n')) as Doc));
  }, 60000);
});

describe('merge refuses files that are not the M shares of one run', () => {
  const f = (k: number) => join(dir, `shard-${k}.jsonl`);
  const merge = async (...files: string[]) => {
    const r = await cli(['explore', 'merge', ...files]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    return r.err.split('\n');
  };
  /** A copy of shard k with its lines changed by `edit`. */
  const variant = (k: number, name: string, edit: (ls: string[]) => string[]) => {
    const p = join(dir, name);
    writeFileSync(p, edit(lines(f(k))).join('\n') + '\n');
    return p;
  };

  test('a missing shard, a shard given twice', async () => {
    expect(await merge(f(0), f(2), f(3))).toEqual(['explore merge: shard 1 of 4 is missing (no file for that index)', 'explore merge: 1 problem; nothing merged']);
    expect(await merge(f(3), f(0))).toEqual(['explore merge: shards 1, 2 of 4 are missing (no file for those indexes)', 'explore merge: 1 problem; nothing merged']);
    expect((await merge(f(0), f(1), f(1), f(2), f(3)))[0]).toBe(`explore merge: shard 1/4 is given 2 times: ${f(1)}, ${f(1)}`);
  });

  test('mixed headers: another seed count, other scenarios, another planted bug', async () => {
    const other = join(dir, 'n30-1.jsonl');
    expect((await explore(['--seeds', '30', '--shard', '1/4', '--out', other, '--workers', '1'])).code).toBe(0);
    expect((await merge(f(0), other, f(2), f(3)))[0]).toBe(`explore merge: ${other}: not a shard of the same run as ${f(0)}: seeds is 30, but ${f(0)} has 24`);
    const renamed = variant(1, 'renamed.jsonl', (ls) => ls.map((l) => l.replaceAll('"classic-two-rounds"', '"classic-one-round"')));
    expect((await merge(f(0), renamed, f(2), f(3)))[0]).toBe(
      `explore merge: ${renamed}: not a shard of the same run as ${f(0)}: its scenarios are kip1023-bootstrap, classic-one-round, failover-during-bootstrap, but ${f(0)} has kip1023-bootstrap, classic-two-rounds, failover-during-bootstrap`,
    );
    const edited = variant(1, 'edited.jsonl', (ls) => {
      const h = JSON.parse(ls[0]);
      h.scenarios[2].sha256 = '0'.repeat(64);
      return [JSON.stringify(h), ...ls.slice(1)];
    });
    expect((await merge(f(0), f(2), edited, f(3)))[0]).toMatch(/: not a shard of the same run as .*shard-0\.jsonl: its scenario failover-during-bootstrap differs from .*shard-0\.jsonl's \(content hash 000000000000 vs [0-9a-f]{12}\)$/);
    const bug = variant(2, 'bug.jsonl', (ls) => [ls[0].replace('"plantBug":null', '"plantBug":"skipAuxState"'), ...ls.slice(1)]);
    expect((await merge(f(0), f(1), bug, f(3)))[0]).toBe(`explore merge: ${bug}: not a shard of the same run as ${f(0)}: its planted bug is skipAuxState, but ${f(0)} has none`);
  });

  test('a truncated file, a missing seed, a seed of another shard, another format', async () => {
    const rest = [f(2), f(3)];
    const noEnd = variant(1, 'no-end.jsonl', (ls) => ls.slice(0, -1));
    expect(await merge(f(0), noEnd, ...rest)).toEqual([
      `explore merge: ${noEnd}: incomplete: no end line after 6 of the 6 seeds of shard 1/4 (the shard was stopped or its output cut short; run it again)`,
      'explore merge: 1 problem; nothing merged',
    ]);
    const cut = variant(1, 'cut.jsonl', (ls) => [...ls.slice(0, 4), ls[4].slice(0, 30)]);
    expect(await merge(f(0), cut, ...rest)).toEqual([
      `explore merge: ${cut} line 5: not a JSON object (the file is damaged or was cut short)`,
      `explore merge: ${cut}: incomplete: no end line after 3 of the 6 seeds of shard 1/4 (the shard was stopped or its output cut short; run it again)`,
      'explore merge: 2 problems; nothing merged',
    ]);
    const gap = variant(1, 'gap.jsonl', (ls) => ls.filter((l) => !l.startsWith('{"type":"run","seed":6,')));
    expect(await merge(f(0), gap, ...rest)).toEqual([
      `explore merge: ${gap}: the end line counts 6 runs, but the file holds 5`,
      `explore merge: ${gap}: shard 1/4 has no line for seed 6`,
      'explore merge: 2 problems; nothing merged',
    ]);
    const stray = variant(1, 'stray.jsonl', (ls) => [ls[0], ls[1].replace('"seed":2,', '"seed":3,'), ...ls.slice(2)]);
    expect((await merge(f(0), stray, ...rest))[0]).toBe(`explore merge: ${stray} line 2: seed 3 is not in shard 1/4 of seeds 1..24 (its seeds are the s with (s - 1) mod 4 = 1)`);
    const twice = variant(1, 'twice.jsonl', (ls) => [ls[0], ls[1], ls[1], ...ls.slice(2)]);
    expect((await merge(f(0), twice, ...rest))[0]).toBe(`explore merge: ${twice} line 3: seed 2 again (first on line 2)`);
    const v2 = variant(0, 'v2.jsonl', (ls) => [ls[0].replace('tierscope-explore/1', 'tierscope-explore/2'), ...ls.slice(1)]);
    expect((await merge(v2, f(1), ...rest))[0]).toBe(`explore merge: ${v2}: the header's format "tierscope-explore/2"; this tierscope reads tierscope-explore/1`);
    const notOurs = join(dir, 'other.jsonl');
    writeFileSync(notOurs, '{"hello":1}\n');
    expect((await merge(notOurs))[0]).toBe(`explore merge: ${notOurs}: line 1 is not an explore --out header (is it a file explore --out wrote?)`);
    expect((await merge(join(dir, 'absent.jsonl')))[0]).toBe(`explore merge: ${join(dir, 'absent.jsonl')}: cannot be read (ENOENT)`);
  });
});
