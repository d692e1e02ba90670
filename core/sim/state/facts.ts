/**
 * Facts about the cluster that the machines decide from and the subsystems read: a
 * replica's log and configs, the leader's view of its offsets, the remote log manager's
 * candidates, zones and latencies, and KIP-1176's WAL positions. Reads only: nothing here
 * changes the state.
 */
import { effectiveLocalRetentionBytes, effectiveLocalRetentionMs, isCompacted } from '../../domain/config.js';
import { latestEpoch } from '../../domain/leader-epoch-cache.js';
import type { LeaderView } from '../../domain/leader-rules.js';
import { logEndOffset } from '../../domain/partition-log.js';
import { findHighestRemoteOffset, findLogStartOffset } from '../../domain/remote-metadata.js';
import { type RemoteExpiryRule, copyCandidates, localRetentionDeletable, remoteRetentionExpired } from '../../domain/retention.js';
import type { WalChunk } from '../../domain/wal.js';
import type { ReplicaFacts } from '../../machines/follower-fetcher.js';
import type { LeaderFacts } from '../../machines/leader-partition.js';
import type { RemoteLogManagerEvent, RlmFacts } from '../../machines/remote-log-manager.js';
import type { LogRetentionFacts } from '../../machines/log-retention.js';
import type { WalCombinerContext } from '../../machines/wal-combiner.js';
import type { WalChunkRef } from '../../machines/wal-replica.js';
import { fail } from '../../util/assert.js';
import type { Sim } from './context.js';
import { stateName } from '../runtime/machines.js';
import { BROKER_KEY, type KernelState, type ReplicaState } from './state.js';
import type { Endpoint } from './trace.js';

export function replica(state: KernelState, key: string, broker: number): ReplicaState {
  const r = state.partitions[key].replicaStates[broker];
  if (r === undefined) fail(`broker ${broker} hosts ${key}`);
  return r;
}

/** Tiered storage is on for the partition's topic (and the broker's remote storage system). */
export function tiered(state: KernelState, key: string): boolean {
  const part = state.partitions[key];
  return state.brokerConfig['remote.log.storage.system.enable'] && state.topicConfigs[part.topic]['remote.storage.enable'];
}

/**
 * A local segment must be uploaded before local retention deletes it, and deleting moves
 * only Local-Log-Start-Offset (Kafka's UnifiedLog.remoteLogEnabledAndRemoteCopyEnabled):
 * tiered, and remote.log.copy.disable off.
 */
export function uploadsRequired(state: KernelState, key: string): boolean {
  return tiered(state, key) && !state.topicConfigs[state.partitions[key].topic]['remote.log.copy.disable'];
}

export function replicaFacts(state: KernelState, key: string, broker: number): ReplicaFacts {
  const part = state.partitions[key];
  return {
    logEndOffset: logEndOffset(replica(state, key, broker).log),
    lastTieredOffsetEnabled: state.brokerConfig['follower.fetch.last.tiered.offset.enable'],
    tiered: tiered(state, key),
    compacted: isCompacted(state.topicConfigs[part.topic]),
    leaderEpochs: replica(state, key, broker).log.leaderEpochs,
  };
}

export function leaderView(state: KernelState, key: string, broker: number): LeaderView {
  const part = state.partitions[key];
  const r = replica(state, key, broker);
  return {
    tiered: tiered(state, key),
    logStartOffset: r.log.logStartOffset,
    localLogStartOffset: r.log.localLogStartOffset,
    logEndOffset: logEndOffset(r.log),
    highWatermark: r.log.highWatermark,
    highestOffsetInRemoteStorage: r.highestOffsetInRemoteStorage,
    leaderEpoch: part.leaderEpoch,
  };
}

