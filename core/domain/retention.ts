/**
 * The remote log manager's decisions as pure functions (docs/protocol.md §5): which rolled
 * segments to copy, which local segments local retention may delete, and which remote
 * segments remote retention expires. The RLM machine's guards and the kernel's facts
 * call these, so a trace step can name the rule that applied.
 */
import type { Segment } from './partition-log.js';
import type { RemoteSegmentMetadata } from './remote-metadata.js';
import type { RemoteExpiryRule } from './rules.js';
import { bugOn } from '../util/bugs.js';

/**
 * The remote log manager machine's three schedules (docs/protocol.md §5), each Kafka's own
 * task: `copy` is the leader's RLMCopyTask or a follower's RLMFollowerTask (both
 * RemoteLogManager tasks with fixed delay remote.log.manager.task.interval.ms, no initial
 * delay); `expiration` the leader's RLMExpirationTask (the same schedule, its own thread
 * pool); `retention` the broker's log retention task (LogManager.cleanupLogs, first
 * log.initial.task.delay.ms after the broker starts, then every
 * log.retention.check.interval.ms at a fixed rate).
 */
export type RlmTask = 'copy' | 'expiration' | 'retention';

/** Kafka's name for the task that acted (narration, the page's event log). */
export function rlmTaskName(task: RlmTask, role: 'leader' | 'follower'): string {
  if (task === 'copy') return role === 'leader' ? 'RLMCopyTask' : 'RLMFollowerTask';
  if (task === 'expiration') return 'RLMExpirationTask';
  return 'log retention task';
}

/**
 * When the broker's log retention task next runs, strictly after `afterMs` (or at it, when
 * `orAt`): the broker's start plus log.initial.task.delay.ms plus a whole number of
 * log.retention.check.interval.ms (KafkaScheduler.schedule → scheduleAtFixedRate).
 */
export function nextRetentionRunMs(startedAtMs: number, initialDelayMs: number, intervalMs: number, afterMs: number, orAt: boolean): number {
  const first = startedAtMs + initialDelayMs;
  if (afterMs < first || (orAt && afterMs === first)) return first;
  const k = Math.floor((afterMs - first) / intervalMs);
  const at = first + k * intervalMs;
  return orAt && at === afterMs ? at : at + intervalMs;
}

export interface SegmentRange {
  baseOffset: number;
  /** Inclusive. */
  endOffset: number;
  bytes: number;
}

/**
 * Copy candidates: rolled segments from the one holding `max(Ry + 1, LSO)` whose next segment's base
 * offset is <= the last stable offset (never the active segment), in offset order.
 */
export function copyCandidates(
  segments: readonly Pick<Segment, 'baseOffset' | 'endOffset' | 'bytes'>[],
  highestOffsetInRemoteStorage: number,
  logStartOffset: number,
  lastStableOffset: number,
): SegmentRange[] {
  const from = Math.max(highestOffsetInRemoteStorage + 1, logStartOffset);
  const out: SegmentRange[] = [];
  for (let i = 0; i + 1 < segments.length; i++) {
    const s = segments[i];
    // Kafka's candidateLogSegments starts at the segment that contains `from` and copies it whole.
    if (s.endOffset < from) continue;
    if (segments[i + 1].baseOffset > lastStableOffset) break;
    out.push({ baseOffset: s.baseOffset, endOffset: s.endOffset, bytes: s.bytes });
  }
  return out;
}

export interface LocalRetentionInput {
  segments: readonly Pick<Segment, 'baseOffset' | 'endOffset' | 'bytes' | 'maxTimestampMs'>[];
  highWatermark: number;
  logStartOffset: number;
  highestOffsetInRemoteStorage: number;
  /** Effective local.retention.bytes (-1: no limit). */
  retentionBytes: number;
  /** Effective local.retention.ms (-1: no limit). */
  retentionMs: number;
  nowMs: number;
}

export type LocalRetentionStop = 'active' | 'notBelowHighWatermark' | 'notUploaded' | 'withinRetention' | null;

/**
 * Local retention (Kafka's UnifiedLog.deletableSegments), oldest first, stopping at the
 * first segment that may not go: a segment may be deleted when it is entirely below the
 * high watermark, breaches a limit, and is fully uploaded (endOffset <= Ry) or below the
 * log start offset. The active segment is considered only when every older segment was
 * deletable and the high watermark has reached the log end: if it breaches a limit too and
 * is not empty, `rollActive` says to roll it (UnifiedLog rolls it, and deleteSegments rolls
 * before deleting every segment), so that the next decision sees it as a rolled segment:
 * deleted at once where no upload is required (Ry given as +infinity), uploaded first
 * otherwise. Returns the deletable prefix and why it stopped.
 */
