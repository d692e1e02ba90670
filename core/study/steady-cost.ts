/**
 * The month's cost at steady state (issue 29, part 3; docs/protocol.md §8.1): priced from the
 * RATES a scenario runs at once every transient is over, not from a short run scaled up.
 * The scenario's repeating produces (`produce` with `everyMs`) run for ever; segments roll,
 * are uploaded and expire; every replica holds its local retention, the tiered store its
 * retention, the fast store what the WAL keeps until cleanup. The result is a list of lines,
 * each with its formula, its numbers and the inputs they came from (a scenario field, a Kafka
 * config default, a model default, the price table), and the lines add up to the month.
 *
 * Pure and isomorphic: a function of the scenario (already set to its design: compare.ts
 * scenarioForMode). Where the model's rule is a process (how the producer's batches fill a
 * segment, when the WAL combiner flushes an object), that rule is replayed on the
 * scenario's produce cadence for a window of simulated time, in plain arithmetic (no kernel).
 * What it leaves out is in docs/protocol.md §8.1 and in each result's `assumptions`.
 */
import {
  BROKER_CONFIGS,
  type BrokerConfig,
  type ConfigValue,
  type ModelKnobs,
  TOPIC_CONFIGS,
  type TopicConfig,
  effectiveLocalRetentionBytes,
  effectiveLocalRetentionMs,
  isBrokerConfigKey,
  isTopicConfigKey,
  segmentSize,
  INTERNAL_SEGMENT_BYTES,
} from '../domain/config.js';
import { formatCheckpoint } from '../domain/leader-epoch-cache.js';
import { planBatches } from '../domain/partition-log.js';
import { formatUsd } from '../util/format.js';
import { BYTES_PER_GB, MS_PER_MONTH, type NumericPriceKey, type Prices, resolvePrices } from '../domain/prices.js';
import { producerSnapshotBytes } from '../domain/producer-state.js';
import { brokerZone, type Scenario } from '../scenario/types.js';
import { type CrossZoneBytes, type StoreCounters, type Usage, gbMonths } from '../sim/costs.js';
import type { StoreName } from '../ports/object-store.js';
import { defaultBrokerConfig, defaultModelKnobs, defaultTopicConfig } from '../domain/config.js';

export type SteadyMode = 'classic' | 'kip1023' | 'wal';

/** Where an input's value came from. */
export type InputSource = 'scenario' | 'Kafka default' | 'model default' | 'price table' | 'derived';

export interface CostInput {
  name: string;
  value: number | string;
  unit: string;
  source: InputSource;
  /** The field, config or rule it was read from (`topics[0].config.segment.bytes`, `LogConfig`, ...). */
  from: string;
}

export interface CostLine {
  /** Stable key (`crossZoneReplication`, `tieredPut`, ...). */
  id: string;
  name: string;
  /** The formula in words (the inputs' names). */
  formula: string;
  /** The same formula with the numbers, ending in the line's dollars. */
  calculation: string;
  inputs: CostInput[];
  usdPerMonth: number;
}

export interface SteadyStateCost {
  /** The sum of the lines' (rounded) dollars. */
  month: number;
  lines: CostLine[];
  assumptions: string[];
  warnings: string[];
}

/** What else the computation found, for checks against a run (not printed as a cost). */
export interface SteadyFacts {
  /** Bytes produced per second over all partitions. */
  bytesPerSec: number;
  /** Some partition is tiered (rolled segments are uploaded). */
  tiered: boolean;
  /** Some partition goes through the WAL. */
  wal: boolean;
  /** Longest time for a partition's first segment to fill (ms), null when nothing is produced. */
  segmentFillMs: number | null;
  /** Time after which local retention deletes segments (ms; null: never). */
  localRetentionReachedMs: number | null;
  /** Time after which remote retention deletes segments (ms; null: never or not tiered). */
  remoteRetentionReachedMs: number | null;
  /** Time after which the WAL's first objects are deleted (ms; null: never or no WAL). */
  walCleanupReachedMs: number | null;
  /** Per line id: the quantity counted a month (bytes, requests, or bytes held). */
  quantities: Record<string, number>;
}

export interface SteadyOptions {
  /**
   * How many times consumers read each produced byte, for every partition (a consumer group
   * reading everything at the tail is 1). Default: what the scenario's consumes read of what
   * its produces write over the run, per partition (0 without a consume).
   */
  readFanout?: number;
}

const MONTH_S = MS_PER_MONTH / 1000;
/** How the warning of a scenario without a steady state begins. */
export const NO_STEADY_STATE = 'No steady state:';
/** The objects a segment upload writes (core/sim/tiering.ts segmentObjects): .log, .index, leader-epoch checkpoint, producer snapshot. */
export const OBJECTS_PER_SEGMENT = 4;
/** The shortest window the combiner's rule is replayed over (simulated ms), and the most arrivals it replays. */
const COMBINER_WINDOW_MS = 60_000;
const COMBINER_MAX_ARRIVALS = 2_000_000;
/** How many segments the packing of batches is replayed for, and the most batches it packs. */
const PACK_SEGMENTS = 8;
const PACK_MAX_BATCHES = 2_000_000;

// ------------------------------------------------------------------ numbers in words

/** A number as the calculations print it: integers grouped by commas, others to 6 significant digits. */
export function fmtNum(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  if (Math.abs(n) >= 1e5) return Math.round(n).toLocaleString('en-US');
  return n.toLocaleString('en-US', { maximumSignificantDigits: 6 });
}

const fmtUsd = (n: number): string => `$${fmtNum(roundTo(n, 6))}`;
/** Dollars in a sentence, as the compare tables print them ($322, $0.48). */
const usdWords = (n: number): string => formatUsd(n, { wholeFrom: 100, significant: 2 });
const GIB = `2^30 B/GB`;

function roundTo(x: number, d: number): number {
  const f = 10 ** d;
  const r = Math.round(x * f) / f;
  return r === 0 ? 0 : r;
}

/** A line's dollars: a millionth of a dollar, as the run's costs are rounded. */
const usdRound = (x: number): number => roundTo(x, 6);

// ------------------------------------------------------------------ the scenario resolved

interface Stream {
  /** Index in the timeline (ties between streams go in timeline order, as the kernel queues them). */
  index: number;
  at: number;
  everyMs: number;
  records: number;
  bytes: number;
}

interface PartFlow {
  key: string;
  topic: string;
  topicIndex: number;
  partition: number;
  leader: number;
  replicas: number[];
  followers: number[];
  streams: Stream[];
  /** Bytes produced per second at steady state. */
  rate: number;
  tiered: boolean;
  uploads: boolean;
  wal: boolean;
  cfg: TopicConfig;
  /** Consumed / produced over the scenario's run (the default fan-out). */
  fanout: number;
  /** The broker the consumers read from (the leader unless a consume names one). */
  readFrom: number;
  seg: SegmentFill;
}

interface SegmentFill {
  /** Bytes in one rolled segment, on average. */
  bytes: number;
  /** Producer batches in one rolled segment, on average. */
  batches: number;
  /** Simulated ms one segment takes to fill. */
  fillMs: number;
  /** How it was found: by packing the producer's batches, or in closed form. */
  how: 'packed' | 'closed';
  /** The segment rolls by size or by segment.ms. */
  rollBy: 'segment.bytes' | 'segment.ms';
  /** From a produce request until the segment holding its last batch rolls, on average (ms): how long its WAL chunk waits to be tiered. */
  lastBatchRollWaitMs: number;
}

/** The configs at the end of the timeline (its setConfig events applied), and who set each. */
class Resolved {
  readonly broker: BrokerConfig;
  readonly topics: Record<string, TopicConfig>;
  readonly model: ModelKnobs;
  readonly prices: Prices;
  private readonly setBy = new Map<string, string>();

  constructor(readonly s: Scenario) {
    this.broker = defaultBrokerConfig();
    for (const [k, v] of Object.entries(s.config)) if (isBrokerConfigKey(k)) (this.broker as Record<string, ConfigValue>)[k] = v as ConfigValue;
    this.model = defaultModelKnobs();
    for (const [k, v] of Object.entries(s.model)) if (k !== 'jitter') (this.model as unknown as Record<string, ConfigValue>)[k] = v as ConfigValue;
    this.topics = {};
    s.topics.forEach((t, i) => {
      const c = defaultTopicConfig();
      for (const [k, v] of Object.entries(t.config)) {
        if (!isTopicConfigKey(k)) continue;
        (c as Record<string, ConfigValue>)[k] = v as ConfigValue;
        this.setBy.set(`topic|${t.name}|${k}`, `topics[${i}].config.${k}`);
      }
      this.topics[t.name] = c;
    });
    for (const k of Object.keys(s.config)) this.setBy.set(`broker|${k}`, `config.${k}`);
    // setConfig as the kernel applies it (core/sim/controller.ts): a topic's, or the broker's and every topic's.
    s.timeline.forEach((e, i) => {
      if (e.action.kind !== 'setConfig') return;
      const { topic, values } = e.action;
      for (const [k, v] of Object.entries(values)) {
        const where = `timeline[${i}] setConfig at ${e.at} ms`;
        if (topic === undefined && isBrokerConfigKey(k)) {
          (this.broker as Record<string, ConfigValue>)[k] = v;
          this.setBy.set(`broker|${k}`, where);
        }
        if (isTopicConfigKey(k)) {
          for (const t of Object.keys(this.topics)) {
            if (topic !== undefined && topic !== t) continue;
            (this.topics[t] as Record<string, ConfigValue>)[k] = v;
            this.setBy.set(`topic|${t}|${k}`, where);
          }
        }
      }
    });
    this.prices = resolvePrices(s.prices);
  }

