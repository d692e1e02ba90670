/**
 * The deterministic kernel: simulated time in integer milliseconds, an event queue
 * ordered by (time, sequence), a simulated network with per-link latency (same zone or
 * cross zone), a simulated object store behind the port, and the cluster: brokers,
 * partitions, their logs and their machines. It steps the pure XState machines with
 * `transition()` and executes the effects they name. A run is a pure function of
 * (scenario, seed, user actions); `checkpoint()` returns plain data from which
 * `Kernel.restore()` continues with the same trace.
 *
 * Leaves out: the controller's quorum (elections are immediate and clean), fetch
 * sessions, quotas, transactions, compaction.
 */
import { type AnyMachineSnapshot, initialTransition } from 'xstate';
import { pureTransition } from './pure-transition.js';
import {
  type BrokerConfig,
  type ConfigValue,
  type ModelKnobs,
  type TopicConfig,
  defaultBrokerConfig,
  defaultModelKnobs,
  defaultTopicConfig,
  effectiveLocalRetentionBytes,
  effectiveLocalRetentionMs,
  isBrokerConfigKey,
  isCompacted,
  isTopicConfigKey,
} from '../domain/config.js';
import {
  type EpochEntry,
  checkpointUpTo,
  endOffsetFor,
  epochForOffset,
  formatCheckpoint,
  latestEpoch,
  parseCheckpoint,
  truncateFromStart as truncateEpochsFromStart,
} from '../domain/leader-epoch-cache.js';
import type { LeaderView } from '../domain/leader-rules.js';
import {
  type PartitionLog,
  type RecordBatch,
  appendBatch,
  emptyLog,
  localBytes,
  logEndOffset,
  maybeIncrementLogStartOffset,
  newSegment,
  planBatches,
  producerSnapshotAt,
  readBatches,
  roll,
  truncateFullyAndStartAt,
  truncateTo,
  updateHighWatermark,
} from '../domain/partition-log.js';
import { type ProducerEntry, formatProducerSnapshot, producerEntryOf, producerSnapshotBytes, restoreProducerState, snapshotProducerState } from '../domain/producer-state.js';
import type { ApiName, KafkaError, ListOffsetsTimestamp } from '../domain/protocol.js';
import {
  type RemoteSegmentMetadata,
  batchIndexOf,
  findHighestRemoteOffset,
  findRemoteSegment,
  objectKeysFor,
  segmentLeaderEpochs,
} from '../domain/remote-metadata.js';
import { type FollowerFetcherEvent, type ReplicaFacts, followerFetcherMachine } from '../machines/follower-fetcher.js';
import { type LeaderPartitionEvent, leaderPartitionMachine } from '../machines/leader-partition.js';
import { type RemoteLogManagerEvent, type RlmFacts, remoteLogManagerMachine } from '../machines/remote-log-manager.js';
import {
  type SegmentRange,
  activeSegmentBreachesLocalTime,
  copyCandidates,
  isRetentionRule,
  localRetentionDeletable,
  remoteRetentionExpired,
} from '../domain/retention.js';
import {
  MemoryObjectStore,
  type ObjectStoreBackend,
  type ObjectStoreRequest,
  type ObjectStoreResult,
  type StoreName,
  type StoredObject,
} from '../ports/object-store.js';
import type { Acks, Scenario, TimelineAction } from '../scenario/types.js';
import { assert } from '../util/assert.js';
import { type EventQueue, newQueue, pop, push, peek } from './event-queue.js';
import { type PrngState, seedPrng } from './prng.js';
import { type Prices, resolvePrices } from '../domain/prices.js';
import {
  type CrossZoneBytes,
  type CrossZoneKind,
  type StoreCounters,
  type Usage,
  changeStoredBytes,
  countCrossZone,
  countStoreRequest,
  newCrossZoneBytes,
  newStoreCounters,
  newUsage,
  objectStored,
} from './costs.js';
import type { Endpoint, TraceEntry } from './trace.js';
import { type InvariantWatch, type Violation, checkInvariants, checkFollowerAppend, checkLocalDelete, checkRemoteTransition } from '../check/invariants.js';

export type MachineName = 'fetcher' | 'leader' | 'rlm';

export interface ReplicaState {
  broker: number;
  log: PartitionLog;
  /** In memory only: lost on restart, -1 until learned. Never decreases while up. */
  highestOffsetInRemoteStorage: number;
}

export interface ParkedFetch {
  msgId: number;
  msg: Message;
}

export interface PendingAck {
  msgId: number;
  lastOffset: number;
  sentMs: number;
  records: number;
}

export interface PartitionState {
  key: string;
  topic: string;
  partition: number;
  replicas: number[];
  leader: number;
  leaderEpoch: number;
  isr: number[];
  /** Cluster-wide remote log metadata (topic-based RLMM), every state change kept. */
  remoteMetadata: RemoteSegmentMetadata[];
  /** Per broker: until then its remote log metadata for this partition is loading. */
  metadataReadyAtMs: Record<string, number>;
  replicaStates: Record<string, ReplicaState>;
  parked: Record<string, ParkedFetch>;
  pendingAcks: PendingAck[];
  nextSequence: number;
}

export interface BrokerState {
  id: number;
  zone: string;
  alive: boolean;
}

export interface Message {
  msgId: number;
  correlationId: number;
  api: ApiName;
  dir: 'request' | 'response';
  source: Endpoint;
  target: Endpoint;
  key: string;
  requestId: number;
  body: Record<string, unknown>;
}

export interface ConsumerState {
  id: number;
  key: string;
  broker: number;
  nextOffset: number;
  remaining: number;
  local: number;
  remote: number;
}

export type KernelEvent =
  | { kind: 'timeline'; index: number }
  | { kind: 'deliver'; msg: Message }
  | { kind: 'machineTimer'; machine: 'fetcher' | 'rlm'; broker: number; key: string; timerId: number }
  | { kind: 'fetchWaitExpired'; key: string; msgId: number }
  | { kind: 'remoteSegmentLookedUp'; broker: number; key: string; requestId: number; epoch: number; offset: number }
  | { kind: 'storeDone'; broker: number; key: string; requestId: number; purpose: string; store: StoreName; objectKey: string; result: ObjectStoreResult }
  | { kind: 'consumerFetch'; consumerId: number }
  | { kind: 'rlmStep'; broker: number; key: string; requestId: number }
  | { kind: 'isrCheck'; broker: number; key: string; timerId: number };

export interface Metrics {
  requests: Record<string, number>;
  /** Consumer reads served from remote storage, per broker. */
  remoteReads: Record<string, { count: number; bytes: number }>;
  bytesFetchedByFollowers: number;
  produced: { records: number; bytes: number };
  /** Bytes that crossed between zones (core/sim/costs.ts). */
  crossZoneBytes: CrossZoneBytes;
  /** Requests billed by each object store, and the bytes they moved. */
  objectStore: Record<StoreName, StoreCounters>;
  [name: string]: unknown;
}

export interface KernelState {
  nowMs: number;
  nextMsgId: number;
  nextCorrelationId: number;
  nextConsumerId: number;
  stepCount: number;
  prng: PrngState;
  queue: EventQueue<KernelEvent>;
  brokers: BrokerState[];
  brokerConfig: BrokerConfig;
  topicConfigs: Record<string, TopicConfig>;
  model: ModelKnobs;
  partitions: Record<string, PartitionState>;
  partitionOrder: string[];
  storeAvailable: Record<StoreName, boolean>;
  consumers: Record<string, ConsumerState>;
  /** Object-store requests issued together (a copy's PUTs, a delete's DELETEs), by broker|partition|requestId. */
  storeGroups: Record<string, { kind: 'copy' | 'delete'; segmentId: string; remaining: number; ok: boolean; error: string | null }>;
  nextSegmentSeq: number;
  /** What the invariants remember between steps. */
  watch: InvariantWatch;
  /** Produce latencies (ms) by acks, one round trip from the client's zone (`model.clientZone`) included. */
  produceLatencies: { acks0: number[]; acks1: number[]; acksAll: number[] };
  /** Consumer Fetches waiting for a remote read, by message id. */
  pendingConsumerReads: Record<string, { msg: Message; batchBaseOffsets: number[] }>;
  violations: Violation[];
  violationKeys: Record<string, true>;
  metrics: Metrics;
  /** The prices of this run: defaults and the scenario's `prices` (core/domain/prices.ts). */
  prices: Prices;
  /** Billable transfer and stored bytes over time, for the cost (core/sim/costs.ts). */
  usage: Usage;
}

export interface Checkpoint {
  seed: number;
  state: KernelState;
  machines: Record<string, unknown>;
  store: Record<StoreName, Record<string, StoredObject>>;
  trace: TraceEntry[];
}

export interface Delivery {
  /** `broker|topic-partition|machine`. */
  id: string;
  name: MachineName;
  broker: number;
  key: string;
  before: AnyMachineSnapshot;
  event: { type: string };
  atMs: number;
}

/** The wall clock, in browsers and Node alike; read only in `latency: 'measured'` runs. */
declare const performance: { now(): number };

export interface KernelOptions {
  store?: ObjectStoreBackend;
  /**
   * `model` (default): a store request completes after the modelled latency, so runs are
   * deterministic on every store. `measured`: after the time the real store took (at least
   * 1 ms); such a run is not deterministic, and its JSON says so.
   */
  latency?: 'model' | 'measured';
  /** Seed override (the CLI's --seed). */
  seed?: number;
}

export const MACHINES = {
  fetcher: followerFetcherMachine,
  leader: leaderPartitionMachine,
  rlm: remoteLogManagerMachine,
} as const;

/** Plain-data deep copy (the kernel state holds only JSON values). */
function clone<T>(x: T): T {
  return JSON.parse(JSON.stringify(x)) as T;
}

/**
 * A deep copy that shares record batches: a batch never changes once written, so copying
 * the lists that hold them is enough (this keeps checkpoints cheap on long runs).
 */
function cloneSharingBatches<T>(x: T): T {
  const lists: unknown[][] = [];
  const text = JSON.stringify(x, (k, v) => (k === 'batches' && Array.isArray(v) ? (lists.push(v), lists.length - 1) : v));
  return JSON.parse(text, (k, v) => (k === 'batches' && typeof v === 'number' ? lists[v].slice() : v)) as T;
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/** `{a: {b: 'c'}}` -> `a.b.c`. */
export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const [k, v] = Object.entries(value as Record<string, unknown>)[0] ?? ['', ''];
    const rest = stateName(v);
    return rest === '' ? k : `${k}.${rest}`;
  }
  return '';
}

export class Kernel {
  readonly scenario: Scenario;
  /** The seed this run uses (the scenario's, or an override). */
  readonly seed: number;
  state: KernelState;
  trace: TraceEntry[] = [];
  private machines: Record<string, AnyMachineSnapshot> = {};
  private store: ObjectStoreBackend;
  readonly latencyMode: 'model' | 'measured';
  /**
   * Called with every event delivered to a machine and the snapshot it met, before the
   * transition (the browser's inspection log replays these on real XState actors).
   */
  onDeliver: ((d: Delivery) => void) | null = null;

