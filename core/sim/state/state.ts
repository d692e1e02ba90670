/**
 * The kernel's state: plain data (JSON values only), so a checkpoint is a copy of it and a
 * run continues from that copy with the same trace. Every subsystem reads and writes this
 * state through its `Sim` context (core/sim/state/context.ts); nothing here runs.
 */
import type { Rule } from '../../domain/rules.js';
import type { TimelineAction } from '../../scenario/types.js';
import type { BrokerConfig, ModelSettings, TopicConfig } from '../../domain/config.js';
import type { PartitionLog, RecordBatch } from '../../domain/partition-log.js';
import type { Prices } from '../../domain/prices.js';
import type { ApiName, KafkaError, ListOffsetsTimestamp } from '../../domain/protocol.js';
import type { RemoteSegmentMetadata } from '../../domain/remote-metadata.js';
import type { RlmTask } from '../../domain/retention.js';
import type { RateStat } from '../../domain/rate.js';
import type { PendingChunk, WalChunk, WalObject } from '../../domain/wal.js';
import type { ObjectStoreResult, StoreName, StoredObject } from '../../ports/object-store.js';
import { assert } from '../../util/assert.js';
import type { CrossZoneBytes, StoreCounters, Usage } from './costs.js';
import type { EventQueue } from './event-queue.js';
import type { CheckCache, InvariantWatch, Violation } from '../checks/observed.js';
import type { PrngState } from './prng.js';
import type { Endpoint, TraceEntry } from './trace.js';

/** The pseudo partition key of per-broker machines (the WAL combiner). */
export const BROKER_KEY = '__broker';

export function partitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/** KIP-1176's WAL state of the cluster (docs/protocol.md, KIP-1176). */
export interface WalState {
  nextObjectSeq: number;
  /** Next offset of the WAL metadata topic. */
  nextChunkId: number;
  /** Per partition: the leader's next offset to put into a chunk. */
  next: Record<string, number>;
  /**
   * Per partition: ids of the published chunks whose objects still exist, oldest first,
   * from `liveHead[key]` on (the entries before it are gone: the oldest chunk's object is
   * the one usually deleted, and dropping it moves the head instead of the whole list).
   */
  live: Record<string, number[]>;
  /** Per partition: where `live[key]` starts (0 when absent). */
  liveHead: Record<string, number>;
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
  tailSync: Record<string, { broker: number; rule: Rule; previous: number }>;
  /**
   * Only with network jitter (`model.jitter`): per broker, when the last WAL metadata record
   * sent to it arrives. A broker reads the metadata topic in offset order, so a jittered
   * record never overtakes the one before it.
   */
  metadataArrivesMs?: Record<string, number>;
}

export interface ReplicaState {
  broker: number;
  log: PartitionLog;
  /** In memory only: lost on restart, -1 until learned. Never decreases while up. */
  highestOffsetInRemoteStorage: number;
  /**
   * Led since its copy task last looked up the log start offset in remote metadata: until
   * then its Log-Start-Offset may be stale (what it last heard as a follower).
   */
  logStartOffsetUnconfirmed?: boolean;
}

export interface ParkedFetch {
  msgId: number;
  msg: RequestMessage;
  /** The segment of the fetch position when it was parked (Kafka's startOffsetMetadata.segmentBaseOffset). */
  segmentBaseOffset: number;
}

export interface PendingAck {
  msgId: number;
  lastOffset: number;
  sentMs: number;
  records: number;
  /** The producer's own zone (a produce's `zone`); absent: model.clientZone or the leader's. */
  zone?: string;
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
  /**
   * When the broker (re)started: its scheduler's tasks run from then on (Kafka's
   * ReplicaManager.startup schedules isr-expiration at a fixed rate from the start, and
   * LogManager.startup its log retention task).
   */
  startedAtMs: number;
}