  /** A topic config as an input (its value in the end configs). */
  topicInput(topic: string, key: keyof TopicConfig, unit: string, name: string = key): CostInput {
    const by = this.setBy.get(`topic|${topic}|${key}`);
    const value = this.topics[topic][key] as number | boolean | string | undefined;
    const ours = key.startsWith('wal.');
    return {
      name,
      value: typeof value === 'boolean' ? String(value) : (value ?? 'unset'),
      unit,
      source: by !== undefined ? 'scenario' : ours ? 'model default' : 'Kafka default',
      from: by ?? (ours ? `core/domain/config.ts (model name, KIP-1176)` : kafkaTopicDefaultFrom(key)),
    };
  }

  brokerInput(key: keyof BrokerConfig, unit: string, name: string = key): CostInput {
    const by = this.setBy.get(`broker|${key}`);
    const ours = key.startsWith('wal.');
    return {
      name,
      value: this.broker[key] as number,
      unit,
      source: by !== undefined ? 'scenario' : ours ? 'model default' : 'Kafka default',
      from: by ?? (ours ? 'core/domain/config.ts (model name, KIP-1176)' : kafkaBrokerDefaultFrom(key)),
    };
  }

  modelInput(key: keyof ModelKnobs, unit: string, name: string = `model.${key}`): CostInput {
    const given = Object.prototype.hasOwnProperty.call(this.s.model, key);
    return { name, value: this.model[key], unit, source: given ? 'scenario' : 'model default', from: given ? `model.${key}` : 'core/domain/config.ts MODEL_KNOBS' };
  }

  priceInput(key: NumericPriceKey, unit: string): CostInput {
    const given = this.s.prices !== undefined && Object.prototype.hasOwnProperty.call(this.s.prices, key);
    const list = key.startsWith('wal') ? ` (S3 Express One Zone, list ${this.prices.walPriceList})` : '';
    return {
      name: key,
      value: this.prices[key],
      unit,
      source: given ? 'scenario' : 'price table',
      from: given ? `prices.${key}` : `core/domain/prices.ts, docs/protocol.md §8${list}`,
    };
  }
}

function kafkaTopicDefaultFrom(key: string): string {
  if (key === INTERNAL_SEGMENT_BYTES) return 'unset (Kafka internal override)';
  const spec = (TOPIC_CONFIGS as Record<string, { default: ConfigValue }>)[key];
  return spec === undefined ? 'Kafka' : `Kafka's default (LogConfig / RemoteLogManagerConfig): ${String(spec.default)}`;
}

function kafkaBrokerDefaultFrom(key: string): string {
  const spec = (BROKER_CONFIGS as Record<string, { default: ConfigValue }>)[key];
  return spec === undefined ? 'Kafka' : `Kafka's default: ${String(spec.default)}`;
}

/** The repeating produces that run to the end of the scenario, per partition key. */
function steadyStreams(s: Scenario, recordBytes: number): Map<string, Stream[]> {
  const out = new Map<string, Stream[]>();
  s.timeline.forEach((e, index) => {
    const a = e.action;
    if (a.kind !== 'produce' || a.everyMs === undefined) return;
    if (a.untilMs !== undefined && a.untilMs < s.until) return;
    const key = `${a.topic}-${a.partition}`;
    const list = out.get(key) ?? [];
    list.push({ index, at: e.at, everyMs: a.everyMs, records: a.records, bytes: a.records * recordBytes });
    out.set(key, list);
  });
  return out;
}

/** Records a produce writes over the run (a repeating one: each firing up to its end). */
function producedRecords(s: Scenario): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of s.timeline) {
    const a = e.action;
    if (a.kind !== 'produce') continue;
    const key = `${a.topic}-${a.partition}`;
    const end = Math.min(a.untilMs ?? s.until, s.until);
    const times = a.everyMs === undefined ? 1 : e.at > end ? 0 : Math.floor((end - e.at) / a.everyMs) + 1;
    out.set(key, (out.get(key) ?? 0) + times * a.records);
  }
  return out;
}

function partitionsOf(r: Resolved, opts: SteadyOptions): PartFlow[] {
  const s = r.s;
  const streams = steadyStreams(s, r.model.recordBytes);
  const produced = producedRecords(s);
  const out: PartFlow[] = [];
  s.topics.forEach((t, topicIndex) => {
    const cfg = r.topics[t.name];
    for (let p = 0; p < t.partitions; p++) {
      const key = `${t.name}-${p}`;
      const replicas = [...t.replicas[p]];
      let leader = replicas[0];
      let consumed = 0;
      let consumers = 0;
      let readFrom: number | undefined;
      for (const e of s.timeline) {
        const a = e.action;
        if (!('topic' in a) || a.topic !== t.name || !('partition' in a) || a.partition !== p) continue;
        if (a.kind === 'addReplica' && !replicas.includes(a.broker)) replicas.push(a.broker);
        if (a.kind === 'electLeader') leader = a.broker;
        if (a.kind === 'consume') {
          consumed += a.records;
          consumers++;
          readFrom ??= a.broker;
        }
      }
      const list = streams.get(key) ?? [];
      const rate = list.reduce((n, x) => n + (x.bytes * 1000) / x.everyMs, 0);
      const tiered = cfg['remote.storage.enable'] && r.broker['remote.log.storage.system.enable'];
      const made = produced.get(key) ?? 0;
      out.push({
        key,
        topic: t.name,
        topicIndex,
        partition: p,
        leader,
        replicas,
        followers: replicas.filter((b) => b !== leader),
        streams: list,
        rate,
        tiered,
        uploads: tiered && !cfg['remote.log.copy.disable'],
        wal: cfg['wal.enable'],
        cfg,
        // At most one full read per consume event: a consumer reading the data present at t = 0 is catching up, not reading the tail.
        fanout: opts.readFanout ?? (made > 0 ? Math.min(consumers, consumed / made) : 0),
        readFrom: readFrom ?? leader,
        seg: fillOf(list, r, cfg, rate),
      });
    }
  });
  return out;
}

/**
 * How the producer's batches fill a segment, by the model's rule (core/sim/clients.ts
 * appendAsLeader: each produce is cut into batches by planBatches; core/domain/partition-log.ts
 * appendBatch: the active segment rolls before a batch that would take it past the segment
 * size, or once segment.ms has passed since its first batch). The streams' arrivals are
 * replayed in time order for PACK_SEGMENTS segments; past PACK_MAX_BATCHES (a time roll of
 * days at a low rate) the closed form takes over: a segment holds min(size, rate × segment.ms).
 */
function fillOf(streams: readonly Stream[], r: Resolved, cfg: TopicConfig, rate: number): SegmentFill {
  const size = segmentSize(cfg);
  const segMs = cfg['segment.ms'];
  const closed = (): SegmentFill => {
    const byTime = (rate * segMs) / 1000;
    const bytes = rate > 0 ? Math.min(size, byTime) : size;
    const perBatch = Math.max(1, Math.floor(r.model.producerBatchBytes / r.model.recordBytes)) * r.model.recordBytes;
    const fillMs = rate > 0 ? (bytes / rate) * 1000 : Infinity;
    const period = streams.length > 0 ? Math.min(...streams.map((x) => x.everyMs)) : 0;
    return { bytes, batches: Math.max(1, bytes / perBatch), fillMs, how: 'closed', rollBy: byTime < size ? 'segment.ms' : 'segment.bytes', lastBatchRollWaitMs: (fillMs + period) / 2 };
  };
  if (streams.length === 0 || rate <= 0) return closed();
  const next = streams.map((x) => x.at);
  let active = 0;
  let activeBatches = 0;
  let firstMs = -1;
  let packed = 0;
  const rolls: Array<{ atMs: number; bytes: number; batches: number; byTime: boolean }> = [];
  // Requests whose last batch is in the active segment (their times), and the waits once it rolls.
  let waiting: number[] = [];
  let waits = 0;
  let waited = 0;
  while (rolls.length < PACK_SEGMENTS + 1 && packed < PACK_MAX_BATCHES) {
    let i = 0;
    for (let j = 1; j < streams.length; j++) if (next[j] < next[i]) i = j;
    const t = next[i];
    next[i] += streams[i].everyMs;
    for (const count of planBatches(streams[i].records, r.model.recordBytes, r.model.producerBatchBytes)) {
      const bytes = count * r.model.recordBytes;
      packed++;
      const byTime = active > 0 && t - firstMs > segMs;
      if (active > 0 && (active + bytes > size || byTime)) {
        rolls.push({ atMs: t, bytes: active, batches: activeBatches, byTime });
        active = 0;
        activeBatches = 0;
        if (rolls.length > 1) for (const w of waiting) (waits += t - w), waited++;
        waiting = [];
      }
      if (active === 0) firstMs = t;
      active += bytes;
      activeBatches++;
    }
    waiting.push(t);
  }
  // The first segment starts with the first produce; the average is over the segments after it.
  if (rolls.length < 2) return closed();
  const counted = rolls.slice(1);
  const bytes = counted.reduce((n, x) => n + x.bytes, 0) / counted.length;
  const batches = counted.reduce((n, x) => n + x.batches, 0) / counted.length;
  // From the long-run rate, not the roll times: rolls come in bursts when one produce spans several segments.
  const fillMs = (bytes / rate) * 1000;
  return {
    bytes,
    batches,
    fillMs,
    how: 'packed',
    rollBy: counted.filter((x) => x.byTime).length * 2 > counted.length ? 'segment.ms' : 'segment.bytes',
    lastBatchRollWaitMs: waited > 0 ? waits / waited : fillMs / 2,
  };
}

// ------------------------------------------------------------------ the WAL combiner's rule

interface CombinerResult {
  /** Per month. */
  objects: number;
  objectBytes: number;
  /** Bytes of PUTs above the fast store's free part of each request. */
  billablePutBytes: number;
  /** Per partition key, per month: chunks, their bytes, and their bytes above the free part of a request. */
  chunks: Record<string, { count: number; bytes: number; billableBytes: number }>;
  /** Produce requests per object, on average. */
  requestsPerObject: number;
  /** How many objects were flushed for each reason (over the window). */
  byReason: { maxBytes: number; interval: number };
  windowMs: number;
}

function gcd(a: number, b: number): number {
  while (b > 0) [a, b] = [b, a % b];
  return a;
}

