/**
 * Reading and validating a scenario file (docs/CONTRACT.md, "Scenario file").
 *
 * `parseScenarioText` reads YAML or JSON (JSON is YAML) with safe options; then
 * `validateScenario` checks the plain value and applies the defaults. Every problem is
 * reported, each with the path of the offending value and what was expected; neither
 * function throws. Validation only descends into known shapes, and outputs are built
 * from fresh objects holding only known keys, so hostile keys (`__proto__`, ...) are
 * reported as unknown and never copied.
 */
import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { DocumentOptions, ParseOptions, SchemaOptions, YAMLError } from 'yaml';
import {
  BROKER_CONFIGS,
  MODEL_KNOBS,
  TOPIC_CONFIGS,
  isBrokerConfigKey,
  isTopicConfigKey,
} from '../domain/config.js';
import type { ConfigSpec, ConfigValue, ModelKnobs } from '../domain/config.js';
import { PRICE_KEYS, WAL_PRICE_LISTS, isPriceKey } from '../domain/prices.js';
import type { PriceOverrides } from '../domain/prices.js';
import type {
  Acks,
  InitialPartitionState,
  InitialSegment,
  InputProblem,
  ParseResult,
  Scenario,
  Tier,
  TimelineAction,
  TimelineEvent,
  TopicSpec,
} from './types.js';

// ---------------------------------------------------------------------------
// Limits

export const MAX_BROKERS = 64;
export const MAX_PARTITIONS = 1000;
export const MAX_UNTIL_MS = 10_000_000_000;
export const MAX_SEED = 0xffff_ffff;
export const MAX_RECORDS_PER_EVENT = 10_000_000;
/** Aliases allowed in one YAML document (stops "billion laughs" expansion). */
export const MAX_YAML_ALIASES = 100;

const TOPIC_NAME_RE = /^[a-zA-Z0-9._-]{1,249}$/;

const TOP_KEYS = ['name', 'description', 'seed', 'brokers', 'zones', 'config', 'model', 'prices', 'topics', 'timeline', 'until'] as const;
const TOPIC_KEYS = ['name', 'partitions', 'replicas', 'config', 'initial'] as const;
const INITIAL_KEYS = [
  'partition',
  'leaderEpoch',
  'leaderEpochs',
  'segments',
  'highestOffsetInRemoteStorage',
  'remoteLogMetadataReadyMs',
] as const;
const SEGMENT_KEYS = ['baseOffset', 'endOffset', 'tier'] as const;
const TIERS: readonly Tier[] = ['remote', 'both', 'local'];
const ACTION_KEYS = [
  'addReplica',
  'produce',
  'consume',
  'crash',
  'restart',
  'electLeader',
  'setConfig',
  'objectStore',
  'isolate',
  'heal',
] as const;
type ActionKey = (typeof ACTION_KEYS)[number];

const BROKER_KEYS = Object.keys(BROKER_CONFIGS);
const TOPIC_CONFIG_KEYS = Object.keys(TOPIC_CONFIGS);
const MODEL_KEYS = Object.keys(MODEL_KNOBS);

// ---------------------------------------------------------------------------
// Small helpers

type RawMap = Record<string, unknown>;