  constructor(scenario: Scenario, options: KernelOptions = {}) {
    this.scenario = scenario;
    this.store = options.store ?? new MemoryObjectStore();
    this.latencyMode = options.latency ?? 'model';
    const seed = options.seed ?? scenario.seed;
    this.seed = seed;
    const brokerConfig = defaultBrokerConfig();
    for (const [k, v] of Object.entries(scenario.config)) if (isBrokerConfigKey(k)) (brokerConfig as Record<string, ConfigValue>)[k] = v as ConfigValue;
    const model = defaultModelKnobs();
    for (const [k, v] of Object.entries(scenario.model)) (model as unknown as Record<string, ConfigValue>)[k] = v as ConfigValue;
    const topicConfigs: Record<string, TopicConfig> = {};
    for (const t of scenario.topics) {
      const c = defaultTopicConfig();
      for (const [k, v] of Object.entries(t.config)) if (isTopicConfigKey(k)) (c as Record<string, ConfigValue>)[k] = v as ConfigValue;
      topicConfigs[t.name] = c;
    }
    const zones = scenario.zones.length > 0 ? scenario.zones : ['a'];
    this.state = {
      nowMs: 0,
      nextMsgId: 1,
      nextCorrelationId: 1,
      nextConsumerId: 1,
      stepCount: 0,
      prng: seedPrng(seed),
      queue: newQueue(),
      brokers: Array.from({ length: scenario.brokers }, (_, id) => ({ id, zone: zones[id % zones.length], alive: true })),
      brokerConfig,
      topicConfigs,
      model,
      partitions: {},
      partitionOrder: [],
      storeAvailable: { tiered: true, wal: true },
      consumers: {},
      pendingConsumerReads: {},
      storeGroups: {},
      nextSegmentSeq: 1,
      watch: { committed: {}, leaderEpoch: {}, highestOffsetInRemoteStorage: {} },
      produceLatencies: { acks0: [], acks1: [], acksAll: [] },
      violations: [],
      violationKeys: {},
      metrics: {
        requests: {},
        remoteReads: {},
        bytesFetchedByFollowers: 0,
        produced: { records: 0, bytes: 0 },
        crossZoneBytes: newCrossZoneBytes(),
        objectStore: newStoreCounters(),
      },
      prices: resolvePrices(scenario.prices),
      usage: newUsage(),
    };
    this.setUpPartitions();
    scenario.timeline.forEach((e, index) => push(this.state.queue, e.at, { kind: 'timeline', index }));
    this.startCluster();
  }

  /** Continue a run from a checkpoint taken by `checkpoint()`. */
  static restore(scenario: Scenario, cp: Checkpoint, options: KernelOptions = {}): Kernel {
    const k = Object.create(Kernel.prototype) as Kernel;
    (k as { scenario: Scenario }).scenario = scenario;
    (k as { seed: number }).seed = cp.seed;
    k.store = options.store ?? new MemoryObjectStore();
    // Stored objects are never changed in place, so the store's maps are copied, not its objects.
    k.store.restore(cp.store);
    k.state = cloneSharingBatches(cp.state);
    k.trace = cp.trace.slice();
    k.pendingLeaderRequests = [];
    k.pendingIo = [];
    k.onDeliver = null;
    k.machines = {};
    for (const [id, persisted] of Object.entries(cp.machines)) {
      const name = id.split('|')[2] as MachineName;
      const p = clone(persisted) as { value: unknown; context: Record<string, unknown> };
      k.machines[id] = (MACHINES[name] as typeof followerFetcherMachine).resolveState({
        value: p.value as never,
        context: p.context as never,
      }) as AnyMachineSnapshot;
    }
    return k;
  }

  checkpoint(): Checkpoint {
    const machines: Record<string, unknown> = {};
    for (const [id, snap] of Object.entries(this.machines)) {
      const name = id.split('|')[2] as MachineName;
      const p = (MACHINES[name] as typeof followerFetcherMachine).getPersistedSnapshot(snap as never) as unknown as { value: unknown; context: unknown };
      machines[id] = clone({ value: p.value, context: p.context });
    }
    return { seed: this.seed, state: cloneSharingBatches(this.state), machines, store: this.store.snapshot(), trace: this.trace.slice() };
  }

  // ------------------------------------------------------------------ set-up

  private setUpPartitions(): void {
    for (const t of this.scenario.topics) {
      for (let p = 0; p < t.partitions; p++) {
        const key = partitionKey(t.name, p);
        const replicas = [...t.replicas[p]];
        const initial = t.initial.find((i) => i.partition === p);
        const part: PartitionState = {
          key,
          topic: t.name,
          partition: p,
          replicas,
          leader: replicas[0],
          leaderEpoch: initial?.leaderEpoch ?? 0,
          isr: [replicas[0]],
          remoteMetadata: [],
          // The scenario's remoteLogMetadataReadyMs is the initial leader's loading time.
          metadataReadyAtMs: { [String(replicas[0])]: initial?.remoteLogMetadataReadyMs ?? 0 },
          replicaStates: {},
          parked: {},
          pendingAcks: [],
          nextSequence: 0,
        };
        for (const b of replicas) part.replicaStates[String(b)] = { broker: b, log: emptyLog(0, 0), highestOffsetInRemoteStorage: -1 };
        const leaderState = part.replicaStates[String(replicas[0])];
        if (initial !== undefined) this.buildInitialLog(part, leaderState, initial);
        else leaderState.log.leaderEpochs = [[part.leaderEpoch, 0]];
        this.state.partitions[key] = part;
        this.state.partitionOrder.push(key);
      }
    }
  }

  /** The leader's log at t = 0 from the scenario's `initial` segments. */
  private buildInitialLog(part: PartitionState, leader: ReplicaState, initial: Scenario['topics'][number]['initial'][number]): void {
    const model = this.state.model;
    const epochs: EpochEntry[] = initial.leaderEpochs.map(([e, s]) => [e, s] as EpochEntry);
    const first = initial.segments[0];
    const log: PartitionLog = {
      logStartOffset: first.baseOffset,
      localLogStartOffset: first.baseOffset,
      highWatermark: 0,
      segments: [],
      leaderEpochs: epochs,
      producers: {},
    };
    const producerId = 1;
    let sequence = 0;
    const remoteMetas: RemoteSegmentMetadata[] = [];
    for (let i = 0; i < initial.segments.length; i++) {
      const s = initial.segments[i];
      const seg = newSegment(s.baseOffset, 0);
      const batches: RecordBatch[] = [];
      for (let offset = s.baseOffset; offset <= s.endOffset; ) {
        const epoch = epochForOffset(epochs, offset);
        const next = epochs.find(([, start]) => start > offset);
        const perBatch = Math.max(1, Math.floor(model.producerBatchBytes / model.recordBytes));
        const last = Math.min(s.endOffset, offset + perBatch - 1, next === undefined ? Number.MAX_SAFE_INTEGER : next[1] - 1);
        const count = last - offset + 1;
        batches.push({
          baseOffset: offset,
          lastOffset: last,
          leaderEpoch: epoch,
          producerId,
          baseSequence: sequence,
          bytes: count * model.recordBytes,
          appendedMs: 0,
        });
        sequence += count;
        offset = last + 1;
      }
      seg.batches = batches;
      seg.endOffset = s.endOffset;
      seg.bytes = batches.reduce((n, b) => n + b.bytes, 0);
      seg.rolled = i < initial.segments.length - 1;
      for (const b of batches) {
        log.producers[String(producerId)] = producerEntryOf(b);
      }
      if (s.tier === 'remote' || s.tier === 'both') {
        const segmentId = `init-${s.baseOffset}`;
        const keys = objectKeysFor(part.topic, part.partition, s.baseOffset, segmentId);
        const meta: RemoteSegmentMetadata = {
          segmentId,
          topic: part.topic,
          partition: part.partition,
          baseOffset: s.baseOffset,
          endOffset: s.endOffset,
          state: 'COPY_SEGMENT_FINISHED',
          brokerId: part.leader,
          segmentLeaderEpochs: segmentLeaderEpochs(epochs, s.baseOffset, s.endOffset),
          sizeBytes: seg.bytes,
          maxTimestampMs: 0,
          objectKeys: keys,
          batchIndex: batchIndexOf(batches),
        };
        remoteMetas.push(meta);
        this.writeSegmentObjects(meta, batches, checkpointUpTo(epochs, s.endOffset), snapshotProducerState(log.producers, s.endOffset + 1));
      }
      if (s.tier === 'both' || s.tier === 'local') log.segments.push(seg);
    }
    assert(log.segments.length > 0, 'the active segment is local');
    log.localLogStartOffset = log.segments[0].baseOffset;
    log.highWatermark = logEndOffset(log);
    leader.log = log;
    this.localLogBytesChanged(localBytes(log));
    part.remoteMetadata = remoteMetas;
    const derived = remoteMetas.length > 0 ? remoteMetas[remoteMetas.length - 1].endOffset : -1;
    leader.highestOffsetInRemoteStorage = initial.highestOffsetInRemoteStorage ?? derived;
    part.nextSequence = sequence;
  }

  /** The objects a copy writes: the segment, its offset index, the leader-epoch checkpoint and the producer snapshot. */
  private segmentObjects(meta: RemoteSegmentMetadata, batches: RecordBatch[], epochs: EpochEntry[], producers: ProducerEntry[]): Array<[string, StoredObject, string]> {
    const index = batches.map((b) => `${b.baseOffset}`).join('\n');
    const cp = formatCheckpoint(epochs);
    const snap = formatProducerSnapshot(producers);
    return [
      [meta.objectKeys.log, { bytes: meta.sizeBytes, body: { kind: 'segment', batches } }, 'log'],
      [meta.objectKeys.offsetIndex, { bytes: batches.length * 8, body: { kind: 'text', text: index } }, 'offsetIndex'],
      [meta.objectKeys.leaderEpochCheckpoint, { bytes: cp.length, body: { kind: 'text', text: cp } }, 'leaderEpochCheckpoint'],
      [meta.objectKeys.producerSnapshot, { bytes: producerSnapshotBytes(producers), body: { kind: 'text', text: snap } }, 'producerSnapshot'],
    ];
  }

  /** Objects of an uploaded segment, written straight to the store (initial state only). */
  private writeSegmentObjects(meta: RemoteSegmentMetadata, batches: RecordBatch[], epochs: EpochEntry[], producers: ProducerEntry[]): void {
    for (const [key, object] of this.segmentObjects(meta, batches, epochs, producers)) {
      const req: ObjectStoreRequest = { op: 'put', store: 'tiered', key, object };
      // Held from t = 0 (stored, not billed as a request of this run).
      objectStored(this.state.usage, 'tiered', key, object.bytes, 0);
      if (this.store.executeAsync) {
        this.pendingIo.push(
          this.store.executeAsync(req).then((r) => {
            if (!r.ok) throw new Error(`writing the initial segment object ${key} failed: ${r.error ?? 'error'}`);
          }),
        );
      } else this.store.execute(req);
    }
  }

  private startCluster(): void {
    for (const key of this.state.partitionOrder) {
      const part = this.state.partitions[key];
      for (const b of part.replicas) {
        for (const name of ['fetcher', 'leader', 'rlm'] as const) this.createMachine(b, key, name);
      }
      this.deliver(part.leader, key, 'leader', {
        type: 'leadership.assumed',
        leaderEpoch: part.leaderEpoch,
        isr: part.isr,
        replicas: part.replicas,
        nowMs: 0,
        logEndOffset: logEndOffset(this.replica(key, part.leader).log),
      });
      this.trace.push({ atMs: 0, type: 'leader', topic: part.topic, partition: part.partition, broker: part.leader, leaderEpoch: part.leaderEpoch, rule: 'initialLeader' });
    }
    for (const key of this.state.partitionOrder) {
      const part = this.state.partitions[key];
      for (const b of part.replicas) this.deliver(b, key, 'rlm', { type: 'rlm.started', role: b === part.leader ? 'leader' : 'follower' });
    }
    for (const key of this.state.partitionOrder) {
      const part = this.state.partitions[key];
      for (const b of part.replicas) if (b !== part.leader) this.startFetcher(b, key);
    }
  }