/**
 * The WAL combiner of one broker (core/machines/wal-combiner.ts) replayed on its led WAL
 * partitions' produce arrivals: idle until bytes are appended; then an object is PUT
 * wal.combine.interval.ms later, or at once when the pending bytes reach
 * wal.combine.max.bytes; one PUT at a time (its latency: model.walPutLatencyMs +
 * bytes / model.walPutBytesPerMs, core/sim/store.ts); appends during a PUT wait for the
 * next object, flushed at once when they are full, else after another interval. Events at
 * one time go in the order they were scheduled, as in the kernel's queue.
 */
export function replayCombiner(
  arrivals: ReadonlyArray<{ key: string; at: number; everyMs: number; bytes: number }>,
  c: { intervalMs: number; maxBytes: number; putLatencyMs: number; putBytesPerMs: number; freeBytes: number },
): CombinerResult {
  const empty: CombinerResult = { objects: 0, objectBytes: 0, billablePutBytes: 0, chunks: {}, requestsPerObject: 0, byReason: { maxBytes: 0, interval: 0 }, windowMs: 0 };
  if (arrivals.length === 0) return empty;
  // A window of whole hyperperiods of the produce periods, at least COMBINER_WINDOW_MS, after a warm-up.
  let hyper = 1;
  for (const a of arrivals) {
    hyper = (hyper / gcd(hyper, a.everyMs)) * a.everyMs;
    if (hyper > 600_000) {
      hyper = 600_000;
      break;
    }
  }
  const perMs = arrivals.reduce((n, a) => n + 1 / a.everyMs, 0);
  let windowMs = hyper * Math.max(1, Math.ceil(COMBINER_WINDOW_MS / hyper));
  while (windowMs > hyper && windowMs * perMs > COMBINER_MAX_ARRIVALS) windowMs -= hyper;
  const start = Math.max(...arrivals.map((a) => a.at)) + Math.max(hyper, 1000);
  const end = start + windowMs;
  let seq = 0;
  const next = arrivals.map((a, i) => ({ at: a.at, seq: i }));
  seq = arrivals.length;
  // Held in an object: the flush below sets the PUT's completion from a closure.
  const ev: { timer: { at: number; seq: number } | null; put: { at: number; seq: number } | null } = { timer: null, put: null };
  let state: 'idle' | 'waiting' | 'flushing' = 'idle';
  const pending = new Map<string, number>();
  let pendingTotal = 0;
  const out = { ...empty, chunks: {} as CombinerResult['chunks'], byReason: { maxBytes: 0, interval: 0 } };
  const flush = (t: number, reason: 'maxBytes' | 'interval') => {
    if (t >= start && t < end) {
      out.objects++;
      out.objectBytes += pendingTotal;
      out.billablePutBytes += Math.max(0, pendingTotal - c.freeBytes);
      out.byReason[reason]++;
      for (const [key, bytes] of pending) {
        const ch = (out.chunks[key] ??= { count: 0, bytes: 0, billableBytes: 0 });
        ch.count++;
        ch.bytes += bytes;
        ch.billableBytes += Math.max(0, bytes - c.freeBytes);
      }
    }
    ev.put = { at: t + c.putLatencyMs + Math.floor(pendingTotal / c.putBytesPerMs), seq: seq++ };
    pending.clear();
    pendingTotal = 0;
    state = 'flushing';
  };
  for (;;) {
    // The earliest event, ties by the order scheduled.
    let kind: 'arrival' | 'timer' | 'put' = 'arrival';
    let best = 0;
    for (let i = 1; i < next.length; i++) if (next[i].at < next[best].at || (next[i].at === next[best].at && next[i].seq < next[best].seq)) best = i;
    let at = next[best].at;
    let bestSeq = next[best].seq;
    if (ev.timer !== null && (ev.timer.at < at || (ev.timer.at === at && ev.timer.seq < bestSeq))) {
      kind = 'timer';
      at = ev.timer.at;
      bestSeq = ev.timer.seq;
    }
    if (ev.put !== null && (ev.put.at < at || (ev.put.at === at && ev.put.seq < bestSeq))) {
      kind = 'put';
      at = ev.put.at;
    }
    if (at >= end) break;
    if (kind === 'arrival') {
      const a = arrivals[best];
      next[best] = { at: at + a.everyMs, seq: seq++ };
      pending.set(a.key, (pending.get(a.key) ?? 0) + a.bytes);
      pendingTotal += a.bytes;
      if (state === 'idle' || state === 'waiting') {
        if (pendingTotal >= c.maxBytes) {
          ev.timer = null;
          flush(at, 'maxBytes');
        } else if (state === 'idle') {
          state = 'waiting';
          ev.timer = { at: at + c.intervalMs, seq: seq++ };
        }
      }
    } else if (kind === 'timer') {
      ev.timer = null;
      if (state === 'waiting') {
        if (pendingTotal > 0) flush(at, 'interval');
        else state = 'idle';
      }
    } else {
      ev.put = null;
      if (pendingTotal >= c.maxBytes) flush(at, 'maxBytes');
      else if (pendingTotal > 0) {
        state = 'waiting';
        ev.timer = { at: at + c.intervalMs, seq: seq++ };
      } else state = 'idle';
    }
  }
  // Per month: every produced byte is PUT once, so the objects are the month's bytes over the
  // window's average object (exact when the objects repeat, whatever the window's edges).
  const monthBytes = (key?: string) => arrivals.filter((a) => key === undefined || a.key === key).reduce((n, a) => n + (a.bytes * MS_PER_MONTH) / a.everyMs, 0);
  const objects = out.objects > 0 ? monthBytes() / (out.objectBytes / out.objects) : 0;
  const chunks: CombinerResult['chunks'] = {};
  for (const [k, v] of Object.entries(out.chunks)) {
    const count = monthBytes(k) / (v.bytes / v.count);
    chunks[k] = { count, bytes: monthBytes(k), billableBytes: (v.billableBytes / v.count) * count };
  }
  return {
    objects,
    objectBytes: out.objects > 0 ? monthBytes() : 0,
    billablePutBytes: out.objects > 0 ? (out.billablePutBytes / out.objects) * objects : 0,
    chunks,
    // Requests a month over objects a month (the window's count of requests would carry its edges).
    requestsPerObject: objects > 0 ? arrivals.reduce((n, a) => n + MS_PER_MONTH / a.everyMs, 0) / objects : 0,
    byReason: out.byReason,
    windowMs,
  };
}

// ------------------------------------------------------------------ the remote log manager's rule

/** What a partition's replicas hold on disk and how long an upload takes, at steady state. */
export interface TieringResult {
  /** From a segment's roll until Ry covers it (its copy finished), on average (ms). */
  uploadDelayMs: number;
  /** Bytes the leader's and a follower's local log hold, averaged over time. */
  leaderHeld: number;
  followerHeld: number;
  /** Bytes the tiered store holds for the partition, averaged over time; null when the replay did not reach remote retention. */
  remoteHeld: number | null;
  /** From one leader task run's start to the next, on average (ms). */
  cycleMs: number;
  /** How it was found: replayed, or in closed form (retention far longer than a task run). */
  how: 'replayed' | 'closed';
}

export interface TieringInput {
  /** How long a segment takes to fill (ms) and its bytes. */
  fillMs: number;
  segBytes: number;
  /** Bytes produced per second. */
  rate: number;
  /** remote.log.manager.task.interval.ms */
  intervalMs: number;
  /** One segment's copy (its .log PUT) and one remote segment's delete (ms). */
  copyMs: number;
  deleteMs: number;
  /** Local retention (local.retention.* where uploads are required, else retention.*); -1 none. */
  retentionMs: number;
  retentionBytes: number;
  /** Remote retention (retention.ms / retention.bytes); -1 none. */
  remoteRetentionMs: number;
  remoteRetentionBytes: number;
  /** Rolled segments are copied to the tiered store (remote.storage.enable, copy not disabled). */
  uploads: boolean;
}

/** The most events the tiering replay runs (segments rolled plus task runs). */
const TIERING_MAX_EVENTS = 400_000;

/**
 * The remote log manager of one partition (core/machines/remote-log-manager.ts) replayed on
 * its segments, which roll every `fillMs`. Each replica's task runs at once, then
 * remote.log.manager.task.interval.ms after its previous run ENDED. A run applies local
 * retention; on the leader it then copies the copy candidates one after another (each
 * `copyMs`, the .log object's PUT), applying local retention after each, and when none is
 * left expires remote segments one after another (each `deleteMs`), then decides again, and
 * ends when there is nothing left to copy or expire. A follower
 * learns Ry at its run. Local retention (domain/retention.ts localRetentionDeletable) deletes
 * the oldest uploaded segments past its time, or while the log less that segment still holds
 * its bytes; remote retention (remoteRetentionExpired) likewise, its time inclusive, its size
 * counting the local-only bytes too. Averages are over the second half of a horizon long
 * enough to reach retention. When local retention would take more than TIERING_MAX_EVENTS to
 * reach, the closed form: retention + half a segment + half an interval's bytes, and an
 * upload delay of half an interval plus one copy; when only remote retention would,
 * `remoteHeld` is null and the caller uses its closed form.
 */