function hasOwn(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

function isModelKnob(key: string): key is keyof ModelKnobs {
  return hasOwn(MODEL_KNOBS, key);
}

/** A plain object (what YAML and JSON give for a mapping); not an array, Date, Map, ... */
function isRawMap(v: unknown): v is RawMap {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function truncate(s: string, max = 60): string {
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

/** A key as shown in a message: 'name'. */
function q(key: string): string {
  return `'${truncate(key)}'`;
}

/** What a value is, for "got ..." in messages. Never descends into the value. */
function describe(v: unknown): string {
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
function keyPath(base: string, key: string): string {
  if (IDENT_RE.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(truncate(key, 100))}]`;
}

function indexPath(base: string, i: number): string {
  return `${base}[${i}]`;
}

function list(values: readonly string[]): string {
  return values.join(', ');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

class Problems {
  readonly items: InputProblem[] = [];
  add(path: string, message: string): void {
    this.items.push({ path, message });
  }
  get count(): number {
    return this.items.length;
  }
}

/** Internal error: a value that should have been validated is missing. */
function must<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new Error(`internal: ${what} missing after validation`);
  return v;
}

// ---------------------------------------------------------------------------
// Checkers: one kind of value each

interface Checker<T> {
  /** What is expected, for messages: "an integer >= 0". */
  readonly expect: string;
  /** Returns the value, or undefined after reporting a problem. */
  check(p: Problems, v: unknown, path: string): T | undefined;
}

interface IntRange {
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

function checkInt(p: Problems, v: unknown, path: string, r: IntRange): number | undefined {
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

function intC(r: IntRange): Checker<number> {
  return { expect: intExpectation(r), check: (p, v, path) => checkInt(p, v, path, r) };
}

const boolC: Checker<boolean> = {
  expect: 'true or false',
  check(p, v, path) {
    if (typeof v === 'boolean') return v;
    p.add(path, `expected true or false, got ${describe(v)}`);
    return undefined;
  },
};

function stringC(opts: { nonEmpty?: boolean } = {}): Checker<string> {
  const expect = opts.nonEmpty ? 'a non-empty string' : 'a string';
  return {
    expect,
    check(p, v, path) {
      if (typeof v !== 'string' || (opts.nonEmpty && v.trim() === '')) {
        p.add(path, `expected ${expect}, got ${describe(v)}`);
        return undefined;
      }
      return v;
    },
  };
}

function oneOfC<T extends string>(values: readonly T[]): Checker<T> {
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
function req<T>(p: Problems, obj: RawMap, key: string, base: string, c: Checker<T>): T | undefined {
  const path = keyPath(base, key);
  if (!hasOwn(obj, key)) {
    p.add(path, `missing required key ${q(key)}; expected ${c.expect}`);
    return undefined;
  }
  return c.check(p, obj[key], path);
}

/** Reports a missing required key whose value is checked elsewhere; true if missing. */
function missing(p: Problems, obj: RawMap, key: string, base: string, expect: string): boolean {
  if (hasOwn(obj, key)) return false;
  p.add(keyPath(base, key), `missing required key ${q(key)}; expected ${expect}`);
  return true;
}

/** Whether an optional key is given (a null value counts as not given). */
function given(obj: RawMap, key: string): boolean {
  return hasOwn(obj, key) && obj[key] !== null;
}

/** Reads an optional key of a map; null counts as not given. */
function opt<T>(p: Problems, obj: RawMap, key: string, base: string, c: Checker<T>): T | undefined {
  if (!given(obj, key)) return undefined;
  return c.check(p, obj[key], keyPath(base, key));
}

/** Reports every key of `obj` that is not in `allowed`. */
function checkKeys(p: Problems, obj: RawMap, base: string, allowed: readonly string[], what = ''): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      p.add(keyPath(base, key), `unknown key ${q(key)}${what}; expected one of ${list(allowed)}`);
    }
  }
}

function expectMap(p: Problems, v: unknown, path: string, what: string): RawMap | undefined {
  if (isRawMap(v)) return v;
  p.add(path, `expected ${what}, got ${describe(v)}`);
  return undefined;
}

function expectArray(p: Problems, v: unknown, path: string, what: string, nonEmpty: boolean): unknown[] | undefined {
  if (!Array.isArray(v) || (nonEmpty && v.length === 0)) {
    p.add(path, `expected ${what}, got ${describe(v)}`);
    return undefined;
  }
  return v;
}

// ---------------------------------------------------------------------------
// Configs

function checkConfigValue(p: Problems, spec: ConfigSpec, v: unknown, path: string): ConfigValue | undefined {
  switch (spec.kind) {
    case 'int':
      return checkInt(p, v, path, { min: spec.min });
    case 'boolean':
      return boolC.check(p, v, path);
    case 'string':
      if (spec.oneOf) return oneOfC(spec.oneOf).check(p, v, path);
      return stringC().check(p, v, path);
  }
}

type ConfigScope =
  /** Top-level `config:`: broker configs only. */
  | 'broker'
  /** `topics[i].config`: topic configs only. */
  | 'topic'
  /** `setConfig` without `topic`: either. */
  | 'any'
  /** `setConfig` with `topic`: topic configs only. */
  | 'oneTopic';

/**
 * Validates the entries of a config map (all keys but `skip`). Returns the given values
 * in a fresh object, or undefined after a problem.
 */
function validateConfigEntries(
  p: Problems,
  obj: RawMap,
  base: string,
  scope: ConfigScope,
  skip: readonly string[] = [],
): Record<string, ConfigValue> {
  const out: Record<string, ConfigValue> = {};
  for (const key of Object.keys(obj)) {
    if (skip.includes(key)) continue;
    const path = keyPath(base, key);
    const broker = isBrokerConfigKey(key);
    const topic = isTopicConfigKey(key);
    let spec: ConfigSpec | undefined;
    if (broker && (scope === 'broker' || scope === 'any')) spec = BROKER_CONFIGS[key as keyof typeof BROKER_CONFIGS];
    else if (topic && scope !== 'broker') spec = TOPIC_CONFIGS[key as keyof typeof TOPIC_CONFIGS];

    if (spec) {
      const value = checkConfigValue(p, spec, obj[key], path);
      if (value !== undefined) out[key] = value;
      continue;
    }
    if (topic && scope === 'broker') {
      p.add(path, `${q(key)} is a topic config; put it under topics[i].config of the topic it applies to (the top-level config holds broker configs: ${list(BROKER_KEYS)})`);
    } else if (broker && scope === 'topic') {
      p.add(path, `${q(key)} is a broker config (cluster-wide); put it under the top-level config (topic configs are: ${list(TOPIC_CONFIG_KEYS)})`);
    } else if (broker && scope === 'oneTopic') {
      p.add(path, `${q(key)} is a broker config and cannot be set for one topic; remove 'topic' to set it cluster-wide, or use a separate setConfig event`);
    } else if (isModelKnob(key)) {
      p.add(path, scope === 'broker' || scope === 'topic'
        ? `${q(key)} is a model knob, not a Kafka config; put it under model`
        : `${q(key)} is a model knob and cannot be changed during a run; set it under model`);
    } else {
      const expected = scope === 'broker' ? BROKER_KEYS : scope === 'any' ? [...BROKER_KEYS, ...TOPIC_CONFIG_KEYS] : TOPIC_CONFIG_KEYS;
      const noun = scope === 'broker' ? 'broker config' : scope === 'any' ? 'config' : 'topic config';
      p.add(path, `unknown ${noun} ${q(key)}; expected one of ${list(expected)}`);
    }
  }
  return out;
}

function validateModel(p: Problems, v: unknown, path: string, zones: readonly string[]): Partial<ModelKnobs> {
  const out: Partial<ModelKnobs> = {};
  const obj = expectMap(p, v, path, `a map of model knobs (${list(MODEL_KEYS)})`);
  if (!obj) return out;
  for (const key of Object.keys(obj)) {
    const kp = keyPath(path, key);
    if (isModelKnob(key)) {
      const spec = MODEL_KNOBS[key];
      if (spec.kind === 'zone') {
        const value = obj[key];
        if (typeof value === 'string' && (value === '' || zones.includes(value))) (out as Record<string, unknown>)[key] = value;
        else p.add(kp, `expected '' (the partition leader's zone) or one of the zones ${list(zones)}, got ${describe(value)}`);
        continue;
      }
      const value = checkInt(p, obj[key], kp, { min: spec.min });
      if (value !== undefined) (out as Record<string, unknown>)[key] = value;
    } else if (isBrokerConfigKey(key)) {
      p.add(kp, `${q(key)} is a broker config, not a model knob; put it under the top-level config`);
    } else if (isTopicConfigKey(key)) {
      p.add(kp, `${q(key)} is a topic config, not a model knob; put it under topics[i].config`);
    } else {
      p.add(kp, `unknown model knob ${q(key)}; expected one of ${list(MODEL_KEYS)}`);
    }
  }
  return out;
}

/** Prices are non-negative numbers of USD; the free bytes per request are integers. */
function validatePrices(p: Problems, v: unknown, path: string): PriceOverrides {
  const out: Record<string, unknown> = {};
  const obj = expectMap(p, v, path, `a map of prices (${list(PRICE_KEYS)})`);
  if (!obj) return out;
  for (const key of Object.keys(obj)) {
    const kp = keyPath(path, key);
    const value = obj[key];
    if (!isPriceKey(key)) {
      p.add(kp, `unknown price ${q(key)}; expected one of ${list(PRICE_KEYS)}`);
    } else if (key === 'walPriceList') {
      const priceList = oneOfC(WAL_PRICE_LISTS).check(p, value, kp);
      if (priceList !== undefined) out[key] = priceList;
    } else if (key.endsWith('Bytes')) {
      const bytes = checkInt(p, value, kp, { min: 0, note: '(bytes)' });
      if (bytes !== undefined) out[key] = bytes;
    } else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      p.add(kp, `expected a number >= 0 (USD), got ${describe(value)}`);
    } else {
      out[key] = value === 0 ? 0 : value; // normalise -0
    }
  }
  return out as PriceOverrides;
}