  private createMachine(broker: number, key: string, name: MachineName): void {
    const part = this.state.partitions[key];
    const machine = MACHINES[name] as typeof followerFetcherMachine;
    const [snap] = initialTransition(machine, { broker, topic: part.topic, partition: part.partition });
    this.machines[`${broker}|${key}|${name}`] = snap as AnyMachineSnapshot;
  }

  private startFetcher(broker: number, key: string): void {
    const part = this.state.partitions[key];
    const r = this.replica(key, broker);
    this.deliver(broker, key, 'fetcher', {
      type: 'fetcher.started',
      leader: part.leader,
      leaderEpoch: part.leaderEpoch,
      replica: this.replicaFacts(key, broker),
      lastFetchedEpoch: latestEpoch(r.log.leaderEpochs),
    });
  }

  // ------------------------------------------------------------------ accessors

  get nowMs(): number {
    return this.state.nowMs;
  }

  replica(key: string, broker: number): ReplicaState {
    const r = this.state.partitions[key].replicaStates[String(broker)];
    assert(r !== undefined, `broker ${broker} hosts ${key}`);
    return r;
  }

  machineSnapshot(broker: number, key: string, name: MachineName): AnyMachineSnapshot | undefined {
    return this.machines[`${broker}|${key}|${name}`];
  }

  machineState(broker: number, key: string, name: MachineName): string {
    const s = this.machineSnapshot(broker, key, name);
    return s === undefined ? '' : stateName(s.value);
  }

  objectStore(): ObjectStoreBackend {
    return this.store;
  }

  private tiered(key: string): boolean {
    const part = this.state.partitions[key];
    return this.state.brokerConfig['remote.log.storage.system.enable'] && this.state.topicConfigs[part.topic]['remote.storage.enable'];
  }

  replicaFacts(key: string, broker: number): ReplicaFacts {
    const part = this.state.partitions[key];
    return {
      logEndOffset: logEndOffset(this.replica(key, broker).log),
      lastTieredOffsetEnabled: this.state.brokerConfig['follower.fetch.last.tiered.offset.enable'],
      tiered: this.tiered(key),
      compacted: isCompacted(this.state.topicConfigs[part.topic]),
      leaderEpochs: this.replica(key, broker).log.leaderEpochs,
    };
  }

  leaderView(key: string, broker: number): LeaderView {
    const part = this.state.partitions[key];
    const r = this.replica(key, broker);
    return {
      tiered: this.tiered(key),
      logStartOffset: r.log.logStartOffset,
      localLogStartOffset: r.log.localLogStartOffset,
      logEndOffset: logEndOffset(r.log),
      highWatermark: r.log.highWatermark,
      highestOffsetInRemoteStorage: r.highestOffsetInRemoteStorage,
      leaderEpoch: part.leaderEpoch,
    };
  }

  private leaderFacts(key: string, broker: number) {
    const r = this.replica(key, broker);
    const part = this.state.partitions[key];
    const entry = r.log.leaderEpochs.find(([e]) => e === part.leaderEpoch);
    return { view: this.leaderView(key, broker), leaderEpochStartOffset: entry ? entry[1] : logEndOffset(r.log), nowMs: this.state.nowMs };
  }

  private latencyMs(a: Endpoint, b: Endpoint, key: string): number {
    return this.zoneOf(a, key) === this.zoneOf(b, key) ? this.state.model.sameZoneLatencyMs : this.state.model.crossZoneLatencyMs;
  }

  /** A broker's zone; a client (producer or consumer) is in `model.clientZone`, or else the partition leader's zone. */
  zoneOf(e: Endpoint, key: string): string {
    if (typeof e !== 'number' && this.state.model.clientZone !== '') return this.state.model.clientZone;
    const part = this.state.partitions[key];
    const id = typeof e === 'number' ? e : part.leader >= 0 ? part.leader : 0;
    return this.state.brokers[id]?.zone ?? 'a';
  }

  /**
   * Counts bytes moved from one zone to another (nothing within a zone). The WAL mode counts
   * its metadata records through here with kind `walMetadata`.
   */
  private countCrossZone(kind: CrossZoneKind, fromZone: string, toZone: string, bytes: number): void {
    countCrossZone(this.state.metrics.crossZoneBytes, kind, fromZone, toZone, bytes);
  }

  /** The bytes held in local logs (all replicas) changed: the broker-disk storage follows. */
  private localLogBytesChanged(deltaBytes: number): void {
    changeStoredBytes(this.state.usage, 'localDisk', deltaBytes, this.state.nowMs);
  }

  /** Runs a change that may remove local data from one replica's log (O(segments); appends add their bytes directly). */
  private changeLocalLog(r: ReplicaState, change: () => void): void {
    const before = localBytes(r.log);
    change();
    this.localLogBytesChanged(localBytes(r.log) - before);
  }

  // ------------------------------------------------------------------ stepping

  /** True while events remain at or before `until`. */
  hasNext(): boolean {
    const next = peek(this.state.queue);
    return next !== undefined && next.at <= this.scenario.until;
  }

  /** Processes one event. Returns false when the run has ended. */
  step(): boolean {
    const next = peek(this.state.queue);
    if (next === undefined || next.at > this.scenario.until) {
      this.state.nowMs = this.scenario.until;
      return false;
    }
    pop(this.state.queue);
    this.state.nowMs = next.at;
    this.state.stepCount++;
    this.handle(next.ev);
    for (const v of checkInvariants(this)) this.addViolation(v);
    return true;
  }

  /** Processes every event at or before `ms` (and before `until`); the clock then reads `ms`. */
  runUntil(ms: number): void {
    for (;;) {
      const next = peek(this.state.queue);
      if (next === undefined || next.at > ms || next.at > this.scenario.until) break;
      this.step();
    }
    this.state.nowMs = Math.max(this.state.nowMs, Math.min(ms, this.scenario.until));
  }

  runToEnd(maxSteps = Number.MAX_SAFE_INTEGER): void {
    let n = 0;
    while (n++ < maxSteps && this.step()) {
      /* keep stepping */
    }
  }

  addViolation(v: Violation): void {
    const k = `${v.invariant}|${v.subject ?? ''}`;
    if (this.state.violationKeys[k]) return;
    this.state.violationKeys[k] = true;
    this.state.violations.push(v);
    this.trace.push({ atMs: v.atMs, type: 'violation', invariant: v.invariant, message: v.message });
  }

  private handle(ev: KernelEvent): void {
    switch (ev.kind) {
      case 'timeline': {
        const action = this.scenario.timeline[ev.index].action;
        this.applyTimeline(action);
        if (action.kind === 'produce' && action.everyMs !== undefined) {
          const next = this.state.nowMs + action.everyMs;
          if (next <= (action.untilMs ?? this.scenario.until)) push(this.state.queue, next, { kind: 'timeline', index: ev.index });
        }
        return;
      }
      case 'deliver':
        return ev.msg.dir === 'request' ? this.onRequest(ev.msg) : this.onResponse(ev.msg);
      case 'machineTimer': {
        if (!this.state.brokers[ev.broker].alive) return;
        if (ev.machine === 'fetcher') return this.deliver(ev.broker, ev.key, 'fetcher', { type: 'backoff.expired', timerId: ev.timerId });
        return this.deliver(ev.broker, ev.key, 'rlm', this.rlmTaskEvent(ev.broker, ev.key, ev.timerId));
      }
      case 'fetchWaitExpired': {
        const part = this.state.partitions[ev.key];
        const parked = part.parked[String(ev.msgId)];
        if (parked === undefined) return;
        delete part.parked[String(ev.msgId)];
        return this.onFollowerRequestAtLeader(parked.msg, true);
      }
      case 'remoteSegmentLookedUp':
        return this.onRemoteSegmentLookup(ev);
      case 'storeDone':
        return this.onStoreDone(ev);
      case 'consumerFetch':
        return this.sendConsumerFetch(ev.consumerId);
      case 'isrCheck': {
        const part = this.state.partitions[ev.key];
        if (!this.state.brokers[ev.broker].alive || part.leader !== ev.broker) return;
        return this.deliver(ev.broker, ev.key, 'leader', {
          type: 'isr.check',
          timerId: ev.timerId,
          lagTimeMaxMs: this.state.brokerConfig['replica.lag.time.max.ms'],
          ...this.leaderFacts(ev.key, ev.broker),
        });
      }
      case 'rlmStep':
        if (!this.state.brokers[ev.broker].alive) return;
        return this.deliver(ev.broker, ev.key, 'rlm', { type: 'rlm.step', requestId: ev.requestId, ...this.rlmFacts(ev.key, ev.broker) });
    }
  }

  /** Steps one machine with an event and executes the effects it asks for. */
  private deliver(broker: number, key: string, name: MachineName, event: FollowerFetcherEvent | LeaderPartitionEvent | RemoteLogManagerEvent): void {
    const id = `${broker}|${key}|${name}`;
    const snap = this.machines[id];
    assert(snap !== undefined, `machine ${id} exists`);
    const machine = MACHINES[name] as typeof followerFetcherMachine;
    const before = stateName(snap.value);
    this.onDeliver?.({ id, name, broker, key, before: snap, event, atMs: this.state.nowMs });
    const [next, actions] = pureTransition(machine as never, snap as never, event);
    this.machines[id] = next as AnyMachineSnapshot;
    const after = stateName(next.value);
    const part = this.state.partitions[key];
    if (before !== after) {
      this.trace.push({ atMs: this.state.nowMs, type: `${name}State`, broker, topic: part.topic, partition: part.partition, from: before, to: after, event: event.type });
    }
    for (const a of actions) {
      const action = a as unknown as { type: string; params?: Record<string, unknown> };
      if (action.type.startsWith('xstate.')) continue;
      this.execute(broker, key, name, action.type, action.params ?? {});
    }
  }

  // ------------------------------------------------------------------ effects

