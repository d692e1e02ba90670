/**
 * Cluster-wide invariants, checked after every kernel step and reported in `violations`.
 * Each has an id, a title and an explanation the UI and the narration can show.
 */
import type { Kernel } from '../sim/kernel.js';
import type { PartitionLog, RecordBatch } from '../domain/partition-log.js';
import { logEndOffset } from '../domain/partition-log.js';
import { isAllowedTransition, type RemoteSegmentState } from '../domain/remote-metadata.js';

export interface Violation {
  atMs: number;
  invariant: InvariantId;
  message: string;
  /** What it is about (partition, broker), to report each once. */
  subject?: string;
}

export type InvariantId =
  | 'offsetsOrdered'
  | 'followerLogIsPrefixOfLeader'
  | 'highWatermarkWithinIsr'
  | 'remoteStateForwardOnly'
  | 'everyOffsetRetained';

export interface InvariantInfo {
  id: InvariantId;
  title: string;
  explanation: string;
}

export const INVARIANTS: readonly InvariantInfo[] = [
  {
    id: 'offsetsOrdered',
    title: 'Offsets ordered',
    explanation:
      'Safety: on every replica Log-End-Offset >= high watermark >= Local-Log-Start-Offset >= Log-Start-Offset, and on a leader the highest offset in remote storage is below the high watermark (PROTOCOL section 1).',
  },
  {
    id: 'followerLogIsPrefixOfLeader',
    title: "Follower log is a prefix of the leader's",
    explanation:
      "Safety: every batch a follower appends sits at the same offsets, with the same leader epoch and producer, as the leader's batch there.",
  },
  {
    id: 'highWatermarkWithinIsr',
    title: 'High watermark within the ISR',
    explanation: "Safety: the leader's high watermark is never above the Log-End-Offset of any in-sync replica.",
  },
  {
    id: 'remoteStateForwardOnly',
    title: 'Remote segment states only move forward',
    explanation:
      'Safety: COPY_SEGMENT_STARTED -> COPY_SEGMENT_FINISHED -> DELETE_SEGMENT_STARTED -> DELETE_SEGMENT_FINISHED (or STARTED -> DELETE_STARTED).',
  },
  {
    id: 'everyOffsetRetained',
    title: 'No offset retained in neither tier',
    explanation:
      'Safety: every offset in [Log-Start-Offset, Local-Log-Start-Offset) of a tiered replica is held by a finished remote segment.',
  },
];

function leaderBatchAt(log: PartitionLog, offset: number): RecordBatch | undefined {
  for (const seg of log.segments) {
    if (offset < seg.baseOffset || offset > seg.endOffset) continue;
    let lo = 0;
    let hi = seg.batches.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const b = seg.batches[mid];
      if (b.lastOffset < offset) lo = mid + 1;
      else if (b.baseOffset > offset) hi = mid - 1;
      else return b;
    }
  }
  return undefined;
}

/** Checked when a follower appends a batch the leader may still hold locally. */
export function checkFollowerAppend(atMs: number, key: string, broker: number, batch: RecordBatch, leaderLog: PartitionLog): Violation[] {
  const l = leaderBatchAt(leaderLog, batch.baseOffset);
  if (l === undefined) return [];
  if (l.baseOffset === batch.baseOffset && l.lastOffset === batch.lastOffset && l.leaderEpoch === batch.leaderEpoch && l.producerId === batch.producerId) return [];
  return [
    {
      atMs,
      invariant: 'followerLogIsPrefixOfLeader',
      subject: `${key}@${broker}`,
      message: `broker ${broker} appended ${key} [${batch.baseOffset}, ${batch.lastOffset}] epoch ${batch.leaderEpoch}, leader holds [${l.baseOffset}, ${l.lastOffset}] epoch ${l.leaderEpoch}`,
    },
  ];
}

export function checkRemoteTransition(atMs: number, key: string, segmentId: string, from: RemoteSegmentState, to: RemoteSegmentState): Violation[] {
  if (isAllowedTransition(from, to)) return [];
  return [{ atMs, invariant: 'remoteStateForwardOnly', subject: `${key}/${segmentId}`, message: `remote segment ${segmentId} of ${key} moved ${from} -> ${to}` }];
}

/** Checks run after every step; cheap enough for every event. */
export function checkInvariants(k: Kernel): Violation[] {
  const out: Violation[] = [];
  const atMs = k.state.nowMs;
  for (const key of k.state.partitionOrder) {
    const part = k.state.partitions[key];
    for (const r of Object.values(part.replicaStates)) {
      const log = r.log;
      const leo = logEndOffset(log);
      const subject = `${key}@${r.broker}`;
      if (!(leo >= log.highWatermark && log.highWatermark >= log.localLogStartOffset && log.localLogStartOffset >= log.logStartOffset)) {
        out.push({
          atMs,
          invariant: 'offsetsOrdered',
          subject,
          message: `broker ${r.broker} ${key}: LEO ${leo}, HW ${log.highWatermark}, LLSO ${log.localLogStartOffset}, LSO ${log.logStartOffset} are out of order`,
        });
      }
      if (r.broker === part.leader && r.highestOffsetInRemoteStorage >= log.highWatermark) {
        out.push({
          atMs,
          invariant: 'offsetsOrdered',
          subject: `${subject}/ry`,
          message: `leader ${r.broker} ${key}: highest offset in remote storage ${r.highestOffsetInRemoteStorage} is not below HW ${log.highWatermark}`,
        });
      }
      if (log.logStartOffset < log.localLogStartOffset) {
        // [LSO, LLSO) must be covered by finished remote segments, contiguously.
        let next = log.logStartOffset;
        const finished = part.remoteMetadata
          .filter((m) => m.state === 'COPY_SEGMENT_FINISHED')
          .sort((a, b) => a.baseOffset - b.baseOffset);
        for (const m of finished) {
          if (m.baseOffset <= next && m.endOffset >= next) next = m.endOffset + 1;
        }
        if (next < log.localLogStartOffset) {
          out.push({
            atMs,
            invariant: 'everyOffsetRetained',
            subject: `${subject}/retained`,
            message: `broker ${r.broker} ${key}: offset ${next} is below the local log start ${log.localLogStartOffset} but in no finished remote segment`,
          });
        }
      }
    }
    if (part.leader >= 0 && k.state.brokers[part.leader].alive) {
      const leaderLog = part.replicaStates[String(part.leader)].log;
      for (const b of part.isr) {
        const r = part.replicaStates[String(b)];
        if (r === undefined) continue;
        const leo = logEndOffset(r.log);
        if (leaderLog.highWatermark > leo) {
          out.push({
            atMs,
            invariant: 'highWatermarkWithinIsr',
            subject: `${key}@${b}/hw`,
            message: `leader ${part.leader} ${key}: HW ${leaderLog.highWatermark} is above in-sync replica ${b}'s LEO ${leo}`,
          });
        }
      }
    }
  }
  return out;
}