export function replayTiering(x: TieringInput): TieringResult | null {
  const { fillMs: F, segBytes, rate, intervalMs: I, copyMs: C } = x;
  const limit = retainedLimit(rate, x.retentionMs, x.retentionBytes);
  if (limit === null || !(rate > 0) || !Number.isFinite(F)) return null;
  const closed = (): TieringResult => {
    const uploadDelayMs = x.uploads ? I / 2 + C : 0;
    const leaderHeld = Math.max(limit + segBytes / 2 + (rate * I) / 2000, segBytes / 2 + (rate * uploadDelayMs) / 1000);
    const followerHeld = Math.max(limit + segBytes / 2 + (rate * I) / 2000, segBytes / 2 + (rate * (uploadDelayMs + I / 2)) / 1000);
    return { uploadDelayMs, leaderHeld, followerHeld, remoteHeld: null, cycleMs: I + C, how: 'closed' };
  };
  const events = (horizon: number) => horizon / F + (2 * horizon) / Math.max(I, 1);
  const base = Math.max(40 * (I + F + C), 4 * ((limit / rate) * 1000 + F));
  if (events(base) > TIERING_MAX_EVENTS) return closed();
  const remoteLimit = x.uploads ? retainedLimit(rate, x.remoteRetentionMs, x.remoteRetentionBytes) : null;
  const withRemote = remoteLimit !== null && events(Math.max(base, 4 * ((remoteLimit / rate) * 1000 + F))) <= TIERING_MAX_EVENTS;
  const horizon = withRemote ? Math.max(base, 4 * ((remoteLimit / rate) * 1000 + F)) : base;
  const from = horizon / 2;
  // Segment k spans [kF, (k+1)F) and rolls at (k+1)F, its last record then.
  const rolledBy = (t: number) => Math.floor(t / F + 1e-9); // segments 0..rolledBy-1 have rolled
  const held = { leader: 0, follower: 0, remote: 0 };
  const oldest = { leader: 0, follower: 0, remote: 0 };
  let ry = -1; // the last uploaded segment (index)
  let lastT = 0;
  const integrate = (t: number) => {
    const a = Math.max(lastT, from);
    if (t > a) {
      for (const who of ['leader', 'follower'] as const) {
        const s0 = oldest[who] * F;
        held[who] += (rate / 1000) * (((t - s0) ** 2 - (a - s0) ** 2) / 2);
      }
      held.remote += Math.max(0, ry + 1 - oldest.remote) * segBytes * (t - a);
    }
    lastT = Math.max(lastT, t);
  };
  const retain = (who: 'leader' | 'follower', t: number, known: number) => {
    const top = Math.min(x.uploads ? known : Number.MAX_SAFE_INTEGER, rolledBy(t) - 1);
    while (oldest[who] <= top) {
      const k = oldest[who];
      const bytes = (rate * (t - k * F)) / 1000;
      const byTime = x.retentionMs >= 0 && t - (k + 1) * F > x.retentionMs;
      const bySize = x.retentionBytes >= 0 && bytes - segBytes >= x.retentionBytes;
      if (!byTime && !bySize) break;
      oldest[who]++;
    }
  };
  /** How many remote segments expire now, oldest first. */
  const expiring = (t: number): number => {
    if (!withRemote) return 0;
    let n = 0;
    let total = (rate * (t - (ry + 1) * F)) / 1000 + (ry + 1 - oldest.remote) * segBytes;
    for (let k = oldest.remote; k <= ry; k++) {
      const byTime = x.remoteRetentionMs >= 0 && (k + 1) * F <= t - x.remoteRetentionMs;
      const bySize = x.remoteRetentionBytes >= 0 && total - segBytes >= x.remoteRetentionBytes;
      if (!byTime && !bySize) break;
      total -= segBytes;
      n++;
    }
    return n;
  };
  let leaderRun = 0;
  let runStarts = 0;
  let firstRun = -1;
  let lastRun = 0;
  let busyUntil = Infinity;
  let busy: 'copy' | 'delete' | null = null;
  let copying = -1;
  let toDelete = 0;
  let followerRun = 0;
  let delays = 0;
  let delayed = 0;
  // The leader's decision: retention, then the next candidate, then the expiry pass, then the end of its run.
  const leaderStep = (t: number) => {
    retain('leader', t, ry);
    if (x.uploads && ry + 1 < rolledBy(t)) {
      copying = ry + 1;
      busy = 'copy';
      busyUntil = t + C;
      return;
    }
    toDelete = expiring(t);
    if (toDelete > 0) {
      busy = 'delete';
      busyUntil = t + x.deleteMs;
      return;
    }
    busy = null;
    busyUntil = Infinity;
    leaderRun = t + I;
  };
  for (;;) {
    const t = Math.min(busy !== null ? busyUntil : leaderRun, followerRun);
    if (t > horizon) break;
    integrate(t);
    if (busy === 'copy' && t === busyUntil) {
      ry = copying;
      if ((copying + 1) * F >= from) {
        delays += t - (copying + 1) * F;
        delayed++;
      }
      leaderStep(t);
    } else if (busy === 'delete' && t === busyUntil) {
      oldest.remote++;
      if (--toDelete > 0) busyUntil = t + x.deleteMs;
      else leaderStep(t); // the pass done, the run decides again (retention, copies, expiry)
    } else if (busy === null && t === leaderRun) {
      if (t >= from) {
        if (firstRun < 0) firstRun = t;
        lastRun = t;
        runStarts++;
      }
      leaderStep(t);
    } else if (t === followerRun) {
      retain('follower', t, ry);
      followerRun = t + I;
    }
  }
  integrate(horizon);
  const span = horizon - from;
  if (x.uploads && delayed === 0) return closed();
  return {
    uploadDelayMs: x.uploads ? delays / delayed : 0,
    leaderHeld: held.leader / span,
    followerHeld: held.follower / span,
    remoteHeld: withRemote ? held.remote / span : null,
    cycleMs: runStarts > 1 ? (lastRun - firstRun) / (runStarts - 1) : I + C,
    how: 'replayed',
  };
}

// ------------------------------------------------------------------ the lines

const sum = (xs: readonly number[]): number => xs.reduce((n, x) => n + x, 0);

/** One input for a value that differs by topic: one entry per topic, or one when they agree. */
function perTopic(parts: readonly PartFlow[], f: (p: PartFlow) => CostInput): CostInput[] {
  const seen = new Map<string, CostInput>();
  for (const p of parts) {
    const x = f(p);
    const id = `${x.value}|${x.source}|${x.from}`;
    if (!seen.has(id)) seen.set(id, x);
  }
  const list = [...seen.values()];
  if (list.length <= 1) return list;
  return parts
    .filter((p, i, all) => all.findIndex((q) => q.topic === p.topic) === i)
    .map((p) => ({ ...f(p), name: `${f(p).name} (${p.topic})` }));
}

/** The month's cost at steady state of `s` (already set to `mode`'s switches). */
export function steadyStateCost(s: Scenario, mode: SteadyMode, opts: SteadyOptions = {}): SteadyStateCost {
  return steadyState(s, mode, opts).cost;
}