  private execute(broker: number, key: string, name: MachineName, type: string, p: Record<string, unknown>): void {
    const part = this.state.partitions[key];
    const r = this.replica(key, broker);
    const now = this.state.nowMs;
    const tp = { topic: part.topic, partition: part.partition };
    switch (type) {
      // ---- follower fetcher
      case 'sendFetch':
        return this.sendRequest(broker, key, 'Fetch', p.requestId as number, {
          fetchOffset: p.fetchOffset,
          currentLeaderEpoch: p.currentLeaderEpoch,
          lastFetchedEpoch: p.lastFetchedEpoch,
          maxBytes: this.state.brokerConfig['replica.fetch.max.bytes'],
        });
      case 'sendListOffsets':
        return this.sendRequest(broker, key, 'ListOffsets', p.requestId as number, { timestamp: p.timestamp, currentLeaderEpoch: p.currentLeaderEpoch });
      case 'sendOffsetsForLeaderEpoch':
        return this.sendRequest(broker, key, 'OffsetsForLeaderEpoch', p.requestId as number, { leaderEpoch: p.leaderEpoch, currentLeaderEpoch: p.currentLeaderEpoch });
      case 'appendRecords': {
        const cfg = this.state.topicConfigs[part.topic];
        const leaderLog = part.leader >= 0 ? this.replica(key, part.leader).log : undefined;
        const batches = p.batches as RecordBatch[];
        let bytes = 0;
        for (const b of batches) {
          if (b.baseOffset !== logEndOffset(r.log)) continue;
          const rolled = appendBatch(r.log, b, cfg['segment.bytes'], cfg['segment.ms'], now);
          if (rolled) this.trace.push({ atMs: now, type: 'log', action: 'segmentRolled', broker, ...tp, baseOffset: b.baseOffset, rule: 'segmentFull' });
          bytes += b.bytes;
          if (leaderLog !== undefined) for (const v of checkFollowerAppend(now, key, broker, b, leaderLog)) this.addViolation(v);
        }
        this.state.metrics.bytesFetchedByFollowers += bytes;
        this.localLogBytesChanged(bytes);
        // Kafka's follower: HW = min(leader HW, own LEO) (it may go down after a leader change).
        updateHighWatermark(r.log, p.highWatermark as number);
        // Segments go only when the new log start passes the local log start.
        if ((p.logStartOffset as number) > r.log.localLogStartOffset) this.changeLocalLog(r, () => maybeIncrementLogStartOffset(r.log, p.logStartOffset as number));
        else maybeIncrementLogStartOffset(r.log, p.logStartOffset as number);
        return;
      }
      case 'truncateTo': {
        const offset = p.offset as number;
        const before = logEndOffset(r.log);
        this.changeLocalLog(r, () => truncateTo(r.log, Math.max(offset, r.log.localLogStartOffset)));
        if (offset >= before) return;
        this.trace.push({ atMs: now, type: 'log', action: 'truncateTo', broker, ...tp, offset, rule: p.rule as string });
        return;
      }
      case 'truncateFullyAndStartAt': {
        const offset = p.offset as number;
        this.changeLocalLog(r, () => truncateFullyAndStartAt(r.log, offset, p.logStartOffset as number, now));
        this.trace.push({ atMs: now, type: 'log', action: 'truncateFullyAndStartAt', broker, ...tp, offset, logStartOffset: r.log.logStartOffset, rule: p.rule as string });
        return;
      }
      case 'lookupRemoteSegment':
        push(this.state.queue, now, { kind: 'remoteSegmentLookedUp', broker, key, requestId: p.requestId as number, epoch: p.epoch as number, offset: p.offset as number });
        return;
      case 'getRemoteObject':
        return this.storeOp(broker, key, { op: 'get', store: 'tiered', key: p.key as string }, p.requestId as number, p.purpose as string);
      case 'restoreLeaderEpochs': {
        const entries = p.entries as EpochEntry[];
        r.log.leaderEpochs = entries.map(([e, s]) => [e, s] as EpochEntry);
        this.trace.push({ atMs: now, type: 'log', action: 'leaderEpochsRestored', broker, ...tp, leaderEpochs: entries, rule: 'auxStateLeaderEpochs' });
        return;
      }
      case 'restoreProducerState': {
        const entries = p.entries as ProducerEntry[];
        r.log.producers = restoreProducerState(entries);
        this.trace.push({ atMs: now, type: 'log', action: 'producerStateRestored', broker, ...tp, producers: entries.length, rule: 'auxStateProducerSnapshot' });
        return;
      }
      case 'startBackoff': {
        const delayMs = this.state.brokerConfig['replica.fetch.backoff.ms'];
        push(this.state.queue, now + delayMs, { kind: 'machineTimer', machine: 'fetcher', broker, key, timerId: p.timerId as number });
        this.trace.push({ atMs: now, type: 'fetcher', action: 'delayed', broker, ...tp, delayMs, reason: p.reason as string, retryAtMs: now + delayMs, rule: 'backoff' });
        return;
      }
      case 'explain':
        this.trace.push({ atMs: now, type: name === 'rlm' ? 'rlm' : 'fetcher', action: 'explain', broker, ...tp, rule: p.rule as string, ...((p.detail as object) ?? {}) });
        return;
      // ---- leader
      case 'respondFetch':
        return this.respondFetch(broker, key, p);
      case 'parkFetch': {
        const msg = this.inflight(p.msgId);
        assert(msg !== undefined, 'a parked fetch is in flight');
        part.parked[String(p.msgId)] = { msgId: p.msgId as number, msg };
        push(this.state.queue, now + this.state.brokerConfig['replica.fetch.wait.max.ms'], { kind: 'fetchWaitExpired', key, msgId: p.msgId as number });
        return;
      }
      case 'respondListOffsets': {
        const offset = p.offset as number;
        const ts = p.timestamp as ListOffsetsTimestamp;
        const epoch = offset < 0 ? -1 : ts === -1 ? latestEpoch(r.log.leaderEpochs) : epochForOffset(r.log.leaderEpochs, offset);
        return this.respond(broker, key, p.msgId as number, { error: p.error, timestamp: ts, offset, leaderEpoch: epoch, rule: p.rule });
      }
      case 'respondOffsetsForLeaderEpoch': {
        const e = endOffsetFor(r.log.leaderEpochs, p.requestedEpoch as number, logEndOffset(r.log));
        return this.respond(broker, key, p.msgId as number, { error: p.error, leaderEpoch: e.leaderEpoch, endOffset: e.endOffset, rule: 'endOffsetForEpoch' });
      }
      case 'appendAsLeader':
        return this.appendAsLeader(broker, key, p.msgId as number, p.records as number, p.acks as Acks);
      case 'rejectProduce':
        this.trace.push({ atMs: now, type: 'produce', action: 'rejected', broker, ...tp, error: p.error as KafkaError, rule: p.rule as string });
        return;
      case 'advanceHighWatermark': {
        const hw = Math.min(p.highWatermark as number, logEndOffset(r.log));
        if (hw <= r.log.highWatermark) return;
        r.log.highWatermark = hw;
        this.trace.push({ atMs: now, type: 'highWatermark', broker, ...tp, highWatermark: hw });
        const committed = this.state.watch.committed[key];
        if (committed === undefined || hw > committed.highWatermark) {
          this.state.watch.committed[key] = { highWatermark: hw, epochs: checkpointUpTo(r.log.leaderEpochs, hw - 1) };
        }
        this.completeAcks(key);
        return;
      }
      case 'startIsrCheckTimer':
        push(this.state.queue, now + Math.max(1, Math.floor(this.state.brokerConfig['replica.lag.time.max.ms'] / 2)), { kind: 'isrCheck', broker, key, timerId: p.timerId as number });
        return;
      case 'isrChanged':
        part.isr = [...(p.isr as number[])];
        this.trace.push({ atMs: now, type: 'isr', broker, ...tp, isr: part.isr, added: p.added, removed: p.removed, rule: p.rule as string });
        return;
      // ---- remote log manager
      case 'scheduleTask': {
        const delay = p.after === 'now' ? 0 : this.state.brokerConfig['remote.log.manager.task.interval.ms'];
        push(this.state.queue, now + delay, { kind: 'machineTimer', machine: 'rlm', broker, key, timerId: p.timerId as number });
        return;
      }
      case 'updateHighestOffsetInRemoteStorage': {
        const offset = p.offset as number;
        if (offset <= r.highestOffsetInRemoteStorage) return;
        const from = r.highestOffsetInRemoteStorage;
        r.highestOffsetInRemoteStorage = offset;
        this.trace.push({ atMs: now, type: 'rlm', action: 'highestOffsetInRemoteStorageUpdated', broker, ...tp, from, highestOffsetInRemoteStorage: offset, rule: 'rlmRefreshHighestOffset' });
        return;
      }
      case 'requestStep':
        push(this.state.queue, now, { kind: 'rlmStep', broker, key, requestId: p.requestId as number });
        return;
      case 'rollActiveSegment': {
        const active = r.log.segments[r.log.segments.length - 1];
        if (active.endOffset < active.baseOffset) return;
        roll(r.log, now);
        this.trace.push({ atMs: now, type: 'log', action: 'segmentRolled', broker, ...tp, baseOffset: active.endOffset + 1, rule: 'rollForLocalRetention' });
        return;
      }
      case 'startCopy':
        return this.startCopy(broker, key, p.requestId as number, p.baseOffset as number, p.endOffset as number);
      case 'finishCopy': {
        const segmentId = p.segmentId as string;
        this.setRemoteSegmentState(key, segmentId, 'COPY_SEGMENT_FINISHED');
        const end = p.endOffset as number;
        if (end > r.highestOffsetInRemoteStorage) {
          const from = r.highestOffsetInRemoteStorage;
          r.highestOffsetInRemoteStorage = end;
          this.trace.push({ atMs: now, type: 'rlm', action: 'highestOffsetInRemoteStorageUpdated', broker, ...tp, from, highestOffsetInRemoteStorage: end, rule: 'copyFinished' });
        }
        return;
      }
      case 'abortCopy':
        this.trace.push({ atMs: now, type: 'rlm', action: 'copyFailed', broker, ...tp, segmentId: p.segmentId as string, error: (p.error as string | null) ?? null, rule: 'copyFailed' });
        return this.startRemoteDelete(broker, key, p.requestId as number, p.segmentId as string, 'copyFailed');
      case 'startRemoteDelete':
        return this.startRemoteDelete(broker, key, p.requestId as number, p.segmentId as string, p.rule as string);
      case 'finishRemoteDelete': {
        const segmentId = p.segmentId as string;
        this.setRemoteSegmentState(key, segmentId, 'DELETE_SEGMENT_FINISHED');
        // Log-Start-Offset was raised when a retention delete started (Kafka's order).
        return;
      }
      case 'deleteLocalSegments':
        return this.deleteLocalSegments(broker, key, p.segments as SegmentRange[]);
      default:
        assert(false, `unknown effect ${type} from ${name}`);
    }
  }

  private startCopy(broker: number, key: string, requestId: number, baseOffset: number, endOffset: number): void {
    const part = this.state.partitions[key];
    const r = this.replica(key, broker);
    const seg = r.log.segments.find((x) => x.baseOffset === baseOffset && x.endOffset === endOffset);
    assert(seg !== undefined && seg.rolled, `copy candidate ${baseOffset}-${endOffset} is a rolled local segment`);
    const segmentId = `${part.topic}-${part.partition}-${baseOffset}-${this.state.nextSegmentSeq++}`;
    const meta: RemoteSegmentMetadata = {
      segmentId,
      topic: part.topic,
      partition: part.partition,
      baseOffset,
      endOffset,
      state: 'COPY_SEGMENT_STARTED',
      brokerId: broker,
      segmentLeaderEpochs: segmentLeaderEpochs(r.log.leaderEpochs, baseOffset, endOffset),
      sizeBytes: seg.bytes,
      maxTimestampMs: seg.maxTimestampMs,
      objectKeys: objectKeysFor(part.topic, part.partition, baseOffset, segmentId),
      batchIndex: batchIndexOf(seg.batches),
    };
    part.remoteMetadata.push(meta);
    this.trace.push({ atMs: this.state.nowMs, type: 'remoteMetadata', action: 'stateChanged', broker, topic: part.topic, partition: part.partition, segmentId, from: null, to: 'COPY_SEGMENT_STARTED', baseOffset, endOffset, rule: 'copyCandidate' });
    const objects = this.segmentObjects(meta, seg.batches.slice(), checkpointUpTo(r.log.leaderEpochs, endOffset), producerSnapshotAt(r.log, endOffset + 1));
    this.state.storeGroups[`${broker}|${key}|${requestId}`] = { kind: 'copy', segmentId, remaining: objects.length, ok: true, error: null };
    for (const [objectKey, object, what] of objects) {
      this.storeOp(broker, key, { op: 'put', store: 'tiered', key: objectKey, object }, requestId, `copy:${what}`);
    }
  }

