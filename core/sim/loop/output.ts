/**
 * The JSON document of `run --json` (docs/json-output.md), built from a kernel's state.
 * Field names are the public contract: extend, never rename.
 */
import { logEndOffset } from '../../domain/partition-log.js';
import type { RemoteSegmentState } from '../../domain/remote-metadata.js';
import type { FollowerFetcherContext } from '../../machines/follower-fetcher.js';
import { kafkaFetchState } from '../../machines/follower-fetcher.js';
import { scaledSizesReason } from '../../scenario/scaled.js';
import type { Kernel } from './kernel.js';
import { costUsd, gbMonths } from '../state/costs.js';
import type { ReplicaStats } from '../state/state.js';
import { type TraceEntry, wholeMs } from '../state/trace.js';
import type { Violation } from '../checks/invariants.js';

export interface ReplicaJson {
  broker: number;
  role: 'leader' | 'follower' | 'offline';
  inIsr: boolean;
  logStartOffset: number;
  localLogStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
  highestOffsetInRemoteStorage: number;
  leaderEpochs: Array<[number, number]>;
  fetcher: { state: 'truncating' | 'fetching'; fetchOffset: number; delayed: boolean; failed: boolean; machineState: string; path: string | null; retries: number } | null;
  /** When the broker became a replica: 0 for the scenario's replicas, else its addReplica's time. */
  addedAtMs: number;
  /** The first time it joined the ISR after being added; null if it has not, or was in the ISR from the start. */
  isrJoinedAtMs: number | null;
  /** Record bytes it appended from the leader's Fetch responses. */
  bytesFromLeader: number;
  /** Bytes it read from the object stores to build its log (remote auxiliary state, KIP-1176 chunks). */
  bytesFromStore: number;
}

export interface PartitionJson {
  topic: string;
  partition: number;
  leader: number;
  leaderEpoch: number;
  isr: number[];
  replicas: ReplicaJson[];
  remoteSegments: Array<{ segmentId: string; baseOffset: number; endOffset: number; state: RemoteSegmentState; sizeBytes: number }>;
}

export interface RunJson {
  scenario: string;
  description: string;
  seed: number;
  endMs: number;
  /**
   * The scenario sets `internal.segment.bytes`, Kafka's internal test override of
   * segment.bytes (the bundled scenarios use it for segments below Kafka's 1 MiB minimum):
   * its sizes are not those of a cluster Kafka would let a user configure (core/scenario/scaled.ts).
   */
  sizesScaled: boolean;
  /** Only when `sizesScaled`: one line saying which values, on which topics, and why. */
  sizesScaledReason?: string;
  /** Only in a run with `--latency measured`: simulated time followed the real store. */
  latency?: { mode: 'measured'; deterministic: false };
  config: Record<string, unknown>;
  partitions: PartitionJson[];
  trace: TraceEntry[];
  /** `finding`: the known finding it is (core/sim/checks/findings.ts), Kafka's behaviour rather than a model error. */
  violations: Array<Omit<Violation, 'subject'>>;
  metrics: Record<string, unknown>;
}

export function replicaJson(k: Kernel, key: string, broker: number): ReplicaJson {
  const part = k.state.partitions[key];
  const r = k.replica(key, broker);
  const alive = k.state.brokers[broker].alive;
  const stats = k.state.replicaStats[key]?.[broker] as ReplicaStats | undefined;
  const role = !alive ? 'offline' : part.leader === broker ? 'leader' : 'follower';
  let fetcher: ReplicaJson['fetcher'] = null;
  if (role === 'follower') {
    const snap = k.machineSnapshot(broker, key, 'fetcher');
    const ctx = snap?.context as FollowerFetcherContext | undefined;
    const name = k.machineState(broker, key, 'fetcher');
    fetcher = {
      state: kafkaFetchState(snap?.value),
      fetchOffset: ctx?.fetchOffset ?? 0,
      delayed: name === 'delayed',
      failed: name === 'failed',
      machineState: name,
      path: ctx?.path ?? null,
      retries: ctx?.retries ?? 0,
    };
  }
  return {
    broker,
    role,
    inIsr: part.isr.includes(broker),
    logStartOffset: r.log.logStartOffset,
    localLogStartOffset: r.log.localLogStartOffset,
    logEndOffset: logEndOffset(r.log),
    highWatermark: r.log.highWatermark,
    highestOffsetInRemoteStorage: r.highestOffsetInRemoteStorage,
    leaderEpochs: r.log.leaderEpochs.map(([e, s]) => [e, s] as [number, number]),
    fetcher,
    addedAtMs: wholeMs(stats?.addedAtMs ?? 0),
    isrJoinedAtMs: stats?.isrJoinedAtMs == null ? null : wholeMs(stats.isrJoinedAtMs),
    bytesFromLeader: stats?.bytesFromLeader ?? 0,
    bytesFromStore: stats?.bytesFromStore ?? 0,
  };
}

