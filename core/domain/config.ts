/**
 * The configs the model understands, with Kafka's names, types and defaults.
 * Broker configs are cluster-wide in the model (one value for every broker); topic
 * configs are per topic. Model knobs (`model:` in a scenario) are not Kafka configs and
 * are documented as such. Every value used in a run is reported in the JSON `config`.
 */

import type { Jitter } from './jitter.js';

export type ConfigValue = number | boolean | string;

export type ConfigKind = 'int' | 'boolean' | 'string';

/** What a config's values may be. */
export interface ValueSpec {
  readonly kind: ConfigKind;
  /** Smallest accepted value (ints only). */
  readonly min?: number;
  /** Largest accepted value (ints only; Kafka's INT type ends at 2147483647). */
  readonly max?: number;
  /**
   * Ints only: `min` and `max` are Kafka's own validator of the config (ConfigDef.Range and
   * Type.INT), and this says where Kafka defines it. A value outside is refused with
   * Kafka's ConfigException text (kafkaRangeRefusal).
   */
  readonly kafkaRange?: string;
  /** Added to the refusal of a value below `min`: what to do instead. */
  readonly belowMinHint?: string;
  /** Allowed values (strings only). */
  readonly oneOf?: readonly string[];
  /** Kafka's validator (strings only): null when the value is valid, else Kafka's reason. */
  readonly validate?: (value: string) => string | null;
  readonly doc: string;
}

/** A config with a default: every run has a value for it. */
export interface ConfigSpec extends ValueSpec {
  readonly default: ConfigValue;
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** The largest value of Kafka's ConfigDef.Type.INT (Java's Integer.MAX_VALUE). */
export const KAFKA_INT_MAX = 2147483647;

/**
 * Kafka's smallest `segment.bytes`, 1 MiB: LogConfig defines the topic config with
 * `atLeast(1024 * 1024)` since Kafka 4.1 (KAFKA-19080, which added `internal.segment.bytes`
 * for smaller test segments), and the broker default `log.segment.bytes`
 * (LogConfig.SERVER_CONFIG_DEF) likewise since Kafka 4.0 (KIP-1030). The model follows
 * Kafka 4.3, where both hold.
 */
export const SEGMENT_BYTES_MIN = 1024 * 1024;

/**
 * Kafka's internal override of `segment.bytes` (LogConfig.INTERNAL_SEGMENT_BYTES_CONFIG,
 * Kafka 4.1+): defined with `defineInternal(..., INT, null, null, ...)`, so it has no
 * default and no validator, and it is left out of the documented configs
 * (LogConfig.nonInternalConfigNames). When set, LogConfig.segmentSize() returns it instead of
 * `segment.bytes`. Kafka's doc: "This should be used for testing only."
 */
export const INTERNAL_SEGMENT_BYTES = 'internal.segment.bytes';
/**
 * Kafka's default for its byte-rate quotas is Long.MAX_VALUE (no limit). A JSON number
 * cannot carry that exactly, so the model's default is 2^53 - 1 bytes/s: as unlimited in
 * any run (a quota is exceeded only above it).
 */
export const UNLIMITED_BYTES_PER_SECOND = Number.MAX_SAFE_INTEGER;

/**
 * ThrottledReplicaListValidator (Kafka 4.3): the literal '*' or a comma-separated list of
 * `partitionId:brokerId` (each entry trimmed; an empty entry passes, so '' is valid).
 */
export function validateThrottledReplicas(name: string): (value: string) => string | null {
  return (value) => {
    const entries = value.split(',').map((e) => e.trim());
    if (entries.join('') === '*' || entries.every((e) => /^([0-9]+:[0-9]+)?$/.test(e))) return null;
    return `${name} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...`;
  };
}

const RACK_AWARE_SELECTOR_NAME = 'org.apache.kafka.common.replica.RackAwareReplicaSelector';
const LEADER_SELECTOR_NAME = 'org.apache.kafka.common.replica.LeaderSelector';