/** A request's body, by Kafka API (a consumer's Fetch names no epochs). */
export interface RequestBodies {
  /**
   * `maxBytes` is the partition's limit (Kafka's PartitionMaxBytes: replica.fetch.max.bytes,
   * or a consumer's max.partition.fetch.bytes); `responseMaxBytes` the whole response's (the
   * request's MaxBytes: replica.fetch.response.max.bytes, or a consumer's fetch.max.bytes);
   * `minBytes` the request's MinBytes (replica.fetch.min.bytes; a consumer's Fetch is never
   * held in the model).
   */
  Fetch: { fetchOffset: number; maxBytes: number; responseMaxBytes: number; minBytes?: number; currentLeaderEpoch?: number; lastFetchedEpoch?: number; rackId?: string };
  ListOffsets: { timestamp: ListOffsetsTimestamp; currentLeaderEpoch: number };
  OffsetsForLeaderEpoch: { leaderEpoch: number; currentLeaderEpoch: number };
}

/**
 * A response's body, by Kafka API. A failed connection or a refusal carries only `error`
 * and `rule`; `rule` names why the responder answered so (narration).
 */
export interface ResponseBodies {
  Fetch: {
    error: KafkaError | null;
    rule?: string;
    batches?: RecordBatch[];
    highWatermark?: number;
    logStartOffset?: number;
    divergingEpoch?: { epoch: number; endOffset: number } | null;
    fetchOffset?: number;
    /** A consumer's read: from the local log or from remote storage. */
    servedFrom?: 'local' | 'remote';
    /** KIP-1176: no records, the WAL carries them. */
    wal?: true;
    /** KIP-392: no records; the consumer is to read from this replica (ReplicaManager.findPreferredReadReplica). */
    preferredReadReplica?: number;
  };
  ListOffsets: { error: KafkaError | null; rule?: string; timestamp?: ListOffsetsTimestamp; offset?: number; leaderEpoch?: number };
  OffsetsForLeaderEpoch: { error: KafkaError | null; rule?: string; leaderEpoch?: number; endOffset?: number };
}

interface MessageHeader {
  msgId: number;
  correlationId: number;
  source: Endpoint;
  target: Endpoint;
  key: string;
  requestId: number;
}

export type RequestOf<A extends ApiName> = MessageHeader & { api: A; dir: 'request'; body: RequestBodies[A] };
export type ResponseOf<A extends ApiName> = MessageHeader & { api: A; dir: 'response'; body: ResponseBodies[A] };
export type RequestMessage = { [A in ApiName]: RequestOf<A> }[ApiName];
export type ResponseMessage = { [A in ApiName]: ResponseOf<A> }[ApiName];
/** What travels on the simulated network: a request or a response of one Kafka API. */
export type Message = RequestMessage | ResponseMessage;

export interface ConsumerState {
  id: number;
  key: string;
  broker: number;
  nextOffset: number;
  remaining: number;
  local: number;
  remote: number;
  /** max.partition.fetch.bytes: the partition's limit in each Fetch. */
  maxPartitionFetchBytes: number;
  /** fetch.max.bytes: the whole response's limit in each Fetch. */
  fetchMaxBytes: number;
  /** The consumer's own zone (a consume's \`zone\`); absent: model.clientZone or the leader's, as every client. */
  zone?: string;
  /**
   * KIP-392: the consumer's client.rack (absent: ''), sent with each Fetch. Such a consumer
   * fetches from the partition's leader of the moment unless it holds a preferred read
   * replica, which it keeps until `untilMs` (metadata.max.age.ms after the leader named it).
   */
  rack?: string;
  preferred?: { broker: number; untilMs: number };
  /** fetch.max.wait.ms and metadata.max.age.ms of the consumer (KIP-392 consumers only). */
  fetchMaxWaitMs?: number;
  metadataMaxAgeMs?: number;
}

/** The objects a KIP-405 copy writes for one segment (RemoteStorageManager.copyLogSegmentData). */
export type SegmentObjectKind = 'log' | 'offsetIndex' | 'leaderEpochCheckpoint' | 'producerSnapshot';

/**
 * What an object-store request was for: the subsystem its completion goes back to. The
 * trace names it as a `purpose` string (`purposeOf`).
 */
