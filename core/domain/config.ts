/**
 * The configs the model understands, with Kafka's names, types and defaults.
 * Broker configs are cluster-wide in the model (one value for every broker); topic
 * configs are per topic. Model knobs (`model:` in a scenario) are not Kafka configs and
 * are documented as such. Every value used in a run is reported in the JSON `config`.
 */

import type { Jitter } from './jitter.js';

export type ConfigValue = number | boolean | string;

export type ConfigKind = 'int' | 'boolean' | 'string';

export interface ConfigSpec {
  readonly kind: ConfigKind;
  readonly default: ConfigValue;
  /** Smallest accepted value (ints only). */
  readonly min?: number;
  /** Allowed values (strings only). */
  readonly oneOf?: readonly string[];
  readonly doc: string;
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

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
  'replica.lag.time.max.ms': {
    kind: 'int', default: 30000, min: 1,
    doc: 'Milliseconds a follower may go without catching up before it leaves the ISR.',
  },
  'remote.log.manager.task.interval.ms': {
    kind: 'int', default: 30000, min: 1,
    doc: 'Milliseconds between runs of the remote log manager task (first run at once).',
  },
  'remote.log.storage.system.enable': {
    kind: 'boolean', default: true,
    doc: 'Tiered storage available on the brokers (Kafka default false; the model enables it).',
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
  'segment.bytes': {
    kind: 'int', default: 1073741824, min: 1,
    doc: 'Bytes after which the active segment is rolled.',
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
  'min.insync.replicas': {
    kind: 'int', default: 1, min: 1,
    doc: 'In-sync replicas needed for an acks=all produce.',
  },
  'wal.enable': {
    kind: 'boolean', default: false,
    doc: 'Model name (KIP-1176): the active segment is replicated through the fast object store (WAL) instead of follower fetches.',
  },
} as const satisfies Record<string, ConfigSpec>;

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
} as const satisfies Record<string, ConfigSpec>;

export type ConsumerConfigKey = keyof typeof CONSUMER_CONFIGS;
export type ConsumerConfig = { -readonly [K in ConsumerConfigKey]: number };

export function defaultConsumerConfig(): ConsumerConfig {
  return { 'max.partition.fetch.bytes': CONSUMER_CONFIGS['max.partition.fetch.bytes'].default, 'fetch.max.bytes': CONSUMER_CONFIGS['fetch.max.bytes'].default };
}

export function isConsumerConfigKey(key: string): key is ConsumerConfigKey {
  return Object.prototype.hasOwnProperty.call(CONSUMER_CONFIGS, key);
}

export type BrokerConfigKey = keyof typeof BROKER_CONFIGS;
export type TopicConfigKey = keyof typeof TOPIC_CONFIGS;

export type BrokerConfig = { -readonly [K in BrokerConfigKey]: (typeof BROKER_CONFIGS)[K]['default'] extends boolean ? boolean : (typeof BROKER_CONFIGS)[K]['default'] extends number ? number : string };
export type TopicConfig = { -readonly [K in TopicConfigKey]: (typeof TOPIC_CONFIGS)[K]['default'] extends boolean ? boolean : (typeof TOPIC_CONFIGS)[K]['default'] extends number ? number : string };

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
  | { readonly kind?: 'int'; readonly default: number; readonly min: number; readonly doc: string }
  | { readonly kind: 'zone'; readonly default: string; readonly doc: string };

export const MODEL_KNOBS: Record<keyof ModelKnobs, ModelKnobSpec> = {
  recordBytes: { default: 1024, min: 1, doc: 'Bytes of one produced record on disk, its share of the batch header included.' },
  producerBatchBytes: { default: 16384, min: 1, doc: 'Bytes of one producer batch (Kafka batch.size).' },
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

export function isTopicConfigKey(key: string): key is TopicConfigKey {
  return Object.prototype.hasOwnProperty.call(TOPIC_CONFIGS, key);
}

export function configSpec(key: string): ConfigSpec | undefined {
  if (isBrokerConfigKey(key)) return BROKER_CONFIGS[key];
  if (isTopicConfigKey(key)) return TOPIC_CONFIGS[key];
  return undefined;
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