/** What the leader machine's events carry: its view, where its current epoch starts, and the time. */
export function leaderFacts(state: KernelState, key: string, broker: number): LeaderFacts {
  const r = replica(state, key, broker);
  const part = state.partitions[key];
  let start = -1;
  for (const entry of r.log.leaderEpochs) {
    if (entry[0] === part.leaderEpoch) {
      start = entry[1];
      break;
    }
  }
  return {
    view: leaderView(state, key, broker),
    leaderEpochStartOffset: start >= 0 ? start : logEndOffset(r.log),
    nowMs: state.nowMs,
    minIsr: effectiveMinIsr(state, key),
    lagTimeMaxMs: state.brokerConfig['replica.lag.time.max.ms'],
    isrEligible: isrEligible(state, key),
  };
}

/** Partition.effectiveMinIsr: min.insync.replicas, at most the replication factor. */
export function effectiveMinIsr(state: KernelState, key: string): number {
  const part = state.partitions[key];
  return Math.min(state.topicConfigs[part.topic]['min.insync.replicas'], part.replicas.length);
}

/**
 * The replicas that may join the ISR (Partition.isReplicaIsrEligible: not fenced). The
 * controller fences a broker when it goes down, so these are the live ones; with every
 * replica in the ISR, which is most of the time, the assignment itself (nothing to allocate).
 */
function isrEligible(state: KernelState, key: string): readonly number[] {
  const part = state.partitions[key];
  if (part.isr.length === part.replicas.length) return part.replicas;
  return part.replicas.filter((b) => state.brokers[b].alive);
}

/** The broker has loaded the partition's remote log metadata. */
export function metadataReady(state: KernelState, key: string, broker: number): boolean {
  const at = state.partitions[key].metadataReadyAtMs[String(broker)] ?? 0;
  return state.nowMs >= at;
}

/** What the copy task decides from, at this moment (see domain/retention.ts copyCandidates). */
export function rlmFacts(state: KernelState, key: string, broker: number): RlmFacts {
  const part = state.partitions[key];
  const r = replica(state, key, broker);
  const isTiered = tiered(state, key);
  const candidates = part.leader === broker && isTiered ? copyCandidates(r.log.segments, r.highestOffsetInRemoteStorage, r.log.logStartOffset, r.log.highWatermark) : [];
  return {
    tiered: isTiered,
    copyDisabled: state.topicConfigs[part.topic]['remote.log.copy.disable'],
    metadataReady: metadataReady(state, key, broker),
    candidate: candidates[0] ?? null,
    lastCandidateEnd: candidates.length > 0 ? candidates[candidates.length - 1].endOffset : -1,
  };
}

/** What the log retention task decides from, at this moment (domain/retention.ts localRetentionDeletable). */
export function logRetentionFacts(state: KernelState, key: string, broker: number): LogRetentionFacts {
  const cfg = state.topicConfigs[state.partitions[key].topic];
  const r = replica(state, key, broker);
  // UnifiedLog.remoteLogEnabledAndRemoteCopyEnabled: with remote.log.copy.disable (KIP-950)
  // local retention falls back to retention.*, as on a topic that is not tiered.
  const uploads = uploadsRequired(state, key);
  const local = localRetentionDeletable({
    segments: r.log.segments,
    highWatermark: r.log.highWatermark,
    logStartOffset: r.log.logStartOffset,
    highestOffsetInRemoteStorage: uploads ? r.highestOffsetInRemoteStorage : Number.MAX_SAFE_INTEGER,
    retentionBytes: uploads ? effectiveLocalRetentionBytes(cfg) : cfg['retention.bytes'],
    retentionMs: uploads ? effectiveLocalRetentionMs(cfg) : cfg['retention.ms'],
    nowMs: state.nowMs,
  });
  return { localDeletable: local.deletable, localStoppedBy: local.stoppedBy, rollActive: local.rollActive };
}