export function steadyState(s: Scenario, mode: SteadyMode, opts: SteadyOptions = {}): { cost: SteadyStateCost; facts: SteadyFacts } {
  const r = new Resolved(s);
  const parts = partitionsOf(r, opts);
  const P = r.prices;
  const M = r.model;
  const zone = (b: number) => brokerZone(s, b);
  const lines: CostLine[] = [];
  const assumptions: string[] = [];
  const warnings: string[] = [];
  const quantities: Record<string, number> = {};
  const producing = parts.filter((p) => p.rate > 0);
  const totalRate = sum(producing.map((p) => p.rate));
  const brokerCount = s.brokers + s.timeline.filter((e) => e.action.kind === 'addBroker').length;
  const zones = [...new Set(Array.from({ length: brokerCount }, (_, b) => zone(b)))];

  const monthInput: CostInput = { name: 'seconds in a month', value: MONTH_S, unit: 's', source: 'model default', from: 'core/domain/prices.ts MS_PER_MONTH (30 days)' };
  const gbInput: CostInput = { name: 'bytes in a GB', value: BYTES_PER_GB, unit: 'B', source: 'model default', from: 'core/domain/prices.ts BYTES_PER_GB (AWS bills binary GB)' };
  const rateInputs = (ps: readonly PartFlow[]): CostInput[] => {
    const streams = ps.flatMap((p) => p.streams.map((x) => ({ p, x })));
    if (streams.length === 0) return [{ name: 'produce rate', value: 0, unit: 'B/s', source: 'scenario', from: 'timeline: no repeating produce' }];
    const detail = streams
      .slice(0, 4)
      .map(({ p, x }) => `timeline[${x.index}] ${p.key}: ${x.records} records every ${x.everyMs} ms`)
      .join('; ');
    const more = streams.length > 4 ? `; and ${streams.length - 4} more` : '';
    return [
      { name: 'produce rate', value: sum(ps.map((p) => p.rate)), unit: 'B/s', source: 'scenario', from: `${detail}${more}, × model.recordBytes` },
      r.modelInput('recordBytes', 'B'),
    ];
  };
  const czPrice = r.priceInput('crossZoneUsdPerGbEachDirection', 'USD/GB each direction');
  const crossZoneUsd = (bytes: number) => (bytes / BYTES_PER_GB) * 2 * P.crossZoneUsdPerGbEachDirection;
  const add = (line: Omit<CostLine, 'usdPerMonth' | 'calculation'> & { usd: number; calc: string }, quantity: number) => {
    const usd = usdRound(line.usd);
    lines.push({ id: line.id, name: line.name, formula: line.formula, calculation: `${line.calc} = ${fmtUsd(usd)}`, inputs: line.inputs, usdPerMonth: usd });
    quantities[line.id] = quantity;
  };

  if (producing.length === 0) {
    warnings.push(
      `${NO_STEADY_STATE} the scenario has no repeating produce (a produce with everyMs that runs to the end), so nothing is produced at steady state; ` +
        `every traffic line is $0 and the data present at t = 0 is not priced. The run-measured month is all there is.`,
    );
  }

  // ---- cross-zone: replication
  const classicParts = producing.filter((p) => !(mode === 'wal' && p.wal));
  const walParts = producing.filter((p) => mode === 'wal' && p.wal);
  const combiners = walParts.length > 0 ? combinerResults(r, walParts) : new Map<number, CombinerResult>();
  {
    const crossing = (p: PartFlow) => p.followers.filter((f) => zone(f) !== zone(p.leader)).length;
    const fetchBytes = sum(classicParts.map((p) => p.rate * MONTH_S * crossing(p)));
    const copies = classicParts.length === 0 ? 0 : sum(classicParts.map((p) => p.rate * crossing(p))) / sum(classicParts.map((p) => p.rate));
    const placement = describePlacement(classicParts.length > 0 ? classicParts : parts, zone);
    // KIP-1176: the WAL metadata records (core/sim/wal.ts walPublish), one per chunk: writer ->
    // metadata leader (the lowest live broker id), the leader -> its other replicas (the
    // lowest ids, RF up to 3), the leader -> each follower of the chunk's partition.
    const metaLeader = 0;
    const metaReplicas = Array.from({ length: Math.min(3, brokerCount) }, (_, b) => b);
    const hops = (p: PartFlow) =>
      (zone(p.leader) !== zone(metaLeader) ? 1 : 0) +
      metaReplicas.filter((b) => b !== metaLeader && zone(b) !== zone(metaLeader)).length +
      p.followers.filter((f) => zone(f) !== zone(metaLeader)).length;
    const chunksOf = (p: PartFlow) => combiners.get(p.leader)?.chunks[p.key]?.count ?? 0;
    const walBytes = sum(walParts.map((p) => chunksOf(p) * M.walMetadataRecordBytes * hops(p)));
    const bytes = fetchBytes + walBytes;
    if (mode === 'wal' && walParts.length > 0) {
      const chunks = sum(walParts.map(chunksOf));
      const hopsAvg = chunks > 0 ? walBytes / (chunks * M.walMetadataRecordBytes) : 0;
      const classicPart = classicParts.length > 0 ? ` + Fetch copies of the partitions without the WAL (${fmtNum(fetchBytes)} B)` : '';
      add(
        {
          id: 'crossZoneReplication',
          name: 'cross-zone replication',
          formula:
            'WAL metadata records a month × record bytes × hops across zones per record (writer → metadata leader, leader → its replicas, leader → each follower) × 2 × cross-zone price ÷ bytes in a GB (followers read records from the fast store: no record crosses zones by Fetch)',
          calc: `${fmtNum(chunks)} records × ${M.walMetadataRecordBytes} B × ${fmtNum(hopsAvg)} hops${classicPart} × 2 × $${P.crossZoneUsdPerGbEachDirection} ÷ ${GIB}`,
          inputs: [
            { name: 'WAL metadata records a month (one per chunk)', value: chunks, unit: 'records', source: 'derived', from: "the combiner's rule replayed (see the fast store PUT line)" },
            r.modelInput('walMetadataRecordBytes', 'B'),
            { name: 'hops across zones per record', value: hopsAvg, unit: 'hops', source: 'derived', from: `${placement}; __remote_wal_log_metadata led by broker ${metaLeader} (zone ${zone(metaLeader)}), replicas ${metaReplicas.join(', ')} (core/sim/wal.ts)` },
            czPrice,
            gbInput,
          ],
          usd: crossZoneUsd(bytes),
        },
        bytes,
      );
    } else {
      add(
        {
          id: 'crossZoneReplication',
          name: 'cross-zone replication',
          formula: 'produce rate × seconds in a month × follower copies that cross zones × 2 × cross-zone price ÷ bytes in a GB (each follower fetches every byte from its leader)',
          calc: `${fmtNum(totalRate)} B/s × ${fmtNum(MONTH_S)} s × ${fmtNum(copies)} copies × 2 × $${P.crossZoneUsdPerGbEachDirection} ÷ ${GIB}`,
          inputs: [
            ...rateInputs(producing),
            monthInput,
            { name: 'follower copies that cross zones', value: copies, unit: 'per produced byte', source: 'derived', from: placement },
            czPrice,
            gbInput,
          ],
          usd: crossZoneUsd(bytes),
        },
        bytes,
      );
    }
  }

  // ---- cross-zone: clients
  const clientZone = M.clientZone;
  const clientInput = r.modelInput('clientZone', 'zone');
  const spread = zones.length > 1 ? (zones.length - 1) / zones.length : 0;
  {
    const far = (p: PartFlow) => clientZone !== '' && clientZone !== zone(p.leader);
    const bytes = sum(producing.map((p) => (far(p) ? p.rate * MONTH_S : 0)));
    const fraction = totalRate > 0 ? bytes / (totalRate * MONTH_S) : 0;
    add(
      {
        id: 'crossZoneProduce',
        name: 'producer cross-zone',
        formula: "produce rate × seconds in a month × share of produced bytes whose leader is in another zone than the producer × 2 × cross-zone price ÷ bytes in a GB",
        calc: `${fmtNum(totalRate)} B/s × ${fmtNum(MONTH_S)} s × ${fmtNum(fraction)} × 2 × $${P.crossZoneUsdPerGbEachDirection} ÷ ${GIB}`,
        inputs: [...rateInputs(producing), monthInput, clientInput, { name: 'share across zones', value: fraction, unit: 'fraction', source: 'derived', from: clientZone === '' ? "clientZone '': the producer is in each leader's zone" : `leaders' zones against clientZone ${clientZone}` }, czPrice, gbInput],
        usd: crossZoneUsd(bytes),
      },
      bytes,
    );
    const spreadUsd = crossZoneUsd(totalRate * MONTH_S * spread);
    assumptions.push(
      clientZone === ''
        ? `Clients sit in one zone: model.clientZone '' (the default) puts the producer and consumers in each partition leader's zone, so they never cross zones to reach it. Spread evenly over the ${zones.length} zone${zones.length === 1 ? '' : 's'} (${zones.join(', ')}), a producer would reach a leader in another zone ${zones.length - 1} time${zones.length === 2 ? '' : 's'} in ${zones.length}: ${usdWords(spreadUsd)} a month more, and each consumer group reading everything as much again.`
        : `Clients sit in one zone: model.clientZone ${clientZone}; partitions whose leader is elsewhere cross zones for every produced and consumed byte. Spread evenly over the ${zones.length} zones the share would be ${zones.length - 1} in ${zones.length} (the producer: ${usdWords(spreadUsd)} a month).`,
    );
  }
  {
    const consumerZone = (p: PartFlow) => (clientZone !== '' ? clientZone : zone(p.leader));
    const bytes = sum(producing.map((p) => (consumerZone(p) !== zone(p.readFrom) ? p.rate * MONTH_S * p.fanout : 0)));
    const read = sum(producing.map((p) => p.rate * p.fanout));
    const fanout = totalRate > 0 ? read / totalRate : 0;
    const fraction = read > 0 ? bytes / (read * MONTH_S) : 0;
    const fanoutFrom =
      opts.readFanout !== undefined
        ? 'the readFanout option'
        : "records the scenario's consume events read ÷ records its produces write over the run, at most 1 per consume event (consumers reading at the tail)";
    add(
      {
        id: 'crossZoneConsume',
        name: 'consumer cross-zone',
        formula: 'produce rate × read fan-out × seconds in a month × share of read bytes served from another zone than the consumer × 2 × cross-zone price ÷ bytes in a GB',
        calc: `${fmtNum(totalRate)} B/s × ${fmtNum(fanout)} × ${fmtNum(MONTH_S)} s × ${fmtNum(fraction)} × 2 × $${P.crossZoneUsdPerGbEachDirection} ÷ ${GIB}`,
        inputs: [
          ...rateInputs(producing),
          { name: 'read fan-out', value: fanout, unit: 'reads per produced byte', source: opts.readFanout !== undefined ? 'scenario' : 'derived', from: fanoutFrom },
          monthInput,
          clientInput,
          { name: 'share across zones', value: fraction, unit: 'fraction', source: 'derived', from: 'the consumer zone against the broker each consume reads from (the leader unless it names one)' },
          czPrice,
          gbInput,
        ],
        usd: crossZoneUsd(bytes),
      },
      bytes,
    );
    assumptions.push(
      fanout === 0
        ? 'No consumer: the scenario has no consume event, so nothing is read at steady state (a consumer group reading everything at the tail would read each produced byte once, from the leader\'s local log).'
        : `Consumers read ${fmtNum(fanout)} times what is produced (${fanoutFrom}), at the tail, from the local log: no tiered-store GET. A consumer behind the local log start would GET each segment's range from the tiered store.`,
    );
  }

  // ---- the tiered store
  const tieredParts = parts.filter((p) => p.tiered);
  const uploading = producing.filter((p) => p.uploads);
  const I = r.broker['remote.log.manager.task.interval.ms'];
  const copyMs = (p: PartFlow) => M.tieredPutLatencyMs + Math.floor(p.seg.bytes / M.tieredPutBytesPerMs);
  // The remote log manager's rule replayed per partition: the upload delay and the bytes each replica holds.
  const tiering = new Map<string, TieringResult | null>();
  for (const p of producing) {
    tiering.set(
      p.key,
      replayTiering({
        fillMs: p.seg.fillMs,
        segBytes: p.seg.bytes,
        rate: p.rate,
        intervalMs: I,
        copyMs: copyMs(p),
        deleteMs: M.tieredDeleteLatencyMs,
        remoteRetentionMs: p.cfg['retention.ms'],
        remoteRetentionBytes: p.cfg['retention.bytes'],
        retentionMs: p.uploads ? effectiveLocalRetentionMs(p.cfg) : p.cfg['retention.ms'],
        retentionBytes: p.uploads ? effectiveLocalRetentionBytes(p.cfg) : p.cfg['retention.bytes'],
        uploads: p.uploads,
      }),
    );
  }
  // From a roll until the copy has finished and Ry covers the segment (without a retention limit: half an interval and a copy).
  const uploadDelayMs = (p: PartFlow) => tiering.get(p.key)?.uploadDelayMs ?? I / 2 + copyMs(p);
  const remoteRetained = (p: PartFlow) => retainedLimit(p.rate, p.cfg['retention.ms'], p.cfg['retention.bytes']);
  if (tieredParts.length > 0) {
    const segs = sum(uploading.map((p) => (p.rate * MONTH_S) / p.seg.bytes));
    const segInputs = perTopic(uploading.length > 0 ? uploading : tieredParts, (p) => segmentSizeInput(r, p));
    const fillInputs: CostInput[] = uploading.map((p) => ({
      name: uploading.length > 1 ? `bytes in one rolled segment (${p.key})` : 'bytes in one rolled segment',
      value: p.seg.bytes,
      unit: 'B',
      source: 'derived',
      from:
        p.seg.how === 'packed'
          ? `the producer's batches (${fmtNum(p.seg.batches)} a segment, model.producerBatchBytes ${M.producerBatchBytes}) packed as appendBatch rolls (${p.seg.rollBy})`
          : `min(segment size, produce rate × segment.ms) (${p.seg.rollBy})`,
    }));
    const putPrice = r.priceInput('tieredPutUsdPer1000', 'USD per 1000');
    add(
      {
        id: 'tieredPut',
        name: 'tiered store PUT',
        formula: `segments uploaded a month (produce rate × seconds in a month ÷ bytes in one rolled segment) × ${OBJECTS_PER_SEGMENT} objects each (.log, .index, leader-epoch checkpoint, producer snapshot) × PUT price ÷ 1000`,
        calc: `${fmtNum(segs)} segments × ${OBJECTS_PER_SEGMENT} × $${P.tieredPutUsdPer1000} ÷ 1000`,
        inputs: [...rateInputs(uploading), monthInput, ...segInputs, ...fillInputs, { name: 'objects a segment upload writes', value: OBJECTS_PER_SEGMENT, unit: 'objects', source: 'model default', from: 'core/sim/tiering.ts segmentObjects (RLMCopyTask.copyLogSegment)' }, putPrice],
        usd: (segs * OBJECTS_PER_SEGMENT * P.tieredPutUsdPer1000) / 1000,
      },
      segs * OBJECTS_PER_SEGMENT,
    );
    add(
      {
        id: 'tieredGet',
        name: 'tiered store GET',
        formula: 'GETs a month × GET price ÷ 1000; at steady state no one reads the tiered store (followers fetch from the leader, consumers read at the tail)',
        calc: `0 GETs × $${P.tieredGetUsdPer1000} ÷ 1000`,
        inputs: [r.priceInput('tieredGetUsdPer1000', 'USD per 1000')],
        usd: 0,
      },
      0,
    );
    const expiring = uploading.filter((p) => remoteRetained(p) !== null);
    const deletes = sum(expiring.map((p) => (p.rate * MONTH_S) / p.seg.bytes)) * OBJECTS_PER_SEGMENT;
    add(
      {
        id: 'tieredDelete',
        name: 'tiered store DELETE',
        formula: `segments expired a month (as many as are uploaded, once remote retention is reached) × ${OBJECTS_PER_SEGMENT} objects × DELETE price ÷ 1000`,
        calc: `${fmtNum(deletes / OBJECTS_PER_SEGMENT)} segments × ${OBJECTS_PER_SEGMENT} × $${P.tieredDeleteUsdPer1000} ÷ 1000`,
        inputs: [...perTopic(tieredParts, (p) => r.topicInput(p.topic, 'retention.ms', 'ms')), ...perTopic(tieredParts, (p) => r.topicInput(p.topic, 'retention.bytes', 'B')), r.priceInput('tieredDeleteUsdPer1000', 'USD per 1000')],
        usd: (deletes * P.tieredDeleteUsdPer1000) / 1000,
      },
      deletes,
    );
    // Upload bytes: the four objects of each segment, each billed above the store's free part.
    const free = P.tieredFreeTransferPerRequestBytes;
    const cpBytes = formatCheckpoint([[0, 0]]).length;
    const snapBytes = producerSnapshotBytes([{ producerId: 1, producerEpoch: 0, lastSequence: 0, lastOffset: 0, offsetDelta: 0, timestamp: 0, coordinatorEpoch: -1, currentTxnFirstOffset: -1 }]);
    const perSeg = (p: PartFlow) => [p.seg.bytes, 8 * p.seg.batches, cpBytes, snapBytes];
    const upBytes = sum(uploading.map((p) => ((p.rate * MONTH_S) / p.seg.bytes) * sum(perSeg(p).map((b) => Math.max(0, b - free)))));
    const avgObjects = uploading.length > 0 ? perSeg(uploading[0]) : [0, 0, cpBytes, snapBytes];
    add(
      {
        id: 'tieredTransfer',
        name: 'tiered store upload and retrieval',
        formula: 'segments uploaded a month × bytes of its objects above the free part of a request × upload price ÷ bytes in a GB + bytes retrieved (none) × retrieval price',
        calc: `${fmtNum(segs)} segments × (${avgObjects.map((b) => fmtNum(Math.max(0, b - free))).join(' + ')}) B × $${P.tieredUploadUsdPerGb} ÷ ${GIB} + 0 B × $${P.tieredRetrievalUsdPerGb}`,
        inputs: [
          { name: 'objects of one segment', value: avgObjects.map((b) => fmtNum(b)).join(' + '), unit: 'B', source: 'derived', from: '.log (the segment), .index (8 B a batch), leader-epoch checkpoint, producer snapshot (one producer): core/sim/tiering.ts' },
          r.priceInput('tieredFreeTransferPerRequestBytes', 'B'),
          r.priceInput('tieredUploadUsdPerGb', 'USD/GB'),
          r.priceInput('tieredRetrievalUsdPerGb', 'USD/GB'),
        ],
        usd: (upBytes / BYTES_PER_GB) * P.tieredUploadUsdPerGb,
      },
      upBytes,
    );
  }

  // ---- the fast store (KIP-1176)
  let walHeldBytes = 0;
  let walHoldMs: number | null = null;
  if (walParts.length > 0) {
    const all = [...combiners.values()];
    const objects = sum(all.map((c) => c.objects));
    const objectBytes = sum(all.map((c) => c.objectBytes));
    const billablePut = sum(all.map((c) => c.billablePutBytes));
    const gets = sum(walParts.map((p) => (combiners.get(p.leader)?.chunks[p.key]?.count ?? 0) * p.followers.length));
    const getBytes = sum(walParts.map((p) => (combiners.get(p.leader)?.chunks[p.key]?.bytes ?? 0) * p.followers.length));
    const billableGet = sum(walParts.map((p) => (combiners.get(p.leader)?.chunks[p.key]?.billableBytes ?? 0) * p.followers.length));
    const interval = r.brokerInput('wal.combine.interval.ms', 'ms');
    const maxBytes = r.brokerInput('wal.combine.max.bytes', 'B');
    const objectsPerSec = objects / MONTH_S;
    const avgObject = objects > 0 ? objectBytes / objects : 0;
    const perObject = all.length > 0 ? sum(all.map((c) => c.requestsPerObject * c.objects)) / Math.max(1, objects) : 0;
    const byMax = sum(all.map((c) => c.byReason.maxBytes));
    const byInterval = sum(all.map((c) => c.byReason.interval));
    const rule: CostInput = {
      name: 'WAL objects a month',
      value: objects,
      unit: 'objects',
      source: 'derived',
      from: `the combiner's rule (core/machines/wal-combiner.ts) replayed on the produce cadence for ${fmtNum(all[0]?.windowMs ?? 0)} ms: ${fmtNum(objectsPerSec)} objects/s, ${fmtNum(avgObject)} B each, ${fmtNum(perObject)} produce request${perObject === 1 ? '' : 's'} each`,
    };
    add(
      {
        id: 'walPut',
        name: 'fast store PUT',
        formula: 'WAL objects a month (one per combiner flush, every broker) × PUT price ÷ 1000',
        calc: `${fmtNum(objects)} objects × $${P.walPutUsdPer1000} ÷ 1000`,
        inputs: [rule, ...rateInputs(walParts), interval, maxBytes, r.modelInput('walPutLatencyMs', 'ms'), r.modelInput('walPutBytesPerMs', 'B/ms'), r.priceInput('walPutUsdPer1000', 'USD per 1000')],
        usd: (objects * P.walPutUsdPer1000) / 1000,
      },
      objects,
    );
    const followers = gets > 0 && objects > 0 ? gets / sum(walParts.map((p) => combiners.get(p.leader)?.chunks[p.key]?.count ?? 0)) : 0;
    add(
      {
        id: 'walGet',
        name: 'fast store GET',
        formula: "chunks a month (one per partition in each object) × followers (each reads its chunk's byte range with one ranged GET) × GET price ÷ 1000",
        calc: `${fmtNum(gets / Math.max(followers, 1))} chunks × ${fmtNum(followers)} followers × $${P.walGetUsdPer1000} ÷ 1000`,
        inputs: [rule, { name: 'followers per partition', value: followers, unit: 'replicas', source: 'derived', from: describePlacement(walParts, zone) }, r.priceInput('walGetUsdPer1000', 'USD per 1000')],
        usd: (gets * P.walGetUsdPer1000) / 1000,
      },
      gets,
    );
    add(
      {
        id: 'walDelete',
        name: 'fast store DELETE',
        formula: 'WAL objects deleted a month (each object once its chunks are tiered or past local retention: as many as are written) × DELETE price ÷ 1000',
        calc: `${fmtNum(objects)} objects × $${P.walDeleteUsdPer1000} ÷ 1000`,
        inputs: [rule, r.priceInput('walDeleteUsdPer1000', 'USD per 1000')],
        usd: (objects * P.walDeleteUsdPer1000) / 1000,
      },
      objects,
    );
    add(
      {
        id: 'walTransfer',
        name: 'fast store upload and retrieval',
        formula: "bytes PUT a month above the free part of each request × upload price ÷ bytes in a GB + bytes of the followers' ranged GETs above the free part × retrieval price ÷ bytes in a GB",
        calc: `${fmtNum(billablePut)} B × $${P.walUploadUsdPerGb} ÷ ${GIB} + ${fmtNum(billableGet)} B × $${P.walRetrievalUsdPerGb} ÷ ${GIB}`,
        inputs: [
          { name: 'bytes PUT a month', value: objectBytes, unit: 'B', source: 'derived', from: 'every produced byte of a WAL partition, once' },
          { name: "bytes of the followers' GETs a month", value: getBytes, unit: 'B', source: 'derived', from: 'every produced byte, once per follower' },
          r.priceInput('walFreeTransferPerRequestBytes', 'B'),
          r.priceInput('walUploadUsdPerGb', 'USD/GB'),
          r.priceInput('walRetrievalUsdPerGb', 'USD/GB'),
        ],
        usd: (billablePut / BYTES_PER_GB) * P.walUploadUsdPerGb + (billableGet / BYTES_PER_GB) * P.walRetrievalUsdPerGb,
      },
      billablePut + billableGet,
    );
    // What the WAL holds: a chunk's object stays until the chunk's segment is tiered (it
    // fills for F / 2 on average, then the upload delay) or the chunk is past local
    // retention, or, on a topic that is not tiered, below the log start offset.
    let holdAll = 0;
    for (const p of walParts) {
      const c = combiners.get(p.leader);
      const publishEveryMs = c !== undefined && c.objects > 0 ? MS_PER_MONTH / c.objects : 0;
      const hold = walHold(p, uploadDelayMs(p), publishEveryMs);
      if (hold === null) {
        warnings.push(`The fast store grows without bound on ${p.key}: its WAL objects are never tiered and no retention removes them (local.retention.ms and retention.* are -1); priced at half a month of production.`);
        walHeldBytes += (p.rate * MONTH_S) / 2;
        continue;
      }
      walHeldBytes += (p.rate * hold) / 1000;
      holdAll = Math.max(holdAll, hold);
    }
    walHoldMs = holdAll;
    const bySize = byMax > 0 && byInterval === 0;
    assumptions.push(
      `KIP-1176 batching: the producer sends ${walParts
        .flatMap((p) => p.streams.map((x) => `${x.records} records (${fmtNum(x.bytes)} B) every ${x.everyMs} ms to ${p.key}`))
        .slice(0, 3)
        .join(', ')} (the timeline's produce cadence stands in for the producer's linger.ms; model.producerBatchBytes ${M.producerBatchBytes}, Kafka's batch.size, cuts each request into batches). ` +
        `The combiner flushes an object wal.combine.interval.ms (${r.broker['wal.combine.interval.ms']} ms) after bytes arrive, or at once when wal.combine.max.bytes (${r.broker['wal.combine.max.bytes']} B) are pending, one PUT at a time: ` +
        `${fmtNum(objectsPerSec)} objects a second, ${fmtNum(avgObject)} B on average, ${fmtNum(perObject)} produce request${perObject === 1 ? '' : 's'} each (${bySize ? 'every flush by size' : byMax === 0 ? 'every flush by the interval' : `${byMax} by size, ${byInterval} by the interval in the window`}). ` +
        `Why the cost depends on it: the fast store bills each PUT and each follower's GET, and one object (one chunk per partition) is written per flush whatever its size, so the same bytes cost ${bySize ? 'more if sent in requests below wal.combine.max.bytes (each waits up to the interval and flushes alone or with a few others)' : 'less if sent in fewer, larger requests (at or above wal.combine.max.bytes each flushes at once in one object)'}; the per-GB fees do not change with the batching${P.walFreeTransferPerRequestBytes > 0 ? ', except for the free part of each request' : ''}.`,
    );
  }

  // ---- storage
  const months = (bytes: number) => bytes / BYTES_PER_GB;
  {
    let held = 0;
    const replicas = sum(producing.map((p) => p.replicas.length)) / Math.max(1, producing.length);
    for (const p of producing) {
      const h = tiering.get(p.key) ?? null;
      if (h === null) {
        warnings.push(`Local disks grow without bound on ${p.key}: retention.ms and retention.bytes are -1 (and so local retention); priced at half a month of production.`);
        held += ((p.rate * MONTH_S) / 2) * p.replicas.length;
      } else held += h.leaderHeld + h.followerHeld * p.followers.length;
    }
    const retentionInputs = [
      ...perTopic(producing, (p) => (p.uploads ? r.topicInput(p.topic, 'local.retention.ms', 'ms') : r.topicInput(p.topic, 'retention.ms', 'ms'))),
      ...perTopic(producing, (p) => (p.uploads ? r.topicInput(p.topic, 'local.retention.bytes', 'B') : r.topicInput(p.topic, 'retention.bytes', 'B'))),
      ...(producing.some((p) => p.uploads && (p.cfg['local.retention.ms'] === -2 || p.cfg['local.retention.bytes'] === -2))
        ? [...perTopic(producing, (p) => r.topicInput(p.topic, 'retention.ms', 'ms')), ...perTopic(producing, (p) => r.topicInput(p.topic, 'retention.bytes', 'B'))]
        : []),
    ];
    const perReplica = producing.length > 0 ? held / sum(producing.map((p) => p.replicas.length)) : 0;
    add(
      {
        id: 'storageLocal',
        name: 'storage: local disks',
        formula:
          'replicas × bytes each holds (min(rate × local retention ms, local retention bytes) + half a segment (the oldest is kept whole, the active one fills) + rate × half a task interval (retention runs with the remote log manager task); at least the active half segment and what waits for its upload) × disk price ÷ bytes in a GB',
        calc: `${fmtNum(replicas)} replicas × ${fmtNum(perReplica)} B × $${P.localDiskUsdPerGbMonth} ÷ ${GIB}`,
        inputs: [
          ...rateInputs(producing),
          { name: 'replicas per partition', value: replicas, unit: 'replicas', source: 'scenario', from: 'topics[].replicas (and addReplica)' },
          ...retentionInputs,
          ...perTopic(producing, (p) => segmentSizeInput(r, p)),
          r.brokerInput('remote.log.manager.task.interval.ms', 'ms'),
          { name: 'bytes one replica holds', value: perReplica, unit: 'B', source: 'derived', from: 'the formula' },
          r.priceInput('localDiskUsdPerGbMonth', 'USD per GB-month'),
        ],
        usd: months(held) * P.localDiskUsdPerGbMonth,
      },
      held,
    );
  }
  if (tieredParts.length > 0) {
    let held = 0;
    for (const p of uploading) {
      const limit = remoteRetained(p);
      if (limit === null) {
        warnings.push(`The tiered store grows without bound on ${p.key}: retention.ms and retention.bytes are -1; priced at half a month of production, and it grows by ${fmtNum(p.rate * MONTH_S)} B every month.`);
        held += (p.rate * MONTH_S) / 2;
      } else {
        const t = tiering.get(p.key) ?? null;
        held += t?.remoteHeld ?? Math.max(0, limit + (p.rate * ((t?.cycleMs ?? I) / 2 - uploadDelayMs(p))) / 1000);
      }
    }
    add(
      {
        id: 'storageTiered',
        name: 'storage: tiered store',
        formula: 'min(rate × retention.ms, retention.bytes) per partition (what remote retention keeps, less what is not uploaded yet, plus what waits for the next expiry run) × storage price ÷ bytes in a GB',
        calc: `${fmtNum(held)} B × $${P.tieredStorageUsdPerGbMonth} ÷ ${GIB}`,
        inputs: [
          ...rateInputs(uploading),
          ...perTopic(tieredParts, (p) => r.topicInput(p.topic, 'retention.ms', 'ms')),
          ...perTopic(tieredParts, (p) => r.topicInput(p.topic, 'retention.bytes', 'B')),
          r.brokerInput('remote.log.manager.task.interval.ms', 'ms'),
          r.priceInput('tieredStorageUsdPerGbMonth', 'USD per GB-month'),
        ],
        usd: months(held) * P.tieredStorageUsdPerGbMonth,
      },
      held,
    );
  }
  if (walParts.length > 0) {
    add(
      {
        id: 'storageWal',
        name: 'storage: fast store',
        formula:
          "rate × how long a WAL object stays (until its chunk's segment is tiered: half a segment's fill time plus the upload delay, or the chunk is past local retention) × storage price ÷ bytes in a GB",
        calc: `${fmtNum(walHeldBytes)} B × $${P.walStorageUsdPerGbMonth} ÷ ${GIB}`,
        inputs: [
          ...rateInputs(walParts),
          { name: 'how long an object stays', value: walHoldMs ?? 0, unit: 'ms', source: 'derived', from: 'core/sim/wal.ts walObjectDeletable: tiered (Ry), below the log start, or past local retention' },
          r.brokerInput('remote.log.manager.task.interval.ms', 'ms'),
          r.modelInput('tieredPutLatencyMs', 'ms'),
          r.modelInput('tieredPutBytesPerMs', 'B/ms'),
          r.priceInput('walStorageUsdPerGbMonth', 'USD per GB-month'),
        ],
        usd: months(walHeldBytes) * P.walStorageUsdPerGbMonth,
      },
      walHeldBytes,
    );
  }

  // ---- what the figure assumes, whatever the design
  assumptions.unshift(
    "Steady state: the timeline's repeating produces run for ever at their rate; one-off produces and consumes, crashes, elections, store outages and throttles are left out (leaders as assigned, addReplica and setConfig applied). Every replica stays in the ISR.",
    'A month is 30 days (2,592,000 s) and a GB 2^30 bytes (core/domain/prices.ts); prices are the table of docs/protocol.md §8 unless the scenario\'s prices block sets them.',
  );
  if (mode === 'kip1023') assumptions.push('KIP-1023 changes only where an empty follower starts fetching; once every replica is in the ISR it costs what classic KIP-405 does.');
  if (mode !== 'wal' || walParts.length === 0) assumptions.push('Replication: each follower fetches every produced byte from its leader; only the record bytes are priced (no request or response headers).');
  if (tieredParts.length > 0) {
    assumptions.push(
      `Storage is the average held over time: a replica keeps its local retention plus half a segment (the active one fills, the oldest waits to expire whole) plus what is produced in half a remote.log.manager.task.interval.ms (${I} ms; local retention runs with that task in the model); the tiered store keeps its retention, to within a segment. Local retention here: ${localRetentionWords(tieredParts)}.`,
    );
  }
  assumptions.push(
    'Object-store requests carry no cross-zone fee in the model (core/sim/costs.ts counts cross-zone bytes only between brokers and clients); the model makes no LIST requests; request headers, retries, Kafka\'s __remote_log_metadata topic and the brokers\' instances are not priced.',
  );

  // Checks of the configuration against the rates.
  for (const p of uploading) {
    if (copyMs(p) > p.seg.fillMs) warnings.push(`Uploads fall behind on ${p.key}: one segment's copy takes ${fmtNum(copyMs(p))} ms (model.tieredPutLatencyMs + segment / model.tieredPutBytesPerMs) and a segment fills in ${fmtNum(p.seg.fillMs)} ms; local disks then grow without bound.`);
  }

  const month = usdRound(sum(lines.map((l) => l.usdPerMonth)));
  const fills = producing.map((p) => p.seg.fillMs).filter((x) => Number.isFinite(x));
  const localReached = producing.map((p) => timeToReach(p.rate, p.uploads ? effectiveLocalRetentionMs(p.cfg) : p.cfg['retention.ms'], p.uploads ? effectiveLocalRetentionBytes(p.cfg) : p.cfg['retention.bytes'], p.seg));
  const remoteReached = uploading.map((p) => timeToReach(p.rate, p.cfg['retention.ms'], p.cfg['retention.bytes'], p.seg));
  return {
    cost: { month, lines, assumptions, warnings },
    facts: {
      bytesPerSec: totalRate,
      tiered: tieredParts.length > 0,
      wal: walParts.length > 0,
      segmentFillMs: fills.length > 0 ? Math.max(...fills) : null,
      localRetentionReachedMs: maxOrNull(localReached),
      remoteRetentionReachedMs: maxOrNull(remoteReached),
      walCleanupReachedMs: walParts.length > 0 ? walHoldMs : null,
      quantities,
    },
  };
}