/** Broker configs (Kafka names), applied to every broker. */
export const BROKER_CONFIGS = {
  'follower.fetch.last.tiered.offset.enable': {
    kind: 'boolean', default: false,
    doc: 'KIP-1023: an empty follower of a tiered topic starts at the earliest pending upload offset.',
  },
  'replica.fetch.backoff.ms': {
    kind: 'int', default: 1000, min: 0,
    doc: 'Milliseconds a follower partition waits after a failed fetch step before retrying.',
  },
  // Kafka 4.3 ReplicationConfigs: replica.fetch.max.bytes and replica.fetch.response.max.bytes
  // atLeast(0), replica.fetch.min.bytes with no validator (any int).
  'replica.fetch.max.bytes': {
    kind: 'int', default: 1048576, min: 0,
    doc: 'Bytes of records a follower asks for per partition in one Fetch (the first batch is returned whole even when larger).',
  },
  'replica.fetch.response.max.bytes': {
    kind: 'int', default: 10485760, min: 0,
    doc: "Bytes of records a follower asks for in one whole Fetch response (the Fetch request's maxBytes; the first batch is returned whole even when larger).",
  },
  'replica.fetch.min.bytes': {
    kind: 'int', default: 1,
    doc: 'Bytes a follower Fetch waits for at the leader: fewer available, it is held until replica.fetch.wait.max.ms.',
  },
  'replica.fetch.wait.max.ms': {
    kind: 'int', default: 500, min: 0,
    doc: 'Milliseconds the leader holds a follower Fetch that has not enough data (long poll).',
  },
  // Kafka 4.3 ServerConfigs: the broker's cap on every Fetch response, atLeast(1024)
  // (KafkaApis.handleFetchRequest: min(request maxBytes, fetch.max.bytes)).
  'fetch.max.bytes': {
    kind: 'int', default: 57671680, min: 1024,
    doc: "The broker's cap on the bytes of one Fetch response, a consumer's or a follower's.",
  },
  // Kafka 4.3 RemoteLogManagerConfig, atLeast(1).
  'remote.fetch.max.wait.ms': {
    kind: 'int', default: 500, min: 1,
    doc: "Milliseconds a consumer Fetch waits for its remote read (DelayedRemoteFetch); then it is answered without the remote partition's records.",
  },
  // KIP-392 (ReplicationConfigs REPLICA_SELECTOR_CLASS_CONFIG, default null, read at startup:
  // ReplicaManager.createReplicaSelector). The model knows Kafka's two selectors.
  'replica.selector.class': {
    kind: 'string', default: '', oneOf: ['', LEADER_SELECTOR_NAME, RACK_AWARE_SELECTOR_NAME],
    doc: "KIP-392: the class that picks the replica a consumer reads from: '' (Kafka's null) or LeaderSelector, the leader; RackAwareReplicaSelector, an in-sync replica in the consumer's client.rack (the leader when it is in that rack, else the most caught up).",
  },
  'replica.lag.time.max.ms': {
    kind: 'int', default: 30000, min: 1,
    doc: 'Milliseconds a follower may go without catching up before it leaves the ISR.',
  },
  'remote.log.manager.task.interval.ms': {
    kind: 'int', default: 30000, min: 1,
    doc: "Milliseconds from the end of one run of each remote log manager task (a leader's copy and expiration tasks, a follower's task) to its next run; the first run at once (RemoteLogManager schedules them with fixed delay, no initial delay).",
  },
  // Kafka 4.3 ServerLogConfigs: LOG_CLEANUP_INTERVAL_MS_CONFIG (default 5 min, atLeast(1)) and
  // the internal LOG_INITIAL_TASK_DELAY_MS_CONFIG (default 30 s, atLeast(0)); LogManager.startup
  // schedules "kafka-log-retention" (cleanupLogs) with them, at a fixed rate.
  'log.retention.check.interval.ms': {
    kind: 'int', default: 300000, min: 1,
    doc: "Milliseconds between runs of the broker's log retention task (LogManager.cleanupLogs: local retention of every partition it hosts), counted from the broker's start at a fixed rate.",
  },
  'log.initial.task.delay.ms': {
    kind: 'int', default: 30000, min: 0,
    doc: "Kafka's internal config: milliseconds from the broker's start to the first run of its log retention task.",
  },
  'remote.log.storage.system.enable': {
    kind: 'boolean', default: true,
    doc: 'Tiered storage available on the brokers (Kafka default false; the model enables it).',
  },
  // KIP-73 replication throttles (QuotaConfig.brokerQuotaConfigs, ReplicationQuotaManager; Kafka 4.3).
  'leader.replication.throttled.rate': {
    kind: 'int', default: UNLIMITED_BYTES_PER_SECOND, min: 0,
    doc: 'KIP-73: bytes/s a leader sends to out-of-sync followers of throttled replicas (leader.replication.throttled.replicas); Kafka default Long.MAX_VALUE, the model 2^53-1 (no limit).',
  },
  'follower.replication.throttled.rate': {
    kind: 'int', default: UNLIMITED_BYTES_PER_SECOND, min: 0,
    doc: 'KIP-73: bytes/s an out-of-sync follower fetches for throttled replicas (follower.replication.throttled.replicas); Kafka default Long.MAX_VALUE, the model 2^53-1 (no limit).',
  },
  'replication.quota.window.num': {
    kind: 'int', default: 11, min: 1,
    doc: 'Samples the replication quotas keep (10 whole windows and the current one).',
  },
  'replication.quota.window.size.seconds': {
    kind: 'int', default: 1, min: 1,
    doc: 'Seconds one replication quota sample spans.',
  },
  // KIP-956 tiered-storage quotas (RemoteLogManagerConfig, RLMQuotaManager; Kafka 4.3).
  'remote.log.manager.copy.max.bytes.per.second': {
    kind: 'int', default: UNLIMITED_BYTES_PER_SECOND, min: 1,
    doc: 'KIP-956: bytes/s a broker copies to remote storage; a copy waits while the quota is exceeded. Kafka default Long.MAX_VALUE, the model 2^53-1 (no limit).',
  },
  'remote.log.manager.copy.quota.window.num': {
    kind: 'int', default: 11, min: 1,
    doc: 'KIP-956: samples the remote copy quota keeps.',
  },
  'remote.log.manager.copy.quota.window.size.seconds': {
    kind: 'int', default: 1, min: 1,
    doc: 'KIP-956: seconds one remote copy quota sample spans.',
  },
  'remote.log.manager.fetch.max.bytes.per.second': {
    kind: 'int', default: UNLIMITED_BYTES_PER_SECOND, min: 1,
    doc: 'KIP-956: bytes/s a broker reads from remote storage for consumers; a read while it is exceeded gets no records. Kafka default Long.MAX_VALUE, the model 2^53-1 (no limit).',
  },
  'remote.log.manager.fetch.quota.window.num': {
    kind: 'int', default: 11, min: 1,
    doc: 'KIP-956: samples the remote fetch quota keeps.',
  },
  'remote.log.manager.fetch.quota.window.size.seconds': {
    kind: 'int', default: 1, min: 1,
    doc: 'KIP-956: seconds one remote fetch quota sample spans.',
  },
  'remote.log.reader.threads': {
    kind: 'int', default: 10, min: 1,
    doc: 'Threads that serve consumer reads from remote storage (RemoteStorageThreadPool).',
  },
  'remote.log.reader.max.pending.tasks': {
    kind: 'int', default: 100, min: 1,
    doc: 'Remote reads queued for a reader thread; past it a Fetch is served with an error (UNKNOWN_SERVER_ERROR).',
  },
  // KIP-1176 never fixed its config names: the wal.* names below are the model's.
  'wal.combine.interval.ms': {
    kind: 'int', default: 15, min: 1,
    doc: 'Model name (KIP-1176): milliseconds the WAL combiner waits before flushing one object to the fast store.',
  },
  'wal.combine.max.bytes': {
    kind: 'int', default: 409600, min: 1,
    doc: 'Model name (KIP-1176): bytes pending in the WAL combiner that flush an object at once.',
  },
  'wal.metadata.retention.ms': {
    kind: 'int', default: 3600000, min: 1,
    doc: 'Model name (KIP-1176): retention of the WAL metadata topic __remote_wal_log_metadata.',
  },
  'wal.fallback.fetch.enable': {
    kind: 'boolean', default: false,
    doc: 'Model name (KIP-1176 "later improvement"): while the fast store fails, followers fetch records from the leader.',
  },
} as const satisfies Record<string, ConfigSpec>;