// ---------------------------------------------------------------------------
// Topics

interface TopicInfo {
  /** Undefined when `partitions` is invalid. */
  partitions: number | undefined;
}

/** The broker id range, given the (possibly invalid) broker count. */
function brokerRange(brokers: number | undefined): IntRange {
  if (brokers === undefined) return { min: 0, max: MAX_BROKERS - 1, note: '(a broker id)' };
  return { min: 0, max: brokers - 1, note: `(a broker id; brokers: ${brokers})` };
}

function partitionRange(topicName: string, partitions: number | undefined): IntRange {
  if (partitions === undefined) return { min: 0, max: MAX_PARTITIONS - 1 };
  return { min: 0, max: partitions - 1, note: `(topic ${q(topicName)} has ${plural(partitions, 'partition')})` };
}

function validateReplicas(
  p: Problems,
  v: unknown,
  path: string,
  partitions: number | undefined,
  brokers: number | undefined,
): number[][] {
  const out: number[][] = [];
  const arr = expectArray(p, v, path, 'an array with one array of broker ids per partition, e.g. [[0, 1]]', true);
  if (!arr) return out;
  if (partitions !== undefined && arr.length !== partitions) {
    p.add(path, `expected ${plural(partitions, 'replica list')} (one per partition; partitions: ${partitions}), got ${arr.length}`);
  }
  arr.forEach((entry, i) => {
    const ep = indexPath(path, i);
    const ids = expectArray(p, entry, ep, 'a non-empty array of distinct broker ids (the first is the leader)', true);
    if (!ids) return;
    const seen = new Map<number, number>();
    const list: number[] = [];
    ids.forEach((id, k) => {
      const ip = indexPath(ep, k);
      const b = checkInt(p, id, ip, brokerRange(brokers));
      if (b === undefined) return;
      const prev = seen.get(b);
      if (prev !== undefined) {
        p.add(ip, `expected distinct broker ids, got ${b} again (also at ${indexPath(ep, prev)})`);
        return;
      }
      seen.set(b, k);
      list.push(b);
    });
    out.push(list);
  });
  return out;
}

interface SegmentsResult {
  segments: InitialSegment[];
  /** baseOffset of the first segment, when valid. */
  firstBase: number | undefined;
  /** endOffset of the last (active) segment, when valid. */
  lastEnd: number | undefined;
}

