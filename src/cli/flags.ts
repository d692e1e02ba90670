/** The CLI's options: parsed and checked before any command runs (bad ones are exit 2). */
import { MODES, type Mode } from '../../core/study/compare.js';
import { FAULT_KINDS, type FaultKind } from '../../core/check/faults.js';
import { REPORT_FORMATS, type ReportFormat } from '../../core/report/report.js';
import type { ExhaustiveBounds } from '../../core/check/exhaustive.js';
import { BUGS, type BugName } from '../../core/util/bugs.js';

export class UsageError extends Error {}

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /**
   * Resolves once what `out` wrote has been taken by its reader (at once when nothing waits).
   * A long run awaits it now and then, so output to a pipe read slowly is not held in memory.
   */
  drained?: () => Promise<void>;
}

export interface Flags {
  positional: string[];
  json: boolean;
  verbose: boolean;
  help: boolean;
  seed?: number;
  store: string;
  dir?: string;
  bucket?: string;
  walBucket?: string;
  prefix?: string;
  s3Endpoint?: string;
  s3TimeoutMs?: number;
  forcePathStyle: boolean;
  createBuckets: boolean;
  traceOut?: string;
  latency: 'model' | 'measured';
  storeFailures?: 'exit' | 'fault';
  /** False with --no-work-budget: the scenario's work is not checked against the budget. */
  workBudget: boolean;
  modes?: Mode[];
  seeds?: number;
  maxSteps?: number;
  scenario?: string;
  faults?: FaultKind[];
  workers?: number;
  format?: ReportFormat;
  chapter?: string;
  out?: string;
  fromStep?: number;
  toStep?: number;
  maxMessages?: number;
  /** explore --exhaustive: every order of the scenario's choices within the bounds. */
  exhaustive: boolean;
  /** The exhaustive checker's bounds given (the rest are its defaults). */
  bounds: Partial<ExhaustiveBounds>;
  /** explore: run only share `index` of `count` (`--shard K/M`, or `auto/M` from the scheduler's index). */
  shard?: Shard;
  /** explore: run every seed of the share instead of stopping at the first new violation (also implied by --out). */
  keepGoing?: boolean;
  /** explore: a deliberate bug (core/util/bugs.ts) switched on in every run, to check the checker. */
  plantBug?: BugName;
}

/** Share `index` (0-based) of `count`: the seeds s with (s - 1) mod count == index. */
export interface Shard {
  index: number;
  count: number;
}

/** Where `--shard auto/M` looks for K, in order: Kubernetes Indexed Jobs, then AWS Batch array jobs. */
export const SHARD_INDEX_VARS = ['JOB_COMPLETION_INDEX', 'AWS_BATCH_JOB_ARRAY_INDEX'] as const;

/** The most seeds `--seeds` takes (a shard file's header claims no more). */
export const MAX_SEEDS = 1_000_000_000;

/** The most shards `--shard` takes. */
export const MAX_SHARDS = 1_000_000;

