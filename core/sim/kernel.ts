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
import type { AnyMachineSnapshot } from 'xstate';
import { fastTransition } from './fast-transition.js';
import { pureInitialTransition, pureTransition } from './pure-transition.js';
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
  assignEpoch,
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
import { type WalCombinerEvent, walCombinerMachine } from '../machines/wal-combiner.js';
import { type WalChunkRef, type WalReplicaEvent, walReplicaMachine } from '../machines/wal-replica.js';
import { type PendingChunk, type WalChunk, type WalObject, WAL_METADATA_TOPIC, assembleWalObject, batchPositions, chunkBatches, walObjectKey } from '../domain/wal.js';
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
import { bugOn } from '../check/bugs.js';

export type MachineName = 'fetcher' | 'leader' | 'rlm' | 'walReplica' | 'walCombiner';

/**
 * Effects that change nothing the invariants read (logs, offsets, Ry, ISR, leadership,
 * remote metadata, the watch): a step whose effects are all of these leaves its
 * partition's invariants as they were. Any other effect marks the partition for checking.
 */
const READ_ONLY_EFFECTS: ReadonlySet<string> = new Set([
  'sendFetch',
  'sendListOffsets',
  'sendOffsetsForLeaderEpoch',
  'startWalWait',
  'lookupRemoteSegment',
  'getRemoteObject',
  'startBackoff',
  'explain',
  'respondFetch',
  'parkFetch',
  'respondListOffsets',
  'respondOffsetsForLeaderEpoch',
  'rejectProduce',
  'startIsrCheckTimer',
  'scheduleTask',
  'requestStep',
]);

/** The params of an effect that names none (never written to). */
const EMPTY_PARAMS: Record<string, unknown> = Object.freeze({});

/** The pseudo partition key of per-broker machines (the WAL combiner). */
export const BROKER_KEY = '__broker';

/** KIP-1176's WAL state of the cluster (PROTOCOL section 7). */
export interface WalState {
  nextObjectSeq: number;
  /** Next offset of the WAL metadata topic. */
  nextChunkId: number;
  /** Per partition: the leader's next offset to put into a chunk. */
  next: Record<string, number>;
  /** Per partition: ids of the published chunks whose objects still exist, oldest first. */
  live: Record<string, number[]>;
  /** PUTs in flight, by `broker|requestId`. */
  inflight: Record<string, { objectKey: string; chunks: PendingChunk[] }>;
  objects: Record<string, WalObject>;
  /** Objects by broker, oldest first (deletion scans from the front). */
  objectOrder: Record<string, string[]>;
  /** Published chunks by id, while their metadata record is retained or their object lives. */
  chunks: Record<string, WalChunk>;
  /** The WAL metadata topic's retained records (chunk ids), oldest first. */
  metadata: number[];
  /** Chunk batches read by a replica, by `broker|key|requestId`, until appended. */
  reads: Record<string, RecordBatch[]>;
  /** Elections waiting for the elected replica to sync the tail from the WAL, by partition. */
  tailSync: Record<string, { broker: number; rule: string; previous: number }>;
}

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
  /** Fetches held in the long poll, by message id (ascending). */
  parked: ParkedFetch[];
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
  | { kind: 'machineTimer'; machine: 'fetcher' | 'rlm' | 'walCombiner' | 'walReplica'; broker: number; key: string; timerId: number }
  | { kind: 'walChunkDelivered'; broker: number; key: string; chunkId: number }
  | { kind: 'walLogChanged'; broker: number; key: string }
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
  wal: WalMetrics;
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
  /** Extra latency of every request to a store (throttling), ms. */
  storeExtraLatencyMs: Record<StoreName, number>;
  /** Brokers cut off from the other brokers by a network partition. */
  isolated: Record<string, true>;
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
  wal: WalState;
  /** The prices of this run: defaults and the scenario's `prices` (core/domain/prices.ts). */
  prices: Prices;
  /** Billable transfer and stored bytes over time, for the cost (core/sim/costs.ts). */
  usage: Usage;
}

export interface Checkpoint {
  seed: number;
  state: KernelState;
  /**
   * The machines' snapshots. XState snapshots are immutable values (every transition makes a
   * new one), so a checkpoint holds them as they are; through JSON they become `{ value,
   * context, ... }`, which `restore` resolves again.
   */
  machines: Record<string, unknown>;
  store: Record<StoreName, Record<string, StoredObject>>;
  /**
   * The trace up to `traceLength`. The kernel only appends to its trace, so a checkpoint
   * shares the array rather than copying it (entries past `traceLength` are not its own).
   */
  trace: TraceEntry[];
  /** Entries of `trace` at the checkpoint (absent: all of them). */
  traceLength?: number;
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

export interface KernelOptions {
  store?: ObjectStoreBackend;
  /**
   * `model` (default): a store request completes after the modelled latency, so runs are
   * deterministic on every store. `measured`: after the time the real store took (at least
   * 1 ms); such a run is not deterministic, and its JSON says so.
   */
  latency?: 'model' | 'measured';
  /** The wall clock, ms, for `latency: 'measured'` (the core reads no clock of its own). */
  clock?: () => number;
  /** Seed override (the CLI's --seed). */
  seed?: number;
  /**
   * Keep every trace entry in `trace` (default true). A headless run that only streams the
   * trace (`onTrace`) passes false, so an hour-long run does not hold millions of entries.
   * Needs a synchronous store (an asynchronous store completes trace entries later).
   */
  keepTrace?: boolean;
  /** Called with every trace entry as it is made, kept or not (synchronous stores only). */
  onTrace?: (e: TraceEntry) => void;
  /**
   * The machine step (default `fastStep`, the equivalent of XState's pure `transition()`).
   * The benchmark replaces it to measure what the machines cost; it must return what
   * `transition()` returns for the same arguments, or the run is a different run.
   */
  transition?: MachineStep;
  /**
   * Check the invariants of every partition after every step, not only of those the step
   * may have changed (slower; the tests use it to show that both give the same run).
   */
  checkEveryPartition?: boolean;
}

/** One machine step: the next snapshot and the actions it asks for. */
export type MachineStep = (name: MachineName, snapshot: AnyMachineSnapshot, event: { type: string }) => [AnyMachineSnapshot, unknown[]];

/** XState's pure `transition()` of the named machine (core/sim/pure-transition.ts): the reference. */
export const xstateStep: MachineStep = (name, snapshot, event) => pureTransition(MACHINES[name] as never, snapshot as never, event) as [AnyMachineSnapshot, unknown[]];

/**
 * The kernel's default machine step: the same transition as `xstateStep`, computed from
 * the same machine definitions without XState's per-call cost (core/sim/fast-transition.ts;
 * the tests compare the two on every machine).
 */
export const fastStep: MachineStep = (name, snapshot, event) => fastTransition(MACHINES[name], snapshot, event);

export const MACHINES = {
  fetcher: followerFetcherMachine,
  leader: leaderPartitionMachine,
  rlm: remoteLogManagerMachine,
  walReplica: walReplicaMachine,
  walCombiner: walCombinerMachine,
} as const;

/** Per-partition machines, one of each on every replica. */
export const PARTITION_MACHINES = ['fetcher', 'leader', 'rlm', 'walReplica'] as const;

/** KIP-1176 figures of a run (`metrics.wal` in the JSON). */
export interface WalMetrics {
  objectsPut: number;
  bytesPut: number;
  putFailures: number;
  chunksPublished: number;
  chunksApplied: number;
  bytesApplied: number;
  chunksDroppedStaleEpoch: number;
  objectsDeleted: number;
  tailSyncs: number;
  metadata: { records: number; bytes: number; retainedRecords: number; retainedBytes: number; peakRetainedRecords: number; peakRetainedBytes: number; crossZoneBytes: number };
}

export function emptyWalMetrics(): WalMetrics {
  return {
    objectsPut: 0,
    bytesPut: 0,
    putFailures: 0,
    chunksPublished: 0,
    chunksApplied: 0,
    bytesApplied: 0,
    chunksDroppedStaleEpoch: 0,
    objectsDeleted: 0,
    tailSyncs: 0,
    metadata: { records: 0, bytes: 0, retainedRecords: 0, retainedBytes: 0, peakRetainedRecords: 0, peakRetainedBytes: 0, crossZoneBytes: 0 },
  };
}

/** Plain-data deep copy (the kernel state holds only JSON values). */
function clone<T>(x: T): T {
  return JSON.parse(JSON.stringify(x)) as T;
}

/**
 * A deep copy of plain data as a JSON round trip makes it (fields holding undefined
 * dropped, undefined in arrays and non-finite numbers as null, -0 as 0), except that what
 * never changes once written is shared: record batches (copying the lists that hold them is
 * enough; a rolled segment's list is shared too) and a remote segment's batch index. This
 * keeps checkpoints cheap on long runs.
 * A direct walk: several times faster than JSON with a replacer and a reviver.
 */
function cloneSharingBatches<T>(x: T): T {
  return copyPlain(x) as T;
}

function copyPlain(v: unknown): unknown {
  if (typeof v === 'number') return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const e = v[i];
      out[i] = e === undefined || typeof e === 'function' || typeof e === 'symbol' ? null : copyPlain(e);
    }
    return out;
  }
  assert(typeof (v as { toJSON?: unknown }).toJSON !== 'function', 'kernel state holds plain data');
  const out: Record<string, unknown> = {};
  // A rolled segment's batch list never changes (appends go to the active segment; a
  // truncation replaces the list): it is shared, not copied.
  const rolled = (v as { rolled?: unknown }).rolled === true;
  for (const k of Object.keys(v)) {
    const e = (v as Record<string, unknown>)[k];
    if (e === undefined || typeof e === 'function' || typeof e === 'symbol') continue;
    out[k] = k === 'batches' && Array.isArray(e) ? (rolled ? e : e.slice()) : k === 'batchIndex' ? e : copyPlain(e);
  }
  return out;
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/** Names of nested state values, remembered per value object (the fast step shares them). */
const stateNames = new WeakMap<object, string>();