/** Each topic's effective local retention in words ("orders: 7 days (local.retention.ms -2: retention.ms)"). */
function localRetentionWords(parts: readonly PartFlow[]): string {
  const topics = parts.filter((p, i, all) => all.findIndex((q) => q.topic === p.topic) === i);
  return topics
    .map((p) => {
      const ms = effectiveLocalRetentionMs(p.cfg);
      const bytes = effectiveLocalRetentionBytes(p.cfg);
      const msText = ms < 0 ? 'no time limit' : `${formatDays(ms)}${p.cfg['local.retention.ms'] === -2 ? ' (local.retention.ms -2: retention.ms)' : ''}`;
      const bytesText = bytes < 0 ? 'no size limit' : `${fmtNum(bytes)} B${p.cfg['local.retention.bytes'] === -2 ? ' (local.retention.bytes -2: retention.bytes)' : ''}`;
      return `${p.topic}: ${msText}, ${bytesText}`;
    })
    .join('; ');
}

function formatDays(ms: number): string {
  if (ms >= 86_400_000) return `${fmtNum(ms / 86_400_000)} day${ms === 86_400_000 ? '' : 's'}`;
  if (ms >= 3_600_000) return `${fmtNum(ms / 3_600_000)} h`;
  if (ms >= 1000) return `${fmtNum(ms / 1000)} s`;
  return `${ms} ms`;
}

