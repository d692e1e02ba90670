/**
 * The small pieces every part of scenario validation uses: the limits, the problem list,
 * paths and value descriptions for messages, and checkers for one kind of value each.
 * A checker reports what was expected and what was given; it never throws.
 */
import type { InputProblem } from './types.js';

// ---------------------------------------------------------------------------
// Limits

// Every limit is documented, with its value and why, in docs/scenario-format.md ("Limits").
// The work a scenario asks for (records, events, segments over the run) is estimated in
// budget.ts against the limits there.

export const MAX_BROKERS = 64;
/** Partitions of one topic. */
export const MAX_PARTITIONS = 1000;
export const MAX_UNTIL_MS = 10_000_000_000;
export const MAX_SEED = 0xffff_ffff;
export const MAX_RECORDS_PER_EVENT = 10_000_000;
/** Aliases allowed in one YAML document (stops "billion laughs" expansion). */
export const MAX_YAML_ALIASES = 100;
/**
 * Characters of scenario text read: 128 KiB (the bundled scenarios are under 4 KB). The YAML
 * reader takes about half a second for this much, on the page too.
 */
export const MAX_SCENARIO_CHARS = 131_072;
/** Problems listed; the rest are counted in one last entry. */
export const MAX_PROBLEMS = 100;
/** Characters of `name`. */
export const MAX_NAME_CHARS = 200;
/** Characters of `description`. */
export const MAX_DESCRIPTION_CHARS = 10_000;
/** Characters of a zone name. */
export const MAX_ZONE_CHARS = 100;
/** Entries of `zones` (a zone per broker at most makes sense). */
export const MAX_ZONES = MAX_BROKERS;
/** Kafka's longest topic name (org.apache.kafka.common.internals.Topic.MAX_NAME_LENGTH). */
export const MAX_TOPIC_NAME_CHARS = 249;
/** Entries of `topics`. */
export const MAX_TOPICS = 100;
/** Partitions of all topics together. */
export const MAX_TOTAL_PARTITIONS = 1000;
/** Replicas of all partitions together (partitions x replication factor, summed). */
export const MAX_TOTAL_REPLICAS = 4000;
/** Entries of `timeline` as written (a repeated produce is one entry). */
export const MAX_TIMELINE_ENTRIES = 10_000;
/** Entries of one `initial[i].segments` or `initial[i].leaderEpochs`. */
export const MAX_INITIAL_ENTRIES = 10_000;

// ---------------------------------------------------------------------------
// Small helpers

export type RawMap = Record<string, unknown>;

export function hasOwn(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** A plain object (what YAML and JSON give for a mapping); not an array, Date, Map, ... */
export function isRawMap(v: unknown): v is RawMap {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function truncate(s: string, max = 60): string {
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

/** A key as shown in a message: 'name'. */
export function q(key: string): string {
  return `'${truncate(key)}'`;
}

/** What a value is, for "got ..." in messages. Never descends into the value. */
export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string': {
      const s = JSON.stringify(v);
      return s.length > 50 ? `${s.slice(0, 46)}..."` : s;
    }
    case 'number':
      return Object.is(v, -0) ? '0' : String(v);
    case 'boolean':
      return String(v);
    case 'bigint':
      return `${String(v)}n`;
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      break;
  }
  if (Array.isArray(v)) return v.length === 0 ? 'an empty array' : `an array of ${v.length} item${v.length === 1 ? '' : 's'}`;
  if (isRawMap(v)) return Object.keys(v).length === 0 ? 'an empty map' : 'a map';
  const tag = Object.prototype.toString.call(v).slice(8, -1);
  return `an object of type ${tag}`;
}