export type StoreCompletion =
  /** One of the objects of a segment copy (the remote log manager's RLMCopyTask). */
  | { for: 'copy'; object: SegmentObjectKind }
  /** One of the objects of a remote segment being deleted: by the expiration task, or the copy task cleaning up a failed copy. */
  | { for: 'remoteDelete'; task: 'copy' | 'expiration' }
  /** Tiering turned off with remote.log.delete.on.disable: nothing waits for the answer. */
  | { for: 'deleteOnDisable' }
  /** A follower building its remote auxiliary state reads the segment's checkpoint or snapshot. */
  | { for: 'auxState'; object: 'leaderEpochCheckpoint' | 'producerSnapshot' }
  /** A consumer's ranged read below the Local-Log-Start-Offset. */
  | { for: 'consumerRead' }
  /** The segment's offset index, fetched into the broker's remote index cache before that read. */
  | { for: 'remoteIndex'; segmentId: string }
  /** KIP-1176: the combiner's PUT of one WAL object. */
  | { for: 'walPut' }
  /** KIP-1176: a follower's ranged GET of its chunk. */
  | { for: 'walChunk' }
  /** KIP-1176: a WAL object deleted once tiered, past retention or orphaned. */
  | { for: 'walDelete' };

/** The `purpose` the trace gives a store request (field of the JSON output, unchanged). */
export function purposeOf(c: StoreCompletion): string {
  switch (c.for) {
    case 'copy':
      return `copy:${c.object}`;
    case 'remoteDelete':
      return 'delete';
    case 'auxState':
      return c.object;
    case 'deleteOnDisable':
    case 'consumerRead':
    case 'remoteIndex':
    case 'walPut':
    case 'walChunk':
    case 'walDelete':
      return c.for;
  }
}

/**
 * Quotas (core/sim/world/quotas.ts): KIP-73's replication throttles, KIP-956's remote copy and
 * fetch quotas, and each broker's remote log reader pool. In-memory in Kafka: a crash
 * forgets a broker's part.
 */
export interface QuotaState {
  /** Sampled byte rates by `broker|leader`, `broker|follower`, `broker|copy` and `broker|fetch`. */
  rates: Record<string, RateStat>;
  /**
   * A follower fetcher's lag (PartitionFetchState.lag) by `broker|partition`, and the leader
   * epoch it was measured in (another epoch: a new fetch state, lag unknown).
   */
  lag: Record<string, { leaderEpoch: number; lag: number }>;
  /** Each broker's remote log reader pool: reads running (Fetch message ids) and queued (the Fetches). */
  /**
   * Each broker's remote log reader pool: the reads holding a thread, the queue, and the
   * queued reads whose Fetch expired (Kafka's cancelled FutureTask stays in the queue and
   * frees its slot only when a thread takes it and returns at once).
   */
  readers: Record<string, { running: number[]; queue: RequestOf<'Fetch'>[]; cancelled?: number[] }>;
}

/** What waits on a quota, and comes back to it when its wait is over. */
export type QuotaWait =
  /** A follower Fetch left out of the request (ReplicaFetcherThread after replica.fetch.backoff.ms). */
  | { wait: 'followerFetch'; broker: number; key: string; requestId: number; fetchOffset: number; currentLeaderEpoch: number; lastFetchedEpoch: number }
  /** A copy task waiting for the remote copy quota (RemoteLogManager's quotaTimeout, 1 s). */
  | { wait: 'copy'; broker: number; key: string; requestId: number; baseOffset: number; endOffset: number }
  /** A consumer Fetch held, without records, for its max wait (the remote fetch quota was exceeded). */
  | { wait: 'remoteFetch'; broker: number; msg: RequestOf<'Fetch'> };

/** Machines woken by a timer the kernel keeps for them. */
export type TimedMachine = 'fetcher' | 'rlm' | 'rlmExpiration' | 'logRetention' | 'walCombiner' | 'walReplica';

