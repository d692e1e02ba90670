/**
 * What a what-if is asked with (core/scenario/whatif.ts builds it): the options, their
 * defaults and their flags. Apart from the builder so that the page's form and link can read
 * and write them without loading the builder (web/lib/whatif-form.ts; the builder loads on
 * Build).
 */
import { MODEL_KNOBS, TOPIC_CONFIGS } from '../domain/config.js';

export const WHATIF_EVENTS = ['add-replica', 'crash-leader', 'store-outage'] as const;
export type WhatIfEvent = (typeof WHATIF_EVENTS)[number];
/**
 * Where the producers are: `leader`, in each partition leader's zone (no produce crosses
 * zones); `spread`, one in each zone, the partition's produces coming from each zone in turn
 * (a third each in three zones; the batches those of one producer at the asked rate).
 */
export const WHATIF_PRODUCER_ZONES = ['leader', 'spread'] as const;
export type WhatIfProducerZones = (typeof WHATIF_PRODUCER_ZONES)[number];

/**
 * The most local segments a what-if writes: each is a line of the scenario (about 65
 * characters), which holds at most 128 KiB; the part in remote storage only takes what is left.
 */
export const MAX_LOCAL_SEGMENTS = 1500;

/** The topic every what-if has. */
export const WHATIF_TOPIC = 'events';

/**
 * The batch size the partition's existing log was written with (model.producerBatchBytes),
 * 1 MiB as in bench/whatif-1tib.yaml: a Fetch carries replica.fetch.max.bytes (1 MiB) either
 * way, so the rounds, bytes and times are those of Kafka's 16 KiB batch.size
 * (test/whatif-1tib.test.ts checks it), while 50 GiB of local log is 51,200 batches instead of
 * 3,276,800 (the work budget's limit is 2,000,000: docs/scenario-format.md, Limits).
 */
export const WHATIF_BATCH_BYTES = 1024 * 1024;

export interface WhatIfInput {
  brokers: number;
  zones: number;
  partitions: number;
  replicationFactor: number;
  /** Bytes of each partition in remote storage only. */
  tieredBytes: number;
  /** Bytes of each partition on the leader's local disk, the active segment included. */
  localBytes: number;
  /** Bytes of the active segment (part of localBytes); null: what localBytes leaves past whole segments. */
  activeBytes: number | null;
  /** The topic's segment.bytes. */
  segmentBytes: number;
  /** Bytes a second produced over all partitions (0: no producer). */
  produceBytesPerSec: number;
  recordBytes: number;
  /** The producer's linger.ms. */
  lingerMs: number;
  /** Consumers reading the topic in each zone. */
  consumersPerZone: number;
  /** Where the producers are (WHATIF_PRODUCER_ZONES). */
  producerZones: WhatIfProducerZones;
  /** KIP-392: the brokers' replica.selector.class RackAwareReplicaSelector, each consumer's client.rack its zone. */
  fetchFromFollower: boolean;
  event: WhatIfEvent;
  eventAtMs: number;
  /** store-outage: how long the tiered store is unavailable. */
  outageMs: number;
  /** crash-leader: how long the crashed leader stays down. */
  downMs: number;
  /** The run's end; null: estimated (estimateCatchUpMs). */
  untilMs: number | null;
  seed: number;
}

/**
 * The defaults, each printed when used: Kafka's where Kafka has one (segment.bytes 1 GiB,
 * linger.ms 5 since Kafka 4.0, KIP-1030), the question otherwise (1 TiB tiered,
 * 50 GiB local, three brokers in three zones, replication factor 3).
 */
export const WHATIF_DEFAULTS: WhatIfInput = {
  brokers: 3,
  zones: 3,
  partitions: 1,
  replicationFactor: 3,
  tieredBytes: 1024 ** 4,
  localBytes: 50 * 1024 ** 3,
  activeBytes: null,
  segmentBytes: TOPIC_CONFIGS['segment.bytes'].default,
  produceBytesPerSec: 1_000_000,
  recordBytes: MODEL_KNOBS.recordBytes.default as number,
  lingerMs: 5,
  consumersPerZone: 0,
  producerZones: 'leader',
  fetchFromFollower: false,
  event: 'add-replica',
  eventAtMs: 1000,
  outageMs: 10_000,
  downMs: 10_000,
  untilMs: null,
  seed: 1,
};

/** Where a value came from, for messages: the flag that sets it. */
export const WHATIF_FLAG: Readonly<Record<keyof WhatIfInput, string>> = {
  brokers: '--brokers',
  zones: '--zones',
  partitions: '--partitions',
  replicationFactor: '--replication-factor',
  tieredBytes: '--tiered',
  localBytes: '--local',
  activeBytes: '--active',
  segmentBytes: '--segment-bytes',
  produceBytesPerSec: '--produce',
  recordBytes: '--record-bytes',
  lingerMs: '--linger-ms',
  consumersPerZone: '--consumers-per-zone',
  producerZones: '--producer-zones',
  fetchFromFollower: '--fetch-from-follower',
  event: '--event',
  eventAtMs: '--event-at-ms',
  outageMs: '--outage-ms',
  downMs: '--down-ms',
  untilMs: '--until',
  seed: '--seed',
};