  private startRemoteDelete(broker: number, key: string, requestId: number, segmentId: string, rule: string): void {
    const part = this.state.partitions[key];
    const meta = part.remoteMetadata.find((m) => m.segmentId === segmentId);
    assert(meta !== undefined, `remote segment ${segmentId} exists`);
    // Kafka's RLMExpirationTask raises Log-Start-Offset before it deletes anything, so no
    // offset at or above the log start is ever in a segment being deleted.
    const r = this.replica(key, broker);
    if (isRetentionRule(rule) && meta.endOffset + 1 > r.log.logStartOffset) {
      const from = r.log.logStartOffset;
      this.changeLocalLog(r, () => maybeIncrementLogStartOffset(r.log, meta.endOffset + 1));
      if (r.log.logStartOffset !== from) {
        this.trace.push({ atMs: this.state.nowMs, type: 'log', action: 'logStartOffsetRaised', broker, topic: part.topic, partition: part.partition, from, logStartOffset: r.log.logStartOffset, rule: 'remoteRetention' });
      }
    }
    this.setRemoteSegmentState(key, segmentId, 'DELETE_SEGMENT_STARTED');
    this.trace.push({ atMs: this.state.nowMs, type: 'rlm', action: 'deleteStarted', broker, topic: part.topic, partition: part.partition, segmentId, baseOffset: meta.baseOffset, endOffset: meta.endOffset, rule });
    const keys = [meta.objectKeys.log, meta.objectKeys.offsetIndex, meta.objectKeys.leaderEpochCheckpoint, meta.objectKeys.producerSnapshot];
    this.state.storeGroups[`${broker}|${key}|${requestId}`] = { kind: 'delete', segmentId, remaining: keys.length, ok: true, error: null };
    for (const k of keys) this.storeOp(broker, key, { op: 'delete', store: 'tiered', key: k }, requestId, 'delete');
  }

  /** Local retention removes the oldest local segments; a tiered topic keeps its log start. */
  private deleteLocalSegments(broker: number, key: string, segments: SegmentRange[]): void {
    const part = this.state.partitions[key];
    const r = this.replica(key, broker);
    const now = this.state.nowMs;
    const tiered = this.tiered(key);
    for (const s of segments) {
      const first = r.log.segments[0];
      if (r.log.segments.length < 2 || first.baseOffset !== s.baseOffset) break;
      for (const v of checkLocalDelete(now, key, broker, first, r.log.logStartOffset, r.highestOffsetInRemoteStorage, tiered, part.remoteMetadata)) this.addViolation(v);
      r.log.segments.shift();
      this.localLogBytesChanged(-first.bytes);
      this.trace.push({
        atMs: now, type: 'log', action: 'localSegmentDeleted', broker, topic: part.topic, partition: part.partition,
        baseOffset: first.baseOffset, endOffset: first.endOffset, bytes: first.bytes, rule: tiered ? 'localRetention' : 'logRetention',
      });
    }
    const newStart = r.log.segments[0].baseOffset;
    if (tiered) {
      r.log.localLogStartOffset = Math.max(r.log.localLogStartOffset, newStart);
    } else {
      this.changeLocalLog(r, () => maybeIncrementLogStartOffset(r.log, newStart));
      r.log.localLogStartOffset = Math.max(r.log.localLogStartOffset, newStart);
    }
  }

  /** What the remote log manager decides from, at this moment (see domain/retention.ts). */
  rlmFacts(key: string, broker: number): RlmFacts {
    const part = this.state.partitions[key];
    const r = this.replica(key, broker);
    const log = r.log;
    const cfg = this.state.topicConfigs[part.topic];
    const tiered = this.tiered(key);
    const leader = part.leader === broker;
    const now = this.state.nowMs;
    const localMs = tiered ? effectiveLocalRetentionMs(cfg) : cfg['retention.ms'];
    const localBytesLimit = tiered ? effectiveLocalRetentionBytes(cfg) : cfg['retention.bytes'];
    const local = localRetentionDeletable({
      segments: log.segments,
      highWatermark: log.highWatermark,
      logStartOffset: log.logStartOffset,
      highestOffsetInRemoteStorage: tiered ? r.highestOffsetInRemoteStorage : Number.MAX_SAFE_INTEGER,
      retentionBytes: localBytesLimit,
      retentionMs: localMs,
      nowMs: now,
    });
    const candidate = leader && tiered ? copyCandidates(log.segments, r.highestOffsetInRemoteStorage, log.logStartOffset, log.highWatermark)[0] ?? null : null;
    let localOnlyBytes = 0;
    for (const seg of log.segments) if (seg.baseOffset > r.highestOffsetInRemoteStorage) localOnlyBytes += seg.bytes;
    const remoteExpired = leader && tiered && this.metadataReady(key, broker)
      ? remoteRetentionExpired({ remote: part.remoteMetadata, logStartOffset: log.logStartOffset, localOnlyBytes, retentionBytes: cfg['retention.bytes'], retentionMs: cfg['retention.ms'], nowMs: now })
      : [];
    return {
      tiered,
      copyDisabled: cfg['remote.log.copy.disable'],
      metadataReady: this.metadataReady(key, broker),
      candidate,
      localDeletable: local.deletable,
      localStoppedBy: local.stoppedBy,
      rollActive: tiered && activeSegmentBreachesLocalTime(log.segments[log.segments.length - 1], localMs, now),
      remoteExpired,
    };
  }

  /**
   * Every remote segment state change goes through here, so the forward-only invariant
   * sees each one (the remote log manager's copy and delete steps use it).
   */
  setRemoteSegmentState(key: string, segmentId: string, to: RemoteSegmentMetadata['state']): void {
    const part = this.state.partitions[key];
    const meta = part.remoteMetadata.find((m) => m.segmentId === segmentId);
    assert(meta !== undefined, `remote segment ${segmentId} of ${key} exists`);
    for (const v of checkRemoteTransition(this.state.nowMs, key, segmentId, meta.state, to)) this.addViolation(v);
    const from = meta.state;
    if (from === to) return; // an idempotent re-publish: nothing changes
    meta.state = to;
    this.trace.push({ atMs: this.state.nowMs, type: 'remoteMetadata', action: 'stateChanged', topic: part.topic, partition: part.partition, segmentId, from, to, baseOffset: meta.baseOffset, endOffset: meta.endOffset });
  }

  metadataReady(key: string, broker: number): boolean {
    const at = this.state.partitions[key].metadataReadyAtMs[String(broker)] ?? 0;
    return this.state.nowMs >= at;
  }

  private rlmTaskEvent(broker: number, key: string, timerId: number): RemoteLogManagerEvent {
    const part = this.state.partitions[key];
    const r = this.replica(key, broker);
    return {
      type: 'rlm.taskDue',
      timerId,
      metadataReady: this.metadataReady(key, broker),
      highestRemoteOffset: this.tiered(key) ? findHighestRemoteOffset(part.remoteMetadata, r.log.leaderEpochs, logEndOffset(r.log)) : -1,
      highestOffsetInRemoteStorage: r.highestOffsetInRemoteStorage,
      tiered: this.tiered(key),
    };
  }

  // ------------------------------------------------------------------ network

  /** The request a leader is answering in this step (requests are handled one at a time). */
  private inflight(msgId: unknown): Message | undefined {
    return this.pendingLeaderRequests.find((m) => m.msgId === msgId);
  }

  private pendingLeaderRequests: Message[] = [];

  private sendRequest(broker: number, key: string, api: ApiName, requestId: number, body: Record<string, unknown>): void {
    const part = this.state.partitions[key];
    const fetcher = this.machineSnapshot(broker, key, 'fetcher');
    const target = (fetcher?.context as { leader: number } | undefined)?.leader ?? part.leader;
    const msg: Message = {
      msgId: this.state.nextMsgId++,
      correlationId: this.state.nextCorrelationId++,
      api,
      dir: 'request',
      source: broker,
      target,
      key,
      requestId,
      body,
    };
    this.state.metrics.requests[api] = (this.state.metrics.requests[api] ?? 0) + 1;
    this.trace.push({
      atMs: this.state.nowMs,
      type: 'request',
      api,
      source: broker,
      target,
      topic: part.topic,
      partition: part.partition,
      correlationId: msg.correlationId,
      ...(api === 'Fetch' ? { fetchOffset: body.fetchOffset as number, currentLeaderEpoch: body.currentLeaderEpoch as number, lastFetchedEpoch: body.lastFetchedEpoch as number } : {}),
      ...(api === 'ListOffsets' ? { timestamp: body.timestamp as ListOffsetsTimestamp } : {}),
      ...(api === 'OffsetsForLeaderEpoch' ? { leaderEpoch: body.leaderEpoch as number } : {}),
    });
    push(this.state.queue, this.state.nowMs + this.latencyMs(broker, target, key), { kind: 'deliver', msg });
  }

  private onRequest(msg: Message): void {
    const target = msg.target as number;
    // A crashed broker's connections closed with it: its requests in flight are lost.
    if (typeof msg.source === 'number' && !this.state.brokers[msg.source].alive) return;
    if (!this.state.brokers[target]?.alive) {
      // The connection fails; the requester sees a network error after the round trip.
      return this.reply(msg, { error: 'NETWORK_EXCEPTION', rule: 'brokerDown' }, target);
    }
    if (msg.source === 'consumer') return this.onConsumerFetch(msg);
    const part = this.state.partitions[msg.key];
    if (part.leader !== target) return this.reply(msg, { error: 'NOT_LEADER_OR_FOLLOWER', rule: 'notLeader' }, target);
    this.onFollowerRequestAtLeader(msg, false);
  }

  private onFollowerRequestAtLeader(msg: Message, waitExpired: boolean): void {
    const leader = msg.target as number;
    // A parked Fetch from a broker that has since crashed went with its connection.
    if (typeof msg.source === 'number' && !this.state.brokers[msg.source].alive) return;
    const facts = this.leaderFacts(msg.key, leader);
    const b = msg.body;
    this.pendingLeaderRequests.push(msg);
    switch (msg.api) {
      case 'Fetch': {
        const r = this.replica(msg.key, leader);
        const lfe = b.lastFetchedEpoch as number;
        this.deliver(leader, msg.key, 'leader', {
          type: 'fetch.received',
          msgId: msg.msgId,
          from: msg.source as number,
          fetchOffset: b.fetchOffset as number,
          currentLeaderEpoch: b.currentLeaderEpoch as number,
          lastFetchedEpoch: lfe,
          lastFetchedEpochEnd: lfe >= 0 ? endOffsetFor(r.log.leaderEpochs, lfe, logEndOffset(r.log)) : null,
          waitExpired,
          ...facts,
        });
        break;
      }
      case 'ListOffsets':
        this.deliver(leader, msg.key, 'leader', {
          type: 'listOffsets.received',
          msgId: msg.msgId,
          from: msg.source as number,
          timestamp: b.timestamp as ListOffsetsTimestamp,
          currentLeaderEpoch: b.currentLeaderEpoch as number,
          ...facts,
        });
        break;
      case 'OffsetsForLeaderEpoch':
        this.deliver(leader, msg.key, 'leader', {
          type: 'offsetsForLeaderEpoch.received',
          msgId: msg.msgId,
          from: msg.source as number,
          leaderEpoch: b.leaderEpoch as number,
          currentLeaderEpoch: b.currentLeaderEpoch as number,
          ...facts,
        });
        break;
    }
    this.pendingLeaderRequests = this.pendingLeaderRequests.filter((m) => m !== msg);
  }