/** Topic configs (Kafka names), per topic. */
export const TOPIC_CONFIGS = {
  'remote.storage.enable': {
    kind: 'boolean', default: false,
    doc: 'The topic is tiered: rolled segments are copied to remote storage.',
  },
  'remote.log.copy.disable': {
    kind: 'boolean', default: false,
    doc: 'Stop copying new segments to remote storage (reads and deletes go on).',
  },
  // KIP-950 (LogConfig, Kafka 3.9+): Kafka's controller refuses to turn remote.storage.enable
  // off unless this is true in the same change (LogConfig.validateTurningOffRemoteStorageWithDelete).
  'remote.log.delete.on.disable': {
    kind: 'boolean', default: false,
    doc: 'KIP-950: turning remote.storage.enable off deletes the remote data; Kafka refuses to turn tiering off without it.',
  },
  'segment.bytes': {
    kind: 'int', default: 1073741824, min: SEGMENT_BYTES_MIN, max: KAFKA_INT_MAX,
    kafkaRange: 'LogConfig: atLeast(1024 * 1024), Kafka 4.1+',
    belowMinHint: 'for smaller segments, as in a test, set internal.segment.bytes (Kafka\'s internal test override) instead',
    doc: 'Bytes after which the active segment is rolled (at least 1 MiB; internal.segment.bytes overrides it).',
  },
  'segment.ms': {
    kind: 'int', default: WEEK_MS, min: 1,
    doc: 'Milliseconds after which a non-empty active segment is rolled.',
  },
  'local.retention.ms': {
    kind: 'int', default: -2, min: -2,
    doc: 'Milliseconds uploaded segments are kept locally; -2 means retention.ms.',
  },
  'local.retention.bytes': {
    kind: 'int', default: -2, min: -2,
    doc: 'Bytes of uploaded segments kept locally; -2 means retention.bytes.',
  },
  'retention.ms': {
    kind: 'int', default: WEEK_MS, min: -1,
    doc: 'Milliseconds data is kept across both tiers; -1 means forever.',
  },
  'retention.bytes': {
    kind: 'int', default: -1, min: -1,
    doc: 'Bytes kept across both tiers; -1 means no limit.',
  },
  'cleanup.policy': {
    kind: 'string', default: 'delete', oneOf: ['delete', 'compact', 'compact,delete', 'delete,compact'],
    doc: 'delete or compact; KIP-1023 never applies to compacted topics.',
  },
  // LogConfig (Kafka 4.3): min.compaction.lag.ms LONG atLeast(0), default 0;
  // max.compaction.lag.ms LONG atLeast(1), default Long.MAX_VALUE (the model: 2^53 - 1, as
  // unlimited). The model does not compact: they are here for LogConfig.validateValues.
  'min.compaction.lag.ms': {
    kind: 'int', default: 0, min: 0,
    doc: 'Milliseconds a record stays uncompacted; must not exceed max.compaction.lag.ms (LogConfig.validateValues). The model does not compact.',
  },
  'max.compaction.lag.ms': {
    kind: 'int', default: Number.MAX_SAFE_INTEGER, min: 1,
    doc: 'Milliseconds after which a record is compacted; Kafka default Long.MAX_VALUE, the model 2^53-1. The model does not compact.',
  },
  'min.insync.replicas': {
    kind: 'int', default: 1, min: 1,
    doc: 'In-sync replicas needed for an acks=all produce.',
  },
  'leader.replication.throttled.replicas': {
    kind: 'string', default: '', validate: validateThrottledReplicas('leader.replication.throttled.replicas'),
    doc: "KIP-73: replicas throttled on the leader side, as partitionId:brokerId pairs ('0:1,1:2') or '*' for all; '' none.",
  },
  'follower.replication.throttled.replicas': {
    kind: 'string', default: '', validate: validateThrottledReplicas('follower.replication.throttled.replicas'),
    doc: "KIP-73: replicas throttled on the follower side, as partitionId:brokerId pairs ('0:1,1:2') or '*' for all; '' none.",
  },
  'wal.enable': {
    kind: 'boolean', default: false,
    doc: 'Model name (KIP-1176): the active segment is replicated through the fast object store (WAL) instead of follower fetches.',
  },
} as const satisfies Record<string, ConfigSpec>;