function validateSegments(
  p: Problems,
  v: unknown,
  path: string,
  remoteEnable: boolean | undefined,
  topicPath: string,
): SegmentsResult {
  const res: SegmentsResult = { segments: [], firstBase: undefined, lastEnd: undefined };
  const arr = expectArray(p, v, path, 'a non-empty array of segments {baseOffset, endOffset, tier}, oldest first', true);
  if (!arr) return res;
  let prevEnd: number | undefined;
  let prevIndex = -1;
  let maxRank = -1;
  let maxRankIndex = -1;
  arr.forEach((entry, k) => {
    const sp = indexPath(path, k);
    const isLast = k === arr.length - 1;
    const seg = expectMap(p, entry, sp, 'a segment {baseOffset, endOffset, tier}');
    if (!seg) {
      prevEnd = undefined;
      return;
    }
    checkKeys(p, seg, sp, SEGMENT_KEYS);
    const base = req(p, seg, 'baseOffset', sp, intC({ min: 0 }));
    let end: number | undefined;
    {
      const ep = keyPath(sp, 'endOffset');
      let r: IntRange;
      if (base === undefined) r = { min: -1 };
      else if (isLast) r = { min: base - 1, note: '(baseOffset - 1 for an empty active segment, or more)' };
      else r = { min: base, note: '(baseOffset or more; only the last, active segment may be empty)' };
      end = req(p, seg, 'endOffset', sp, intC(r));
      if (end !== undefined && !Number.isSafeInteger(end + 1)) {
        p.add(ep, `expected an integer below ${Number.MAX_SAFE_INTEGER}, got ${end}`);
        end = undefined;
      }
    }
    const tier = req(p, seg, 'tier', sp, oneOfC(TIERS));

    // Contiguity with the previous segment.
    if (k > 0 && base !== undefined && prevEnd !== undefined) {
      const want = prevEnd + 1;
      const bp = keyPath(sp, 'baseOffset');
      const prevRef = `${indexPath(path, prevIndex)}.endOffset + 1`;
      if (base > want) {
        p.add(bp, `gap: expected ${want} (${prevRef}), got ${base}; offsets ${want}..${base - 1} are in no segment`);
      } else if (base < want) {
        p.add(bp, `overlap: expected ${want} (${prevRef}), got ${base}; offsets ${base}..${want - 1} are in two segments`);
      }
    }

    // Tiers: remote*, both*, local+, and the active segment is local.
    if (tier !== undefined) {
      const tp = keyPath(sp, 'tier');
      const rank = TIERS.indexOf(tier);
      if (isLast && tier !== 'local') {
        p.add(tp, `expected 'local' for the last (active) segment, got '${tier}'`);
      } else if (rank < maxRank) {
        p.add(tp, `expected tiers in the order remote, both, local (oldest first), got '${tier}' after a '${TIERS[maxRank]}' segment (${indexPath(path, maxRankIndex)})`);
      }
      if (rank > maxRank) {
        maxRank = rank;
        maxRankIndex = k;
      }
      if (tier !== 'local' && remoteEnable === false) {
        p.add(tp, `expected 'local' because the topic is not tiered (a '${tier}' segment needs remote.storage.enable: true in ${topicPath}.config), got '${tier}'`);
      }
    }

    if (k === 0) res.firstBase = base;
    if (isLast) res.lastEnd = end;
    prevEnd = end;
    prevIndex = k;
    if (base !== undefined && end !== undefined && tier !== undefined) {
      res.segments.push({ baseOffset: base, endOffset: end, tier });
    }
  });
  return res;
}

function validateLeaderEpochs(
  p: Problems,
  v: unknown,
  path: string,
  firstBase: number | undefined,
  lastEnd: number | undefined,
): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const arr = expectArray(p, v, path, 'a non-empty array of [epoch, startOffset] pairs', true);
  if (!arr) return out;
  const range: IntRange = { min: firstBase ?? 0 };
  const notes: string[] = [];
  if (firstBase !== undefined) notes.push(`the first segment's baseOffset is ${firstBase}`);
  if (lastEnd !== undefined) {
    range.max = lastEnd + 1;
    notes.push(`the log end offset is ${lastEnd + 1}`);
  }
  if (notes.length > 0) range.note = `(${notes.join('; ')})`;
  let prevEpoch: number | undefined;
  let prevEpochIndex = -1;
  let prevStart: number | undefined;
  let prevStartIndex = -1;
  arr.forEach((entry, m) => {
    const ep = indexPath(path, m);
    if (!Array.isArray(entry) || entry.length !== 2) {
      p.add(ep, `expected an [epoch, startOffset] pair, got ${describe(entry)}`);
      return;
    }
    const epochPath = indexPath(ep, 0);
    const startPath = indexPath(ep, 1);
    const epoch = checkInt(p, entry[0], epochPath, { min: 0, note: '(a leader epoch)' });
    const start = checkInt(p, entry[1], startPath, range);
    let ok = epoch !== undefined && start !== undefined;
    if (epoch !== undefined) {
      if (prevEpoch !== undefined && epoch <= prevEpoch) {
        p.add(epochPath, `expected an integer > ${prevEpoch} (epochs strictly ascending; ${indexPath(path, prevEpochIndex)}[0] is ${prevEpoch}), got ${epoch}`);
        ok = false;
      }
      prevEpoch = epoch;
      prevEpochIndex = m;
    }
    if (start !== undefined) {
      if (prevStart !== undefined && start < prevStart) {
        p.add(startPath, `expected an integer >= ${prevStart} (start offsets never decrease; ${indexPath(path, prevStartIndex)}[1] is ${prevStart}), got ${start}`);
        ok = false;
      }
      prevStart = start;
      prevStartIndex = m;
    }
    if (ok) out.push([epoch as number, start as number]);
  });
  return out;
}

