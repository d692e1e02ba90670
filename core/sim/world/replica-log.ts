/**
 * Changes to a replica's local log that the kernel makes on a machine's behalf: a follower's
 * append (from a Fetch response or a KIP-1176 chunk), truncations, the remote auxiliary
 * state's epochs and producers, and the local bytes the storage cost follows. Each is traced,
 * and a follower's append is checked against the leader's log as it happens.
 */
import { segmentSize } from '../../domain/config.js';
import type { Rule } from '../../domain/rules.js';
import type { EpochEntry } from '../../domain/leader-epoch-cache.js';
import { type RecordBatch, appendBatch, localBytes, logEndOffset, maybeIncrementLogStartOffset, truncateFullyAndStartAt, truncateTo, updateHighWatermark } from '../../domain/partition-log.js';
import { type ProducerEntry, restoreProducerState } from '../../domain/producer-state.js';
import { bugOn } from '../../util/bugs.js';
import type { Sim } from '../state/context.js';
import { changeStoredBytes } from '../state/costs.js';
import { replica, walEnabled } from '../state/facts.js';
import type { ReplicaState } from '../state/state.js';

/** The bytes held in local logs (all replicas) changed: the broker-disk storage follows. */
export function localLogBytesChanged(s: Sim, deltaBytes: number): void {
  changeStoredBytes(s.state.usage, 'localDisk', deltaBytes, s.state.nowMs);
}

/** Runs a change that may remove local data from one replica's log (O(segments); appends add their bytes directly). */
export function changeLocalLog(s: Sim, r: ReplicaState, change: () => void): void {
  const before = localBytes(r.log);
  change();
  localLogBytesChanged(s, localBytes(r.log) - before);
}

/**
 * Appends batches as follower: those that continue the log (a batch already held is
 * skipped), each checked against the leader's batch at the same offsets.
 */
export function appendAsFollower(s: Sim, broker: number, key: string, batches: readonly RecordBatch[]): { records: number; bytes: number } {
  const state = s.state;
  const now = state.nowMs;
  const part = state.partitions[key];
  const r = replica(state, key, broker);
  const cfg = state.topicConfigs[part.topic];
  let records = 0;
  let bytes = 0;
  for (const b of batches) {
    if (b.baseOffset !== logEndOffset(r.log)) continue;
    if (appendBatch(r.log, b, segmentSize(cfg), cfg['segment.ms'], now)) {
      s.emit({ atMs: now, type: 'log', action: 'segmentRolled', broker, topic: part.topic, partition: part.partition, baseOffset: b.baseOffset, rule: 'segmentFull' });
    }
    records += b.lastOffset - b.baseOffset + 1;
    bytes += b.bytes;
    s.observe({ kind: 'followerAppend', key, broker, batch: b });
  }
  localLogBytesChanged(s, bytes);
  return { records, bytes };
}

/** A follower's high watermark and Log-Start-Offset follow the leader's (Kafka's follower: HW = min(leader HW, own LEO)). */
export function followLeaderOffsets(s: Sim, broker: number, key: string, highWatermark: number, logStartOffset: number): void {
  const r = replica(s.state, key, broker);
  updateHighWatermark(r.log, highWatermark);
  // Segments go only when the new log start passes the local log start.
  if (logStartOffset > r.log.localLogStartOffset) changeLocalLog(s, r, () => maybeIncrementLogStartOffset(r.log, logStartOffset));
  else maybeIncrementLogStartOffset(r.log, logStartOffset);
}

/** Removes the log at and above `offset` (never below the local log start). */
export function truncateReplicaTo(s: Sim, broker: number, key: string, offset: number, rule: Rule): void {
  const now = s.state.nowMs;
  const part = s.state.partitions[key];
  const r = replica(s.state, key, broker);
  const before = logEndOffset(r.log);
  changeLocalLog(s, r, () => truncateTo(r.log, Math.max(offset, r.log.localLogStartOffset)));
  if (offset >= before) return;
  s.emit({ atMs: now, type: 'log', action: 'truncateTo', broker, topic: part.topic, partition: part.partition, offset, rule });
  walLogChanged(s, broker, key);
}

/** Clears the log and restarts it empty at `offset` (Log.truncateFullyAndStartAt). */
export function truncateReplicaFully(s: Sim, broker: number, key: string, offset: number, logStartOffset: number, rule: Rule): void {
  const now = s.state.nowMs;
  const part = s.state.partitions[key];
  const r = replica(s.state, key, broker);
  changeLocalLog(s, r, () => truncateFullyAndStartAt(r.log, offset, logStartOffset, now));
  s.emit({ atMs: now, type: 'log', action: 'truncateFullyAndStartAt', broker, topic: part.topic, partition: part.partition, offset, logStartOffset: r.log.logStartOffset, rule });
  walLogChanged(s, broker, key);
}

/** The leader epoch cache is replaced by the checkpoint stored with a remote segment. */
export function restoreLeaderEpochs(s: Sim, broker: number, key: string, entries: readonly EpochEntry[]): void {
  if (bugOn('skipAuxState')) return;
  const part = s.state.partitions[key];
  const r = replica(s.state, key, broker);
  r.log.leaderEpochs = entries.map(([e, start]) => [e, start] as EpochEntry);
  s.emit({ atMs: s.state.nowMs, type: 'log', action: 'leaderEpochsRestored', broker, topic: part.topic, partition: part.partition, leaderEpochs: entries, rule: 'auxStateLeaderEpochs' });
}

/** Producer state is replaced by the snapshot stored with a remote segment. */
export function restoreProducers(s: Sim, broker: number, key: string, entries: ProducerEntry[]): void {
  const part = s.state.partitions[key];
  const r = replica(s.state, key, broker);
  r.log.producers = restoreProducerState(entries);
  s.emit({ atMs: s.state.nowMs, type: 'log', action: 'producerStateRestored', broker, topic: part.topic, partition: part.partition, producers: entries.length, rule: 'auxStateProducerSnapshot' });
}

/** A WAL follower's log changed by another path (classic records, truncation): its WAL machine hears of it. */
export function walLogChanged(s: Sim, broker: number, key: string): void {
  if (walEnabled(s.state, key)) s.schedule(s.state.nowMs, { kind: 'walLogChanged', broker, key });
}