/** The remote segments the leader's expiration task deletes now, oldest first (domain/retention.ts remoteRetentionExpired). */
export function remoteExpiredNow(state: KernelState, key: string, broker: number): Array<{ segmentId: string; endOffset: number; rule: RemoteExpiryRule }> {
  const part = state.partitions[key];
  if (part.leader !== broker || !tiered(state, key) || !metadataReady(state, key, broker)) return [];
  const cfg = state.topicConfigs[part.topic];
  const r = replica(state, key, broker);
  let localOnlyBytes = 0;
  // UnifiedLog.onlyLocalLogSegmentsSize: base offset >= Ry, so a segment [Ry, Ry], and every
  // uploaded segment while Ry is -1 or stale, is counted in both tiers (docs/protocol.md §5).
  for (const seg of r.log.segments) if (seg.baseOffset >= r.highestOffsetInRemoteStorage) localOnlyBytes += seg.bytes;
  return remoteRetentionExpired({ remote: part.remoteMetadata, logStartOffset: r.log.logStartOffset, localOnlyBytes, retentionBytes: cfg['retention.bytes'], retentionMs: cfg['retention.ms'], nowMs: state.nowMs });
}

/** The remote log manager's task is due: what it learns first (RLMTask's metadata and Ry). */
export function rlmTaskEvent(state: KernelState, broker: number, key: string, timerId: number): RemoteLogManagerEvent {
  const part = state.partitions[key];
  const r = replica(state, key, broker);
  return {
    type: 'rlm.taskDue',
    timerId,
    metadataReady: metadataReady(state, key, broker),
    highestRemoteOffset: tiered(state, key) ? findHighestRemoteOffset(part.remoteMetadata, r.log.leaderEpochs, logEndOffset(r.log)) : -1,
    highestOffsetInRemoteStorage: r.highestOffsetInRemoteStorage,
    remoteLogStartOffset: findLogStartOffset(part.remoteMetadata, r.log.leaderEpochs, r.log.localLogStartOffset),
    tiered: tiered(state, key),
    copyDisabled: state.topicConfigs[part.topic]['remote.log.copy.disable'],
  };
}

/** A broker's zone; a client (producer or consumer) is in `model.clientZone`, or else the partition leader's zone. */
export function zoneOf(state: KernelState, e: Endpoint, key: string, clientZone?: string): string {
  // A client: its own zone (a consume's \`zone\`), else model.clientZone, else the leader's.
  if (typeof e !== 'number' && clientZone !== undefined) return clientZone;
  if (typeof e !== 'number' && state.model.clientZone !== '') return state.model.clientZone;
  const part = state.partitions[key];
  const id = typeof e === 'number' ? e : part.leader >= 0 ? part.leader : 0;
  return state.brokers[id]?.zone ?? 'a';
}

/** One network hop: same zone or cross zone (`clientZone`: the zone of the client end, when it has its own). */
export function latencyMs(state: KernelState, a: Endpoint, b: Endpoint, key: string, clientZone?: string): number {
  return zoneOf(state, a, key, clientZone) === zoneOf(state, b, key, clientZone) ? state.model.sameZoneLatencyMs : state.model.crossZoneLatencyMs;
}

/** The machine's current state, `a.b.c` ('' when there is no such machine). */
export function machineState(s: Sim, broker: number, key: string, name: Parameters<Sim['machineSnapshot']>[2]): string {
  const snap = s.machineSnapshot(broker, key, name);
  return snap === undefined ? '' : stateName(snap.value);
}

// ---------------------------------------------------------------- KIP-1176

/** The topic replicates its active segment through the fast store. */
export function walEnabled(state: KernelState, key: string): boolean {
  const part = state.partitions[key];
  return state.topicConfigs[part.topic]['wal.enable'];
}

/**
 * The first offset of the current leader epoch that is not in a WAL object the fast store
 * has accepted: where the combiner's next object starts, or the first chunk of a PUT still
 * in flight (the combiner moves `wal.next` past a chunk when it PUTs it, and back when the
 * PUT fails). Records from here on are on the leader's disk only.
 */
export function walPutEnd(state: KernelState, key: string): number {
  const epoch = state.partitions[key].leaderEpoch;
  let end = state.wal.next[key] ?? Number.MAX_SAFE_INTEGER;
  for (const id in state.wal.inflight) {
    for (const c of state.wal.inflight[id].chunks) if (c.key === key && c.leaderEpoch === epoch && c.baseOffset < end) end = c.baseOffset;
  }
  return end;
}

