/**
 * The swarm's shard files (`explore --out FILE.jsonl`) and their merge (`explore merge`):
 * README, "Swarm past one machine"; the format: docs/json-output.md, "explore --out".
 *
 * A file is JSON Lines: a header (what was run: the seed space, the shard, the scenarios
 * with a hash of each, the fault kinds, the planted bug, the tool and model), one line per
 * seed in seed order, and an end line counting them. It is written to a temporary name and
 * renamed into place when the end line is in, so a shard cut short leaves no file that
 * looks complete; on stdout (`--out -`) a missing end line shows the same. Merging checks
 * that the files are the M shares of one run, every seed once, and builds the report a
 * single run of all the seeds gives.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, fsyncSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { SwarmRun } from '../core/check/explore.js';
import type { FaultKind } from '../core/check/faults.js';
import { parseScenarioText } from '../core/scenario/parse.js';
import { toScenarioFile } from '../core/scenario/serialize.js';
import type { Scenario } from '../core/scenario/types.js';
import type { BugName } from '../core/util/bugs.js';
import { type ExploreFailure, type ExploreReport, failed, shardSeed, shardSeeds, shardSize, sortedKnown } from './explore.js';
import { MAX_SEEDS, MAX_SHARDS } from './cli/flags.js';

/** The format's name and version: a reader refuses any other. */
export const SHARD_FORMAT = 'tierscope-explore/1';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface ShardHeader {
  type: 'header';
  format: typeof SHARD_FORMAT;
  /** `tierscope` and the package version. */
  tool: string;
  /** SHA-256 of the model's source (core/), so shards of different builds do not merge. */
  model: string;
  /** The seed space 1..seeds. */
  seeds: number;
  shard: { index: number; count: number };
  /** In the order seeds take them: seed s runs scenarios[(s - 1) mod S]. */
  scenarios: Array<{ name: string; sha256: string }>;
  faults: FaultKind[];
  plantBug: BugName | null;
}

/** One seed's run: the SwarmRun, and for a failing run its scenario with the fault schedule. */
export interface RunLine extends SwarmRun {
  type: 'run';
  /** Only on a run with a new violation or an error: the scenario file that replays it (as explore saves it). */
  scenarioFile?: Record<string, unknown>;
}

export interface EndLine {
  type: 'end';
  /** Run lines in the file: a reader checks it. */
  runs: number;
  steps: number;
  failures: number;
  /** How the shard ran (not part of the result): wall time and worker threads. */
  seconds: number;
  workers: number;
}

let modelHash: string | undefined;

