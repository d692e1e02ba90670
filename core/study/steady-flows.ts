/**
 * The steady-state cost's inputs (core/study/steady-cost.ts): its types, the numbers in
 * words, and the scenario resolved into per-partition flows (streams, segment fill, retention)
 * with the helpers the lines share.
 */
import { alterTopicConfigs } from '../domain/log-config-validation.js';
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
  RACK_AWARE_REPLICA_SELECTOR,
} from '../domain/config.js';
import { planBatches } from '../domain/partition-log.js';
import { formatUsd } from '../util/format.js';
import { MS_PER_MONTH, type NumericPriceKey, type Prices, resolvePrices } from '../domain/prices.js';
import { brokerZone, type Scenario } from '../scenario/types.js';
import { type CombinerResult, replayCombiner } from './steady-replay.js';
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

export const MONTH_S = MS_PER_MONTH / 1000;
/** How the warning of a scenario without a steady state begins. */
export const NO_STEADY_STATE = 'No steady state:';
/** The objects a segment upload writes (core/sim/world/tiering.ts segmentObjects): .log, .index, leader-epoch checkpoint, producer snapshot. */
export const OBJECTS_PER_SEGMENT = 4;
/** How many segments the packing of batches is replayed for, and the most batches it packs. */
export const PACK_SEGMENTS = 8;
export const PACK_MAX_BATCHES = 2_000_000;

// ------------------------------------------------------------------ numbers in words

/** A number as the calculations print it: integers grouped by commas, others to 6 significant digits. */
export function fmtNum(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  if (Math.abs(n) >= 1e5) return Math.round(n).toLocaleString('en-US');
  return n.toLocaleString('en-US', { maximumSignificantDigits: 6 });
}

export const fmtUsd = (n: number): string => `$${fmtNum(roundTo(n, 6))}`;
/** Dollars in a sentence, as the compare tables print them ($322, $0.48). */
export const usdWords = (n: number): string => formatUsd(n, { wholeFrom: 100, significant: 2 });
export const GIB = `2^30 B/GB`;

export function roundTo(x: number, d: number): number {
  const f = 10 ** d;
  const r = Math.round(x * f) / f;
  return r === 0 ? 0 : r;
}

/** A line's dollars: a millionth of a dollar, as the run's costs are rounded. */
export const usdRound = (x: number): number => roundTo(x, 6);

// ------------------------------------------------------------------ the scenario resolved

export interface Stream {
  /** Index in the timeline (ties between streams go in timeline order, as the kernel queues them). */
  index: number;
  at: number;
  everyMs: number;
  records: number;
  bytes: number;
  /** The producer's zone, when the produce names one. */
  zone?: string;
}

export interface PartFlow {
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
  /** Where the bytes come from: each producer zone's share of the produce rate. */
  produceZones: ZoneShare[];
  /** Where the reads go: each consumer zone and the broker it reads from, with its share of the records read. */
  reads: ReadShare[];
  seg: SegmentFill;
}

export interface ZoneShare {
  zone: string;
  share: number;
}

export interface ReadShare extends ZoneShare {
  /** The broker the consumer reads from at steady state. */
  from: number;
  /** KIP-392: read from a follower of the consumer's zone the leader named (RackAwareReplicaSelector). */
  rackAware: boolean;
}