  private respondFetch(broker: number, key: string, p: Record<string, unknown>): void {
    const part = this.state.partitions[key];
    const msg = this.inflight(p.msgId) ?? part.parked[String(p.msgId)]?.msg;
    assert(msg !== undefined, 'a Fetch answered is in flight');
    delete part.parked[String(p.msgId)];
    const r = this.replica(key, broker);
    const error = p.error as KafkaError | null;
    const batches = error === null && p.divergingEpoch === null ? readBatches(r.log, p.fetchOffset as number, msg.body.maxBytes as number) : [];
    this.reply(
      msg,
      {
        error,
        batches,
        highWatermark: r.log.highWatermark,
        logStartOffset: r.log.logStartOffset,
        divergingEpoch: p.divergingEpoch,
        fetchOffset: p.fetchOffset,
        rule: p.rule,
      },
      broker,
    );
  }

  private respond(broker: number, key: string, msgId: number, body: Record<string, unknown>): void {
    const msg = this.inflight(msgId);
    assert(msg !== undefined && msg.key === key, 'a request answered is in flight');
    this.reply(msg, body, broker);
  }

  private reply(request: Message, body: Record<string, unknown>, from: number): void {
    const msg: Message = { ...request, dir: 'response', source: from, target: request.source, body, msgId: this.state.nextMsgId++ };
    push(this.state.queue, this.state.nowMs + this.latencyMs(from, request.source, request.key), { kind: 'deliver', msg });
  }

  private onResponse(msg: Message): void {
    const part = this.state.partitions[msg.key];
    const b = msg.body;
    const batches = (b.batches as RecordBatch[] | undefined) ?? [];
    const bytes = batches.reduce((n, x) => n + x.bytes, 0);
    const records = batches.reduce((n, x) => n + (x.lastOffset - x.baseOffset + 1), 0);
    this.trace.push({
      atMs: this.state.nowMs,
      type: 'response',
      api: msg.api,
      source: msg.source as number,
      target: msg.target,
      topic: part.topic,
      partition: part.partition,
      correlationId: msg.correlationId,
      error: (b.error as KafkaError | null) ?? null,
      ...(msg.api === 'Fetch'
        ? {
            records,
            bytes,
            fetchOffset: (b.fetchOffset as number | undefined) ?? (msg.body.fetchOffset as number),
            ...(b.highWatermark !== undefined ? { highWatermark: b.highWatermark as number, logStartOffset: b.logStartOffset as number } : {}),
            ...(b.divergingEpoch ? { divergingEpoch: b.divergingEpoch as { epoch: number; endOffset: number } } : {}),
            ...(b.servedFrom ? { servedFrom: b.servedFrom as 'local' | 'remote' } : {}),
          }
        : {}),
      ...(msg.api === 'ListOffsets' ? { timestamp: b.timestamp as ListOffsetsTimestamp, offset: b.offset as number, leaderEpoch: b.leaderEpoch as number } : {}),
      ...(msg.api === 'OffsetsForLeaderEpoch' ? { leaderEpoch: b.leaderEpoch as number, endOffset: b.endOffset as number } : {}),
      ...(b.rule ? { rule: b.rule as string } : {}),
    });
    if (msg.api === 'Fetch' && typeof msg.source === 'number') {
      this.countCrossZone(msg.target === 'consumer' ? 'consume' : 'replication', this.zoneOf(msg.source, msg.key), this.zoneOf(msg.target, msg.key), bytes);
    }
    if (msg.target === 'consumer') return this.onConsumerResponse(msg);
    const broker = msg.target as number;
    if (!this.state.brokers[broker].alive) return;
    const replica = this.replicaFacts(msg.key, broker);
    const error = (b.error as KafkaError | null) ?? null;
    switch (msg.api) {
      case 'Fetch':
        return this.deliver(broker, msg.key, 'fetcher', {
          type: 'fetch.responded',
          requestId: msg.requestId,
          error,
          batches,
          highWatermark: (b.highWatermark as number | undefined) ?? -1,
          logStartOffset: (b.logStartOffset as number | undefined) ?? -1,
          divergingEpoch: (b.divergingEpoch as { epoch: number; endOffset: number } | null | undefined) ?? null,
          replica,
        });
      case 'ListOffsets':
        return this.deliver(broker, msg.key, 'fetcher', {
          type: 'listOffsets.responded',
          requestId: msg.requestId,
          timestamp: (msg.body.timestamp ?? b.timestamp) as ListOffsetsTimestamp,
          error,
          offset: (b.offset as number | undefined) ?? -1,
          leaderEpoch: (b.leaderEpoch as number | undefined) ?? -1,
          replica,
        });
      case 'OffsetsForLeaderEpoch':
        return this.deliver(broker, msg.key, 'fetcher', {
          type: 'offsetsForLeaderEpoch.responded',
          requestId: msg.requestId,
          error,
          leaderEpoch: (b.leaderEpoch as number | undefined) ?? -1,
          endOffset: (b.endOffset as number | undefined) ?? -1,
        });
    }
  }

  // ------------------------------------------------------------------ remote storage

  private onRemoteSegmentLookup(ev: Extract<KernelEvent, { kind: 'remoteSegmentLookedUp' }>): void {
    if (!this.state.brokers[ev.broker].alive) return;
    const part = this.state.partitions[ev.key];
    const ready = this.metadataReady(ev.key, ev.broker);
    const found = ready ? findRemoteSegment(part.remoteMetadata, ev.epoch, ev.offset) : undefined;
    this.trace.push({
      atMs: this.state.nowMs,
      type: 'remoteMetadata',
      action: 'lookup',
      broker: ev.broker,
      topic: part.topic,
      partition: part.partition,
      epoch: ev.epoch,
      offset: ev.offset,
      found: found ? found.segmentId : null,
      rule: found ? 'remoteSegmentFound' : ready ? 'remoteSegmentNotFound' : 'remoteMetadataLoading',
    });
    this.deliver(ev.broker, ev.key, 'fetcher', {
      type: 'remoteSegment.lookedUp',
      requestId: ev.requestId,
      found: found
        ? {
            segmentId: found.segmentId,
            baseOffset: found.baseOffset,
            endOffset: found.endOffset,
            keys: { leaderEpochCheckpoint: found.objectKeys.leaderEpochCheckpoint, producerSnapshot: found.objectKeys.producerSnapshot },
          }
        : null,
      reason: found ? null : ready ? 'previous remote log segment metadata was not found' : 'remote log metadata is still loading',
    });
  }

  /** Modelled latency, from the request alone (a real store's own timing never enters the run). */
  private storeLatencyMs(req: ObjectStoreRequest): number {
    const m = this.state.model;
    switch (req.op) {
      case 'put':
        return m.tieredPutLatencyMs + Math.floor(req.object.bytes / m.tieredPutBytesPerMs);
      case 'get':
      case 'list':
        return m.tieredGetLatencyMs;
      case 'delete':
        return m.tieredDeleteLatencyMs;
    }
  }

  /** Requests to an asynchronous store issued in this step, awaited before the next. */
  private pendingIo: Promise<void>[] = [];

  /** Waits for every store request issued so far (asynchronous stores only). */
  async settle(): Promise<void> {
    while (this.pendingIo.length > 0) await Promise.all(this.pendingIo.splice(0));
  }

  /** One step, with the store's requests completed before it returns. */
  async stepAsync(): Promise<boolean> {
    await this.settle();
    const more = this.step();
    await this.settle();
    return more;
  }

  /** Issues an object-store request; the completion arrives after the modelled latency. */
  private storeOp(broker: number, key: string, req: ObjectStoreRequest, requestId: number, purpose: string): void {
    const available = this.state.storeAvailable[req.store];
    const measured = this.latencyMode === 'measured' && available;
    const started = measured ? performance.now() : 0;
    let result: ObjectStoreResult;
    let pending: Promise<ObjectStoreResult> | null = null;
    if (!available) result = { ok: false, bytes: 0, error: 'ServiceUnavailable' };
    else if (this.store.executeAsync) {
      result = { ok: false, bytes: 0 };
      pending = this.store.executeAsync(req);
    } else result = this.store.execute(req);
    const index = this.trace.length;
    this.trace.push(this.objectStoreEntry(broker, key, req, result, purpose));
    const issuedMs = this.state.nowMs;
    // A request to an available store is billed once its result is final (now, or once an
    // asynchronous store has answered, before the next step); a refused one is not.
    if (available && pending === null) this.countStoreOp(req, result, issuedMs);
    const done = (latencyMs: number) =>
      push(this.state.queue, issuedMs + latencyMs, {
        kind: 'storeDone',
        broker,
        key,
        requestId,
        purpose,
        store: req.store,
        objectKey: 'key' in req ? req.key : req.prefix,
        result,
      });
    const measuredMs = () => Math.max(1, Math.round(performance.now() - started));
    if (pending === null) {
      done(measured ? measuredMs() : this.storeLatencyMs(req));
      return;
    }
    // The model's completion is queued now; a measured one once the store has answered.
    if (!measured) done(this.storeLatencyMs(req));
    // The completion event and the trace entry get the real result before the next step.
    const finish = (r: ObjectStoreResult) => {
      Object.assign(result, r);
      this.countStoreOp(req, result, issuedMs);
      this.trace[index] = { ...this.objectStoreEntry(broker, key, req, result, purpose), atMs: issuedMs };
      if (measured) done(measuredMs());
    };
    this.pendingIo.push(pending.then(finish, (e: unknown) => finish({ ok: false, bytes: 0, error: (e as Error).message })));
  }

  /** Bills one object-store request with its final result (core/sim/costs.ts). */
  private countStoreOp(req: ObjectStoreRequest, result: ObjectStoreResult, atMs: number): void {
    const key = 'key' in req ? req.key : req.prefix;
    const objectBytes = req.op === 'put' ? req.object.bytes : undefined;
    countStoreRequest(this.state.metrics.objectStore, this.state.usage, this.state.prices, { op: req.op, store: req.store, key, objectBytes }, result, atMs);
  }

  private objectStoreEntry(broker: number, key: string, req: ObjectStoreRequest, result: ObjectStoreResult, purpose: string): TraceEntry {
    const part = this.state.partitions[key];
    const objectKey = 'key' in req ? req.key : req.prefix;
    return {
      atMs: this.state.nowMs,
      type: 'objectStore',
      op: req.op,
      store: req.store,
      key: objectKey,
      bytes: result.bytes,
      ok: result.ok,
      broker,
      topic: part.topic,
      partition: part.partition,
      purpose,
      ...(result.error ? { error: result.error } : {}),
      ...(req.op === 'get' && req.range ? { range: req.range } : {}),
    };
  }