/** SHA-256 over core/'s TypeScript sources (paths and contents, in path order). */
export function modelSourceHash(): string {
  if (modelHash !== undefined) return modelHash;
  const h = createHash('sha256');
  const core = join(ROOT, 'core');
  const files = (readdirSync(core, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => f.split('\\').join('/')).sort();
  for (const f of files) h.update(`${f}\0`).update(readFileSync(join(core, f))).update('\0');
  modelHash = h.digest('hex');
  return modelHash;
}

export function toolVersion(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  return `tierscope ${pkg.version}`;
}

/** A scenario's content hash: SHA-256 of its validated form (what the swarm runs). */
export function scenarioHash(s: Scenario): string {
  return createHash('sha256').update(JSON.stringify(s)).digest('hex');
}

export function shardHeader(o: { scenarios: Array<{ file: string; scenario: Scenario }>; seeds: number; shard: { index: number; count: number }; kinds: FaultKind[]; plantBug: BugName | null }): ShardHeader {
  return {
    type: 'header',
    format: SHARD_FORMAT,
    tool: toolVersion(),
    model: modelSourceHash(),
    seeds: o.seeds,
    shard: { index: o.shard.index, count: o.shard.count },
    scenarios: o.scenarios.map((s) => ({ name: s.file, sha256: scenarioHash(s.scenario) })),
    faults: [...o.kinds],
    plantBug: o.plantBug,
  };
}

export function runLine(r: SwarmRun, scenarioFile: Record<string, unknown> | undefined): RunLine {
  return {
    type: 'run',
    seed: r.seed,
    scenario: r.scenario,
    steps: r.steps,
    violations: r.violations,
    known: r.known,
    ...(r.error !== undefined ? { error: r.error } : {}),
    ...(scenarioFile !== undefined ? { scenarioFile } : {}),
  };
}

/**
 * Writes a shard file as the runs come: lines in seed order (a run that ends early waits
 * for the seeds before it), to `PATH.partial-HOST-PID`, renamed to PATH by `finish`.
 * `line` is where lines go when PATH is `-` (stdout).
 */
export class ShardWriter {
  /** The share's seeds, by position (never a list: a share may be a billion seeds). */
  private readonly shard: { index: number; count: number };
  private readonly total: number;
  private next = 0;
  private readonly waiting = new Map<number, string>();
  private fd: number | null = null;
  private readonly partial: string | null;
  private problem: string | null = null;
  private count = 0;

  constructor(
    private readonly path: string,
    header: ShardHeader,
    private readonly line: (s: string) => void,
  ) {
    this.shard = header.shard;
    this.total = shardSize(header.seeds, header.shard);
    this.partial = path === '-' ? null : `${resolve(path)}.partial-${hostname()}-${process.pid}`;
    if (this.partial !== null) {
      try {
        this.fd = openSync(this.partial, 'w');
      } catch (e) {
        this.problem = `${path} could not be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
      }
    }
    this.emit(JSON.stringify(header));
  }

  /** A run (any order); `scenarioFile` for a failing one. */
  add(r: SwarmRun, scenarioFile?: Record<string, unknown>): void {
    this.waiting.set(r.seed, JSON.stringify(runLine(r, scenarioFile)));
    while (this.next < this.total && this.waiting.has(shardSeed(this.next, this.shard))) {
      const seed = shardSeed(this.next++, this.shard);
      this.emit(this.waiting.get(seed)!);
      this.waiting.delete(seed);
      this.count++;
    }
  }

  /** Writes the end line and puts the file in place; why it could not, as a phrase, or null. */
  finish(end: Omit<EndLine, 'type' | 'runs'>): string | null {
    if (this.waiting.size > 0 || this.count !== this.total) {
      this.abort();
      const missing = this.total - this.count - this.waiting.size;
      return `${this.path} was not written: ${missing} of the shard's ${this.total} seeds ${missing === 1 ? 'has' : 'have'} no result`;
    }
    this.emit(JSON.stringify({ type: 'end', runs: this.count, ...end } satisfies EndLine));
    if (this.fd === null || this.partial === null) return this.problem;
    try {
      if (this.problem === null) {
        fsyncSync(this.fd);
        closeSync(this.fd);
        this.fd = null;
        renameSync(this.partial, resolve(this.path));
        return null;
      }
    } catch (e) {
      this.problem = `${this.path} could not be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
    }
    this.abort();
    return `${this.problem}; nothing was left there`;
  }

  /** Drops the temporary file (a run stopped by a signal, or a failed write). */
  abort(): void {
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        // already unusable; the file goes below
      }
      this.fd = null;
    }
    if (this.partial !== null) rmSync(this.partial, { force: true });
  }

  private emit(s: string): void {
    if (this.partial === null) return this.line(s);
    if (this.fd === null || this.problem !== null) return;
    try {
      writeSync(this.fd, s + '\n');
    } catch (e) {
      this.problem = `${this.path} could not be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
    }
  }
}

/** The faulted scenario of a failing run, as a file: what explore saves and a shard file holds. */
export function failureFile(f: ExploreFailure): Record<string, unknown> {
  return toScenarioFile(f.scenarioObject);
}

export interface ShardFile {
  file: string;
  header: ShardHeader;
  runs: RunLine[];
  end: EndLine;
}

const isInt = (x: unknown, min = 0): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= min;
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** What is wrong with a header, as a phrase, or null. */
function headerProblem(h: Record<string, unknown>): string | null {
  if (h.format !== SHARD_FORMAT) return `format ${JSON.stringify(h.format)}; this tierscope reads ${SHARD_FORMAT}`;
  if (typeof h.tool !== 'string') return '"tool" is missing';
  if (typeof h.model !== 'string') return '"model" is missing';
  if (!isInt(h.seeds, 1) || h.seeds > MAX_SEEDS) return `"seeds" is not a whole number from 1 to ${MAX_SEEDS.toLocaleString('en-US')} (what --seeds takes)`;
  const sh = h.shard;
  if (!isObject(sh) || !isInt(sh.count, 1) || !isInt(sh.index) || sh.index >= sh.count) return '"shard" is not { index, count } with 0 <= index < count';
  if (sh.count > MAX_SHARDS) return `"shard" count ${sh.count} is over ${MAX_SHARDS.toLocaleString('en-US')} (what --shard takes)`;
  if (!Array.isArray(h.scenarios) || h.scenarios.length === 0 || !h.scenarios.every((s) => isObject(s) && typeof s.name === 'string' && typeof s.sha256 === 'string')) return '"scenarios" is not a list of { name, sha256 }';
  if (!Array.isArray(h.faults) || !h.faults.every((k) => typeof k === 'string')) return '"faults" is not a list of fault kinds';
  if (h.plantBug !== null && typeof h.plantBug !== 'string') return '"plantBug" is neither null nor a bug name';
  return null;
}

/** What is wrong with a run line, as a phrase, or null. */
function runProblem(r: Record<string, unknown>): string | null {
  if (!isInt(r.seed, 1)) return '"seed" is not a whole number from 1';
  if (typeof r.scenario !== 'string') return '"scenario" is missing';
  if (!isInt(r.steps)) return '"steps" is not a whole number';
  if (!Array.isArray(r.violations) || !r.violations.every((v) => isObject(v) && typeof v.invariant === 'string' && typeof v.message === 'string' && typeof v.atMs === 'number')) return '"violations" is not a list of { atMs, invariant, message }';
  if (!Array.isArray(r.known) || !r.known.every((k) => typeof k === 'string')) return '"known" is not a list of finding ids';
  if (r.error !== undefined && typeof r.error !== 'string') return '"error" is not a string';
  if (r.scenarioFile !== undefined && !isObject(r.scenarioFile)) return '"scenarioFile" is not a scenario';
  return null;
}

/** A list of seeds for a message: the first few (up to 10) and how many more of `total`. */
function seedList(first: number[], total: number): string {
  const shown = first.join(', ');
  return total > first.length ? `${shown} and ${total - first.length} more` : shown;
}

/** Reads one shard file; every problem found, each naming the file (and line). */
export async function readShardFile(file: string): Promise<{ ok: true; shard: ShardFile } | { ok: false; problems: string[] }> {
  const problems: string[] = [];
  let header: ShardHeader | null = null;
  let end: EndLine | null = null;
  const runs: RunLine[] = [];
  const lineOf = new Map<number, number>();
  let n = 0;
  let lastSeed = 0;
  try {
    const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const text of lines) {
      n++;
      if (problems.length >= 20) continue;
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch {
        doc = undefined;
      }
      if (n === 1) {
        if (!isObject(doc) || doc.type !== 'header') return { ok: false, problems: [`${file}: line 1 is not an explore --out header (is it a file explore --out wrote?)`] };
        const bad = headerProblem(doc);
        if (bad !== null) return { ok: false, problems: [`${file}: the header's ${bad}`] };
        header = doc as unknown as ShardHeader;
        continue;
      }
      if (!isObject(doc)) {
        problems.push(`${file} line ${n}: ${text === '' ? 'an empty line' : 'not a JSON object'} (the file is damaged or was cut short)`);
        continue;
      }
      if (end !== null) {
        problems.push(`${file} line ${n}: a line after the end line`);
        continue;
      }
      if (doc.type === 'end') {
        if (!isInt(doc.runs) || !isInt(doc.steps) || !isInt(doc.failures) || typeof doc.seconds !== 'number' || !isInt(doc.workers)) problems.push(`${file} line ${n}: the end line is not { runs, steps, failures, seconds, workers }`);
        else end = doc as unknown as EndLine;
        continue;
      }
      if (doc.type !== 'run') {
        problems.push(`${file} line ${n}: "type" is ${JSON.stringify(doc.type)}, expected "run" or "end"`);
        continue;
      }
      const bad = runProblem(doc);
      if (bad !== null) {
        problems.push(`${file} line ${n}: ${bad}`);
        continue;
      }
      const r = doc as unknown as RunLine;
      const h = header!;
      const { index, count } = h.shard;
      if (r.seed > h.seeds || (r.seed - 1) % count !== index) {
        problems.push(`${file} line ${n}: seed ${r.seed} is not in shard ${index}/${count} of seeds 1..${h.seeds} (its seeds are the s with (s - 1) mod ${count} = ${index})`);
        continue;
      }
      if (lineOf.has(r.seed)) {
        problems.push(`${file} line ${n}: seed ${r.seed} again (first on line ${lineOf.get(r.seed)})`);
        continue;
      }
      if (r.seed < lastSeed) problems.push(`${file} line ${n}: seed ${r.seed} after seed ${lastSeed} (explore writes seeds in order)`);
      lastSeed = Math.max(lastSeed, r.seed);
      const expected = h.scenarios[(r.seed - 1) % h.scenarios.length].name;
      if (r.scenario !== expected) problems.push(`${file} line ${n}: seed ${r.seed} ran scenario "${r.scenario}", but by the header's list it runs "${expected}"`);
      if (failed(r) && r.scenarioFile === undefined) problems.push(`${file} line ${n}: seed ${r.seed} failed but its line has no "scenarioFile"`);
      lineOf.set(r.seed, n);
      runs.push(r);
    }
  } catch (e) {
    return { ok: false, problems: [`${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`] };
  }
  if (n === 0) return { ok: false, problems: [`${file}: empty (not a file explore --out wrote)`] };
  if (header === null) return { ok: false, problems };
  const expected = shardSize(header.seeds, header.shard);
  const tag = `shard ${header.shard.index}/${header.shard.count}`;
  if (end === null) {
    problems.push(`${file}: incomplete: no end line after ${runs.length} of the ${expected} seeds of ${tag} (the shard was stopped or its output cut short; run it again)`);
  } else {
    if (end.runs !== runs.length) problems.push(`${file}: the end line counts ${end.runs} runs, but the file holds ${runs.length}`);
    // Every line's seed is in the share and met once, so the share is complete when the counts
    // agree; otherwise the first missing seeds are found by walking the share (never listing it).
    const missingCount = expected - lineOf.size;
    if (missingCount > 0) {
      const first: number[] = [];
      for (const s of shardSeeds(header.seeds, header.shard)) {
        if (!lineOf.has(s)) first.push(s);
        if (first.length === 10) break;
      }
      problems.push(`${file}: ${tag} has no line for seed${missingCount === 1 ? '' : 's'} ${seedList(first, missingCount)}`);
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, shard: { file, header, runs, end: end! } };
}

/** How header `b` (of a file) differs from `a` (of file `aFile`) in what every shard of one run shares: all but the shard's index. */
function sameRun(a: ShardHeader, aFile: string, b: ShardHeader): string | null {
  const say = (x: unknown) => JSON.stringify(x);
  if (a.tool !== b.tool) return `tool is ${b.tool}, but ${aFile} has ${a.tool}`;
  if (a.model !== b.model) return `its model (core/) differs from ${aFile}'s: another build of tierscope (model ${b.model.slice(0, 12)} vs ${a.model.slice(0, 12)})`;
  if (a.seeds !== b.seeds) return `seeds is ${b.seeds}, but ${aFile} has ${a.seeds}`;
  if (a.shard.count !== b.shard.count) return `it is one of ${b.shard.count} shards, but ${aFile} is one of ${a.shard.count}`;
  const an = a.scenarios.map((s) => s.name);
  const bn = b.scenarios.map((s) => s.name);
  if (say(an) !== say(bn)) return `its scenarios are ${bn.join(', ')}, but ${aFile} has ${an.join(', ')}`;
  for (let i = 0; i < a.scenarios.length; i++) {
    if (a.scenarios[i].sha256 !== b.scenarios[i].sha256) return `its scenario ${an[i]} differs from ${aFile}'s (content hash ${b.scenarios[i].sha256.slice(0, 12)} vs ${a.scenarios[i].sha256.slice(0, 12)})`;
  }
  if (say(a.faults) !== say(b.faults)) return `its fault kinds are ${b.faults.join(', ') || 'none'}, but ${aFile} has ${a.faults.join(', ') || 'none'}`;
  if (a.plantBug !== b.plantBug) return `its planted bug is ${b.plantBug ?? 'none'}, but ${aFile} has ${a.plantBug ?? 'none'}`;
  return null;
}

/** The merged result: the report a single run of all the seeds gives, and what it ran. */
export interface Merged {
  report: ExploreReport;
  header: ShardHeader;
  shards: number;
}

/** Reads and checks the files, then merges them; or every problem found. */
export async function mergeShardFiles(files: string[]): Promise<{ ok: true; merged: Merged } | { ok: false; problems: string[] }> {
  const problems: string[] = [];
  const read: ShardFile[] = [];
  for (const f of files) {
    const r = await readShardFile(f);
    if (r.ok) read.push(r.shard);
    else problems.push(...r.problems);
  }
  if (read.length === 0) return { ok: false, problems };
  const first = read[0];
  for (const s of read.slice(1)) {
    const bad = sameRun(first.header, first.file, s.header);
    if (bad !== null) problems.push(`${s.file}: not a shard of the same run as ${first.file}: ${bad}`);
  }
  if (problems.length > 0) return { ok: false, problems };
  const count = first.header.shard.count;
  const byIndex = new Map<number, string[]>();
  for (const s of read) byIndex.set(s.header.shard.index, [...(byIndex.get(s.header.shard.index) ?? []), s.file]);
  for (const [index, fs] of [...byIndex].sort(([a], [b]) => a - b)) {
    if (fs.length > 1) problems.push(`shard ${index}/${count} is given ${fs.length} times: ${fs.join(', ')}`);
  }
  const missingCount = count - byIndex.size;
  const missing: number[] = [];
  for (let i = 0; i < count && missing.length < 10; i++) if (!byIndex.has(i)) missing.push(i);
  if (missingCount > 0) problems.push(`shard${missingCount === 1 ? '' : 's'} ${missing.join(', ')}${missingCount > 10 ? ` and ${missingCount - 10} more` : ''} of ${count} ${missingCount === 1 ? 'is' : 'are'} missing (no file for ${missingCount === 1 ? 'that index' : 'those indexes'})`);
  if (problems.length > 0) return { ok: false, problems };

  const known: Record<string, number> = {};
  let runs = 0;
  let steps = 0;
  let seconds = 0;
  let workers = 0;
  const failures: ExploreFailure[] = [];
  for (const s of read) {
    seconds = Math.max(seconds, s.end.seconds);
    workers += s.end.workers;
    for (const r of s.runs) {
      runs++;
      steps += r.steps;
      for (const id of r.known) known[id] = (known[id] ?? 0) + 1;
      if (!failed(r)) continue;
      // What explore saved: any budget it passed was already checked when the shard ran.
      const parsed = parseScenarioText(JSON.stringify(r.scenarioFile), `${r.scenario}-seed-${r.seed}.json`, { checkWork: false });
      if (!parsed.ok) {
        problems.push(`${s.file}: seed ${r.seed}'s "scenarioFile" is not a valid scenario (${parsed.problems[0]?.path ?? ''}: ${parsed.problems[0]?.message ?? ''})`);
        continue;
      }
      const { type: _type, scenarioFile: _file, ...run } = r;
      failures.push({ ...run, scenarioObject: parsed.scenario });
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  failures.sort((a, b) => a.seed - b.seed);
  return {
    ok: true,
    merged: {
      header: first.header,
      shards: count,
      report: {
        runs,
        steps,
        seconds,
        seedsPerSecond: Math.round((runs / Math.max(seconds, 1e-9)) * 10) / 10,
        workers,
        known: sortedKnown(known),
        failure: failures[0] ?? null,
        failures,
        seeds: first.header.seeds,
        shard: null,
      },
    },
  };
}