function maxOrNull(xs: Array<number | null>): number | null {
  if (xs.length === 0 || xs.some((x) => x === null)) return null;
  return Math.max(...(xs as number[]));
}

/** When retention first deletes: the first segment is past the limit (null: no limit). */
function timeToReach(rate: number, ms: number, bytes: number, seg: SegmentFill): number | null {
  const byTime = ms >= 0 ? ms + seg.fillMs : Infinity;
  const bySize = bytes >= 0 && rate > 0 ? ((bytes + seg.bytes) / rate) * 1000 : Infinity;
  const t = Math.min(byTime, bySize);
  return Number.isFinite(t) ? t : null;
}

/** What retention keeps by time and size, the tighter of the two (null: neither limits). */
function retainedLimit(rate: number, ms: number, bytes: number): number | null {
  const byTime = ms >= 0 ? (rate * ms) / 1000 : Infinity;
  const bySize = bytes >= 0 ? bytes : Infinity;
  const x = Math.min(byTime, bySize);
  return Number.isFinite(x) ? x : null;
}

/** How long a WAL object stays, on average (ms; null: for ever). */
function walHold(p: PartFlow, uploadDelayMs: number, publishEveryMs: number): number | null {
  let hold = p.tiered ? p.seg.lastBatchRollWaitMs + uploadDelayMs + publishEveryMs / 2 : Infinity;
  const local = effectiveLocalRetentionMs(p.cfg);
  if (local >= 0) hold = Math.min(hold, local);
  if (!p.tiered) {
    // Below the log start: log retention deleted the chunk's segment.
    const byTime = p.cfg['retention.ms'] >= 0 ? p.cfg['retention.ms'] + p.seg.fillMs / 2 : Infinity;
    const bySize = p.cfg['retention.bytes'] >= 0 && p.rate > 0 ? ((p.cfg['retention.bytes'] + p.seg.bytes / 2) / p.rate) * 1000 : Infinity;
    hold = Math.min(hold, byTime, bySize);
  }
  return Number.isFinite(hold) ? hold : null;
}