function validateInitial(
  p: Problems,
  v: unknown,
  path: string,
  topicName: string,
  topicPath: string,
  partitions: number | undefined,
  remoteEnable: boolean | undefined,
): InitialPartitionState[] {
  const out: InitialPartitionState[] = [];
  const arr = expectArray(p, v, path, 'an array of initial partition states', false);
  if (!arr) return out;
  const seen = new Map<number, number>();
  arr.forEach((entry, j) => {
    const ip = indexPath(path, j);
    const st = expectMap(p, entry, ip, 'a map {partition, segments, ...}');
    if (!st) return;
    checkKeys(p, st, ip, INITIAL_KEYS);

    let partition = req(p, st, 'partition', ip, intC(partitionRange(topicName, partitions)));
    if (partition !== undefined) {
      const prev = seen.get(partition);
      if (prev !== undefined) {
        p.add(keyPath(ip, 'partition'), `expected each partition at most once, got partition ${partition} again (also at ${indexPath(path, prev)})`);
        partition = undefined;
      } else {
        seen.set(partition, j);
      }
    }

    const segs: SegmentsResult = missing(p, st, 'segments', ip, 'a non-empty array of segments {baseOffset, endOffset, tier}')
      ? { segments: [], firstBase: undefined, lastEnd: undefined }
      : validateSegments(p, st.segments, keyPath(ip, 'segments'), remoteEnable, topicPath);

    const leaderEpoch = opt(p, st, 'leaderEpoch', ip, intC({ min: 0 }));
    const epochs = given(st, 'leaderEpochs')
      ? validateLeaderEpochs(p, st.leaderEpochs, keyPath(ip, 'leaderEpochs'), segs.firstBase, segs.lastEnd)
      : undefined;
    const lastEpoch = epochs && epochs.length > 0 ? epochs[epochs.length - 1][0] : undefined;
    if (leaderEpoch !== undefined && lastEpoch !== undefined && leaderEpoch < lastEpoch) {
      p.add(keyPath(ip, 'leaderEpoch'), `expected an integer >= ${lastEpoch} (the last epoch in leaderEpochs), got ${leaderEpoch}`);
    }

    const hwRange: IntRange = { min: -1 };
    if (segs.lastEnd !== undefined) {
      hwRange.max = segs.lastEnd;
      hwRange.note = '(-1: not known yet; at most the last offset in the log)';
    }
    const hors = opt(p, st, 'highestOffsetInRemoteStorage', ip, intC(hwRange));
    const readyMs = opt(p, st, 'remoteLogMetadataReadyMs', ip, intC({ min: 0 }));

    if (partition === undefined || segs.segments.length === 0 || segs.firstBase === undefined) return;
    const epoch = leaderEpoch ?? lastEpoch ?? 0;
    const state: InitialPartitionState = {
      partition,
      leaderEpoch: epoch,
      leaderEpochs: epochs ?? [[epoch, segs.firstBase]],
      segments: segs.segments,
      remoteLogMetadataReadyMs: readyMs ?? 0,
    };
    if (hors !== undefined) state.highestOffsetInRemoteStorage = hors;
    out.push(state);
  });
  return out;
}

function validateTopics(
  p: Problems,
  v: unknown,
  brokers: number | undefined,
  infos: Map<string, TopicInfo>,
): TopicSpec[] {
  const out: TopicSpec[] = [];
  const arr = expectArray(p, v, 'topics', 'a non-empty array of topics', true);
  if (!arr) return out;
  const firstIndex = new Map<string, number>();
  arr.forEach((entry, i) => {
    const tp = indexPath('topics', i);
    const t = expectMap(p, entry, tp, 'a topic {name, partitions, replicas, ...}');
    if (!t) return;
    checkKeys(p, t, tp, TOPIC_KEYS);

    let name = req(p, t, 'name', tp, {
      expect: 'a topic name of 1 to 249 characters from a-z A-Z 0-9 . _ -',
      check(pp, val, path) {
        if (typeof val === 'string' && TOPIC_NAME_RE.test(val)) return val;
        pp.add(path, `expected a topic name of 1 to 249 characters from a-z A-Z 0-9 . _ -, got ${describe(val)}`);
        return undefined;
      },
    });
    // Remember the name even if it is malformed, so the timeline does not also complain.
    const rawName = typeof t.name === 'string' ? t.name : undefined;
    if (name !== undefined) {
      const prev = firstIndex.get(name);
      if (prev !== undefined) {
        p.add(keyPath(tp, 'name'), `expected a unique topic name, got ${q(name)} again (also at topics[${prev}].name)`);
        name = undefined;
      } else {
        firstIndex.set(name, i);
      }
    }

    const partitions = req(p, t, 'partitions', tp, intC({ min: 1, max: MAX_PARTITIONS }));
    if (rawName !== undefined && !infos.has(rawName)) infos.set(rawName, { partitions });

    const replicas = missing(p, t, 'replicas', tp, 'an array with one array of broker ids per partition, e.g. [[0, 1]]')
      ? []
      : validateReplicas(p, t.replicas, keyPath(tp, 'replicas'), partitions, brokers);

    let config: Record<string, ConfigValue> = {};
    let remoteEnable: boolean | undefined = false;
    if (given(t, 'config')) {
      const cp = keyPath(tp, 'config');
      const cm = expectMap(p, t.config, cp, `a map of topic configs (${list(TOPIC_CONFIG_KEYS)})`);
      if (cm) {
        config = validateConfigEntries(p, cm, cp, 'topic');
        if (hasOwn(cm, 'remote.storage.enable')) {
          const re = cm['remote.storage.enable'];
          remoteEnable = typeof re === 'boolean' ? re : undefined;
        }
      } else {
        remoteEnable = undefined;
      }
    }

    const initial = given(t, 'initial')
      ? validateInitial(p, t.initial, keyPath(tp, 'initial'), name ?? rawName ?? '', tp, partitions, remoteEnable)
      : [];

    if (name === undefined || partitions === undefined) return;
    out.push({ name, partitions, replicas, config, initial });
  });
  return out;
}

// ---------------------------------------------------------------------------
// Timeline