/** `--shard K/M` or `auto/M`, K taken from `env` (SHARD_INDEX_VARS) for auto; a UsageError names what is wrong. */
export function parseShard(v: string, env: Readonly<Record<string, string | undefined>> = process.env): Shard {
  const m = /^(\d+|auto)\/(\d+)$/.exec(v);
  if (m === null) throw new UsageError(`--shard expects K/M (shard K of M, K from 0 to M - 1, e.g. 0/4) or auto/M, got "${v}"`);
  const count = Number(m[2]);
  if (count < 1 || count > MAX_SHARDS) throw new UsageError(`--shard ${v}: M (the number of shards) must be from 1 to ${MAX_SHARDS}`);
  const range = count === 1 ? 'the only shard is 0' : `the shards are 0 to ${count - 1}`;
  if (m[1] !== 'auto') {
    const index = Number(m[1]);
    if (index >= count) throw new UsageError(`--shard ${v}: K must be below M (${range}; they are numbered from 0, as JOB_COMPLETION_INDEX and AWS_BATCH_JOB_ARRAY_INDEX are)`);
    return { index, count };
  }
  const name = SHARD_INDEX_VARS.find((n) => env[n] !== undefined && env[n] !== '');
  if (name === undefined) throw new UsageError(`--shard ${v} takes K from ${SHARD_INDEX_VARS.join(' or ')}, and neither is set (give K/M instead)`);
  const raw = env[name]!;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--shard ${v}: ${name} is "${raw}", not a whole number`);
  const index = Number(raw);
  if (index >= count) throw new UsageError(`--shard ${v}: ${name} is ${index}, but ${range} (the job's number of indexes must be ${count})`);
  return { index, count };
}

/** The exhaustive checker's bound options and the field each sets. */
/**
 * The exhaustive checker's bound options, the field each sets, and its range. The upper
 * bounds keep a search finite in time: each fault kind multiplies the space (a few per path
 * already take minutes: docs/checking.md), and a simulated duration is run for every path's
 * end (`--settle-ms`) or every fault (`--fault-ms`, `--delay-ms`), so an hour of it is already
 * far past what a search can afford.
 */
const BOUND_FLAGS: Record<string, { key: Exclude<keyof ExhaustiveBounds, 'strategy'>; min: number; max: number; what: string }> = {
  '--crashes': { key: 'crashes', min: 0, max: 10, what: 'broker crashes per path' },
  '--store-faults': { key: 'storeFaults', min: 0, max: 10, what: 'failed store requests per path' },
  '--partitions': { key: 'partitions', min: 0, max: 10, what: 'network partitions per path' },
  '--delays': { key: 'delays', min: 0, max: 10, what: 'late messages per path' },
  '--delay-ms': { key: 'delayMs', min: 1, max: 3_600_000, what: 'how late a late message is, ms' },
  '--fault-ms': { key: 'faultMs', min: 1, max: 3_600_000, what: 'how long a crash or partition lasts, ms' },
  '--max-depth': { key: 'maxDepth', min: 1, max: 1_000_000, what: 'transitions from the start' },
  '--max-states': { key: 'maxStates', min: 1, max: 1_000_000_000, what: 'distinct states' },
  '--settle-ms': { key: 'settleMs', min: 0, max: 3_600_000, what: 'fault-free time before the liveness check, ms' },
};

/** The most worker threads `explore` starts (each holds a whole model in memory). */
export const MAX_WORKERS = 64;

/** Options only some commands take: elsewhere they stay unknown options, as before. */
const ONLY_FOR: Readonly<Record<string, readonly string[]>> = {
  '--format': ['report'],
  '--chapter': ['report'],
  '--out': ['report', 'explore'],
  '--from': ['report'],
  '--to': ['report'],
  '--max-messages': ['report'],
  '--shard': ['explore'],
  '--keep-going': ['explore'],
  '--plant-bug': ['explore', 'run'],
  '--exhaustive': ['explore'],
  '--strategy': ['explore'],
  '--crashes': ['explore'],
  '--store-faults': ['explore'],
  '--partitions': ['explore'],
  '--delays': ['explore'],
  '--delay-ms': ['explore'],
  '--fault-ms': ['explore'],
  '--max-depth': ['explore'],
  '--max-states': ['explore'],
  '--settle-ms': ['explore'],
};

/** `env` is where `--shard auto/M` finds its index (the process's environment unless given). */
export function parseFlags(args: string[], command?: string, env: Readonly<Record<string, string | undefined>> = process.env): Flags {
  const f: Flags = { positional: [], json: false, verbose: false, help: false, store: 'memory', forcePathStyle: false, createBuckets: false, latency: 'model', workBudget: true, exhaustive: false, bounds: {} };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (ONLY_FOR[a] !== undefined && (command === undefined || !ONLY_FOR[a].includes(command))) throw new UsageError(`unknown option ${a}`);
    const value = (): string => {
      const v = args[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      return v;
    };
    switch (a) {
      case '--json':
        f.json = true;
        break;
      case '--verbose':
        f.verbose = true;
        break;
      case '--help':
      case '-h':
        f.help = true;
        break;
      case '--seed': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) > 0xffffffff) throw new UsageError(`--seed expects an integer from 0 to 4294967295, got "${v}"`);
        f.seed = Number(v);
        break;
      }
      case '--store':
        f.store = value();
        if (!['memory', 'fs', 's3'].includes(f.store)) throw new UsageError(`--store expects memory, fs or s3, got "${f.store}"`);
        break;
      case '--latency': {
        const v = value();
        if (v !== 'model' && v !== 'measured') throw new UsageError(`--latency expects model or measured, got "${v}"`);
        f.latency = v;
        break;
      }
      case '--store-failures': {
        const v = value();
        if (v !== 'exit' && v !== 'fault') throw new UsageError(`--store-failures expects exit or fault, got "${v}"`);
        f.storeFailures = v;
        break;
      }
      case '--modes': {
        const v = value();
        const list = v.split(',').map((x) => x.trim()).filter((x) => x !== '');
        const bad = list.filter((x) => !(MODES as readonly string[]).includes(x));
        if (list.length === 0 || bad.length > 0) throw new UsageError(`--modes expects a comma-separated list of ${MODES.join(', ')}, got "${v}"`);
        f.modes = [...new Set(list)] as Mode[];
        break;
      }
      case '--exhaustive':
        if (command !== undefined && command !== 'explore') throw new UsageError(`unknown option ${a}`);
        f.exhaustive = true;
        break;
      case '--strategy': {
        if (command !== undefined && command !== 'explore') throw new UsageError(`unknown option ${a}`);
        const v = value();
        if (v !== 'bfs' && v !== 'dfs') throw new UsageError(`--strategy expects bfs (breadth-first, shortest counterexamples) or dfs (depth-first), got "${v}"`);
        f.bounds.strategy = v;
        break;
      }
      case '--crashes':
      case '--store-faults':
      case '--partitions':
      case '--delays':
      case '--delay-ms':
      case '--fault-ms':
      case '--max-depth':
      case '--max-states':
      case '--settle-ms': {
        if (command !== undefined && command !== 'explore') throw new UsageError(`unknown option ${a}`);
        const spec = BOUND_FLAGS[a];
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < spec.min || Number(v) > spec.max) throw new UsageError(`${a} (${spec.what}) expects a whole number from ${spec.min} to ${spec.max.toLocaleString('en-US')}, got "${v}"`);
        f.bounds[spec.key] = Number(v);
        break;
      }
      case '--seeds':
      case '--workers':
      case '--max-steps': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > MAX_SEEDS) throw new UsageError(`${a} expects a whole number from 1, got "${v}"`);
        if (a === '--seeds') f.seeds = Number(v);
        else if (a === '--workers') {
          if (Number(v) > MAX_WORKERS) throw new UsageError(`--workers expects at most ${MAX_WORKERS} (each is a thread with its own model), got ${v}`);
          f.workers = Number(v);
        }
        else f.maxSteps = Number(v);
        break;
      }
      case '--scenario':
        f.scenario = value();
        break;
      case '--faults': {
        const v = value();
        const list = v.split(',').map((x) => x.trim()).filter((x) => x !== '');
        const bad = list.filter((x) => !(FAULT_KINDS as readonly string[]).includes(x));
        if (bad.length > 0) throw new UsageError(`--faults expects a comma-separated list of ${FAULT_KINDS.join(', ')}, got "${v}"`);
        f.faults = [...new Set(list)] as FaultKind[];
        break;
      }
      case '--trace-out':
        f.traceOut = value();
        break;
      case '--dir':
        f.dir = value();
        break;
      case '--bucket':
        f.bucket = value();
        break;
      case '--wal-bucket':
        f.walBucket = value();
        break;
      case '--prefix':
        f.prefix = value();
        break;
      case '--s3-endpoint':
        f.s3Endpoint = value();
        break;
      case '--s3-timeout-ms': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 86_400_000) throw new UsageError(`--s3-timeout-ms expects a whole number of milliseconds from 1 to 86400000, got "${v}"`);
        f.s3TimeoutMs = Number(v);
        break;
      }
      case '--format': {
        const v = value();
        if (!(REPORT_FORMATS as readonly string[]).includes(v)) throw new UsageError(`--format expects ${REPORT_FORMATS.join(', ')}, got "${v}"`);
        f.format = v as ReportFormat;
        break;
      }
      case '--chapter':
        f.chapter = value();
        break;
      case '--out':
        f.out = value();
        break;
      case '--from':
      case '--to': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) > 1_000_000_000) throw new UsageError(`${a} expects a step number from 0, got "${v}"`);
        if (a === '--from') f.fromStep = Number(v);
        else f.toStep = Number(v);
        break;
      }
      case '--max-messages': {
        const v = value();
        if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 1_000_000) throw new UsageError(`--max-messages expects a whole number from 1, got "${v}"`);
        f.maxMessages = Number(v);
        break;
      }
      case '--shard':
        f.shard = parseShard(value(), env);
        break;
      case '--keep-going':
        f.keepGoing = true;
        break;
      case '--plant-bug': {
        const v = value();
        if (!Object.hasOwn(BUGS, v)) throw new UsageError(`--plant-bug expects one of ${Object.keys(BUGS).join(', ')} (core/util/bugs.ts), got "${v}"`);
        f.plantBug = v as BugName;
        break;
      }
      case '--no-work-budget':
        f.workBudget = false;
        break;
      case '--force-path-style':
        f.forcePathStyle = true;
        break;
      case '--create-buckets':
        f.createBuckets = true;
        break;
      default:
        if (a.startsWith('-')) throw new UsageError(`unknown option ${a}`);
        f.positional.push(a);
    }
  }
  return f;
}