function segmentSizeInput(r: Resolved, p: PartFlow): CostInput {
  return p.cfg[INTERNAL_SEGMENT_BYTES] !== undefined ? r.topicInput(p.topic, INTERNAL_SEGMENT_BYTES, 'B', 'internal.segment.bytes (segment size)') : r.topicInput(p.topic, 'segment.bytes', 'B');
}

function describePlacement(parts: readonly PartFlow[], zone: (b: number) => string): string {
  const shown = parts.slice(0, 3).map((p) => `${p.key}: leader ${p.leader} (zone ${zone(p.leader)}), followers ${p.followers.map((f) => `${f} (${zone(f)})`).join(', ') || 'none'}`);
  return `${shown.join('; ')}${parts.length > 3 ? `; and ${parts.length - 3} more partitions` : ''} (scenario topics[].replicas, zones)`;
}

function combinerResults(r: Resolved, walParts: readonly PartFlow[]): Map<number, CombinerResult> {
  const byBroker = new Map<number, Array<{ key: string; at: number; everyMs: number; bytes: number; index: number }>>();
  for (const p of walParts) {
    const list = byBroker.get(p.leader) ?? [];
    for (const x of p.streams) list.push({ key: p.key, at: x.at, everyMs: x.everyMs, bytes: x.bytes, index: x.index });
    byBroker.set(p.leader, list);
  }
  const out = new Map<number, CombinerResult>();
  for (const [b, list] of byBroker) {
    list.sort((x, y) => x.index - y.index);
    out.set(
      b,
      replayCombiner(list, {
        intervalMs: r.broker['wal.combine.interval.ms'],
        maxBytes: r.broker['wal.combine.max.bytes'],
        putLatencyMs: r.model.walPutLatencyMs,
        putBytesPerMs: r.model.walPutBytesPerMs,
        freeBytes: r.prices.walFreeTransferPerRequestBytes,
      }),
    );
  }
  return out;
}

/**
 * The same lines measured in a run: its counters (core/sim/costs.ts) over `endMs` of
 * simulated time, scaled to a month at the same rate (today's extrapolation, line by line),
 * and each store's bytes held averaged over the run. The cross-check of the steady state:
 * lines that a run reaches quickly (traffic, requests) agree once it is long enough; storage
 * lines agree only after the run has reached the retention they hold.
 */
export function measuredMonthByLine(
  m: { crossZoneBytes: CrossZoneBytes; objectStore: Record<StoreName, StoreCounters> },
  u: Usage,
  P: Prices,
  endMs: number,
): Record<string, { usdPerMonth: number; quantity: number }> {
  if (!(endMs > 0)) return {};
  const scale = MS_PER_MONTH / endMs;
  const cz = m.crossZoneBytes;
  const t = m.objectStore.tiered;
  const w = m.objectStore.wal;
  const held = gbMonths(u, endMs);
  const czLine = (bytes: number) => ({ usdPerMonth: (bytes / BYTES_PER_GB) * 2 * P.crossZoneUsdPerGbEachDirection * scale, quantity: bytes * scale });
  const requests = (n: number, per1000: number) => ({ usdPerMonth: ((n * per1000) / 1000) * scale, quantity: n * scale });
  const transfer = (up: number, down: number, upUsd: number, downUsd: number) => ({ usdPerMonth: ((up * upUsd + down * downUsd) / BYTES_PER_GB) * scale, quantity: (up + down) * scale });
  // GB-months over the run, per month of run: the average held.
  const storage = (gbMonths: number, usd: number) => ({ usdPerMonth: gbMonths * usd * scale, quantity: gbMonths * scale * BYTES_PER_GB });
  const out: Record<string, { usdPerMonth: number; quantity: number }> = {
    crossZoneReplication: czLine(cz.replication + cz.walMetadata),
    crossZoneProduce: czLine(cz.produce),
    crossZoneConsume: czLine(cz.consume),
    tieredPut: requests(t.puts + t.lists, P.tieredPutUsdPer1000),
    tieredGet: requests(t.gets, P.tieredGetUsdPer1000),
    tieredDelete: requests(t.deletes, P.tieredDeleteUsdPer1000),
    tieredTransfer: transfer(u.billableBytesPut.tiered, u.billableBytesGot.tiered, P.tieredUploadUsdPerGb, P.tieredRetrievalUsdPerGb),
    walPut: requests(w.puts + w.lists, P.walPutUsdPer1000),
    walGet: requests(w.gets, P.walGetUsdPer1000),
    walDelete: requests(w.deletes, P.walDeleteUsdPer1000),
    walTransfer: transfer(u.billableBytesPut.wal, u.billableBytesGot.wal, P.walUploadUsdPerGb, P.walRetrievalUsdPerGb),
    storageLocal: storage(held.localDisk, P.localDiskUsdPerGbMonth),
    storageTiered: storage(held.tiered, P.tieredStorageUsdPerGbMonth),
    storageWal: storage(held.wal, P.walStorageUsdPerGbMonth),
  };
  for (const v of Object.values(out)) v.usdPerMonth = usdRound(v.usdPerMonth);
  return out;
}
