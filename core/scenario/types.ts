/**
 * The scenario file of docs/scenario-format.md, after validation and defaults.
 * A scenario is plain data: it round-trips through JSON and is the input of a run.
 */
import type { BrokerConfig, ConfigValue, ConsumerConfig, ModelKnobs, TopicConfig } from '../domain/config.js';
import type { Jitter } from '../domain/jitter.js';
import type { PriceOverrides } from '../domain/prices.js';

export type Tier = 'remote' | 'both' | 'local';

export interface InitialSegment {
  baseOffset: number;
  /** Inclusive. */
  endOffset: number;
  tier: Tier;
}

export interface InitialPartitionState {
  partition: number;
  leaderEpoch: number;
  /** (epoch, startOffset) pairs, ascending in both. */
  leaderEpochs: Array<[number, number]>;
  /** Contiguous, oldest first; the last is the active segment. */
  segments: InitialSegment[];
  /** Undefined: derived (end of the last remote/both segment, or -1). */
  highestOffsetInRemoteStorage?: number;
  remoteLogMetadataReadyMs: number;
  /**
   * True: the partition's other replicas start with a copy of the leader's local log, in
   * the ISR (a partition that has been replicating all along). Absent: they start empty.
   */
  followersInSync?: boolean;
}

export interface TopicSpec {
  name: string;
  partitions: number;
  /** Per partition, the replica broker ids; the first is the leader. */
  replicas: number[][];
  /** Only the keys the scenario gave; defaults are applied by the kernel. */
  config: Partial<Record<keyof TopicConfig, ConfigValue>>;
  initial: InitialPartitionState[];
}

export type Acks = 0 | 1 | 'all';

export type TimelineAction =
  | { kind: 'addReplica'; topic: string; partition: number; broker: number }
  /**
   * With `everyMs`, the produce repeats at that period until `untilMs` (default: the run's end).
   * `zone`: the producer's zone, one of the scenario's (absent: model.clientZone, else the
   * partition leader's zone, as every client).
   */
  | { kind: 'produce'; topic: string; partition: number; records: number; acks: Acks; everyMs?: number; untilMs?: number; zone?: string }
  /**
   * `config`: the consumer's configs that differ from Kafka's defaults (core/domain/config.ts
   * CONSUMER_CONFIGS). `zone`: the consumer's zone, one of the scenario's (absent: model.clientZone,
   * else the partition leader's zone, as every client).
   */
  | { kind: 'consume'; topic: string; partition: number; broker?: number; fromOffset: number; records: number; config?: Partial<ConsumerConfig>; zone?: string }
  | { kind: 'crash'; broker: number }
  | { kind: 'restart'; broker: number }
  | { kind: 'electLeader'; topic: string; partition: number; broker: number }
  /** `topic` given: topic configs of that topic; otherwise broker configs, and topic configs of every topic. */
  | { kind: 'setConfig'; topic?: string; values: Record<string, ConfigValue> }
  /** `extraLatencyMs`: every request to the store(s) takes this much longer (throttling); 0 ends it. */
  | { kind: 'objectStore'; available: boolean; store?: 'tiered' | 'wal'; extraLatencyMs?: number }
  /** A network partition: the broker cannot reach the other brokers (the controller still sees it) until `heal`. */
  | { kind: 'isolate'; broker: number }
  | { kind: 'heal'; broker: number }
  /**
   * A new broker starts and registers with the controller: it joins the cluster with the next
   * broker id (`broker`, the number of brokers so far), in zone zones[broker % zones.length],
   * and hosts no replica until an addReplica names it.
   */
  | { kind: 'addBroker'; broker: number };

export interface TimelineEvent {
  at: number;
  action: TimelineAction;
}

/** The kinds of the kernel's choice points (core/sim/loop/choices.ts). */
export const CHOICE_KINDS = ['order', 'delay', 'storeFault'] as const;
export type ChoiceKind = (typeof CHOICE_KINDS)[number];

/**
 * One answer other than the default at one of the kernel's choice points, pinned in a
 * scenario file (`choices`; docs/scenario-format.md, "Pinned choices").
 */
export interface PinnedChoice {
  /** The step (1-based). */
  step: number;
  /** The point's place among its step's choice points, from 0. */
  n: number;
  kind: ChoiceKind;
  /** `order`: the index among the due events; `delay`: extra ms; `storeFault`: 1. */
  pick: number;
  /** What it picks (the event run first, the late message, the failed request); a replay checks it. */
  what?: string;
}

export interface Scenario {
  name: string;
  description: string;
  seed: number;
  brokers: number;
  /** Broker i is in zones[i % zones.length]; default ['a']. */
  zones: string[];
  /** Only the keys the scenario gave; defaults are applied by the kernel. */
  config: Partial<Record<keyof BrokerConfig, ConfigValue>>;
  /** Only the knobs the scenario gave, and `jitter` when given (core/domain/jitter.ts). */
  model: Partial<ModelKnobs> & { jitter?: Jitter };
  /** Only the prices the scenario gave (absent: none); the kernel resolves the rest (core/domain/prices.ts). */
  prices?: PriceOverrides;
  topics: TopicSpec[];
  timeline: TimelineEvent[];
  until: number;
  /** Answers pinned at the kernel's choice points (absent: none; a counterexample of the exhaustive checker has them). */
  choices?: PinnedChoice[];
}

export interface InputProblem {
  /** Where the problem is, e.g. `topics[0].initial[0].segments[2].baseOffset`. */
  path: string;
  message: string;
  /**
   * Only on the last entry of a list cut at MAX_PROBLEMS (path '', "... and N more
   * problems"): how many were left out.
   */
  more?: number;
}

export type ParseResult =
  | { ok: true; scenario: Scenario }
  | { ok: false; problems: InputProblem[] };

/** The zone of broker `id`: zones[id % zones.length] ('a' when the scenario names none). */
export function brokerZone(scenario: Pick<Scenario, 'zones'>, id: number): string {
  return scenario.zones.length > 0 ? scenario.zones[id % scenario.zones.length] : 'a';
}