  private onStoreDone(ev: Extract<KernelEvent, { kind: 'storeDone' }>): void {
    if (!this.state.brokers[ev.broker].alive) return;
    if (ev.purpose === 'consumerRead') return this.onConsumerRemoteRead(ev);
    if (ev.purpose === 'deleteOnDisable') return;
    if (ev.purpose.startsWith('copy:') || ev.purpose === 'delete') {
      const id = `${ev.broker}|${ev.key}|${ev.requestId}`;
      const g = this.state.storeGroups[id];
      if (g === undefined) return;
      g.remaining--;
      if (!ev.result.ok) {
        g.ok = false;
        g.error ??= ev.result.error ?? 'error';
      }
      if (g.remaining > 0) return;
      delete this.state.storeGroups[id];
      return this.deliver(ev.broker, ev.key, 'rlm', {
        type: g.kind === 'copy' ? 'rlm.copyCompleted' : 'rlm.deleteCompleted',
        requestId: ev.requestId,
        segmentId: g.segmentId,
        ok: g.ok,
        error: g.error,
      });
    }
    const body = ev.result.object?.body;
    const text = body?.kind === 'text' ? body.text : '';
    this.deliver(ev.broker, ev.key, 'fetcher', {
      type: 'objectStore.getCompleted',
      requestId: ev.requestId,
      ok: ev.result.ok,
      error: ev.result.error ?? null,
      ...(ev.result.ok && ev.purpose === 'leaderEpochCheckpoint' ? { leaderEpochs: parseCheckpoint(text) } : {}),
      ...(ev.result.ok && ev.purpose === 'producerSnapshot' ? { producers: JSON.parse(text) as ProducerEntry[] } : {}),
    });
  }

  // ------------------------------------------------------------------ produce and consume

  private appendAsLeader(broker: number, key: string, msgId: number, records: number, acks: Acks): void {
    const part = this.state.partitions[key];
    const r = this.replica(key, broker);
    const cfg = this.state.topicConfigs[part.topic];
    const model = this.state.model;
    const now = this.state.nowMs;
    const first = logEndOffset(r.log);
    for (const count of planBatches(records, model.recordBytes, model.producerBatchBytes)) {
      const base = logEndOffset(r.log);
      const batch: RecordBatch = {
        baseOffset: base,
        lastOffset: base + count - 1,
        leaderEpoch: part.leaderEpoch,
        producerId: 1,
        baseSequence: part.nextSequence,
        bytes: count * model.recordBytes,
        appendedMs: now,
      };
      part.nextSequence += count;
      if (appendBatch(r.log, batch, cfg['segment.bytes'], cfg['segment.ms'], now)) {
        this.trace.push({ atMs: now, type: 'log', action: 'segmentRolled', broker, topic: part.topic, partition: part.partition, baseOffset: base, rule: 'segmentFull' });
      }
    }
    const last = logEndOffset(r.log) - 1;
    this.state.metrics.produced.records += records;
    this.state.metrics.produced.bytes += records * model.recordBytes;
    this.localLogBytesChanged(records * model.recordBytes);
    this.trace.push({ atMs: now, type: 'produce', action: 'appended', broker, topic: part.topic, partition: part.partition, records, acks, baseOffset: first, lastOffset: last, rule: 'appendAsLeader' });
    // The producer's request and the leader's answer: one round trip from the client's zone.
    const roundTrip = 2 * this.latencyMs('producer', broker, key);
    if (acks === 'all') part.pendingAcks.push({ msgId, lastOffset: last, sentMs: now, records });
    else if (acks === 1) {
      this.state.produceLatencies.acks1.push(roundTrip);
      this.trace.push({ atMs: now, type: 'produce', action: 'acknowledged', broker, topic: part.topic, partition: part.partition, acks, lastOffset: last, latencyMs: roundTrip });
    } else this.state.produceLatencies.acks0.push(0);
    // acks=all may complete at once when the leader is the only in-sync replica.
    this.completeAcks(key);
    // New data completes the fetches held in the long poll.
    for (const parked of Object.values(part.parked)) {
      delete part.parked[String(parked.msgId)];
      this.onFollowerRequestAtLeader(parked.msg, false);
    }
  }

  private completeAcks(key: string): void {
    const part = this.state.partitions[key];
    const r = this.replica(key, part.leader);
    const done = part.pendingAcks.filter((a) => a.lastOffset < r.log.highWatermark);
    if (done.length === 0) return;
    part.pendingAcks = part.pendingAcks.filter((a) => a.lastOffset >= r.log.highWatermark);
    for (const a of done) {
      const latencyMs = this.state.nowMs - a.sentMs + 2 * this.latencyMs('producer', part.leader, key);
      this.state.produceLatencies.acksAll.push(latencyMs);
      this.trace.push({ atMs: this.state.nowMs, type: 'produce', action: 'acknowledged', broker: part.leader, topic: part.topic, partition: part.partition, acks: 'all', lastOffset: a.lastOffset, latencyMs });
    }
  }

  private sendConsumerFetch(consumerId: number): void {
    const c = this.state.consumers[String(consumerId)];
    if (c === undefined) return;
    const part = this.state.partitions[c.key];
    const msg: Message = {
      msgId: this.state.nextMsgId++,
      correlationId: this.state.nextCorrelationId++,
      api: 'Fetch',
      dir: 'request',
      source: 'consumer',
      target: c.broker,
      key: c.key,
      requestId: consumerId,
      body: { fetchOffset: c.nextOffset, maxBytes: 1048576 },
    };
    this.trace.push({ atMs: this.state.nowMs, type: 'request', api: 'Fetch', source: 'consumer', target: c.broker, topic: part.topic, partition: part.partition, correlationId: msg.correlationId, fetchOffset: c.nextOffset });
    push(this.state.queue, this.state.nowMs + this.latencyMs('consumer', c.broker, c.key), { kind: 'deliver', msg });
  }

  /** A consumer Fetch: below the local log start of a tiered topic it is read from remote storage. */
  private onConsumerFetch(msg: Message): void {
    const broker = msg.target as number;
    const part = this.state.partitions[msg.key];
    const r = part.replicaStates[String(broker)];
    if (r === undefined) return this.reply(msg, { error: 'NOT_LEADER_OR_FOLLOWER', rule: 'notReplica' }, broker);
    const offset = msg.body.fetchOffset as number;
    const log = r.log;
    if (offset < log.logStartOffset || offset > logEndOffset(log)) return this.reply(msg, { error: 'OFFSET_OUT_OF_RANGE', batches: [], rule: 'consumerOutOfRange' }, broker);
    if (offset < log.localLogStartOffset && this.tiered(msg.key)) {
      const seg = part.remoteMetadata.find((m) => m.state === 'COPY_SEGMENT_FINISHED' && m.baseOffset <= offset && offset <= m.endOffset);
      if (seg === undefined) return this.reply(msg, { error: 'OFFSET_OUT_OF_RANGE', batches: [], rule: 'remoteSegmentMissing' }, broker);
      // The byte range comes from the segment's offset index (the leader's remote index
      // cache), then one ranged GET reads just those batches.
      let start = -1;
      let end = 0;
      let lastOffset = -1;
      const picked: number[] = [];
      for (const [base, last, pos, bytes] of seg.batchIndex) {
        if (last < offset || base >= log.highWatermark) continue;
        if (picked.length > 0 && end - start + bytes > (msg.body.maxBytes as number)) break;
        if (picked.length === 0) start = pos;
        picked.push(base);
        end = pos + bytes;
        lastOffset = last;
      }
      if (picked.length === 0) return this.reply(msg, { error: null, batches: [], servedFrom: 'remote', rule: 'consumerRemoteRead', fetchOffset: offset }, broker);
      this.state.pendingConsumerReads[String(msg.msgId)] = { msg, batchBaseOffsets: picked };
      const range: [number, number] = [start, Math.max(start, end - 1)];
      return this.storeOp(broker, msg.key, { op: 'get', store: 'tiered', key: seg.objectKeys.log, range, offsets: [picked[0], lastOffset] }, msg.msgId, 'consumerRead');
    }
    const batches = readBatches(log, offset, msg.body.maxBytes as number).filter((b) => b.lastOffset < log.highWatermark);
    this.reply(msg, { error: null, batches, servedFrom: 'local', rule: 'consumerLocalRead', fetchOffset: offset }, broker);
  }

  private onConsumerRemoteRead(ev: Extract<KernelEvent, { kind: 'storeDone' }>): void {
    const pending = this.state.pendingConsumerReads[String(ev.requestId)];
    if (pending === undefined) return;
    delete this.state.pendingConsumerReads[String(ev.requestId)];
    const key = String(ev.broker);
    const m = (this.state.metrics.remoteReads[key] ??= { count: 0, bytes: 0 });
    m.count++;
    m.bytes += ev.result.bytes;
    if (!ev.result.ok) return this.reply(pending.msg, { error: 'NETWORK_EXCEPTION', batches: [], servedFrom: 'remote', rule: 'remoteReadFailed' }, ev.broker);
    const body = ev.result.object?.body;
    const wanted = new Set(pending.batchBaseOffsets);
    const batches = body?.kind === 'segment' ? body.batches.filter((b) => wanted.has(b.baseOffset)) : [];
    this.reply(pending.msg, { error: null, batches, servedFrom: 'remote', rule: 'consumerRemoteRead', fetchOffset: pending.msg.body.fetchOffset }, ev.broker);
  }

  private onConsumerResponse(msg: Message): void {
    const c = this.state.consumers[String(msg.requestId)];
    if (c === undefined) return;
    const part = this.state.partitions[c.key];
    const batches = (msg.body.batches as RecordBatch[] | undefined) ?? [];
    const error = msg.body.error as KafkaError | null;
    let n = 0;
    for (const b of batches) n += b.lastOffset - Math.max(b.baseOffset, c.nextOffset) + 1;
    // A Fetch may return more than the consumer asked for; it reads only what it wanted.
    n = Math.min(n, c.remaining);
    if (msg.body.servedFrom === 'remote') c.remote += n;
    else c.local += n;
    c.remaining -= n;
    c.nextOffset += n;
    if (error !== null || batches.length === 0 || c.remaining <= 0) {
      this.trace.push({ atMs: this.state.nowMs, type: 'consume', action: 'finished', broker: c.broker, topic: part.topic, partition: part.partition, recordsLocal: c.local, recordsRemote: c.remote, nextOffset: c.nextOffset, error, rule: c.remote > 0 ? 'consumerReadRemote' : 'consumerReadLocal' });
      delete this.state.consumers[String(c.id)];
      return;
    }
    push(this.state.queue, this.state.nowMs, { kind: 'consumerFetch', consumerId: c.id });
  }

  // ------------------------------------------------------------------ timeline