/** `{a: {b: 'c'}}` -> `a.b.c`. */
export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    let name = stateNames.get(value);
    if (name === undefined) {
      const [k, v] = Object.entries(value as Record<string, unknown>)[0] ?? ['', ''];
      const rest = stateName(v);
      name = rest === '' ? k : `${k}.${rest}`;
      stateNames.set(value, name);
    }
    return name;
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
  private clock: () => number;
  /**
   * Called with every event delivered to a machine and the snapshot it met, before the
   * transition (the browser's inspection log replays these on real XState actors).
   */
  onDeliver: ((d: Delivery) => void) | null = null;
  private keepTrace = true;
  private traceSink: ((e: TraceEntry) => void) | null = null;
  private machineStep: MachineStep = fastStep;
  private checkEveryPartition = false;
  /**
   * Partitions whose invariant inputs the current step may have changed (an effect other
   * than READ_ONLY_EFFECTS, a timeline action); their invariants are checked after the step,
   * since an unchanged partition gives the answer of its last check.
   * `touchedAll`: every partition (at the start, after a restore, after a cluster-wide change).
   */
  private touched: string[] = [];
  private touchedAll = true;
  private partitionIndex: Record<string, number> = {};

  constructor(scenario: Scenario, options: KernelOptions = {}) {
    this.scenario = scenario;
    this.store = options.store ?? new MemoryObjectStore();
    this.keepTrace = options.keepTrace ?? true;
    this.traceSink = options.onTrace ?? null;
    this.machineStep = options.transition ?? fastStep;
    this.checkEveryPartition = options.checkEveryPartition ?? false;
    // An asynchronous store completes its trace entries after they are made.
    assert((this.keepTrace && this.traceSink === null) || this.store.executeAsync === undefined, 'keepTrace false and onTrace need a synchronous store');
    this.latencyMode = options.latency ?? 'model';
    assert(this.latencyMode === 'model' || options.clock !== undefined, 'latency measured needs a clock');
    this.clock = options.clock ?? (() => 0);
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
      storeExtraLatencyMs: { tiered: 0, wal: 0 },
      isolated: {},
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
        wal: emptyWalMetrics(),
        crossZoneBytes: newCrossZoneBytes(),
        objectStore: newStoreCounters(),
      },
      wal: { nextObjectSeq: 1, nextChunkId: 0, next: {}, live: {}, inflight: {}, objects: {}, objectOrder: {}, chunks: {}, metadata: [], reads: {}, tailSync: {} },
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
    k.trace = cp.trace.slice(0, cp.traceLength ?? cp.trace.length);
    k.pendingLeaderRequests = [];
    k.pendingIo = [];
    k.onDeliver = null;
    k.keepTrace = true;
    k.traceSink = options.onTrace ?? null;
    k.machineStep = options.transition ?? fastStep;
    k.checkEveryPartition = options.checkEveryPartition ?? false;
    k.touched = [];
    k.touchedAll = true;
    k.machineIds = {};
    k.partitionIndex = {};
    k.state.partitionOrder.forEach((key, i) => (k.partitionIndex[key] = i));
    k.machines = {};
    for (const [id, persisted] of Object.entries(cp.machines)) {
      if (isLiveSnapshot(persisted)) {
        k.machines[id] = persisted;
        continue;
      }
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
    return { seed: this.seed, state: cloneSharingBatches(this.state), machines: { ...this.machines }, store: this.store.snapshot(), trace: this.trace, traceLength: this.trace.length };
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
          parked: [],
          pendingAcks: [],
          nextSequence: 0,
        };
        for (const b of replicas) part.replicaStates[String(b)] = { broker: b, log: emptyLog(0, 0), highestOffsetInRemoteStorage: -1 };
        const leaderState = part.replicaStates[String(replicas[0])];
        if (initial !== undefined) this.buildInitialLog(part, leaderState, initial);
        else leaderState.log.leaderEpochs = [[part.leaderEpoch, 0]];
        this.state.partitions[key] = part;
        this.partitionIndex[key] = this.state.partitionOrder.length;
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
    for (const b of this.state.brokers) this.createMachine(b.id, BROKER_KEY, 'walCombiner');
    for (const key of this.state.partitionOrder) {
      const part = this.state.partitions[key];
      if (this.walEnabled(key)) this.state.wal.next[key] = logEndOffset(this.replica(key, part.leader).log);
      for (const b of part.replicas) {
        for (const name of PARTITION_MACHINES) this.createMachine(b, key, name);
      }
      this.deliver(part.leader, key, 'leader', {
        type: 'leadership.assumed',
        leaderEpoch: part.leaderEpoch,
        isr: part.isr,
        replicas: part.replicas,
        nowMs: 0,
        logEndOffset: logEndOffset(this.replica(key, part.leader).log),
      });
      this.emit({ atMs: 0, type: 'leader', topic: part.topic, partition: part.partition, broker: part.leader, leaderEpoch: part.leaderEpoch, rule: 'initialLeader' });
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
    const machine = MACHINES[name] as typeof followerFetcherMachine;
    const part = this.state.partitions[key] as PartitionState | undefined;
    const input = part === undefined ? { broker, topic: '', partition: -1 } : { broker, topic: part.topic, partition: part.partition };
    const [snap] = pureInitialTransition(machine, input);
    this.machines[this.machineId(broker, key, name)] = snap as AnyMachineSnapshot;
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
    this.startWalReplica(broker, key);
  }

  // ------------------------------------------------------------------ accessors

  get nowMs(): number {
    return this.state.nowMs;
  }

  replica(key: string, broker: number): ReplicaState {
    const r = this.state.partitions[key].replicaStates[broker];
    assert(r !== undefined, `broker ${broker} hosts ${key}`);
    return r;
  }

  /**
   * `broker|topic-partition|machine`, the key of a machine, made once: a string built anew
   * for every lookup would be hashed anew every time.
   */
  private machineId(broker: number, key: string, name: MachineName): string {
    const perKey = (this.machineIds[key] ??= {});
    const perBroker = (perKey[broker] ??= {});
    return (perBroker[name] ??= `${broker}|${key}|${name}`);
  }

  private machineIds: Record<string, Record<number, Partial<Record<MachineName, string>>>> = {};

  machineSnapshot(broker: number, key: string, name: MachineName): AnyMachineSnapshot | undefined {
    return this.machines[this.machineId(broker, key, name)];
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
    let start = -1;
    for (const entry of r.log.leaderEpochs) {
      if (entry[0] === part.leaderEpoch) {
        start = entry[1];
        break;
      }
    }
    return { view: this.leaderView(key, broker), leaderEpochStartOffset: start >= 0 ? start : logEndOffset(r.log), nowMs: this.state.nowMs };
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
    this.checkTouched();
    return true;
  }

  /** The step may have changed this partition (its invariants are checked after it). */
  private touch(key: string): void {
    const t = this.touched;
    if (this.touchedAll || key === BROKER_KEY || (t.length > 0 && t[t.length - 1] === key) || t.includes(key)) return;
    t.push(key);
  }

  /** A change that may reach every partition (a crash, a config change). */
  private touchAll(): void {
    this.touchedAll = true;
  }

  /** Checks the invariants of the partitions touched since the last check, in partition order. */
  private checkTouched(): void {
    const t = this.touched;
    let keys: readonly string[] = t;
    if (this.touchedAll || this.checkEveryPartition) keys = this.state.partitionOrder;
    else if (t.length === 0) return;
    else if (t.length > 1) t.sort((a, b) => this.partitionIndex[a] - this.partitionIndex[b]);
    const found = checkInvariants(this, keys);
    t.length = 0;
    this.touchedAll = false;
    for (const v of found) this.addViolation(v);
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

  /** Every trace entry goes through here: kept in `trace` (unless `keepTrace` is false) and streamed to `onTrace`. */
  private emit(e: TraceEntry): void {
    if (this.keepTrace) this.trace.push(e);
    if (this.traceSink !== null) this.traceSink(e);
  }

  addViolation(v: Violation): void {
    const k = `${v.invariant}|${v.subject ?? ''}`;
    if (this.state.violationKeys[k]) return;
    this.state.violationKeys[k] = true;
    this.state.violations.push(v);
    this.emit({ atMs: v.atMs, type: 'violation', invariant: v.invariant, message: v.message });
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
        if (ev.machine === 'walCombiner') return this.deliver(ev.broker, BROKER_KEY, 'walCombiner', { type: 'wal.timer', timerId: ev.timerId, ...this.combinerFacts(ev.broker) });
        if (ev.machine === 'walReplica') return this.deliver(ev.broker, ev.key, 'walReplica', { type: 'wal.retry', timerId: ev.timerId });
        return this.deliver(ev.broker, ev.key, 'rlm', this.rlmTaskEvent(ev.broker, ev.key, ev.timerId));
      }
      case 'walChunkDelivered': {
        const chunk = this.state.wal.chunks[String(ev.chunkId)];
        const part = this.state.partitions[ev.key];
        if (chunk === undefined || !this.state.brokers[ev.broker].alive || !part.replicas.includes(ev.broker)) return;
        // A partitioned broker reads the metadata topic once it can reach it again.
        if (this.state.isolated[String(ev.broker)]) {
          push(this.state.queue, this.state.nowMs + 100, ev);
          return;
        }
        return this.deliver(ev.broker, ev.key, 'walReplica', { type: 'wal.chunkPublished', chunk: chunkRef(chunk) });
      }
      case 'walLogChanged':
        if (!this.state.brokers[ev.broker].alive) return;
        return this.deliver(ev.broker, ev.key, 'walReplica', { type: 'wal.logChanged', logEndOffset: logEndOffset(this.replica(ev.key, ev.broker).log) });
      case 'fetchWaitExpired': {
        const part = this.state.partitions[ev.key];
        const parked = takeParked(part, ev.msgId);
        if (parked === undefined) return;
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
  private deliver(broker: number, key: string, name: MachineName, event: FollowerFetcherEvent | LeaderPartitionEvent | RemoteLogManagerEvent | WalCombinerEvent | WalReplicaEvent): void {
    const id = this.machineId(broker, key, name);
    const snap = this.machines[id];
    assert(snap !== undefined, `machine ${id} exists`);
    if (this.onDeliver !== null) this.onDeliver({ id, name, broker, key, before: snap, event, atMs: this.state.nowMs });
    const [next, actions] = this.machineStep(name, snap, event);
    this.machines[id] = next;
    // The same value (the fast step shares one per state) is the same state: no names needed.
    if (next.value !== snap.value) {
      const before = stateName(snap.value);
      const after = stateName(next.value);
      if (before !== after) {
        const part = this.state.partitions[key] as PartitionState | undefined;
        const where = part === undefined ? {} : { topic: part.topic, partition: part.partition };
        this.emit({ atMs: this.state.nowMs, type: `${name}State`, broker, ...where, from: before, to: after, event: event.type });
      }
    }
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i] as { type: string; params?: Record<string, unknown> };
      if (action.type.startsWith('xstate.')) continue;
      this.execute(broker, key, name, action.type, action.params ?? EMPTY_PARAMS);
    }
  }

  // ------------------------------------------------------------------ effects

  private execute(broker: number, key: string, name: MachineName, type: string, p: Record<string, unknown>): void {
    // Every change to what the invariants read goes through an effect (or a timeline action).
    if (!READ_ONLY_EFFECTS.has(type)) this.touch(key);
    if (name === 'walCombiner') return this.executeCombiner(broker, type, p);
    if (name === 'walReplica') return this.executeWalReplica(broker, key, type, p);
    const part = this.state.partitions[key];
    const r = this.replica(key, broker);
    const now = this.state.nowMs;
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
          if (rolled) this.emit({ atMs: now, type: 'log', action: 'segmentRolled', broker, topic: part.topic, partition: part.partition, baseOffset: b.baseOffset, rule: 'segmentFull' });
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
        if (bytes > 0) this.walLogChanged(broker, key);
        return;
      }
      case 'updateFromLeader':
        updateHighWatermark(r.log, p.highWatermark as number);
        if ((p.logStartOffset as number) > r.log.localLogStartOffset) this.changeLocalLog(r, () => maybeIncrementLogStartOffset(r.log, p.logStartOffset as number));
        else maybeIncrementLogStartOffset(r.log, p.logStartOffset as number);
        return;
      case 'startWalWait':
        push(this.state.queue, now + this.state.brokerConfig['replica.fetch.wait.max.ms'], { kind: 'machineTimer', machine: 'fetcher', broker, key, timerId: p.timerId as number });
        return;
      case 'truncateTo': {
        const offset = p.offset as number;
        const before = logEndOffset(r.log);
        this.changeLocalLog(r, () => truncateTo(r.log, Math.max(offset, r.log.localLogStartOffset)));
        if (offset >= before) return;
        this.emit({ atMs: now, type: 'log', action: 'truncateTo', broker, topic: part.topic, partition: part.partition, offset, rule: p.rule as string });
        this.walLogChanged(broker, key);
        return;
      }
      case 'truncateFullyAndStartAt': {
        const offset = p.offset as number;
        this.changeLocalLog(r, () => truncateFullyAndStartAt(r.log, offset, p.logStartOffset as number, now));
        this.emit({ atMs: now, type: 'log', action: 'truncateFullyAndStartAt', broker, topic: part.topic, partition: part.partition, offset, logStartOffset: r.log.logStartOffset, rule: p.rule as string });
        this.walLogChanged(broker, key);
        return;
      }
      case 'lookupRemoteSegment':
        push(this.state.queue, now, { kind: 'remoteSegmentLookedUp', broker, key, requestId: p.requestId as number, epoch: p.epoch as number, offset: p.offset as number });
        return;
      case 'getRemoteObject':
        return this.storeOp(broker, key, { op: 'get', store: 'tiered', key: p.key as string }, p.requestId as number, p.purpose as string);
      case 'restoreLeaderEpochs': {
        if (bugOn('skipAuxState')) return;
        const entries = p.entries as EpochEntry[];
        r.log.leaderEpochs = entries.map(([e, s]) => [e, s] as EpochEntry);
        this.emit({ atMs: now, type: 'log', action: 'leaderEpochsRestored', broker, topic: part.topic, partition: part.partition, leaderEpochs: entries, rule: 'auxStateLeaderEpochs' });
        return;
      }
      case 'restoreProducerState': {
        const entries = p.entries as ProducerEntry[];
        r.log.producers = restoreProducerState(entries);
        this.emit({ atMs: now, type: 'log', action: 'producerStateRestored', broker, topic: part.topic, partition: part.partition, producers: entries.length, rule: 'auxStateProducerSnapshot' });
        return;
      }
      case 'startBackoff': {
        const delayMs = this.state.brokerConfig['replica.fetch.backoff.ms'];
        push(this.state.queue, now + delayMs, { kind: 'machineTimer', machine: 'fetcher', broker, key, timerId: p.timerId as number });
        this.emit({ atMs: now, type: 'fetcher', action: 'delayed', broker, topic: part.topic, partition: part.partition, delayMs, reason: p.reason as string, retryAtMs: now + delayMs, rule: 'backoff' });
        return;
      }
      case 'explain':
        this.emit({ atMs: now, type: name === 'rlm' ? 'rlm' : 'fetcher', action: 'explain', broker, topic: part.topic, partition: part.partition, rule: p.rule as string, ...((p.detail as object) ?? {}) });
        return;
      // ---- leader
      case 'respondFetch':
        return this.respondFetch(broker, key, p);
      case 'parkFetch': {
        const msg = this.inflight(p.msgId);
        assert(msg !== undefined, 'a parked fetch is in flight');
        parkFetch(part, { msgId: p.msgId as number, msg });
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
        this.emit({ atMs: now, type: 'produce', action: 'rejected', broker, topic: part.topic, partition: part.partition, error: p.error as KafkaError, rule: p.rule as string });
        return;
      case 'advanceHighWatermark': {
        const hw = Math.min(p.highWatermark as number, logEndOffset(r.log));
        if (hw <= r.log.highWatermark) return;
        r.log.highWatermark = hw;
        this.emit({ atMs: now, type: 'highWatermark', broker, topic: part.topic, partition: part.partition, highWatermark: hw });
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
        this.emit({ atMs: now, type: 'isr', broker, topic: part.topic, partition: part.partition, isr: part.isr, added: p.added, removed: p.removed, rule: p.rule as string });
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
        this.emit({ atMs: now, type: 'rlm', action: 'highestOffsetInRemoteStorageUpdated', broker, topic: part.topic, partition: part.partition, from, highestOffsetInRemoteStorage: offset, rule: 'rlmRefreshHighestOffset' });
        return;
      }
      case 'requestStep':
        push(this.state.queue, now, { kind: 'rlmStep', broker, key, requestId: p.requestId as number });
        return;
      case 'rollActiveSegment': {
        const active = r.log.segments[r.log.segments.length - 1];
        if (active.endOffset < active.baseOffset) return;
        roll(r.log, now);
        this.emit({ atMs: now, type: 'log', action: 'segmentRolled', broker, topic: part.topic, partition: part.partition, baseOffset: active.endOffset + 1, rule: 'rollForLocalRetention' });
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
          this.emit({ atMs: now, type: 'rlm', action: 'highestOffsetInRemoteStorageUpdated', broker, topic: part.topic, partition: part.partition, from, highestOffsetInRemoteStorage: end, rule: 'copyFinished' });
        }
        return;
      }
      case 'abortCopy':
        this.emit({ atMs: now, type: 'rlm', action: 'copyFailed', broker, topic: part.topic, partition: part.partition, segmentId: p.segmentId as string, error: (p.error as string | null) ?? null, rule: 'copyFailed' });
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
    this.emit({ atMs: this.state.nowMs, type: 'remoteMetadata', action: 'stateChanged', broker, topic: part.topic, partition: part.partition, segmentId, from: null, to: 'COPY_SEGMENT_STARTED', baseOffset, endOffset, rule: 'copyCandidate' });
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
        this.emit({ atMs: this.state.nowMs, type: 'log', action: 'logStartOffsetRaised', broker, topic: part.topic, partition: part.partition, from, logStartOffset: r.log.logStartOffset, rule: 'remoteRetention' });
      }
    }
    this.setRemoteSegmentState(key, segmentId, 'DELETE_SEGMENT_STARTED');
    this.emit({ atMs: this.state.nowMs, type: 'rlm', action: 'deleteStarted', broker, topic: part.topic, partition: part.partition, segmentId, baseOffset: meta.baseOffset, endOffset: meta.endOffset, rule });
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
      this.emit({
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
    this.emit({ atMs: this.state.nowMs, type: 'remoteMetadata', action: 'stateChanged', topic: part.topic, partition: part.partition, segmentId, from, to, baseOffset: meta.baseOffset, endOffset: meta.endOffset });
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
    for (const m of this.pendingLeaderRequests) if (m.msgId === msgId) return m;
    return undefined;
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
    // Built field by field (no spreads of optional parts): the hottest trace entry.
    const e: Record<string, unknown> = { atMs: this.state.nowMs, type: 'request', api, source: broker, target, topic: part.topic, partition: part.partition, correlationId: msg.correlationId };
    if (api === 'Fetch') {
      e.fetchOffset = body.fetchOffset;
      e.currentLeaderEpoch = body.currentLeaderEpoch;
      e.lastFetchedEpoch = body.lastFetchedEpoch;
    } else if (api === 'ListOffsets') e.timestamp = body.timestamp;
    else if (api === 'OffsetsForLeaderEpoch') e.leaderEpoch = body.leaderEpoch;
    this.emit(e as unknown as TraceEntry);
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
    if (typeof msg.source === 'number' && (this.state.isolated[String(target)] || this.state.isolated[String(msg.source)])) {
      return this.reply(msg, { error: 'NETWORK_EXCEPTION', rule: 'networkPartition' }, target);
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
          walServes: this.walServes(msg.key, leader, b.fetchOffset as number),
          view: facts.view,
          leaderEpochStartOffset: facts.leaderEpochStartOffset,
          nowMs: facts.nowMs,
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
    const i = this.pendingLeaderRequests.lastIndexOf(msg);
    if (i >= 0) this.pendingLeaderRequests.splice(i, 1);
  }

  private respondFetch(broker: number, key: string, p: Record<string, unknown>): void {
    const part = this.state.partitions[key];
    const inflight = this.inflight(p.msgId);
    const parked = takeParked(part, p.msgId as number);
    const msg = inflight ?? parked?.msg;
    assert(msg !== undefined, 'a Fetch answered is in flight');
    const r = this.replica(key, broker);
    const error = p.error as KafkaError | null;
    const wal = p.rule === 'walEmptyRecords';
    const batches = error === null && p.divergingEpoch === null && !wal ? readBatches(r.log, p.fetchOffset as number, msg.body.maxBytes as number) : [];
    const body: Record<string, unknown> = wal
      ? { error, batches, wal: true, highWatermark: r.log.highWatermark, logStartOffset: r.log.logStartOffset, divergingEpoch: p.divergingEpoch, fetchOffset: p.fetchOffset, rule: p.rule }
      : { error, batches, highWatermark: r.log.highWatermark, logStartOffset: r.log.logStartOffset, divergingEpoch: p.divergingEpoch, fetchOffset: p.fetchOffset, rule: p.rule };
    this.reply(msg, body, broker);
  }

  private respond(broker: number, key: string, msgId: number, body: Record<string, unknown>): void {
    const msg = this.inflight(msgId);
    assert(msg !== undefined && msg.key === key, 'a request answered is in flight');
    this.reply(msg, body, broker);
  }

  private reply(request: Message, body: Record<string, unknown>, from: number): void {
    // The request's fields, in its order, with the response's values.
    const msg: Message = {
      msgId: this.state.nextMsgId++,
      correlationId: request.correlationId,
      api: request.api,
      dir: 'response',
      source: from,
      target: request.source,
      key: request.key,
      requestId: request.requestId,
      body,
    };
    push(this.state.queue, this.state.nowMs + this.latencyMs(from, request.source, request.key), { kind: 'deliver', msg });
  }

  private onResponse(msg: Message): void {
    const part = this.state.partitions[msg.key];
    const b = msg.body;
    const batches = (b.batches as RecordBatch[] | undefined) ?? [];
    let bytes = 0;
    let records = 0;
    for (const x of batches) {
      bytes += x.bytes;
      records += x.lastOffset - x.baseOffset + 1;
    }
    // Built field by field (no spreads of optional parts): with requests, the hottest entry.
    const e: Record<string, unknown> = {
      atMs: this.state.nowMs,
      type: 'response',
      api: msg.api,
      source: msg.source,
      target: msg.target,
      topic: part.topic,
      partition: part.partition,
      correlationId: msg.correlationId,
      error: (b.error as KafkaError | null) ?? null,
    };
    if (msg.api === 'Fetch') {
      e.records = records;
      e.bytes = bytes;
      e.fetchOffset = b.fetchOffset ?? msg.body.fetchOffset;
      if (b.highWatermark !== undefined) {
        e.highWatermark = b.highWatermark;
        e.logStartOffset = b.logStartOffset;
      }
      if (b.divergingEpoch) e.divergingEpoch = b.divergingEpoch;
      if (b.servedFrom) e.servedFrom = b.servedFrom;
      if (b.wal === true) e.wal = true;
    } else if (msg.api === 'ListOffsets') {
      e.timestamp = b.timestamp;
      e.offset = b.offset;
      e.leaderEpoch = b.leaderEpoch;
    } else if (msg.api === 'OffsetsForLeaderEpoch') {
      e.leaderEpoch = b.leaderEpoch;
      e.endOffset = b.endOffset;
    }
    if (b.rule) e.rule = b.rule;
    this.emit(e as unknown as TraceEntry);
    if (msg.api === 'Fetch' && typeof msg.source === 'number') {
      this.countCrossZone(msg.target === 'consumer' ? 'consume' : 'replication', this.zoneOf(msg.source, msg.key), this.zoneOf(msg.target, msg.key), bytes);
    }
    if (msg.target === 'consumer') return this.onConsumerResponse(msg);
    const broker = msg.target as number;
    if (!this.state.brokers[broker].alive) return;
    const replica = this.replicaFacts(msg.key, broker);
    const error = (b.error as KafkaError | null) ?? null;
    switch (msg.api) {
      case 'Fetch': {
        const event: FollowerFetcherEvent = {
          type: 'fetch.responded',
          requestId: msg.requestId,
          error,
          batches,
          highWatermark: (b.highWatermark as number | undefined) ?? -1,
          logStartOffset: (b.logStartOffset as number | undefined) ?? -1,
          divergingEpoch: (b.divergingEpoch as { epoch: number; endOffset: number } | null | undefined) ?? null,
          replica,
        };
        if (b.wal === true) event.wal = true;
        return this.deliver(broker, msg.key, 'fetcher', event);
      }
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
    this.emit({
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
    const wal = req.store === 'wal';
    return this.state.storeExtraLatencyMs[req.store] + this.modelStoreLatencyMs(req, m, wal);
  }

  private modelStoreLatencyMs(req: ObjectStoreRequest, m: ModelKnobs, wal: boolean): number {
    switch (req.op) {
      case 'put':
        return wal ? m.walPutLatencyMs + Math.floor(req.object.bytes / m.walPutBytesPerMs) : m.tieredPutLatencyMs + Math.floor(req.object.bytes / m.tieredPutBytesPerMs);
      case 'get':
      case 'list':
        return wal ? m.walGetLatencyMs : m.tieredGetLatencyMs;
      case 'delete':
        return wal ? m.walDeleteLatencyMs : m.tieredDeleteLatencyMs;
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
    const started = measured ? this.clock() : 0;
    let result: ObjectStoreResult;
    let pending: Promise<ObjectStoreResult> | null = null;
    if (!available) result = { ok: false, bytes: 0, error: 'ServiceUnavailable' };
    else if (this.store.executeAsync) {
      result = { ok: false, bytes: 0 };
      pending = this.store.executeAsync(req);
    } else result = this.store.execute(req);
    const index = this.trace.length;
    this.emit(this.objectStoreEntry(broker, key, req, result, purpose));
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
    const measuredMs = () => Math.max(1, Math.round(this.clock() - started));
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
    // Per-broker requests (the WAL combiner's) name no partition.
    const part = this.state.partitions[key] as PartitionState | undefined;
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
      ...(part === undefined ? {} : { topic: part.topic, partition: part.partition }),
      purpose,
      ...(result.error ? { error: result.error } : {}),
      ...(req.op === 'get' && req.range ? { range: req.range } : {}),
    };
  }

  private onStoreDone(ev: Extract<KernelEvent, { kind: 'storeDone' }>): void {
    if (!this.state.brokers[ev.broker].alive) return;
    if (ev.purpose === 'consumerRead') return this.onConsumerRemoteRead(ev);
    if (ev.purpose === 'walPut') return this.onWalPutDone(ev);
    if (ev.purpose === 'walChunk') return this.onWalChunkRead(ev);
    if (ev.purpose === 'walDelete') return this.onWalDeleteDone(ev);
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
        this.emit({ atMs: now, type: 'log', action: 'segmentRolled', broker, topic: part.topic, partition: part.partition, baseOffset: base, rule: 'segmentFull' });
      }
    }
    const last = logEndOffset(r.log) - 1;
    this.state.metrics.produced.records += records;
    this.state.metrics.produced.bytes += records * model.recordBytes;
    this.localLogBytesChanged(records * model.recordBytes);
    this.emit({ atMs: now, type: 'produce', action: 'appended', broker, topic: part.topic, partition: part.partition, records, acks, baseOffset: first, lastOffset: last, rule: 'appendAsLeader' });
    // The producer's request and the leader's answer: one round trip from the client's zone.
    const roundTrip = 2 * this.latencyMs('producer', broker, key);
    if (acks === 'all') part.pendingAcks.push({ msgId, lastOffset: last, sentMs: now, records });
    else if (acks === 1) {
      this.state.produceLatencies.acks1.push(roundTrip);
      this.emit({ atMs: now, type: 'produce', action: 'acknowledged', broker, topic: part.topic, partition: part.partition, acks, lastOffset: last, latencyMs: roundTrip });
    } else this.state.produceLatencies.acks0.push(0);
    // KIP-1176: the combiner puts the new bytes into the next WAL object.
    if (this.walEnabled(key)) this.deliver(broker, BROKER_KEY, 'walCombiner', { type: 'wal.appended', ...this.combinerFacts(broker) });
    // acks=all may complete at once when the leader is the only in-sync replica.
    this.completeAcks(key);
    // New data completes the fetches held in the long poll.
    for (const parked of part.parked.slice()) {
      takeParked(part, parked.msgId);
      this.onFollowerRequestAtLeader(parked.msg, false);
    }
  }

  private completeAcks(key: string): void {
    const part = this.state.partitions[key];
    const r = this.replica(key, part.leader);
    const hw = r.log.highWatermark;
    let any = false;
    for (const a of part.pendingAcks) {
      if (a.lastOffset < hw) {
        any = true;
        break;
      }
    }
    if (!any) return;
    // Loops rather than filters: no closure a call (tsx gives each one a name at run time).
    const done: PendingAck[] = [];
    const rest: PendingAck[] = [];
    for (const a of part.pendingAcks) (a.lastOffset < hw ? done : rest).push(a);
    part.pendingAcks = rest;
    for (const a of done) {
      const latencyMs = this.state.nowMs - a.sentMs + 2 * this.latencyMs('producer', part.leader, key);
      this.state.produceLatencies.acksAll.push(latencyMs);
      this.emit({ atMs: this.state.nowMs, type: 'produce', action: 'acknowledged', broker: part.leader, topic: part.topic, partition: part.partition, acks: 'all', lastOffset: a.lastOffset, latencyMs });
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
    this.emit({ atMs: this.state.nowMs, type: 'request', api: 'Fetch', source: 'consumer', target: c.broker, topic: part.topic, partition: part.partition, correlationId: msg.correlationId, fetchOffset: c.nextOffset });
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
      this.emit({ atMs: this.state.nowMs, type: 'consume', action: 'finished', broker: c.broker, topic: part.topic, partition: part.partition, recordsLocal: c.local, recordsRemote: c.remote, nextOffset: c.nextOffset, error, rule: c.remote > 0 ? 'consumerReadRemote' : 'consumerReadLocal' });
      delete this.state.consumers[String(c.id)];
      return;
    }
    push(this.state.queue, this.state.nowMs, { kind: 'consumerFetch', consumerId: c.id });
  }

  // ------------------------------------------------------------------ timeline

  private applyTimeline(a: TimelineAction): void {
    const now = this.state.nowMs;
    if ('topic' in a && a.topic !== undefined && 'partition' in a) this.touch(partitionKey(a.topic, a.partition));
    else this.touchAll();
    switch (a.kind) {
      case 'addReplica': {
        const key = partitionKey(a.topic, a.partition);
        const part = this.state.partitions[key];
        if (part.replicas.includes(a.broker)) {
          this.emit({ atMs: now, type: 'timeline', action: 'addReplica', broker: a.broker, topic: a.topic, partition: a.partition, ignored: 'already a replica' });
          return;
        }
        part.replicas.push(a.broker);
        part.replicaStates[String(a.broker)] = { broker: a.broker, log: emptyLog(0, now), highestOffsetInRemoteStorage: -1 };
        for (const name of PARTITION_MACHINES) this.createMachine(a.broker, key, name);
        this.emit({ atMs: now, type: 'timeline', action: 'addReplica', broker: a.broker, topic: a.topic, partition: a.partition, rule: 'replicaAdded' });
        if (!this.state.brokers[a.broker].alive) return;
        this.deliver(a.broker, key, 'rlm', { type: 'rlm.started', role: 'follower' });
        this.startFetcher(a.broker, key);
        return;
      }
      case 'produce': {
        const key = partitionKey(a.topic, a.partition);
        const part = this.state.partitions[key];
        this.emit({ atMs: now, type: 'timeline', action: 'produce', topic: a.topic, partition: a.partition, records: a.records, acks: a.acks });
        if (part.leader < 0 || !this.state.brokers[part.leader].alive) {
          this.emit({ atMs: now, type: 'produce', action: 'rejected', topic: a.topic, partition: a.partition, error: 'NOT_LEADER_OR_FOLLOWER', rule: 'noLeader' });
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
        this.emit({ atMs: now, type: 'timeline', action: 'consume', broker, topic: a.topic, partition: a.partition, fromOffset: a.fromOffset, records: a.records });
        this.sendConsumerFetch(id);
        return;
      }
      case 'setConfig':
        return this.setConfig(a.values, a.topic);
      case 'objectStore': {
        const stores: StoreName[] = a.store ? [a.store] : ['tiered', 'wal'];
        for (const s of stores) {
          this.state.storeAvailable[s] = a.available;
          if (a.extraLatencyMs !== undefined) this.state.storeExtraLatencyMs[s] = a.extraLatencyMs;
        }
        const slow = a.extraLatencyMs !== undefined ? { extraLatencyMs: a.extraLatencyMs } : {};
        this.emit({ atMs: now, type: 'timeline', action: 'objectStore', stores, available: a.available, ...slow, rule: a.available ? (a.extraLatencyMs ? 'storeThrottled' : 'storeRecovered') : 'storeOutage' });
        return;
      }
      case 'isolate':
      case 'heal': {
        if (a.kind === 'isolate') this.state.isolated[String(a.broker)] = true;
        else delete this.state.isolated[String(a.broker)];
        this.emit({ atMs: now, type: 'broker', action: a.kind === 'isolate' ? 'isolated' : 'healed', broker: a.broker, rule: a.kind === 'isolate' ? 'networkPartition' : 'networkHealed' });
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
          this.emit({ atMs: now, type: 'timeline', action: 'electLeader', broker: a.broker, topic: a.topic, partition: a.partition, ignored: 'not a live in-sync replica (clean election only)', rule: 'electionRefused' });
          return;
        }
        if (part.leader === a.broker) return;
        this.emit({ atMs: now, type: 'timeline', action: 'electLeader', broker: a.broker, topic: a.topic, partition: a.partition });
        return this.becomeLeader(key, a.broker, 'electLeader');
      }
    }
  }

  /** Exposed for the browser's recorded actions: same effect as a timeline event now. */
  applyAction(action: TimelineAction): void {
    this.applyTimeline(action);
    this.checkTouched();
  }

  private setConfig(values: Record<string, ConfigValue>, topic?: string): void {
    const now = this.state.nowMs;
    const wasTiered: Record<string, boolean> = {};
    const wasWal: Record<string, boolean> = {};
    for (const key of this.state.partitionOrder) {
      wasTiered[key] = this.tiered(key);
      wasWal[key] = this.walEnabled(key);
    }
    for (const [k, v] of Object.entries(values)) {
      if (topic === undefined && isBrokerConfigKey(k)) (this.state.brokerConfig as Record<string, ConfigValue>)[k] = v;
      if (isTopicConfigKey(k)) {
        for (const t of Object.keys(this.state.topicConfigs)) {
          if (topic === undefined || topic === t) (this.state.topicConfigs[t] as Record<string, ConfigValue>)[k] = v;
        }
      }
      this.emit({ atMs: now, type: 'config', action: 'setConfig', key: k, value: v, ...(topic ? { topic } : {}), rule: 'configChanged' });
    }
    for (const key of this.state.partitionOrder) {
      if (wasTiered[key] && !this.tiered(key)) this.deleteRemoteOnDisable(key);
      const part = this.state.partitions[key];
      if (!wasWal[key] && this.walEnabled(key)) {
        // KIP-1176 turned on: the leader's combiner takes new bytes from its log end on, and
        // the followers start reading chunks (below that offset they still fetch records).
        if (part.leader >= 0) this.state.wal.next[key] = logEndOffset(this.replica(key, part.leader).log);
        for (const b of part.replicas) if (b !== part.leader && this.state.brokers[b].alive) this.startWalReplica(b, key);
      } else if (wasWal[key] && !this.walEnabled(key)) {
        for (const b of part.replicas) if (this.state.brokers[b].alive) this.deliver(b, key, 'walReplica', { type: 'wal.stopped' });
      }
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
        this.emit({ atMs: now, type: 'log', action: 'logStartOffsetRaised', broker: r.broker, topic: part.topic, partition: part.partition, from, logStartOffset: r.log.logStartOffset, rule: 'remoteDeletedOnDisable' });
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
    this.emit({ atMs: now, type: 'broker', action: 'crashed', broker, rule: 'brokerCrashed' });
    // The combiner's pending bytes and its PUT in flight are lost with the broker's memory.
    this.createMachine(broker, BROKER_KEY, 'walCombiner');
    for (const id of Object.keys(this.state.wal.inflight)) {
      if (!id.startsWith(`${broker}|`)) continue;
      // An object whose PUT was in flight may exist without metadata: the restarted broker deletes it.
      const o = this.state.wal.objects[this.state.wal.inflight[id].objectKey];
      if (o !== undefined) o.state = 'orphan';
      delete this.state.wal.inflight[id];
    }
    for (const key of this.state.partitionOrder) {
      const part = this.state.partitions[key];
      if (!part.replicas.includes(broker)) continue;
      const r = this.replica(key, broker);
      // In-memory state is lost; the log on disk survives.
      r.highestOffsetInRemoteStorage = -1;
      this.state.watch.highestOffsetInRemoteStorage[`${broker}|${key}`] = -1;
      for (const name of PARTITION_MACHINES) this.createMachine(broker, key, name);
      if (part.isr.includes(broker) && part.isr.length > 1) {
        part.isr = part.isr.filter((x) => x !== broker);
        this.emit({ atMs: now, type: 'isr', broker, topic: part.topic, partition: part.partition, isr: part.isr, added: [], removed: [broker], rule: 'brokerDown' });
        if (part.leader !== broker && part.leader >= 0 && this.state.brokers[part.leader].alive) {
          this.deliver(part.leader, key, 'leader', { type: 'partition.updated', isr: part.isr, ...this.leaderFacts(key, part.leader) });
        }
      }
      const sync = this.state.wal.tailSync[key];
      if (sync !== undefined && sync.broker === broker) {
        // The replica syncing the WAL tail crashed before it could lead: elect another.
        delete this.state.wal.tailSync[key];
        const next = part.isr.find((x) => x !== broker && this.state.brokers[x].alive);
        if (next !== undefined) this.becomeLeader(key, next, 'leaderCrashed');
        else this.emit({ atMs: now, type: 'leader', topic: part.topic, partition: part.partition, broker: -1, leaderEpoch: part.leaderEpoch, rule: 'noEligibleLeader' });
      }
      if (part.leader === broker) {
        const next = part.isr.find((x) => x !== broker && this.state.brokers[x].alive);
        if (next !== undefined) this.becomeLeader(key, next, 'leaderCrashed');
        else {
          part.leader = -1;
          this.emit({ atMs: now, type: 'leader', topic: part.topic, partition: part.partition, broker: -1, leaderEpoch: part.leaderEpoch, rule: 'noEligibleLeader' });
        }
      }
    }
  }

  private restart(broker: number): void {
    const now = this.state.nowMs;
    const b = this.state.brokers[broker];
    if (b.alive) return;
    b.alive = true;
    this.emit({ atMs: now, type: 'broker', action: 'restarted', broker, rule: 'brokerRestarted' });
    // WAL objects it was writing when it crashed have no metadata record: nothing else would delete them.
    for (const objectKey of this.state.wal.objectOrder[String(broker)] ?? []) {
      const o = this.state.wal.objects[objectKey];
      if (o.state !== 'orphan') continue;
      o.state = 'deleting';
      this.emit({ atMs: now, type: 'wal', action: 'deleteObject', broker, objectKey, rule: 'walOrphan' });
      this.storeOp(broker, BROKER_KEY, { op: 'delete', store: 'wal', key: objectKey }, 0, 'walDelete');
    }
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

  /**
   * Clean election. With KIP-1176 the elected replica first syncs the tail from the WAL
   * (PROTOCOL 7.7): the partition has no leader until it has applied the chunks it knows of.
   */
  private becomeLeader(key: string, broker: number, rule: string): void {
    const part = this.state.partitions[key];
    const old = part.leader;
    if (this.walEnabled(key) && this.machineState(broker, key, 'walReplica') !== 'inactive') {
      const now = this.state.nowMs;
      this.state.wal.tailSync[key] = { broker, rule, previous: old };
      part.leader = -1;
      if (old >= 0 && old !== broker && this.state.brokers[old].alive) {
        this.deliver(old, key, 'leader', { type: 'leadership.resigned' });
        this.deliver(old, key, 'rlm', { type: 'rlm.started', role: 'follower' });
      }
      part.parked = [];
      this.state.metrics.wal.tailSyncs++;
      this.emit({ atMs: now, type: 'wal', action: 'syncingTail', broker, topic: part.topic, partition: part.partition, previous: old, logEndOffset: logEndOffset(this.replica(key, broker).log), rule: 'walTailSync' });
      this.deliver(broker, key, 'fetcher', { type: 'fetcher.stopped' });
      this.deliver(broker, key, 'walReplica', { type: 'wal.syncTail' });
      return;
    }
    this.completeLeadership(key, broker, rule, old);
  }

  /** The election proper: bump the epoch, the new leader appends (epoch, LEO) to its cache. */
  private completeLeadership(key: string, broker: number, rule: string, old: number): void {
    const now = this.state.nowMs;
    const part = this.state.partitions[key];
    part.leaderEpoch += 1;
    part.leader = broker;
    if (!part.isr.includes(broker)) part.isr = [...part.isr, broker].sort((a, b) => a - b);
    const r = this.replica(key, broker);
    const cache = r.log.leaderEpochs;
    if (latestEpoch(cache) < part.leaderEpoch) assignEpoch(cache, part.leaderEpoch, logEndOffset(r.log));
    // Ry is in memory on the old leader only; the new leader learns it at its first task run.
    r.highestOffsetInRemoteStorage = -1;
    this.state.watch.highestOffsetInRemoteStorage[`${broker}|${key}`] = -1;
    this.emit({ atMs: now, type: 'leader', topic: part.topic, partition: part.partition, broker, previous: old, leaderEpoch: part.leaderEpoch, rule });
    this.deliver(broker, key, 'fetcher', { type: 'fetcher.stopped' });
    this.deliver(broker, key, 'walReplica', { type: 'wal.stopped' });
    if (this.walEnabled(key)) this.state.wal.next[key] = logEndOffset(r.log);
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
      // Followers drop WAL chunks of the older epochs before they follow the new leader.
      this.deliver(b, key, 'walReplica', { type: 'wal.leaderEpoch', leaderEpoch: part.leaderEpoch });
      this.startFetcher(b, key);
    }
    // Fetches parked at the old leader are answered by no one: their senders restart anyway.
    part.parked = [];
  }

  // ------------------------------------------------------------------ KIP-1176: the WAL

  /** The topic replicates its active segment through the fast store. */
  walEnabled(key: string): boolean {
    const part = this.state.partitions[key];
    return this.state.topicConfigs[part.topic]['wal.enable'];
  }

  /**
   * The first offset the WAL holds for the partition in the current leader epoch: the
   * oldest live chunk of this epoch, or where the leader started writing chunks. Below it a
   * follower is served records the classic way (a new or lagging replica catching up).
   */
  walStartOffset(key: string): number {
    const part = this.state.partitions[key];
    for (const id of this.state.wal.live[key] ?? []) {
      const c = this.state.wal.chunks[String(id)];
      if (c !== undefined && c.leaderEpoch === part.leaderEpoch) return c.baseOffset;
    }
    return this.state.wal.next[key] ?? Number.MAX_SAFE_INTEGER;
  }

  /** True while the leader's last WAL PUT failed and wal.fallback.fetch.enable is on. */
  walFallbackActive(broker: number): boolean {
    return this.state.brokerConfig['wal.fallback.fetch.enable'] && this.machineState(broker, BROKER_KEY, 'walCombiner') === 'retrying';
  }

  private walServes(key: string, leader: number, fetchOffset: number): boolean {
    if (!this.walEnabled(key) || this.walFallbackActive(leader)) return false;
    return fetchOffset >= this.walStartOffset(key) && fetchOffset <= logEndOffset(this.replica(key, leader).log);
  }

  /** Bytes appended to the WAL partitions `broker` leads and not yet in an object. */
  private combinerFacts(broker: number): { pendingBytes: number; maxBytes: number } {
    let pendingBytes = 0;
    for (const key of this.state.partitionOrder) {
      const part = this.state.partitions[key];
      if (part.leader !== broker || !this.walEnabled(key)) continue;
      const next = this.state.wal.next[key] ?? Number.MAX_SAFE_INTEGER;
      const log = this.replica(key, broker).log;
      for (let i = log.segments.length - 1; i >= 0; i--) {
        const seg = log.segments[i];
        for (let j = seg.batches.length - 1; j >= 0 && seg.batches[j].baseOffset >= next; j--) pendingBytes += seg.batches[j].bytes;
        if (seg.baseOffset <= next) break;
      }
    }
    return { pendingBytes, maxBytes: this.state.brokerConfig['wal.combine.max.bytes'] };
  }

  /** A follower of a WAL partition starts reading chunks from the retained metadata. */
  private startWalReplica(broker: number, key: string): void {
    if (!this.walEnabled(key)) return;
    const part = this.state.partitions[key];
    const chunks: WalChunkRef[] = [];
    for (const id of this.state.wal.metadata) {
      const c = this.state.wal.chunks[String(id)];
      if (c !== undefined && c.key === key) chunks.push(chunkRef(c));
    }
    this.deliver(broker, key, 'walReplica', { type: 'wal.started', leaderEpoch: part.leaderEpoch, logEndOffset: logEndOffset(this.replica(key, broker).log), chunks });
  }

  /** A WAL follower's log changed by another path (classic records, truncation). */
  private walLogChanged(broker: number, key: string): void {
    if (this.walEnabled(key)) push(this.state.queue, this.state.nowMs, { kind: 'walLogChanged', broker, key });
  }

  private executeCombiner(broker: number, type: string, p: Record<string, unknown>): void {
    const now = this.state.nowMs;
    switch (type) {
      case 'startIntervalTimer':
        push(this.state.queue, now + this.state.brokerConfig['wal.combine.interval.ms'], { kind: 'machineTimer', machine: 'walCombiner', broker, key: BROKER_KEY, timerId: p.timerId as number });
        return;
      case 'startRetryTimer': {
        const delay = Math.min(100 * 2 ** Math.max(0, (p.failures as number) - 1), 1000);
        push(this.state.queue, now + delay, { kind: 'machineTimer', machine: 'walCombiner', broker, key: BROKER_KEY, timerId: p.timerId as number });
        return;
      }
      case 'flush':
        return this.walFlush(broker, p.requestId as number, p.reason as string);
      case 'publishChunks':
        return this.walPublish(broker, p.requestId as number);
      case 'restoreChunks': {
        const id = `${broker}|${p.requestId as number}`;
        const inflight = this.state.wal.inflight[id];
        delete this.state.wal.inflight[id];
        this.state.metrics.wal.putFailures++;
        if (inflight === undefined) return;
        const o = this.state.wal.objects[inflight.objectKey];
        if (o !== undefined) o.state = 'failed';
        for (const c of inflight.chunks) {
          const part = this.state.partitions[c.key];
          if (part.leader === broker && part.leaderEpoch === c.leaderEpoch) this.state.wal.next[c.key] = Math.min(this.state.wal.next[c.key] ?? c.baseOffset, c.baseOffset);
        }
        this.emit({ atMs: now, type: 'wal', action: 'putFailed', broker, objectKey: inflight.objectKey, error: (p.error as string | null) ?? null, failures: p.failures as number, rule: 'walPutFailed' });
        return;
      }
      default:
        assert(false, `unknown effect ${type} from walCombiner`);
    }
  }

  /** The combiner's flush: one object with every led WAL partition's new batches. */
  private walFlush(broker: number, requestId: number, reason: string): void {
    const now = this.state.nowMs;
    const parts: Array<{ key: string; leaderEpoch: number; batches: RecordBatch[] }> = [];
    for (const key of this.state.partitionOrder) {
      const part = this.state.partitions[key];
      if (part.leader !== broker || !this.walEnabled(key)) continue;
      const next = this.state.wal.next[key] ?? logEndOffset(this.replica(key, broker).log);
      const log = this.replica(key, broker).log;
      const batches: RecordBatch[] = [];
      for (const seg of log.segments) {
        if (seg.endOffset < next) continue;
        for (const b of seg.batches) if (b.baseOffset >= next) batches.push(b);
      }
      if (batches.length === 0) continue;
      parts.push({ key, leaderEpoch: part.leaderEpoch, batches });
      this.state.wal.next[key] = batches[batches.length - 1].lastOffset + 1;
    }
    const { chunks, batches, bytes } = assembleWalObject(parts);
    const objectKey = walObjectKey(broker, this.state.wal.nextObjectSeq++);
    this.state.wal.inflight[`${broker}|${requestId}`] = { objectKey, chunks };
    this.state.wal.objects[objectKey] = { key: objectKey, broker, bytes, createdMs: now, state: 'putting', chunkIds: [] };
    (this.state.wal.objectOrder[String(broker)] ??= []).push(objectKey);
    this.emit({ atMs: now, type: 'wal', action: 'flush', broker, objectKey, chunks: chunks.length, bytes, reason, rule: 'walCombinerFlush' });
    this.storeOp(broker, BROKER_KEY, { op: 'put', store: 'wal', key: objectKey, object: { bytes, body: { kind: 'segment', batches } } }, requestId, 'walPut');
  }

  private onWalPutDone(ev: Extract<KernelEvent, { kind: 'storeDone' }>): void {
    if (ev.result.ok) {
      this.state.metrics.wal.objectsPut++;
      this.state.metrics.wal.bytesPut += ev.result.bytes;
    }
    this.deliver(ev.broker, BROKER_KEY, 'walCombiner', {
      type: 'wal.putCompleted',
      requestId: ev.requestId,
      ok: ev.result.ok,
      error: ev.result.error ?? null,
      ...this.combinerFacts(ev.broker),
    });
  }

  /**
   * The PUT succeeded: one record per chunk goes to the WAL metadata topic, which followers
   * consume. The record travels writer -> metadata partition leader -> each follower broker.
   */
  private walPublish(broker: number, requestId: number): void {
    const now = this.state.nowMs;
    const id = `${broker}|${requestId}`;
    const inflight = this.state.wal.inflight[id];
    delete this.state.wal.inflight[id];
    if (inflight === undefined) return;
    const wal = this.state.wal;
    const m = this.state.metrics.wal;
    const recordBytes = this.state.model.walMetadataRecordBytes;
    const o = wal.objects[inflight.objectKey];
    o.state = 'live';
    const metaLeader = this.walMetadataLeader();
    const zone = (b: number) => this.state.brokers[b].zone;
    // The metadata topic is replicated like any internal topic (RF up to 3, lowest ids).
    const metaReplicas = this.state.brokers.filter((b) => b.alive).slice(0, 3).map((b) => b.id);
    for (const pc of inflight.chunks) {
      const part = this.state.partitions[pc.key];
      const chunk: WalChunk = {
        id: wal.nextChunkId++,
        key: pc.key,
        topic: part.topic,
        partition: part.partition,
        objectKey: inflight.objectKey,
        range: pc.range,
        baseOffset: pc.baseOffset,
        lastOffset: pc.lastOffset,
        leaderEpoch: pc.leaderEpoch,
        broker,
        atMs: now,
      };
      wal.chunks[String(chunk.id)] = chunk;
      wal.metadata.push(chunk.id);
      (wal.live[pc.key] ??= []).push(chunk.id);
      o.chunkIds.push(chunk.id);
      m.chunksPublished++;
      m.metadata.records++;
      m.metadata.bytes += recordBytes;
      let crossZone = zone(broker) !== zone(metaLeader) ? recordBytes : 0;
      for (const r of metaReplicas) if (r !== metaLeader && zone(r) !== zone(metaLeader)) crossZone += recordBytes;
      this.emit({ atMs: now, type: 'wal', action: 'chunkPublished', broker, topic: part.topic, partition: part.partition, objectKey: chunk.objectKey, range: chunk.range, baseOffset: chunk.baseOffset, lastOffset: chunk.lastOffset, leaderEpoch: chunk.leaderEpoch, metadataOffset: chunk.id, rule: 'walMetadataPublished' });
      for (const f of part.replicas) {
        if (f === broker || !this.state.brokers[f].alive) continue;
        if (zone(f) !== zone(metaLeader)) crossZone += recordBytes;
        const at = now + this.latencyMs(broker, metaLeader, pc.key) + this.latencyMs(metaLeader, f, pc.key);
        push(this.state.queue, at, { kind: 'walChunkDelivered', broker: f, key: pc.key, chunkId: chunk.id });
      }
      m.metadata.crossZoneBytes += crossZone;
      this.state.metrics.crossZoneBytes.walMetadata += crossZone;
    }
    this.walMetadataRetention();
    this.walCleanup(broker);
  }

  /** The leader of the WAL metadata topic's partition: the lowest live broker id. */
  private walMetadataLeader(): number {
    return this.state.brokers.find((b) => b.alive)?.id ?? 0;
  }

  /** wal.metadata.retention.ms: records older than it leave the metadata topic. */
  private walMetadataRetention(): void {
    const wal = this.state.wal;
    const m = this.state.metrics.wal.metadata;
    const cutoff = this.state.nowMs - this.state.brokerConfig['wal.metadata.retention.ms'];
    let drop = 0;
    while (drop < wal.metadata.length && (wal.chunks[String(wal.metadata[drop])]?.atMs ?? -1) < cutoff) drop++;
    if (drop > 0) {
      for (const id of wal.metadata.slice(0, drop)) {
        const c = wal.chunks[String(id)];
        // The chunk is forgotten once neither its record nor its object remains.
        if (c !== undefined && wal.objects[c.objectKey]?.state !== 'live') delete wal.chunks[String(id)];
      }
      wal.metadata = wal.metadata.slice(drop);
      this.emit({ atMs: this.state.nowMs, type: 'wal', action: 'metadataRetention', topic: WAL_METADATA_TOPIC, records: drop, rule: 'walMetadataRetention' });
    }
    m.retainedRecords = wal.metadata.length;
    m.retainedBytes = wal.metadata.length * this.state.model.walMetadataRecordBytes;
    m.peakRetainedRecords = Math.max(m.peakRetainedRecords, m.retainedRecords);
    m.peakRetainedBytes = Math.max(m.peakRetainedBytes, m.retainedBytes);
  }

  /**
   * PROTOCOL 7.6: a WAL object may go once every chunk in it is covered by a finished
   * KIP-405 copy (at or below Ry), is below the Log-Start-Offset, or is older than the
   * topic's local retention. Oldest objects first; the scan stops at one that must stay.
   */
  private walCleanup(broker: number): void {
    const now = this.state.nowMs;
    const order = this.state.wal.objectOrder[String(broker)] ?? [];
    let i = 0;
    for (; i < order.length; i++) {
      const o = this.state.wal.objects[order[i]];
      if (o.state === 'deleting' || o.state === 'deleted' || o.state === 'failed' || o.state === 'orphan') continue;
      if (o.state !== 'live') break;
      const why = this.walObjectDeletable(o);
      if (why === null) break;
      o.state = 'deleting';
      this.emit({ atMs: now, type: 'wal', action: 'deleteObject', broker, objectKey: o.key, rule: why });
      this.storeOp(broker, BROKER_KEY, { op: 'delete', store: 'wal', key: o.key }, 0, 'walDelete');
    }
    // Objects gone for good leave the order.
    let drop = 0;
    while (drop < order.length && ['deleted', 'failed'].includes(this.state.wal.objects[order[drop]].state)) drop++;
    if (drop > 0) {
      for (const k of order.slice(0, drop)) delete this.state.wal.objects[k];
      this.state.wal.objectOrder[String(broker)] = order.slice(drop);
    }
  }

  private walObjectDeletable(o: WalObject): string | null {
    let rule = 'walObjectTiered';
    for (const id of o.chunkIds) {
      const c = this.state.wal.chunks[String(id)];
      if (c === undefined) continue;
      const part = this.state.partitions[c.key];
      const leader = part.leader >= 0 ? part.replicaStates[String(part.leader)] : undefined;
      if (leader === undefined) return null;
      const cfg = this.state.topicConfigs[part.topic];
      const localRetentionMs = effectiveLocalRetentionMs(cfg);
      if (this.tiered(c.key) && c.lastOffset <= leader.highestOffsetInRemoteStorage) continue;
      if (c.lastOffset < leader.log.logStartOffset) continue;
      if (localRetentionMs >= 0 && this.state.nowMs - c.atMs > localRetentionMs) {
        rule = 'walObjectPastLocalRetention';
        continue;
      }
      return null;
    }
    return rule;
  }

  private onWalDeleteDone(ev: Extract<KernelEvent, { kind: 'storeDone' }>): void {
    const o = this.state.wal.objects[ev.objectKey];
    if (o === undefined) return;
    if (!ev.result.ok) {
      o.state = 'live';
      return;
    }
    o.state = 'deleted';
    this.state.metrics.wal.objectsDeleted++;
    for (const id of o.chunkIds) {
      const c = this.state.wal.chunks[String(id)];
      if (c === undefined) continue;
      const live = this.state.wal.live[c.key];
      if (live !== undefined) this.state.wal.live[c.key] = live.filter((x) => x !== id);
      if (!this.state.wal.metadata.includes(id)) delete this.state.wal.chunks[String(id)];
    }
  }

  private executeWalReplica(broker: number, key: string, type: string, p: Record<string, unknown>): void {
    const now = this.state.nowMs;
    const part = this.state.partitions[key];
    switch (type) {
      case 'getChunk': {
        const chunk = p.chunk as WalChunkRef;
        return this.storeOp(broker, key, { op: 'get', store: 'wal', key: chunk.objectKey, range: chunk.range }, p.requestId as number, 'walChunk');
      }
      case 'appendChunk':
        return this.walAppendChunk(broker, key, p.requestId as number, p.chunk as WalChunkRef);
      case 'startRetryTimer': {
        const delayMs = this.state.brokerConfig['replica.fetch.backoff.ms'];
        push(this.state.queue, now + delayMs, { kind: 'machineTimer', machine: 'walReplica', broker, key, timerId: p.timerId as number });
        this.emit({ atMs: now, type: 'wal', action: 'readDelayed', broker, topic: part.topic, partition: part.partition, delayMs, reason: p.reason as string, rule: 'walReadBackoff' });
        return;
      }
      case 'tailSynced': {
        const sync = this.state.wal.tailSync[key];
        if (sync === undefined || sync.broker !== broker) return;
        delete this.state.wal.tailSync[key];
        this.emit({ atMs: now, type: 'wal', action: 'tailSynced', broker, topic: part.topic, partition: part.partition, chunks: p.applied as number, logEndOffset: p.logEndOffset as number, rule: 'walTailSynced' });
        return this.completeLeadership(key, broker, sync.rule, sync.previous);
      }
      case 'explain': {
        if (p.rule === 'walChunkStaleEpoch') this.state.metrics.wal.chunksDroppedStaleEpoch++;
        this.emit({ atMs: now, type: 'wal', action: 'explain', broker, topic: part.topic, partition: part.partition, rule: p.rule as string, ...((p.detail as object) ?? {}) });
        return;
      }
      default:
        assert(false, `unknown effect ${type} from walReplica`);
    }
  }

  private onWalChunkRead(ev: Extract<KernelEvent, { kind: 'storeDone' }>): void {
    const body = ev.result.object?.body;
    if (ev.result.ok && body?.kind === 'segment') {
      // The chunk being read is the one the replica's machine holds (no scan of every chunk).
      const current = (this.machineSnapshot(ev.broker, ev.key, 'walReplica')?.context as { current?: WalChunkRef | null } | undefined)?.current;
      const chunk = current?.objectKey === ev.objectKey ? current : undefined;
      const start = ev.result.objectStart ?? 0;
      const picked = chunk === undefined ? [] : chunkBatches(body.batches, chunk, batchPositions(body.batches).map((p) => p + start));
      this.state.wal.reads[`${ev.broker}|${ev.key}|${ev.requestId}`] = picked;
    }
    this.deliver(ev.broker, ev.key, 'walReplica', { type: 'wal.chunkRead', requestId: ev.requestId, ok: ev.result.ok, error: ev.result.error ?? null });
  }

  /** A chunk read from the fast store is appended as follower (what the follower lacks of it). */
  private walAppendChunk(broker: number, key: string, requestId: number, chunk: WalChunkRef): void {
    const now = this.state.nowMs;
    const part = this.state.partitions[key];
    const r = this.replica(key, broker);
    const cfg = this.state.topicConfigs[part.topic];
    const id = `${broker}|${key}|${requestId}`;
    const batches = this.state.wal.reads[id] ?? [];
    delete this.state.wal.reads[id];
    const leaderLog = part.leader >= 0 ? this.replica(key, part.leader).log : undefined;
    let records = 0;
    let bytes = 0;
    const first = logEndOffset(r.log);
    for (const b of batches) {
      if (b.baseOffset !== logEndOffset(r.log)) continue;
      if (appendBatch(r.log, b, cfg['segment.bytes'], cfg['segment.ms'], now)) {
        this.emit({ atMs: now, type: 'log', action: 'segmentRolled', broker, topic: part.topic, partition: part.partition, baseOffset: b.baseOffset, rule: 'segmentFull' });
      }
      records += b.lastOffset - b.baseOffset + 1;
      bytes += b.bytes;
      if (leaderLog !== undefined) for (const v of checkFollowerAppend(now, key, broker, b, leaderLog)) this.addViolation(v);
    }
    this.localLogBytesChanged(bytes);
    const m = this.state.metrics.wal;
    m.chunksApplied++;
    m.bytesApplied += bytes;
    this.emit({ atMs: now, type: 'log', action: 'walChunkAppended', broker, topic: part.topic, partition: part.partition, objectKey: chunk.objectKey, baseOffset: first, lastOffset: logEndOffset(r.log) - 1, records, leaderEpoch: chunk.leaderEpoch, rule: 'walChunkAppended' });
    if (logEndOffset(r.log) !== chunk.lastOffset + 1) this.walLogChanged(broker, key);
    if (records > 0) this.deliver(broker, key, 'fetcher', { type: 'wal.appended', logEndOffset: logEndOffset(r.log), lastEpoch: latestEpoch(r.log.leaderEpochs) });
  }
}

/** Holds a Fetch in the long poll (ascending message ids; the same id again replaces it). */
function parkFetch(part: PartitionState, f: ParkedFetch): void {
  const list = part.parked;
  let i = 0;
  while (i < list.length && list[i].msgId < f.msgId) i++;
  if (i < list.length && list[i].msgId === f.msgId) {
    list[i] = f;
    return;
  }
  // Insert at i by shifting (splice would allocate the array of what it removed).
  list.push(f);
  for (let j = list.length - 1; j > i; j--) list[j] = list[j - 1];
  list[i] = f;
}

/** Removes and returns the Fetch parked under `msgId`, if any. */
function takeParked(part: PartitionState, msgId: number): ParkedFetch | undefined {
  const list = part.parked;
  for (let i = 0; i < list.length; i++) {
    if (list[i].msgId === msgId) {
      const f = list[i];
      for (let j = i; j < list.length - 1; j++) list[j] = list[j + 1];
      list.pop();
      return f;
    }
  }
  return undefined;
}

/** A snapshot as the machines make it (not one read back from JSON). */
function isLiveSnapshot(x: unknown): x is AnyMachineSnapshot {
  return typeof x === 'object' && x !== null && 'machine' in x && '_nodes' in x;
}

/** What a replica's WAL machine keeps of a chunk. */
function chunkRef(c: WalChunk): WalChunkRef {
  return { id: c.id, objectKey: c.objectKey, range: [c.range[0], c.range[1]], baseOffset: c.baseOffset, lastOffset: c.lastOffset, leaderEpoch: c.leaderEpoch };
}