interface TimelineCtx {
  brokers: number | undefined;
  topics: Map<string, TopicInfo>;
}

/** Reads `topic` (must name a topic) and `partition` (in range) of an action. */
function topicPartition(
  p: Problems,
  body: RawMap,
  base: string,
  ctx: TimelineCtx,
): { topic?: string; partition?: number } {
  const topic = req(p, body, 'topic', base, {
    expect: 'the name of a topic in topics',
    check(pp, v, path) {
      if (typeof v !== 'string') {
        pp.add(path, `expected the name of a topic in topics, got ${describe(v)}`);
        return undefined;
      }
      if (!ctx.topics.has(v)) {
        const known = [...ctx.topics.keys()];
        pp.add(path, known.length > 0
          ? `unknown topic ${q(v)}; expected one of ${list(known.map((k) => truncate(k)))}`
          : `unknown topic ${q(v)}; expected the name of a topic in topics`);
        return undefined;
      }
      return v;
    },
  });
  const info = topic !== undefined ? ctx.topics.get(topic) : undefined;
  const partition = req(p, body, 'partition', base, intC(info ? partitionRange(topic as string, info.partitions) : { min: 0, max: MAX_PARTITIONS - 1 }));
  return { topic, partition };
}

const recordsC = intC({ min: 1, max: MAX_RECORDS_PER_EVENT });

const acksC: Checker<Acks> = {
  expect: "0, 1, 'all' or -1 (the same as 'all')",
  check(p, v, path) {
    if (v === 0 || v === 1 || v === 'all') return v;
    if (v === -1) return 'all';
    p.add(path, `expected 0, 1, 'all' or -1 (the same as 'all'), got ${describe(v)}`);
    return undefined;
  },
};

const ACTION_FIELDS: Record<ActionKey, readonly string[]> = {
  addReplica: ['topic', 'partition', 'broker'],
  produce: ['topic', 'partition', 'records', 'acks', 'everyMs', 'untilMs'],
  consume: ['topic', 'partition', 'broker', 'fromOffset', 'records'],
  crash: ['broker'],
  restart: ['broker'],
  electLeader: ['topic', 'partition', 'broker'],
  setConfig: [],
  objectStore: ['available', 'store', 'extraLatencyMs'],
  isolate: ['broker'],
  heal: ['broker'],
};

/** Validates one action body; returns the action, or undefined after a problem. */
function validateAction(p: Problems, kind: ActionKey, v: unknown, path: string, ctx: TimelineCtx): TimelineAction | undefined {
  const before = p.count;
  if (kind === 'setConfig') return validateSetConfig(p, v, path, ctx);
  const body = expectMap(p, v, path, `a map {${list(ACTION_FIELDS[kind])}}`);
  if (!body) return undefined;
  checkKeys(p, body, path, ACTION_FIELDS[kind], ` in ${kind}`);
  const brokerC = intC(brokerRange(ctx.brokers));
  let action: TimelineAction | undefined;
  switch (kind) {
    case 'addReplica':
    case 'electLeader': {
      const { topic, partition } = topicPartition(p, body, path, ctx);
      const broker = req(p, body, 'broker', path, brokerC);
      if (topic !== undefined && partition !== undefined && broker !== undefined) action = { kind, topic, partition, broker };
      break;
    }
    case 'produce': {
      const { topic, partition } = topicPartition(p, body, path, ctx);
      const records = req(p, body, 'records', path, recordsC);
      const acks = opt(p, body, 'acks', path, acksC) ?? 1;
      const everyMs = opt(p, body, 'everyMs', path, intC({ min: 1, max: MAX_UNTIL_MS }));
      const untilMs = opt(p, body, 'untilMs', path, intC({ min: 0, max: MAX_UNTIL_MS }));
      if (untilMs !== undefined && everyMs === undefined) p.add(`${path}.untilMs`, 'untilMs needs everyMs (it ends a repeated produce)');
      if (topic !== undefined && partition !== undefined && records !== undefined) {
        action = { kind, topic, partition, records, acks };
        if (everyMs !== undefined) {
          action.everyMs = everyMs;
          if (untilMs !== undefined) action.untilMs = untilMs;
        }
      }
      break;
    }
    case 'consume': {
      const { topic, partition } = topicPartition(p, body, path, ctx);
      const broker = opt(p, body, 'broker', path, brokerC);
      const fromOffset = req(p, body, 'fromOffset', path, intC({ min: 0 }));
      const records = req(p, body, 'records', path, recordsC);
      if (topic !== undefined && partition !== undefined && fromOffset !== undefined && records !== undefined) {
        action = broker === undefined
          ? { kind, topic, partition, fromOffset, records }
          : { kind, topic, partition, broker, fromOffset, records };
      }
      break;
    }
    case 'crash':
    case 'restart':
    case 'isolate':
    case 'heal': {
      const broker = req(p, body, 'broker', path, brokerC);
      if (broker !== undefined) action = { kind, broker };
      break;
    }
    case 'objectStore': {
      const available = req(p, body, 'available', path, boolC);
      const store = opt(p, body, 'store', path, oneOfC(['tiered', 'wal'] as const));
      const extraLatencyMs = opt(p, body, 'extraLatencyMs', path, intC({ min: 0, max: 600000 }));
      if (available !== undefined) {
        action = store === undefined ? { kind, available } : { kind, available, store };
        if (extraLatencyMs !== undefined) action.extraLatencyMs = extraLatencyMs;
      }
      break;
    }
  }
  return p.count === before ? action : undefined;
}