/**
 * Topic configs Kafka defines as internal (ConfigDef.defineInternal): accepted under their
 * names, with no default (absent unless given), and not listed among the topic configs a
 * message suggests. `min` 1 is the model's: Kafka has no validator, and at 1, as at 0 or a
 * small negative value, every batch after a segment's first starts a new segment
 * (LogSegment.shouldRoll: size > maxSegmentBytes - messagesSize).
 */
export const INTERNAL_TOPIC_CONFIGS = {
  [INTERNAL_SEGMENT_BYTES]: {
    kind: 'int', min: 1, max: KAFKA_INT_MAX,
    doc: 'Kafka\'s internal test override of segment.bytes (from 1; Kafka sets no minimum): when set, segments roll at this size instead.',
  },
} as const satisfies Record<string, ValueSpec>;

/**
 * Consumer configs (Kafka 4.3 ConsumerConfig names, defaults and validators, atLeast(0)),
 * per `consume` in a scenario's timeline. Kafka's consumer sends max.partition.fetch.bytes as
 * the partition's limit and fetch.max.bytes as the request's (AbstractFetch.prepareFetchRequests,
 * FetchConfig). `fetch.max.bytes` is also a broker config, the broker's own cap (55 MiB).
 */
export const CONSUMER_CONFIGS = {
  'max.partition.fetch.bytes': {
    kind: 'int', default: 1048576, min: 0,
    doc: 'Bytes of records a consumer Fetch asks for per partition (the first batch is returned whole even when larger).',
  },
  'fetch.max.bytes': {
    kind: 'int', default: 52428800, min: 0,
    doc: "Bytes of records a consumer Fetch asks for in the whole response (the request's maxBytes; the broker caps it at its own fetch.max.bytes).",
  },
  // Kafka 4.3 ConsumerConfig FETCH_MAX_WAIT_MS_CONFIG, atLeast(0).
  'fetch.max.wait.ms': {
    kind: 'int', default: 500, min: 0,
    doc: "Milliseconds a broker may hold a consumer Fetch with nothing to return. The model holds no consumer Fetch; a KIP-392 consumer whose follower had nothing yet below its high watermark asks again after this long.",
  },
  // CommonClientConfigs METADATA_MAX_AGE_CONFIG, atLeast(0): also how long a consumer keeps a
  // preferred read replica (FetchCollector.updatePartitionState: now + metadata.metadataExpireMs()).
  'metadata.max.age.ms': {
    kind: 'int', default: 300000, min: 0,
    doc: 'Milliseconds a KIP-392 consumer keeps reading from the replica the leader named before it asks the leader again.',
  },
  // KIP-392 (Kafka 2.4+; ConsumerConfig CLIENT_RACK_CONFIG, default ""): the rack the consumer
  // sends in each Fetch (FetchRequest rackId). With the brokers' replica.selector.class set to
  // RackAwareReplicaSelector, the leader names a replica in that rack to read from.
  'client.rack': {
    kind: 'string', default: '',
    doc: "KIP-392: the consumer's rack, sent with every Fetch; with replica.selector.class RackAwareReplicaSelector the leader sends it to an in-sync replica in that rack (a zone name of the scenario). '' none.",
  },
} as const satisfies Record<string, ConfigSpec>;