export interface SegmentFill {
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
export class Resolved {
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
    // setConfig as the kernel applies it (core/sim/world/controller.ts): a topic's, or the
    // broker's and every topic's; a topic whose merged configs Kafka refuses keeps its own.
    s.timeline.forEach((e, i) => {
      if (e.action.kind !== 'setConfig') return;
      const { topic, values } = e.action;
      const where = `timeline[${i}] setConfig at ${e.at} ms`;
      for (const [k, v] of Object.entries(values)) {
        if (topic === undefined && isBrokerConfigKey(k)) {
          (this.broker as Record<string, ConfigValue>)[k] = v;
          this.setBy.set(`broker|${k}`, where);
        }
      }
      const topicKeys = Object.keys(values).filter((k) => isTopicConfigKey(k));
      if (topicKeys.length === 0) return;
      for (const t of Object.keys(this.topics)) {
        if (topic !== undefined && topic !== t) continue;
        const r = alterTopicConfigs(this.topics[t], values, this.broker['remote.log.storage.system.enable']);
        if (!r.ok) continue;
        this.topics[t] = r.next;
        for (const k of topicKeys) this.setBy.set(`topic|${t}|${k}`, where);
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

export function kafkaTopicDefaultFrom(key: string): string {
  if (key === INTERNAL_SEGMENT_BYTES) return 'unset (Kafka internal override)';
  const spec = (TOPIC_CONFIGS as Record<string, { default: ConfigValue }>)[key];
  return spec === undefined ? 'Kafka' : `Kafka's default (LogConfig / RemoteLogManagerConfig): ${String(spec.default)}`;
}

export function kafkaBrokerDefaultFrom(key: string): string {
  const spec = (BROKER_CONFIGS as Record<string, { default: ConfigValue }>)[key];
  return spec === undefined ? 'Kafka' : `Kafka's default: ${String(spec.default)}`;
}

/** The repeating produces that run to the end of the scenario, per partition key. */
export function steadyStreams(s: Scenario, recordBytes: number): Map<string, Stream[]> {
  const out = new Map<string, Stream[]>();
  s.timeline.forEach((e, index) => {
    const a = e.action;
    if (a.kind !== 'produce' || a.everyMs === undefined) return;
    if (a.untilMs !== undefined && a.untilMs < s.until) return;
    const key = `${a.topic}-${a.partition}`;
    const list = out.get(key) ?? [];
    list.push({ index, at: e.at, everyMs: a.everyMs, records: a.records, bytes: a.records * recordBytes, ...(a.zone !== undefined ? { zone: a.zone } : {}) });
    out.set(key, list);
  });
  return out;
}

/** Records a produce writes over the run (a repeating one: each firing up to its end). */
export function producedRecords(s: Scenario): Map<string, number> {
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

export function partitionsOf(r: Resolved, opts: SteadyOptions): PartFlow[] {
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
      const consumes: Extract<Scenario['timeline'][number]['action'], { kind: 'consume' }>[] = [];
      for (const e of s.timeline) {
        const a = e.action;
        if (!('topic' in a) || a.topic !== t.name || !('partition' in a) || a.partition !== p) continue;
        if (a.kind === 'addReplica' && !replicas.includes(a.broker)) replicas.push(a.broker);
        if (a.kind === 'electLeader') leader = a.broker;
        if (a.kind === 'consume') {
          consumed += a.records;
          consumers++;
          readFrom ??= a.broker;
          consumes.push(a);
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
        produceZones: produceZones(r, list, leader),
        reads: readShares(r, consumes, replicas, leader),
        seg: fillOf(list, r, cfg, rate),
      });
    }
  });
  return out;
}

/**
 * How the producer's batches fill a segment, by the model's rule (core/sim/world/clients.ts
 * appendAsLeader: each produce is cut into batches by planBatches; core/domain/partition-log.ts
 * appendBatch: the active segment rolls before a batch that would take it past the segment
 * size, or once segment.ms has passed since its first batch). The streams' arrivals are
 * replayed in time order for PACK_SEGMENTS segments; past PACK_MAX_BATCHES (a time roll of
 * days at a low rate) the closed form takes over: a segment holds min(size, rate × segment.ms).
 */
export function fillOf(streams: readonly Stream[], r: Resolved, cfg: TopicConfig, rate: number): SegmentFill {
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


export function localRetentionWords(parts: readonly PartFlow[]): string {
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

export function formatDays(ms: number): string {
  if (ms >= 86_400_000) return `${fmtNum(ms / 86_400_000)} day${ms === 86_400_000 ? '' : 's'}`;
  if (ms >= 3_600_000) return `${fmtNum(ms / 3_600_000)} h`;
  if (ms >= 1000) return `${fmtNum(ms / 1000)} s`;
  return `${ms} ms`;
}

export function maxOrNull(xs: Array<number | null>): number | null {
  if (xs.length === 0 || xs.some((x) => x === null)) return null;
  return Math.max(...(xs as number[]));
}

/** When retention first deletes: the first segment is past the limit (null: no limit). */
export function timeToReach(rate: number, ms: number, bytes: number, seg: SegmentFill): number | null {
  const byTime = ms >= 0 ? ms + seg.fillMs : Infinity;
  const bySize = bytes >= 0 && rate > 0 ? ((bytes + seg.bytes) / rate) * 1000 : Infinity;
  const t = Math.min(byTime, bySize);
  return Number.isFinite(t) ? t : null;
}

/** How long a WAL object stays, on average (ms; null: for ever). */
export function walHold(p: PartFlow, uploadDelayMs: number, publishEveryMs: number): number | null {
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

export function segmentSizeInput(r: Resolved, p: PartFlow): CostInput {
  return p.cfg[INTERNAL_SEGMENT_BYTES] !== undefined ? r.topicInput(p.topic, INTERNAL_SEGMENT_BYTES, 'B', 'internal.segment.bytes (segment size)') : r.topicInput(p.topic, 'segment.bytes', 'B');
}

export function describePlacement(parts: readonly PartFlow[], zone: (b: number) => string): string {
  const shown = parts.slice(0, 3).map((p) => `${p.key}: leader ${p.leader} (zone ${zone(p.leader)}), followers ${p.followers.map((f) => `${f} (${zone(f)})`).join(', ') || 'none'}`);
  return `${shown.join('; ')}${parts.length > 3 ? `; and ${parts.length - 3} more partitions` : ''} (scenario topics[].replicas, zones)`;
}

export function combinerResults(r: Resolved, walParts: readonly PartFlow[]): Map<number, CombinerResult> {
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

/** A client's zone when it names none: model.clientZone, else the partition leader's (core/sim/state/facts.ts zoneOf). */
function defaultClientZone(r: Resolved, leader: number): string {
  return r.model.clientZone !== '' ? r.model.clientZone : brokerZone(r.s, leader);
}

/** Each producer zone's share of a partition's steady produce rate. */
function produceZones(r: Resolved, streams: readonly Stream[], leader: number): ZoneShare[] {
  const byZone = new Map<string, number>();
  let total = 0;
  for (const x of streams) {
    const rate = x.bytes / x.everyMs;
    const z = x.zone ?? defaultClientZone(r, leader);
    byZone.set(z, (byZone.get(z) ?? 0) + rate);
    total += rate;
  }
  return [...byZone].map(([zone, rate]) => ({ zone, share: total > 0 ? rate / total : 0 }));
}

/**
 * Each consumer zone's share of a partition's reads and the broker it reads from at steady
 * state: the broker a consume names; else, for a KIP-392 consumer (client.rack set, the
 * brokers' replica.selector.class RackAwareReplicaSelector), a replica in its rack when the
 * leader is not there (every replica in sync and caught up at steady state; ties to the highest
 * broker id, as ReplicaView.comparator); else the leader. A consumer's zone is its `zone`, else its
 * client.rack when that names a zone, else as every client's.
 */
function readShares(r: Resolved, consumes: readonly Extract<Scenario['timeline'][number]['action'], { kind: 'consume' }>[], replicas: readonly number[], leader: number): ReadShare[] {
  const rackAware = r.broker['replica.selector.class'] === RACK_AWARE_REPLICA_SELECTOR;
  const zones = new Set(r.s.zones);
  const byKey = new Map<string, ReadShare>();
  let total = 0;
  for (const a of consumes) {
    const rack = a.config?.['client.rack'] ?? '';
    const zone = a.zone ?? (rack !== '' && zones.has(rack) ? rack : defaultClientZone(r, leader));
    let from = a.broker ?? leader;
    let viaRack = false;
    if (a.broker === undefined && rackAware && rack !== '' && brokerZone(r.s, leader) !== rack) {
      const same = replicas.filter((b) => b !== leader && brokerZone(r.s, b) === rack);
      if (same.length > 0) {
        from = Math.max(...same);
        viaRack = true;
      }
    }
    const id = `${zone}|${from}|${viaRack}`;
    const cur = byKey.get(id) ?? { zone, from, rackAware: viaRack, share: 0 };
    cur.share += a.records;
    byKey.set(id, cur);
    total += a.records;
  }
  return [...byKey.values()].map((x) => ({ ...x, share: total > 0 ? x.share / total : 0 }));
}