/**
 * The run's JSON document. `streamed`: the kernel kept no trace (it was streamed, `run`
 * spools it): the document's trace is empty, and what is counted from the trace is given.
 */
export function buildRunJson(k: Kernel, streamed?: { remoteLogMetadataRecords: number }): RunJson {
  const partitions: PartitionJson[] = k.state.partitionOrder.map((key) => {
    const part = k.state.partitions[key];
    return {
      topic: part.topic,
      partition: part.partition,
      leader: part.leader,
      leaderEpoch: part.leaderEpoch,
      isr: [...part.isr],
      replicas: part.replicas.map((b) => replicaJson(k, key, b)),
      remoteSegments: part.remoteMetadata.map((m) => ({ segmentId: m.segmentId, baseOffset: m.baseOffset, endOffset: m.endOffset, state: m.state, sizeBytes: m.sizeBytes })),
    };
  });
  const topics: Record<string, unknown> = {};
  for (const [name, c] of Object.entries(k.state.topicConfigs)) topics[name] = { ...c };
  const scaledReason = scaledSizesReason(k.scenario);
  return {
    scenario: k.scenario.name,
    description: k.scenario.description,
    seed: k.seed,
    endMs: k.state.nowMs,
    sizesScaled: scaledReason !== null,
    ...(scaledReason !== null ? { sizesScaledReason: scaledReason } : {}),
    ...(k.latencyMode === 'measured' ? { latency: { mode: 'measured' as const, deterministic: false as const } } : {}),
    config: { ...k.state.brokerConfig, topics, model: { ...k.state.model }, zones: k.state.brokers.map((b) => b.zone), prices: { ...k.state.prices } },
    partitions,
    trace: k.trace,
    violations: k.state.violations.map(({ atMs, invariant, message, finding }) => ({ atMs, invariant, message, ...(finding === undefined ? {} : { finding }) })),
    metrics: {
      ...k.state.metrics,
      wal: {
        ...k.state.metrics.wal,
        // KIP-405's own metadata for comparison: one __remote_log_metadata record per state change.
        metadata: { ...k.state.metrics.wal.metadata, remoteLogMetadataRecords: streamed?.remoteLogMetadataRecords ?? k.trace.filter((e) => e.type === 'remoteMetadata' && (e as { action?: string }).action === 'stateChanged').length },
      },
      produce: {
        acks0: { count: k.state.produceLatencies.acks0.length },
        acks1: latencySummary(k.state.produceLatencies.acks1),
        acksAll: latencySummary(k.state.produceLatencies.acksAll),
      },
      steps: k.state.stepCount,
      storage: storageJson(k),
      costUsd: costUsd(k.state.metrics.crossZoneBytes, k.state.metrics.objectStore, k.state.usage, k.state.prices, k.state.nowMs),
    },
  };
}


/** Count and nearest-rank percentiles of produce latencies (integers, ms). */
export function latencySummary(values: readonly number[]): { count: number; latencyMsP50: number | null; latencyMsP99: number | null; latencyMsMax: number | null } {
  if (values.length === 0) return { count: 0, latencyMsP50: null, latencyMsP99: null, latencyMsMax: null };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  return { count: sorted.length, latencyMsP50: rank(50), latencyMsP99: rank(99), latencyMsMax: sorted[sorted.length - 1] };
}

/** Bytes held at the end and GB-months held over the run, per place (what `costUsd.storage` prices). */
function storageJson(k: Kernel): Record<'tiered' | 'wal' | 'localDisk', { bytes: number; gbMonths: number }> {
  const u = k.state.usage;
  const held = gbMonths(u, k.state.nowMs);
  // GB-months are tiny for short runs: 12 significant digits keep them stable and readable.
  const round = (x: number) => Number(x.toPrecision(12));
  return {
    tiered: { bytes: u.storedBytes.tiered, gbMonths: round(held.tiered) },
    wal: { bytes: u.storedBytes.wal, gbMonths: round(held.wal) },
    localDisk: { bytes: u.storedBytes.localDisk, gbMonths: round(held.localDisk) },
  };
}