export type ConsumerConfigKey = keyof typeof CONSUMER_CONFIGS;
export type ConsumerConfig = { -readonly [K in ConsumerConfigKey]: (typeof CONSUMER_CONFIGS)[K]['default'] extends number ? number : string };

export function defaultConsumerConfig(): ConsumerConfig {
  return {
    'max.partition.fetch.bytes': CONSUMER_CONFIGS['max.partition.fetch.bytes'].default,
    'fetch.max.bytes': CONSUMER_CONFIGS['fetch.max.bytes'].default,
    'fetch.max.wait.ms': CONSUMER_CONFIGS['fetch.max.wait.ms'].default,
    'metadata.max.age.ms': CONSUMER_CONFIGS['metadata.max.age.ms'].default,
    'client.rack': CONSUMER_CONFIGS['client.rack'].default,
  };
}

/**
 * The replica selectors the model knows (KIP-392; Kafka's ReplicaManager.replicaSelectorOpt
 * builds the class named by replica.selector.class, none when it is null). '' is Kafka's null:
 * no selector, every consumer reads from the leader.
 */
export const RACK_AWARE_REPLICA_SELECTOR = RACK_AWARE_SELECTOR_NAME;
export const LEADER_SELECTOR = LEADER_SELECTOR_NAME;

export function isConsumerConfigKey(key: string): key is ConsumerConfigKey {
  return Object.prototype.hasOwnProperty.call(CONSUMER_CONFIGS, key);
}