function validateSetConfig(p: Problems, v: unknown, path: string, ctx: TimelineCtx): TimelineAction | undefined {
  const before = p.count;
  const body = expectMap(p, v, path, 'a map of config keys to values (and optionally topic: NAME)');
  if (!body) return undefined;
  let topic: string | undefined;
  if (hasOwn(body, 'topic')) {
    topic = req(p, body, 'topic', path, {
      expect: 'the name of a topic in topics',
      check(pp, val, tp) {
        if (typeof val === 'string' && ctx.topics.has(val)) return val;
        const known = [...ctx.topics.keys()];
        pp.add(tp, typeof val === 'string'
          ? `unknown topic ${q(val)}; expected one of ${list(known.map((k) => truncate(k)))}`
          : `expected the name of a topic in topics, got ${describe(val)}`);
        return undefined;
      },
    });
  }
  const values = validateConfigEntries(p, body, path, hasOwn(body, 'topic') ? 'oneTopic' : 'any', ['topic']);
  if (Object.keys(body).filter((k) => k !== 'topic').length === 0) {
    p.add(path, 'expected at least one config key to set, got none');
  }
  if (p.count !== before) return undefined;
  return topic === undefined ? { kind: 'setConfig', values } : { kind: 'setConfig', topic, values };
}

function validateTimeline(p: Problems, v: unknown, until: number | undefined, ctx: TimelineCtx): TimelineEvent[] {
  const out: TimelineEvent[] = [];
  const arr = expectArray(p, v, 'timeline', 'an array of events {at, <action>}', false);
  if (!arr) return out;
  const atRange: IntRange = until !== undefined
    ? { min: 0, max: until, note: `(ms; until: ${until})` }
    : { min: 0, max: MAX_UNTIL_MS, note: '(ms)' };
  const allowed = ['at', ...ACTION_KEYS];
  let prevAt: number | undefined;
  let prevIndex = -1;
  arr.forEach((entry, k) => {
    const ep = indexPath('timeline', k);
    const ev = expectMap(p, entry, ep, `an event {at, <one of ${list(ACTION_KEYS)}>}`);
    if (!ev) return;
    checkKeys(p, ev, ep, allowed, ' in a timeline event');
    let at = req(p, ev, 'at', ep, intC(atRange));
    if (at !== undefined && prevAt !== undefined && at < prevAt) {
      p.add(keyPath(ep, 'at'), `expected an integer >= ${prevAt} (events in time order; timeline[${prevIndex}].at is ${prevAt}), got ${at}`);
      prevAt = at;
      prevIndex = k;
      at = undefined;
    } else if (at !== undefined) {
      prevAt = at;
      prevIndex = k;
    }
    const kinds = ACTION_KEYS.filter((key) => hasOwn(ev, key));
    if (kinds.length === 0) {
      p.add(ep, `expected exactly one action key (one of ${list(ACTION_KEYS)}), got none`);
      return;
    }
    if (kinds.length > 1) {
      p.add(ep, `expected exactly one action key (one of ${list(ACTION_KEYS)}), got ${kinds.length}: ${list(kinds)}`);
    }
    const actions = kinds.map((kind) => validateAction(p, kind, ev[kind], keyPath(ep, kind), ctx));
    if (at !== undefined && kinds.length === 1 && actions[0] !== undefined) out.push({ at, action: actions[0] });
  });
  return out;
}

// ---------------------------------------------------------------------------
// The scenario

function validateInner(raw: unknown): ParseResult {
  const p = new Problems();
  const top = expectMap(p, raw, '', `a map with the scenario's keys (${list(TOP_KEYS)})`);
  if (!top) return { ok: false, problems: p.items };
  checkKeys(p, top, '', TOP_KEYS);

  const name = req(p, top, 'name', '', stringC({ nonEmpty: true }));
  const description = opt(p, top, 'description', '', stringC()) ?? '';
  const seed = opt(p, top, 'seed', '', intC({ min: 0, max: MAX_SEED })) ?? 1;
  const brokers = req(p, top, 'brokers', '', intC({ min: 1, max: MAX_BROKERS }));

  let zones: string[] = ['a'];
  if (given(top, 'zones')) {
    const arr = expectArray(p, top.zones, 'zones', 'a non-empty array of zone names', true);
    if (arr) {
      const zc = stringC({ nonEmpty: true });
      zones = [];
      arr.forEach((z, i) => {
        const zone = zc.check(p, z, indexPath('zones', i));
        if (zone !== undefined) zones.push(zone);
      });
    }
  }

  let config: Record<string, ConfigValue> = {};
  if (given(top, 'config')) {
    const cm = expectMap(p, top.config, 'config', `a map of broker configs (${list(BROKER_KEYS)})`);
    if (cm) config = validateConfigEntries(p, cm, 'config', 'broker');
  }
  const model = given(top, 'model') ? validateModel(p, top.model, 'model', zones) : {};
  const prices = given(top, 'prices') ? validatePrices(p, top.prices, 'prices') : undefined;

  const until = req(p, top, 'until', '', intC({ min: 1, max: MAX_UNTIL_MS, note: '(ms)' }));

  const infos = new Map<string, TopicInfo>();
  const topics = missing(p, top, 'topics', '', 'a non-empty array of topics')
    ? []
    : validateTopics(p, top.topics, brokers, infos);

  const timeline = given(top, 'timeline') ? validateTimeline(p, top.timeline, until, { brokers, topics: infos }) : [];

  if (p.count > 0) return { ok: false, problems: p.items };
  const scenario: Scenario = {
    name: must(name, 'name'),
    description,
    seed,
    brokers: must(brokers, 'brokers'),
    zones,
    config,
    model,
    ...(prices !== undefined ? { prices } : {}),
    topics,
    timeline,
    until: must(until, 'until'),
  };
  return { ok: true, scenario };
}