/** Everything the kernel's queue holds; `core/sim/loop/kernel.ts` maps each kind to its handler. */
export type KernelEvent =
  | { kind: 'timeline'; index: number }
  /** A fault the exhaustive checker adds (core/check/exhaustive.ts); it runs as a timeline event. */
  | { kind: 'injected'; action: TimelineAction }
  | { kind: 'deliver'; msg: Message }
  | { kind: 'machineTimer'; machine: TimedMachine; broker: number; key: string; timerId: number }
  | { kind: 'walChunkDelivered'; broker: number; key: string; chunkId: number }
  | { kind: 'walLogChanged'; broker: number; key: string }
  | { kind: 'fetchWaitExpired'; key: string; msgId: number }
  /** remote.fetch.max.wait.ms after a consumer Fetch that needs a remote read (DelayedRemoteFetch). */
  | { kind: 'remoteFetchExpired'; broker: number; key: string; msgId: number }
  | { kind: 'remoteSegmentLookedUp'; broker: number; key: string; requestId: number; epoch: number; offset: number }
  | { kind: 'storeDone'; broker: number; key: string; requestId: number; completion: StoreCompletion; store: StoreName; objectKey: string; result: ObjectStoreResult }
  | { kind: 'consumerFetch'; consumerId: number }
  /** A step of the remote log manager's copy task, its expiration task, or the log retention task. */
  | { kind: 'rlmStep'; broker: number; key: string; requestId: number; task: RlmTask }
  | { kind: 'isrCheck'; broker: number; key: string; timerId: number }
  /** A transfer's last byte left its sender (core/sim/world/bandwidth.ts). */
  | { kind: 'transferDone'; transferId: number }
  | { kind: 'quotaWait'; what: QuotaWait };

export type KernelEventOf<K extends KernelEvent['kind']> = Extract<KernelEvent, { kind: K }>;

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

/** Latencies a jitter distribution applied to, and the extra milliseconds drawn: their sum and the largest. */
export interface JitterCounters {
  count: number;
  addedMs: number;
  maxMs: number;
}

/** What jitter added over a run: network hops, and requests to each store. */
export interface JitterMetrics {
  network: JitterCounters;
  tiered: JitterCounters;
  wal: JitterCounters;
}

export interface Metrics {
  requests: Record<string, number>;
  /** Consumer reads served from remote storage, per broker. */
  remoteReads: Record<string, { count: number; bytes: number }>;
  bytesFetchedByFollowers: number;
  produced: { records: number; bytes: number };
  wal: WalMetrics;
  /** Bytes that crossed between zones (core/sim/state/costs.ts). */
  crossZoneBytes: CrossZoneBytes;
  /** Requests billed by each object store, and the bytes they moved. */
  objectStore: Record<StoreName, StoreCounters>;
  /** Only with `model.jitter`: the latencies jittered and the milliseconds drawn (core/sim/world/jitter.ts). */
  jitter?: JitterMetrics;
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
  /** The model knobs, and `jitter` only when the scenario gives it. */
  model: ModelSettings;
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
  /** What the invariants remember between steps (core/sim/checks/invariants.ts owns it). */
  watch: InvariantWatch;
  /** The checkers' bookkeeping (core/sim/checks/observed.ts): checkpointed, left out of the state key. */
  checkCache: CheckCache;
  /** Produce latencies (ms) by acks, one round trip from the client's zone (`model.clientZone`) included. */
  produceLatencies: { acks0: number[]; acks1: number[]; acksAll: number[] };
  /** Consumer Fetches waiting for a remote read (or for the segment's offset index first), by message id. */
  pendingConsumerReads: Record<string, { msg: RequestOf<'Fetch'>; batchBaseOffsets: number[] }>;
  /**
   * Each broker's remote index cache (Kafka's RemoteIndexCache): the remote segments whose
   * offset index it has fetched, by broker then segment id. Kept on disk in Kafka, so a
   * restart keeps it; Kafka drops entries when a partition is deleted, never on retention.
   */
  remoteIndexCache: Record<string, Record<string, true>>;
  /** KIP-73 and KIP-956 quotas and the remote log reader pools (core/sim/world/quotas.ts). */
  quotas: QuotaState;
  violations: Violation[];
  violationKeys: Record<string, true>;
  metrics: Metrics;
  wal: WalState;
  /** The prices of this run: defaults and the scenario's `prices` (core/domain/prices.ts). */
  prices: Prices;
  /** Billable transfer and stored bytes over time, for the cost (core/sim/state/costs.ts). */
  usage: Usage;
  /** Transfers in flight on the brokers' network interfaces (core/sim/world/bandwidth.ts). */
  net: NetState;
  /** Per replica (partition key, then broker): when it was added, joined the ISR, and the bytes it pulled. */
  replicaStats: Record<string, Record<string, ReplicaStats>>;
}