export type BrokerConfigKey = keyof typeof BROKER_CONFIGS;
/** The topic configs with a default (every run has a value). */
export type TopicConfigKey = keyof typeof TOPIC_CONFIGS;
export type InternalTopicConfigKey = keyof typeof INTERNAL_TOPIC_CONFIGS;

export type BrokerConfig = { -readonly [K in BrokerConfigKey]: (typeof BROKER_CONFIGS)[K]['default'] extends boolean ? boolean : (typeof BROKER_CONFIGS)[K]['default'] extends number ? number : string };
/** A topic's configs: every config with a default, and the internal ones only when given. */
export type TopicConfig = { -readonly [K in TopicConfigKey]: (typeof TOPIC_CONFIGS)[K]['default'] extends boolean ? boolean : (typeof TOPIC_CONFIGS)[K]['default'] extends number ? number : string } & {
  -readonly [K in InternalTopicConfigKey]?: number;
};

/** Model knobs: not Kafka configs. Units are in the names. */
export interface ModelKnobs {
  /** Bytes of one produced record (value and overhead together). */
  recordBytes: number;
  /** Bytes of one producer batch (Kafka producer `batch.size`); a produce is split into batches of this size. */
  producerBatchBytes: number;
  /** One-way network latency between two brokers in the same zone. */
  sameZoneLatencyMs: number;
  /** One-way network latency between two brokers in different zones. */
  crossZoneLatencyMs: number;
  /** Latency of one PUT to the tiered object store. */
  tieredPutLatencyMs: number;
  /** Latency of one GET from the tiered object store. */
  tieredGetLatencyMs: number;
  /** Latency of one DELETE in the tiered object store. */
  tieredDeleteLatencyMs: number;
  /** Upload throughput of the tiered store, bytes per millisecond (adds to the PUT latency). */
  tieredPutBytesPerMs: number;
  /** Time a restarted broker needs to load the remote log metadata before it knows Ry. */
  remoteLogMetadataLoadMs: number;
  /** Latency of one PUT to the WAL's fast store (S3 Express One Zone). */
  walPutLatencyMs: number;
  /** Latency of one (ranged) GET from the WAL's fast store. */
  walGetLatencyMs: number;
  /** Latency of one DELETE in the WAL's fast store. */
  walDeleteLatencyMs: number;
  /** Upload throughput of the fast store, bytes per millisecond (adds to the PUT latency). */
  walPutBytesPerMs: number;
  /**
   * Each broker's network interface, bytes per second each way (out and in apart), shared
   * max-min fairly by the transfers on it (core/sim/world/bandwidth.ts); 0 for no limit.
   */
  brokerNetworkBytesPerSec: number;
  /** Download throughput of one GET from the tiered store, bytes per millisecond (adds to the GET latency). */
  tieredGetBytesPerMs: number;
  /** Download throughput of one ranged GET from the fast store, bytes per millisecond (adds to the GET latency). */
  walGetBytesPerMs: number;
  /** Bytes of one record of the WAL metadata topic (key, object key, byte range, offsets, epoch). */
  walMetadataRecordBytes: number;
  /**
   * The zone of producers and consumers: one of the scenario's zones, or '' for the
   * partition leader's zone (clients then never cross zones to reach the leader).
   */
  clientZone: string;
}