const IDENT_RE = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `base.key`, or `base["odd.key"]` when the key is not an identifier. */
export function keyPath(base: string, key: string): string {
  if (IDENT_RE.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(truncate(key, 100))}]`;
}

export function indexPath(base: string, i: number): string {
  return `${base}[${i}]`;
}

export function list(values: readonly string[]): string {
  return values.join(', ');
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A count for messages, digits grouped: 10,000,000. */
export function num(n: number): string {
  return COUNT.format(n);
}

/**
 * The problems found so far: every one is counted, the first MAX_PROBLEMS are kept (a file
 * with 100,000 bad events costs a count, not 100,000 messages).
 */
export class Problems {
  readonly items: InputProblem[] = [];
  private total = 0;
  add(path: string, message: string): void {
    this.total++;
    if (this.items.length < MAX_PROBLEMS) this.items.push({ path, message });
  }
  get count(): number {
    return this.total;
  }
  /** The problems to report: the kept ones, and one entry counting the rest. */
  list(): InputProblem[] {
    return capProblems(this.items, this.total);
  }
}

/**
 * At most MAX_PROBLEMS of `problems` (of `total` found), and when some are left out a last
 * entry at path '' saying how many.
 */
export function capProblems(problems: readonly InputProblem[], total = problems.length): InputProblem[] {
  const shown = problems.slice(0, MAX_PROBLEMS);
  const more = Math.max(total, problems.length) - shown.length;
  if (more > 0) {
    shown.push({ path: '', message: `... and ${num(more)} more problem${more === 1 ? '' : 's'} (only the first ${MAX_PROBLEMS} are listed)`, more });
  }
  return shown;
}

/** How many problems a list stands for: its entries, and those its last entry says were left out. */
export function problemCount(problems: readonly InputProblem[]): number {
  const last = problems[problems.length - 1];
  return last?.more !== undefined ? problems.length - 1 + last.more : problems.length;
}

/** Internal error: a value that should have been validated is missing. */
export function must<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new Error(`internal: ${what} missing after validation`);
  return v;
}

// ---------------------------------------------------------------------------
// Checkers: one kind of value each

export interface Checker<T> {
  /** What is expected, for messages: "an integer >= 0". */
  readonly expect: string;
  /** Returns the value, or undefined after reporting a problem. */
  check(p: Problems, v: unknown, path: string): T | undefined;
}

export interface IntRange {
  min?: number;
  max?: number;
  /** Added after the expectation, e.g. "(brokers: 3)". */
  note?: string;
}

function intExpectation(r: IntRange): string {
  let s: string;
  if (r.min !== undefined && r.max !== undefined) s = r.min === r.max ? `the integer ${r.min}` : `an integer from ${r.min} to ${r.max}`;
  else if (r.min !== undefined) s = `an integer >= ${r.min}`;
  else if (r.max !== undefined) s = `an integer <= ${r.max}`;
  else s = 'an integer';
  return r.note ? `${s} ${r.note}` : s;
}

export function checkInt(p: Problems, v: unknown, path: string, r: IntRange): number | undefined {
  const exp = intExpectation(r);
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    p.add(path, `expected ${exp}, got ${describe(v)}`);
    return undefined;
  }
  if (!Number.isSafeInteger(v)) {
    p.add(path, `expected ${exp}, got ${describe(v)} (beyond the largest safe integer, ${Number.MAX_SAFE_INTEGER})`);
    return undefined;
  }
  if (r.min !== undefined && r.max !== undefined && r.min > r.max) {
    // An empty range (e.g. no valid partition): nothing can match.
    p.add(path, `expected ${exp}, got ${describe(v)}`);
    return undefined;
  }
  if ((r.min !== undefined && v < r.min) || (r.max !== undefined && v > r.max)) {
    p.add(path, `expected ${exp}, got ${describe(v)}`);
    return undefined;
  }
  return v === 0 ? 0 : v; // normalise -0
}

export function intC(r: IntRange): Checker<number> {
  return { expect: intExpectation(r), check: (p, v, path) => checkInt(p, v, path, r) };
}

/** A time of the timeline is a whole millisecond or a whole microsecond (at most 3 decimals). */
function isWholeMicrosecond(v: number): boolean {
  const us = v * 1000;
  return Math.abs(us - Math.round(us)) < 1e-6;
}

/**
 * A simulated time in ms, whole or to the microsecond: the end of a transfer falls within a
 * millisecond (core/sim/world/bandwidth.ts), and a fault the exhaustive checker places at that
 * instant is saved with it (e.g. `at: 131.041`), so a saved path replays from its file.
 */
export function timeC(r: IntRange): Checker<number> {
  const expect = intExpectation(r);
  return {
    expect,
    check(p, v, path) {
      if (typeof v !== 'number' || Number.isInteger(v) || !Number.isFinite(v)) return checkInt(p, v, path, r);
      if (!isWholeMicrosecond(v)) {
        p.add(path, `expected ${expect}, got ${describe(v)} (a time is whole milliseconds or whole microseconds: at most 3 decimals)`);
        return undefined;
      }
      if ((r.min !== undefined && v < r.min) || (r.max !== undefined && v > r.max)) {
        p.add(path, `expected ${expect}, got ${describe(v)}`);
        return undefined;
      }
      return Math.round(v * 1000) / 1000;
    },
  };
}

export const boolC: Checker<boolean> = {
  expect: 'true or false',
  check(p, v, path) {
    if (typeof v === 'boolean') return v;
    p.add(path, `expected true or false, got ${describe(v)}`);
    return undefined;
  },
};

export function stringC(opts: { nonEmpty?: boolean; maxChars?: number } = {}): Checker<string> {
  const max = opts.maxChars;
  const expect = opts.nonEmpty ? 'a non-empty string' : 'a string';
  return {
    expect,
    check(p, v, path) {
      if (typeof v !== 'string' || (opts.nonEmpty && v.trim() === '')) {
        p.add(path, `expected ${expect}, got ${describe(v)}`);
        return undefined;
      }
      if (max !== undefined && v.length > max) {
        p.add(path, `expected ${expect} of at most ${num(max)} characters, got ${num(v.length)} characters (docs/scenario-format.md, Limits)`);
        return undefined;
      }
      return v;
    },
  };
}

export function oneOfC<T extends string>(values: readonly T[]): Checker<T> {
  const expect = `one of ${values.map((x) => `'${x}'`).join(', ')}`;
  return {
    expect,
    check(p, v, path) {
      if (typeof v === 'string' && (values as readonly string[]).includes(v)) return v as T;
      p.add(path, `expected ${expect}, got ${describe(v)}`);
      return undefined;
    },
  };
}

/** Reads a required key of a map. */
export function req<T>(p: Problems, obj: RawMap, key: string, base: string, c: Checker<T>): T | undefined {
  const path = keyPath(base, key);
  if (!hasOwn(obj, key)) {
    p.add(path, `missing required key ${q(key)}; expected ${c.expect}`);
    return undefined;
  }
  return c.check(p, obj[key], path);
}

/** Reports a missing required key whose value is checked elsewhere; true if missing. */
export function missing(p: Problems, obj: RawMap, key: string, base: string, expect: string): boolean {
  if (hasOwn(obj, key)) return false;
  p.add(keyPath(base, key), `missing required key ${q(key)}; expected ${expect}`);
  return true;
}

/** Whether an optional key is given (a null value counts as not given). */
export function given(obj: RawMap, key: string): boolean {
  return hasOwn(obj, key) && obj[key] !== null;
}

/** Reads an optional key of a map; null counts as not given. */
export function opt<T>(p: Problems, obj: RawMap, key: string, base: string, c: Checker<T>): T | undefined {
  if (!given(obj, key)) return undefined;
  return c.check(p, obj[key], keyPath(base, key));
}

/** Reports every key of `obj` that is not in `allowed`. */
export function checkKeys(p: Problems, obj: RawMap, base: string, allowed: readonly string[], what = ''): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      p.add(keyPath(base, key), `unknown key ${q(key)}${what}; expected one of ${list(allowed)}`);
    }
  }
}

export function expectMap(p: Problems, v: unknown, path: string, what: string): RawMap | undefined {
  if (isRawMap(v)) return v;
  p.add(path, `expected ${what}, got ${describe(v)}`);
  return undefined;
}

export function expectArray(p: Problems, v: unknown, path: string, what: string, nonEmpty: boolean, maxItems?: number): unknown[] | undefined {
  if (!Array.isArray(v) || (nonEmpty && v.length === 0)) {
    p.add(path, `expected ${what}, got ${describe(v)}`);
    return undefined;
  }
  if (maxItems !== undefined && v.length > maxItems) {
    // One problem for the whole array: its entries are not checked one by one.
    p.add(path, `expected ${what} of at most ${num(maxItems)} entries, got ${num(v.length)} (docs/scenario-format.md, Limits)`);
    return undefined;
  }
  return v;
}