  private applyTimeline(a: TimelineAction): void {
    const now = this.state.nowMs;
    switch (a.kind) {
      case 'addReplica': {
        const key = partitionKey(a.topic, a.partition);
        const part = this.state.partitions[key];
        if (part.replicas.includes(a.broker)) {
          this.trace.push({ atMs: now, type: 'timeline', action: 'addReplica', broker: a.broker, topic: a.topic, partition: a.partition, ignored: 'already a replica' });
          return;
        }
        part.replicas.push(a.broker);
        part.replicaStates[String(a.broker)] = { broker: a.broker, log: emptyLog(0, now), highestOffsetInRemoteStorage: -1 };
        for (const name of ['fetcher', 'leader', 'rlm'] as const) this.createMachine(a.broker, key, name);
        this.trace.push({ atMs: now, type: 'timeline', action: 'addReplica', broker: a.broker, topic: a.topic, partition: a.partition, rule: 'replicaAdded' });
        if (!this.state.brokers[a.broker].alive) return;
        this.deliver(a.broker, key, 'rlm', { type: 'rlm.started', role: 'follower' });
        this.startFetcher(a.broker, key);
        return;
      }
      case 'produce': {
        const key = partitionKey(a.topic, a.partition);
        const part = this.state.partitions[key];
        this.trace.push({ atMs: now, type: 'timeline', action: 'produce', topic: a.topic, partition: a.partition, records: a.records, acks: a.acks });
        if (part.leader < 0 || !this.state.brokers[part.leader].alive) {
          this.trace.push({ atMs: now, type: 'produce', action: 'rejected', topic: a.topic, partition: a.partition, error: 'NOT_LEADER_OR_FOLLOWER', rule: 'noLeader' });
          return;
        }
        const cfg = this.state.topicConfigs[a.topic];
        // The request's records cross zones when the producer is not in the leader's zone (accepted or not).
        this.countCrossZone('produce', this.zoneOf('producer', key), this.zoneOf(part.leader, key), a.records * this.state.model.recordBytes);
        this.deliver(part.leader, key, 'leader', {
          type: 'produce.received',
          msgId: this.state.nextMsgId++,
          records: a.records,
          acks: a.acks,
          minInsyncReplicas: cfg['min.insync.replicas'],
          ...this.leaderFacts(key, part.leader),
        });
        return;
      }
      case 'consume': {
        const key = partitionKey(a.topic, a.partition);
        const part = this.state.partitions[key];
        const broker = a.broker ?? part.leader;
        const id = this.state.nextConsumerId++;
        this.state.consumers[String(id)] = { id, key, broker, nextOffset: a.fromOffset, remaining: a.records, local: 0, remote: 0 };
        this.trace.push({ atMs: now, type: 'timeline', action: 'consume', broker, topic: a.topic, partition: a.partition, fromOffset: a.fromOffset, records: a.records });
        this.sendConsumerFetch(id);
        return;
      }
      case 'setConfig':
        return this.setConfig(a.values, a.topic);
      case 'objectStore': {
        const stores: StoreName[] = a.store ? [a.store] : ['tiered', 'wal'];
        for (const s of stores) this.state.storeAvailable[s] = a.available;
        this.trace.push({ atMs: now, type: 'timeline', action: 'objectStore', stores, available: a.available, rule: a.available ? 'storeRecovered' : 'storeOutage' });
        return;
      }
      case 'crash':
        return this.crash(a.broker);
      case 'restart':
        return this.restart(a.broker);
      case 'electLeader': {
        const key = partitionKey(a.topic, a.partition);
        const part = this.state.partitions[key];
        if (!this.state.brokers[a.broker].alive || !part.isr.includes(a.broker)) {
          this.trace.push({ atMs: now, type: 'timeline', action: 'electLeader', broker: a.broker, topic: a.topic, partition: a.partition, ignored: 'not a live in-sync replica (clean election only)', rule: 'electionRefused' });
          return;
        }
        if (part.leader === a.broker) return;
        this.trace.push({ atMs: now, type: 'timeline', action: 'electLeader', broker: a.broker, topic: a.topic, partition: a.partition });
        return this.becomeLeader(key, a.broker, 'electLeader');
      }
    }
  }

  /** Exposed for the browser's recorded actions: same effect as a timeline event now. */
  applyAction(action: TimelineAction): void {
    this.applyTimeline(action);
    for (const v of checkInvariants(this)) this.addViolation(v);
  }

  private setConfig(values: Record<string, ConfigValue>, topic?: string): void {
    const now = this.state.nowMs;
    const wasTiered: Record<string, boolean> = {};
    for (const key of this.state.partitionOrder) wasTiered[key] = this.tiered(key);
    for (const [k, v] of Object.entries(values)) {
      if (topic === undefined && isBrokerConfigKey(k)) (this.state.brokerConfig as Record<string, ConfigValue>)[k] = v;
      if (isTopicConfigKey(k)) {
        for (const t of Object.keys(this.state.topicConfigs)) {
          if (topic === undefined || topic === t) (this.state.topicConfigs[t] as Record<string, ConfigValue>)[k] = v;
        }
      }
      this.trace.push({ atMs: now, type: 'config', action: 'setConfig', key: k, value: v, ...(topic ? { topic } : {}), rule: 'configChanged' });
    }
    for (const key of this.state.partitionOrder) {
      if (wasTiered[key] && !this.tiered(key)) this.deleteRemoteOnDisable(key);
    }
  }

  /**
   * Tiering turned off on a topic. Kafka (KIP-950) only allows this with
   * remote.log.delete.on.disable: the remote data is deleted and Log-Start-Offset moves to
   * the local log start on every replica. The in-memory Ry stays as it was (it never
   * decreases), which is how a stale Ry below Log-Start-Offset arises when tiering is
   * enabled again.
   */
  private deleteRemoteOnDisable(key: string): void {
    const part = this.state.partitions[key];
    const now = this.state.nowMs;
    for (const r of Object.values(part.replicaStates)) {
      if (r.log.logStartOffset < r.log.localLogStartOffset) {
        const from = r.log.logStartOffset;
        r.log.logStartOffset = r.log.localLogStartOffset;
        truncateEpochsFromStart(r.log.leaderEpochs, r.log.logStartOffset);
        this.trace.push({ atMs: now, type: 'log', action: 'logStartOffsetRaised', broker: r.broker, topic: part.topic, partition: part.partition, from, logStartOffset: r.log.logStartOffset, rule: 'remoteDeletedOnDisable' });
      }
    }
    for (const m of part.remoteMetadata) {
      if (m.state !== 'COPY_SEGMENT_FINISHED' && m.state !== 'COPY_SEGMENT_STARTED') continue;
      this.setRemoteSegmentState(key, m.segmentId, 'DELETE_SEGMENT_STARTED');
      for (const objectKey of [m.objectKeys.log, m.objectKeys.offsetIndex, m.objectKeys.leaderEpochCheckpoint, m.objectKeys.producerSnapshot]) {
        this.storeOp(part.leader >= 0 ? part.leader : m.brokerId, key, { op: 'delete', store: 'tiered', key: objectKey }, 0, 'deleteOnDisable');
      }
      this.setRemoteSegmentState(key, m.segmentId, 'DELETE_SEGMENT_FINISHED');
    }
  }

  private crash(broker: number): void {
    const now = this.state.nowMs;
    const b = this.state.brokers[broker];
    if (!b.alive) return;
    b.alive = false;
    this.trace.push({ atMs: now, type: 'broker', action: 'crashed', broker, rule: 'brokerCrashed' });
    for (const key of this.state.partitionOrder) {
      const part = this.state.partitions[key];
      if (!part.replicas.includes(broker)) continue;
      const r = this.replica(key, broker);
      // In-memory state is lost; the log on disk survives.
      r.highestOffsetInRemoteStorage = -1;
      this.state.watch.highestOffsetInRemoteStorage[`${broker}|${key}`] = -1;
      for (const name of ['fetcher', 'leader', 'rlm'] as const) this.createMachine(broker, key, name);
      if (part.isr.includes(broker) && part.isr.length > 1) {
        part.isr = part.isr.filter((x) => x !== broker);
        this.trace.push({ atMs: now, type: 'isr', broker, topic: part.topic, partition: part.partition, isr: part.isr, added: [], removed: [broker], rule: 'brokerDown' });
        if (part.leader !== broker && part.leader >= 0 && this.state.brokers[part.leader].alive) {
          this.deliver(part.leader, key, 'leader', { type: 'partition.updated', isr: part.isr, ...this.leaderFacts(key, part.leader) });
        }
      }
      if (part.leader === broker) {
        const next = part.isr.find((x) => x !== broker && this.state.brokers[x].alive);
        if (next !== undefined) this.becomeLeader(key, next, 'leaderCrashed');
        else {
          part.leader = -1;
          this.trace.push({ atMs: now, type: 'leader', topic: part.topic, partition: part.partition, broker: -1, leaderEpoch: part.leaderEpoch, rule: 'noEligibleLeader' });
        }
      }
    }
  }

  private restart(broker: number): void {
    const now = this.state.nowMs;
    const b = this.state.brokers[broker];
    if (b.alive) return;
    b.alive = true;
    this.trace.push({ atMs: now, type: 'broker', action: 'restarted', broker, rule: 'brokerRestarted' });
    for (const key of this.state.partitionOrder) {
      const part = this.state.partitions[key];
      if (!part.replicas.includes(broker)) continue;
      // A restarted broker reads the remote log metadata topic again before it knows anything.
      part.metadataReadyAtMs[String(broker)] = now + this.state.model.remoteLogMetadataLoadMs;
      if (part.leader === -1 && part.isr.includes(broker)) {
        this.becomeLeader(key, broker, 'lastInSyncReplicaReturned');
        continue;
      }
      this.deliver(broker, key, 'rlm', { type: 'rlm.started', role: 'follower' });
      if (part.leader !== broker && part.leader >= 0) this.startFetcher(broker, key);
    }
  }

  /** Clean election: bump the epoch, the new leader appends (epoch, LEO) to its cache. */
  private becomeLeader(key: string, broker: number, rule: string): void {
    const now = this.state.nowMs;
    const part = this.state.partitions[key];
    const old = part.leader;
    part.leaderEpoch += 1;
    part.leader = broker;
    if (!part.isr.includes(broker)) part.isr = [...part.isr, broker].sort((a, b) => a - b);
    const r = this.replica(key, broker);
    const cache = r.log.leaderEpochs;
    if (latestEpoch(cache) < part.leaderEpoch) cache.push([part.leaderEpoch, logEndOffset(r.log)]);
    // Ry is in memory on the old leader only; the new leader learns it at its first task run.
    r.highestOffsetInRemoteStorage = -1;
    this.state.watch.highestOffsetInRemoteStorage[`${broker}|${key}`] = -1;
    this.trace.push({ atMs: now, type: 'leader', topic: part.topic, partition: part.partition, broker, previous: old, leaderEpoch: part.leaderEpoch, rule });
    this.deliver(broker, key, 'fetcher', { type: 'fetcher.stopped' });
    this.deliver(broker, key, 'leader', {
      type: 'leadership.assumed',
      leaderEpoch: part.leaderEpoch,
      isr: part.isr,
      replicas: part.replicas,
      nowMs: now,
      logEndOffset: logEndOffset(r.log),
    });
    this.deliver(broker, key, 'rlm', { type: 'rlm.started', role: 'leader' });
    for (const b of part.replicas) {
      if (b === broker || !this.state.brokers[b].alive) continue;
      if (b === old) {
        this.deliver(b, key, 'leader', { type: 'leadership.resigned' });
        this.deliver(b, key, 'rlm', { type: 'rlm.started', role: 'follower' });
      }
      this.startFetcher(b, key);
    }
    // Fetches parked at the old leader are answered by no one: their senders restart anyway.
    part.parked = {};
  }
}