/**
 * The model of a run: every knob, and `jitter` when the scenario gives it (absent: no
 * latency is drawn at random; core/domain/jitter.ts).
 */
export type ModelSettings = ModelKnobs & { jitter?: Jitter };

/** How a model knob is given: an integer with a minimum, or (kind 'zone') a zone name. */
export type ModelKnobSpec =
  | { readonly kind?: 'int'; readonly default: number; readonly min: number; readonly max?: number; readonly maxWhy?: string; readonly doc: string }
  | { readonly kind: 'zone'; readonly default: string; readonly doc: string };

export const MODEL_KNOBS: Record<keyof ModelKnobs, ModelKnobSpec> = {
  recordBytes: {
    default: 1024,
    min: 1,
    // A record sits in a record batch, whose size Kafka's format keeps in a 32-bit int
    // (RecordBatch v2: batchLength), with a 61-byte header (core/format/record-batch.ts).
    max: 2147483647 - 61,
    maxWhy: "a record batch's size is a 32-bit int in Kafka's format (2^31 - 1), less its 61-byte header",
    doc: 'Bytes of one produced record on disk, its share of the batch header included.',
  },
  producerBatchBytes: {
    default: 16384,
    min: 1,
    max: 2147483647,
    maxWhy: "the producer's batch.size is a 32-bit int, and so is a record batch's size in Kafka's format",
    doc: 'Bytes of one producer batch (Kafka batch.size).',
  },
  sameZoneLatencyMs: { default: 1, min: 0, doc: 'One-way latency between brokers in one zone, ms.' },
  crossZoneLatencyMs: { default: 2, min: 0, doc: 'One-way latency between brokers in different zones, ms.' },
  tieredPutLatencyMs: { default: 100, min: 0, doc: 'Latency of a PUT to the tiered store (S3 Standard p50), ms.' },
  tieredGetLatencyMs: { default: 60, min: 0, doc: 'Latency of a GET from the tiered store (S3 Standard p50), ms.' },
  tieredDeleteLatencyMs: { default: 50, min: 0, doc: 'Latency of a DELETE in the tiered store, ms.' },
  tieredPutBytesPerMs: { default: 100000, min: 1, doc: 'Upload throughput of the tiered store, bytes per ms (100 MB/s).' },
  remoteLogMetadataLoadMs: { default: 0, min: 0, doc: 'Time a restarted broker needs to load remote log metadata, ms.' },
  walPutLatencyMs: { default: 6, min: 0, doc: 'Latency of a PUT to the WAL fast store (S3 Express One Zone, single-digit ms), ms.' },
  walGetLatencyMs: { default: 4, min: 0, doc: 'Latency of a ranged GET from the WAL fast store, ms.' },
  walDeleteLatencyMs: { default: 4, min: 0, doc: 'Latency of a DELETE in the WAL fast store, ms.' },
  walPutBytesPerMs: { default: 200000, min: 1, doc: 'Upload throughput of the WAL fast store, bytes per ms (200 MB/s).' },
  brokerNetworkBytesPerSec: {
    default: 1_250_000_000, min: 0,
    doc: "Each broker's network interface, bytes/s each way, shared fairly by concurrent transfers (10 Gbit/s: an AWS m5.8xlarge's sustained bandwidth); 0 = no limit.",
  },
  tieredGetBytesPerMs: { default: 90000, min: 1, doc: 'Download throughput of one GET from the tiered store, bytes per ms (90 MB/s: S3 Standard, 85-90 MB/s per request by AWS guidance).' },
  walGetBytesPerMs: { default: 200000, min: 1, doc: 'Download throughput of one ranged GET from the WAL fast store, bytes per ms (200 MB/s).' },
  walMetadataRecordBytes: { default: 120, min: 1, doc: 'Bytes of one WAL metadata record (object key, byte range, partition, offsets, epoch).' },
  clientZone: {
    kind: 'zone', default: '',
    doc: "Zone of producers and consumers: one of the scenario's zones, or '' (default) for the partition leader's zone.",
  },
};

