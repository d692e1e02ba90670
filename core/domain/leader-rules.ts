/**
 * How a partition leader answers its followers: docs/protocol.md §3 and §4.2 as pure
 * functions of a view of the leader's offsets. The leader machine's guards call these,
 * so each answer in a trace carries the name of the rule that produced it.
 */
import type { KafkaError, ListOffsetsTimestamp } from './protocol.js';
import type { EpuoRule, FetchRule, ListOffsetsRule } from './rules.js';
import { bugOn } from '../util/bugs.js';

/** What the leader knows of its own partition when a request arrives. */
export interface LeaderView {
  tiered: boolean;
  logStartOffset: number;
  localLogStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
  /** -1: unknown (not learned since becoming leader). */
  highestOffsetInRemoteStorage: number;
  leaderEpoch: number;
}

export type { EpuoRule, FetchRule, ListOffsetsRule };

export interface FetchDecision {
  rule: FetchRule;
  error: KafkaError | null;
}

/** docs/protocol.md §3: a follower's Fetch at `fetchOffset`. */
export function decideFollowerFetch(view: LeaderView, fetchOffset: number): FetchDecision {
  if (fetchOffset < view.logStartOffset) return { rule: 'belowLogStartOffset', error: 'OFFSET_OUT_OF_RANGE' };
  if (fetchOffset > view.logEndOffset) return { rule: 'aboveLogEndOffset', error: 'OFFSET_OUT_OF_RANGE' };
  if (fetchOffset < view.localLogStartOffset) {
    // Below the local log: a tiered topic says where the data went; otherwise the local
    // read fails as out of range (Kafka's LocalLog.read).
    if (view.tiered) return { rule: 'tieredOnlyOffset', error: 'OFFSET_MOVED_TO_TIERED_STORAGE' };
    return { rule: 'belowLocalLogStartOffset', error: 'OFFSET_OUT_OF_RANGE' };
  }
  return { rule: 'localRecords', error: null };
}

/**
 * The bytes the one partition of a Fetch may read (Kafka 4.3): KafkaApis.handleFetchRequest
 * caps the request's maxBytes at the broker's `fetch.max.bytes`; ReplicaManager.readFromLog
 * reads each partition up to min(its PartitionMaxBytes, what is left of the response's), the
 * first partition with minOneMessage (its first batch whole even when larger). The model's
 * Fetches name one partition, so this is the smallest of the three, and the read keeps the
 * first batch whole (readBatches).
 */
export function fetchReadLimit(partitionMaxBytes: number, responseMaxBytes: number, brokerFetchMaxBytes: number): number {
  return Math.min(partitionMaxBytes, responseMaxBytes, brokerFetchMaxBytes);
}

/**
 * The minimum bytes a follower Fetch waits for: replica.fetch.min.bytes, capped at the
 * response's max bytes as KafkaApis.handleFetchRequest caps it (fetchMinBytes =
 * min(request minBytes, fetchMaxBytes)).
 */
export function fetchMinBytes(minBytes: number, responseMaxBytes: number, brokerFetchMaxBytes: number): number {
  return Math.min(minBytes, responseMaxBytes, brokerFetchMaxBytes);
}

/** What the long poll decides from: a follower Fetch against the leader's log now. */
export interface FetchWaitFacts {
  fetchOffset: number;
  logEndOffset: number;
  /** Base offset of the segment the log end is on (the active segment). */
  logEndSegmentBaseOffset: number;
  /**
   * Base offset of the segment of the fetch position when the Fetch arrived (Kafka's
   * FetchPartitionStatus.startOffsetMetadata; at the log end, the active segment of then).
   */
  fetchSegmentBaseOffset: number;
  /** Bytes from the fetch position to its segment's end, counted up to minBytes at least (partition-log.ts fetchPosition). */
  bytesToSegmentEnd: number;
  firstBatchBytes: number;
}

/**
 * replica.fetch.min.bytes, as Kafka 4.3 applies it to a Fetch of one partition. On arrival
 * (`arriving`) ReplicaManager.fetchMessages answers at once when the read returns at least
 * minBytes (one segment, up to `readLimit`, the first batch whole), and otherwise parks a
 * DelayedFetch whose tryComplete runs at once and again after each append:
 * DelayedFetch.tryComplete completes when the fetch position is on an older segment than
 * the log end (Case F: the rest of that segment, or a roll since), or when the bytes from
 * it to the log end, each partition's counted up to its maxBytes, reach minBytes (Case G).
 * A minimum of 0 or less answers even a Fetch with nothing to read.
 */
export function fetchHasEnoughBytes(f: FetchWaitFacts, minBytes: number, partitionMaxBytes: number, readLimit: number, arriving: boolean): boolean {
  const hasData = f.fetchOffset < f.logEndOffset;
  if (hasData && f.fetchSegmentBaseOffset < f.logEndSegmentBaseOffset) return true;
  const available = hasData ? f.bytesToSegmentEnd : 0;
  if (Math.min(available, partitionMaxBytes) >= minBytes) return true;
  return arriving && Math.min(available, Math.max(readLimit, f.firstBatchBytes)) >= minBytes;
}

/**
 * KIP-1023's Earliest-Pending-Upload-Offset (ListOffsets -6), with the rule that decided.
 * The `max(Ry + 1, LSO)` clamp covers a stale Ry left from before tiering was disabled.
 */
export function earliestPendingUploadOffset(view: LeaderView): { offset: number; rule: EpuoRule } {
  if (!view.tiered) return { offset: -1, rule: 'notTiered' };
  const ry = view.highestOffsetInRemoteStorage;
  if (ry === -1) {
    if (view.localLogStartOffset === view.logStartOffset) return { offset: view.logStartOffset, rule: 'unknownNothingTieredOnly' };
    return { offset: -1, rule: 'unknownTieredOnlyExists' };
  }
  return { offset: bugOn('noEpuoLsoClamp') ? ry + 1 : Math.max(ry + 1, view.logStartOffset), rule: 'afterHighestTiered' };
}

/** ListOffsets answers for the special timestamps. Epochs come from the leader's cache. */
export function listOffsetsAnswer(view: LeaderView, timestamp: ListOffsetsTimestamp): { offset: number; rule: ListOffsetsRule } {
  switch (timestamp) {
    case -1:
      return { offset: view.logEndOffset, rule: 'latest' };
    case -2:
      return { offset: view.logStartOffset, rule: 'earliest' };
    case -4:
      return { offset: view.tiered ? view.localLogStartOffset : view.logStartOffset, rule: 'earliestLocal' };
    case -5:
      return { offset: view.tiered ? view.highestOffsetInRemoteStorage : -1, rule: 'latestTiered' };
    case -6: {
      const e = earliestPendingUploadOffset(view);
      return { offset: e.offset, rule: `earliestPendingUpload.${e.rule}` };
    }
  }
}