function internalProblem(e: unknown): ParseResult {
  let detail = 'unknown error';
  try {
    detail = e instanceof Error ? e.message : String(e);
  } catch {
    // keep the default
  }
  return { ok: false, problems: [{ path: '', message: `could not read the scenario: ${truncate(detail, 200)}` }] };
}

/**
 * Validates a plain value (as YAML or JSON gives it) against the scenario schema and
 * applies the defaults. Reports every problem; never throws.
 */
export function validateScenario(raw: unknown): ParseResult {
  try {
    return validateInner(raw);
  } catch (e) {
    return internalProblem(e);
  }
}

// ---------------------------------------------------------------------------
// YAML text

/** Safe options: YAML 1.2 core schema only (no custom or YAML 1.1 tags, no merge keys). */
const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.2',
  schema: 'core',
  customTags: [],
  resolveKnownTags: false,
  merge: false,
  uniqueKeys: true,
  stringKeys: true,
  strict: true,
  intAsBigInt: false,
  prettyErrors: false,
  // 'silent' would also hide the multiple-documents error; 'error' only hides warnings
  // that the yaml package would print on the console.
  logLevel: 'error',
};

/**
 * The path (as in problems) of the node at `pos` in a parsed document, or '', and the
 * last map key on the way.
 */
function pathAt(root: unknown, pos: number): { path: string; key: string } {
  let node: unknown = root;
  let path = '';
  let lastKey = '';
  const done = () => ({ path, key: lastKey });
  for (let depth = 0; depth < 1000 && node; depth++) {
    if (isMap(node)) {
      let found: { key: string; keyRange?: readonly number[] | null; value: unknown } | undefined;
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key;
        const start = isScalar(key) && key.range ? key.range[0] : undefined;
        if (start === undefined || start > pos) break;
        found = { key: isScalar(key) ? String(key.value) : '', keyRange: isScalar(key) ? key.range : undefined, value: pair.value };
      }
      if (!found) return done();
      path = keyPath(path, found.key);
      lastKey = found.key;
      if (found.keyRange && pos < found.keyRange[1]) return done();
      node = found.value;
    } else if (isSeq(node)) {
      let index = -1;
      node.items.forEach((item, i) => {
        const range = (item as { range?: readonly number[] | null }).range;
        if (range && range[0] <= pos) index = i;
      });
      if (index < 0) return done();
      path = indexPath(path, index);
      node = node.items[index];
    } else {
      return done();
    }
  }
  return done();
}

function yamlMessage(e: YAMLError): string {
  const first = e.message.split('\n')[0];
  // The parser's own recursion limit: say what it means for the file.
  if (/Maximum call stack size exceeded/.test(first)) return 'the document is nested too deeply to read (a scenario needs a few levels)';
  return truncate(first, 300);
}

/**
 * Reads a scenario from YAML or JSON text and validates it. A YAML syntax error is
 * reported as a problem at path '' with its line and column; never throws.
 */
export function parseScenarioText(text: string, fileName?: string): ParseResult {
  try {
    if (typeof text !== 'string') {
      return { ok: false, problems: [{ path: '', message: `expected the text of a scenario file, got ${describe(text)}` }] };
    }
    const lineCounter = new LineCounter();
    const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
    const where = (pos: number): string => {
      const { line, col } = lineCounter.linePos(pos);
      return `${fileName ? `${fileName}, ` : ''}line ${line}, column ${col}`;
    };
    const problems: InputProblem[] = [];
    let fatal = false;
    for (const e of doc.errors) {
      if (e.code === 'DUPLICATE_KEY') {
        const { path, key } = pathAt(doc.contents, e.pos[0]);
        problems.push({ path, message: `duplicate key${path === '' ? '' : ` ${q(key)}`} (${where(e.pos[0])}); a key may appear only once in a map` });
      } else {
        fatal = true;
        problems.push({ path: '', message: `YAML syntax error (${where(e.pos[0])}): ${yamlMessage(e)}` });
      }
    }
    for (const w of doc.warnings) {
      const { path } = pathAt(doc.contents, w.pos[0]);
      const message = w.code === 'TAG_RESOLVE_FAILED'
        ? `unsupported YAML tag (${where(w.pos[0])}): ${yamlMessage(w)}; tags are not allowed in scenario files`
        : `YAML problem (${where(w.pos[0])}): ${yamlMessage(w)}`;
      problems.push({ path, message });
    }
    if (fatal) return { ok: false, problems };

    let raw: unknown;
    try {
      raw = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      const hint = /alias/i.test(detail) ? ` (at most ${MAX_YAML_ALIASES} aliases are allowed)` : '';
      problems.push({ path: '', message: `YAML could not be read${fileName ? ` (${fileName})` : ''}: ${truncate(detail, 200)}${hint}` });
      return { ok: false, problems };
    }
    if (raw === null || raw === undefined) {
      problems.push({ path: '', message: `expected a map with the scenario's keys (${list(TOP_KEYS)}), got an empty document` });
      return { ok: false, problems };
    }
    const result = validateScenario(raw);
    if (problems.length === 0) return result;
    return { ok: false, problems: result.ok ? problems : [...problems, ...result.problems] };
  } catch (e) {
    return internalProblem(e);
  }
}