export function defaultBrokerConfig(): BrokerConfig {
  const out: Record<string, ConfigValue> = {};
  for (const [k, spec] of Object.entries(BROKER_CONFIGS)) out[k] = spec.default;
  return out as BrokerConfig;
}

export function defaultTopicConfig(): TopicConfig {
  const out: Record<string, ConfigValue> = {};
  for (const [k, spec] of Object.entries(TOPIC_CONFIGS)) out[k] = spec.default;
  return out as TopicConfig;
}

export function defaultModelKnobs(): ModelKnobs {
  const out: Record<string, number | string> = {};
  for (const [k, spec] of Object.entries(MODEL_KNOBS)) out[k] = spec.default;
  return out as unknown as ModelKnobs;
}

export function isBrokerConfigKey(key: string): key is BrokerConfigKey {
  return Object.prototype.hasOwnProperty.call(BROKER_CONFIGS, key);
}

/** A topic config key, internal ones (internal.segment.bytes) included. */
export function isTopicConfigKey(key: string): key is keyof TopicConfig {
  return Object.prototype.hasOwnProperty.call(TOPIC_CONFIGS, key) || isInternalTopicConfigKey(key);
}

export function isInternalTopicConfigKey(key: string): key is InternalTopicConfigKey {
  return Object.prototype.hasOwnProperty.call(INTERNAL_TOPIC_CONFIGS, key);
}

/** The spec of a topic config, internal ones included. */
export function topicConfigSpec(key: string): ValueSpec | undefined {
  if (Object.prototype.hasOwnProperty.call(TOPIC_CONFIGS, key)) return TOPIC_CONFIGS[key as TopicConfigKey];
  if (isInternalTopicConfigKey(key)) return INTERNAL_TOPIC_CONFIGS[key];
  return undefined;
}

export function configSpec(key: string): ValueSpec | undefined {
  if (isBrokerConfigKey(key)) return BROKER_CONFIGS[key];
  return topicConfigSpec(key);
}

/**
 * Kafka's refusal of an int value outside a config's `kafkaRange`, in the words of its
 * ConfigException ("Invalid value V for configuration NAME: MESSAGE"; the message is
 * ConfigDef.Range's "Value must be at least MIN", or ConfigDef.parseType's "Not a number of
 * type INT" past Integer.MAX_VALUE). Null when Kafka accepts the value or the spec has no
 * Kafka range.
 */
export function kafkaRangeRefusal(key: string, spec: ValueSpec, v: number): string | null {
  if (spec.kafkaRange === undefined) return null;
  if (spec.max !== undefined && v > spec.max) return `Invalid value ${v} for configuration ${key}: Not a number of type INT`;
  if (spec.min !== undefined && v < spec.min) return `Invalid value ${v} for configuration ${key}: Value must be at least ${spec.min}`;
  return null;
}

/**
 * The size at which a topic's active segment rolls: `internal.segment.bytes` when set, else
 * `segment.bytes` (Kafka's LogConfig.segmentSize(), Kafka 4.1+).
 */
export function segmentSize(c: TopicConfig): number {
  return c[INTERNAL_SEGMENT_BYTES] ?? c['segment.bytes'];
}

/** Effective local retention: -2 defers to the total retention setting. */
export function effectiveLocalRetentionMs(c: TopicConfig): number {
  return c['local.retention.ms'] === -2 ? c['retention.ms'] : c['local.retention.ms'];
}

export function effectiveLocalRetentionBytes(c: TopicConfig): number {
  return c['local.retention.bytes'] === -2 ? c['retention.bytes'] : c['local.retention.bytes'];
}

export function isCompacted(c: TopicConfig): boolean {
  return c['cleanup.policy'].includes('compact');
}