export function localRetentionDeletable(input: LocalRetentionInput): { deletable: SegmentRange[]; stoppedBy: LocalRetentionStop; stoppedAt: number | null; rollActive: boolean } {
  const { segments } = input;
  let totalBytes = 0;
  for (const s of segments) totalBytes += s.bytes;
  let excess = input.retentionBytes < 0 ? 0 : totalBytes - input.retentionBytes;
  const out: SegmentRange[] = [];
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    const bySize = input.retentionBytes >= 0 && excess - s.bytes >= 0;
    const byTime = input.retentionMs >= 0 && input.nowMs - s.maxTimestampMs > input.retentionMs;
    if (i === segments.length - 1) {
      // The active segment: its upper bound is the log end offset.
      const empty = s.endOffset < s.baseOffset;
      if (empty || (!bySize && !byTime)) return { deletable: out, stoppedBy: 'active', stoppedAt: s.baseOffset, rollActive: false };
      if (s.endOffset >= input.highWatermark) return { deletable: out, stoppedBy: 'notBelowHighWatermark', stoppedAt: s.baseOffset, rollActive: false };
      return { deletable: out, stoppedBy: 'active', stoppedAt: s.baseOffset, rollActive: true };
    }
    const belowLso = s.endOffset < input.logStartOffset;
    if (!belowLso && !bySize && !byTime) return { deletable: out, stoppedBy: 'withinRetention', stoppedAt: s.baseOffset, rollActive: false };
    if (!belowLso && s.endOffset >= input.highWatermark) return { deletable: out, stoppedBy: 'notBelowHighWatermark', stoppedAt: s.baseOffset, rollActive: false };
    if (!belowLso && s.endOffset > input.highestOffsetInRemoteStorage && !bugOn('deleteBeforeUpload')) return { deletable: out, stoppedBy: 'notUploaded', stoppedAt: s.baseOffset, rollActive: false };
    out.push({ baseOffset: s.baseOffset, endOffset: s.endOffset, bytes: s.bytes });
    excess -= s.bytes;
  }
  return { deletable: out, stoppedBy: null, stoppedAt: null, rollActive: false };
}

export interface RemoteRetentionInput {
  remote: readonly RemoteSegmentMetadata[];
  logStartOffset: number;
  /**
   * The local part of the total size: UnifiedLog.onlyLocalLogSegmentsSize, the local
   * segments whose base offset is >= Ry (which counts some uploaded segments twice).
   */
  localOnlyBytes: number;
  retentionBytes: number;
  retentionMs: number;
  nowMs: number;
}

export type { RemoteExpiryRule };

/**
 * Remote retention (Kafka's RLMExpirationTask), oldest first, after any delete to retry: a finished remote segment
 * expires when it lies below the log start offset, is older than retention.ms, or the
 * total size across both tiers breaches retention.bytes.
 */
export function remoteRetentionExpired(input: RemoteRetentionInput): Array<{ segmentId: string; endOffset: number; rule: RemoteExpiryRule }> {
  const finished = input.remote
    .filter((m) => m.state === 'COPY_SEGMENT_FINISHED')
    .sort((a, b) => a.baseOffset - b.baseOffset);
  let total = input.localOnlyBytes;
  for (const m of finished) total += m.sizeBytes;
  const out: Array<{ segmentId: string; endOffset: number; rule: RemoteExpiryRule }> = [];
  // A delete that failed earlier (DELETE_SEGMENT_STARTED) is retried first, as Kafka's
  // expiration task does.
  for (const m of input.remote) if (m.state === 'DELETE_SEGMENT_STARTED') out.push({ segmentId: m.segmentId, endOffset: m.endOffset, rule: 'retryDelete' });
  for (const m of finished) {
    if (m.endOffset < input.logStartOffset) {
      out.push({ segmentId: m.segmentId, endOffset: m.endOffset, rule: 'belowLogStartOffset' });
      total -= m.sizeBytes;
      continue;
    }
    // Inclusive, as RemoteLogRetentionHandler.isSegmentBreachedByRetentionTime compares
    // maxTimestampMs <= now - retention.ms (local retention is strict: UnifiedLog's `>`).
    if (input.retentionMs >= 0 && m.maxTimestampMs <= input.nowMs - input.retentionMs) {
      out.push({ segmentId: m.segmentId, endOffset: m.endOffset, rule: 'retentionMs' });
      total -= m.sizeBytes;
      continue;
    }
    if (input.retentionBytes >= 0 && total - m.sizeBytes >= input.retentionBytes) {
      out.push({ segmentId: m.segmentId, endOffset: m.endOffset, rule: 'retentionBytes' });
      total -= m.sizeBytes;
      continue;
    }
    break;
  }
  return out;
}