/** One message's bytes on its way. */
export interface Transfer {
  id: number;
  /** The sending broker (its "out" interface), or null for a client. */
  from: number | null;
  /** The receiving broker (its "in" interface), or null for a client. */
  to: number | null;
  bytes: number;
  /** Bytes still to send at `updatedMs`. */
  remaining: number;
  /** Bytes per ms, from the last share-out. */
  rate: number;
  updatedMs: number;
  /** When its last byte leaves at the current rate (whole microseconds). */
  endMs: number;
  /** The message, and the hop latency (with jitter and any late delivery) it arrives after its last byte. */
  msg: Message;
  afterMs: number;
  startedMs: number;
}

/** The network's state (core/sim/world/bandwidth.ts): transfers in flight, in start order. */
export interface NetState {
  transfers: Transfer[];
  nextTransferId: number;
}

/** The stats of one replica, made on first use (`addedAtMs` 0: a replica of the scenario's). */
export function replicaStatsOf(state: { replicaStats: Record<string, Record<string, ReplicaStats>> }, key: string, broker: number): ReplicaStats {
  const byBroker = (state.replicaStats[key] ??= {});
  return (byBroker[broker] ??= { addedAtMs: 0, isrJoinedAtMs: null, bytesFromLeader: 0, bytesFromStore: 0 });
}

/** What one replica pulled and when it joined the ISR (`partitions[].replicas[]` in the JSON). */
export interface ReplicaStats {
  /** When the broker became a replica of the partition: 0 for the scenario's, else the addReplica. */
  addedAtMs: number;
  /** The first time it joined the ISR after being added (null: it has not, or it was in the ISR from the start). */
  isrJoinedAtMs: number | null;
  /** Record bytes appended from the leader's Fetch responses. */
  bytesFromLeader: number;
  /** Bytes read from the object stores to build its log: remote auxiliary state, and KIP-1176's WAL chunks. */
  bytesFromStore: number;
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

/** Plain-data deep copy through JSON (checkpointed machine snapshots read back). */
export function cloneJson<T>(x: T): T {
  return JSON.parse(JSON.stringify(x)) as T;
}

/**
 * A deep copy of plain data as a JSON round trip makes it (fields holding undefined
 * dropped, undefined in arrays and non-finite numbers as null, -0 as 0), except that what
 * never changes once written is shared: record batches (copying the lists that hold them is
 * enough; a rolled segment's list is shared too) and a remote segment's lists (its leader
 * epochs, object keys, batch index and runs). This keeps checkpoints cheap on long runs and
 * large initial logs.
 * A direct walk: several times faster than JSON with a replacer and a reviver.
 */
export function copyState<T>(x: T): T {
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
  // Remote segment metadata (it has a batchIndex): only its scalars change once it is
  // written (its state), so its lists (epochs, object keys, index, batch runs) are shared.
  if (Array.isArray((v as { batchIndex?: unknown }).batchIndex)) {
    for (const k of Object.keys(v)) {
      const e = (v as Record<string, unknown>)[k];
      if (e === undefined || typeof e === 'function' || typeof e === 'symbol') continue;
      out[k] = typeof e === 'object' ? e : copyPlain(e);
    }
    return out;
  }
  // A rolled segment's batch list never changes (appends go to the active segment; a
  // truncation replaces the list): it is shared, not copied.
  const rolled = (v as { rolled?: unknown }).rolled === true;
  for (const k of Object.keys(v)) {
    const e = (v as Record<string, unknown>)[k];
    if (e === undefined || typeof e === 'function' || typeof e === 'symbol') continue;
    out[k] = k === 'batches' && Array.isArray(e) ? (rolled ? e : e.slice()) : copyPlain(e);
  }
  return out;
}