/**
 * The first offset the WAL holds for the partition in the current leader epoch: the
 * oldest live chunk of this epoch, or, with none, where the WAL's put records end. Below it
 * a follower is served records the classic way (a new or lagging replica catching up).
 * Not `wal.next` itself: while a PUT is in flight that is past records the fast store has
 * not accepted, and a follower below it would be served them by Fetch.
 */
export function walStartOffset(state: KernelState, key: string): number {
  const part = state.partitions[key];
  const live = state.wal.live[key] ?? [];
  for (let i = state.wal.liveHead[key] ?? 0; i < live.length; i++) {
    const c = state.wal.chunks[String(live[i])];
    if (c !== undefined && c.leaderEpoch === part.leaderEpoch) return c.baseOffset;
  }
  return walPutEnd(state, key);
}

/**
 * True with wal.fallback.fetch.enable on, from the leader's first failed WAL PUT until one
 * succeeds: the retry's PUT in flight included, or a store that fails slowly would have
 * the fallback off most of the time it is down.
 */
export function walFallbackActive(s: Sim, broker: number): boolean {
  if (!s.state.brokerConfig['wal.fallback.fetch.enable']) return false;
  const combiner = s.machineSnapshot(broker, BROKER_KEY, 'walCombiner')?.context as WalCombinerContext | undefined;
  return combiner !== undefined && combiner.failures > 0;
}

/** The leader answers a follower's Fetch at `fetchOffset` without records: the WAL carries them. */
export function walServes(s: Sim, key: string, leader: number, fetchOffset: number): boolean {
  if (!walEnabled(s.state, key) || walFallbackActive(s, leader)) return false;
  return fetchOffset >= walStartOffset(s.state, key) && fetchOffset <= logEndOffset(replica(s.state, key, leader).log);
}

/**
 * The end (exclusive) of the records a follower's Fetch may carry. A replica served the
 * classic way from below the WAL start gets records only up to where the WAL's put records
 * end: what is in a PUT in flight, in a failed one or not yet put reaches followers through
 * the fast store, so acks=all waits for it, unless wal.fallback.fetch.enable has the leader
 * serve it while the store fails (KIP-1176's proposed fallback to the classic Fetch).
 */
export function walFetchEnd(s: Sim, key: string, leader: number): number {
  if (!walEnabled(s.state, key) || walFallbackActive(s, leader)) return Number.MAX_SAFE_INTEGER;
  return walPutEnd(s.state, key);
}

/** Bytes appended to the WAL partitions `broker` leads and not yet in an object. */
export function combinerFacts(state: KernelState, broker: number): { pendingBytes: number; maxBytes: number } {
  let pendingBytes = 0;
  for (const key of state.partitionOrder) {
    const part = state.partitions[key];
    if (part.leader !== broker || !walEnabled(state, key)) continue;
    const next = state.wal.next[key] ?? Number.MAX_SAFE_INTEGER;
    const log = replica(state, key, broker).log;
    for (let i = log.segments.length - 1; i >= 0; i--) {
      const seg = log.segments[i];
      for (let j = seg.batches.length - 1; j >= 0 && seg.batches[j].baseOffset >= next; j--) pendingBytes += seg.batches[j].bytes;
      if (seg.baseOffset <= next) break;
    }
  }
  return { pendingBytes, maxBytes: state.brokerConfig['wal.combine.max.bytes'] };
}

/** What a replica's WAL machine keeps of a chunk. */
export function chunkRef(c: WalChunk): WalChunkRef {
  return { id: c.id, objectKey: c.objectKey, range: [c.range[0], c.range[1]], baseOffset: c.baseOffset, lastOffset: c.lastOffset, leaderEpoch: c.leaderEpoch };
}

/** The replica's last epoch, as the fetcher's `lastFetchedEpoch` starts. */
export function lastEpochOf(state: KernelState, key: string, broker: number): number {
  return latestEpoch(replica(state, key, broker).log.leaderEpochs);
}
