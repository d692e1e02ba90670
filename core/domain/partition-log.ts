/**
 * The local log of one partition replica, with the offsets of docs/protocol.md §1.
 * Models Kafka's UnifiedLog: contiguous segments of record batches, the leader epoch
 * cache, producer state, log start / local log start / high watermark / log end offsets.
 * Records are not stored one by one: a batch is (baseOffset, lastOffset, epoch, producer,
 * bytes). Does not model transactions, compaction or indexes.
 *
 * Functions mutate the log they are given; the kernel owns every log and checkpoints
 * them as plain data.
 */
import { assert, fail } from '../util/assert.js';
import type { RecordBatch } from './batch.js';
import {
  type EpochEntry,
  assignEpoch,
  latestEpoch,
  truncateFromEnd,
  truncateFromStart,
} from './leader-epoch-cache.js';
import { type ProducerEntry, type ProducerState, applyBatchToProducerState, truncateProducerState } from './producer-state.js';
import { firstNotBefore } from '../util/bisect.js';

// Segments hold batches; the log's users name the type from here.
export type { RecordBatch };

export interface Segment {
  baseOffset: number;
  /** Inclusive; baseOffset - 1 while empty. */
  endOffset: number;
  bytes: number;
  /** Time the segment was created (for segment.ms). */
  createdMs: number;
  /** Largest append time in the segment (for retention.ms). */
  maxTimestampMs: number;
  /** Rolled segments are closed; only the last segment is active. */
  rolled: boolean;
  batches: RecordBatch[];
}

export interface PartitionLog {
  /** First offset still retained in either tier. */
  logStartOffset: number;
  /** First offset held locally (the first local segment's base). */
  localLogStartOffset: number;
  highWatermark: number;
  /** Oldest first; the last is the active segment. Never empty. */
  segments: Segment[];
  leaderEpochs: EpochEntry[];
  producers: ProducerState;
}

/**
 * An empty segment. Its times come from the records it will hold, as Kafka's LogSegment
 * takes them from the batches (largestTimestamp, rollingBasedTimestamp), so a follower that
 * copies old records holds segments as old as the leader's: -1 until the first batch.
 */
export function newSegment(baseOffset: number, nowMs: number): Segment {
  return { baseOffset, endOffset: baseOffset - 1, bytes: 0, createdMs: nowMs, maxTimestampMs: -1, rolled: false, batches: [] };
}

export function emptyLog(startOffset = 0, nowMs = 0): PartitionLog {
  return {
    logStartOffset: startOffset,
    localLogStartOffset: startOffset,
    highWatermark: startOffset,
    segments: [newSegment(startOffset, nowMs)],
    leaderEpochs: [],
    producers: {},
  };
}

export function activeSegment(log: PartitionLog): Segment {
  return log.segments[log.segments.length - 1];
}

export function logEndOffset(log: PartitionLog): number {
  return activeSegment(log).endOffset + 1;
}

export function isEmptyLog(log: PartitionLog): boolean {
  return logEndOffset(log) === 0;
}

export function localBytes(log: PartitionLog): number {
  let total = 0;
  for (const s of log.segments) total += s.bytes;
  return total;
}

/** Closes the active segment and opens a new one at the log end. */
export function roll(log: PartitionLog, nowMs: number): Segment {
  const active = activeSegment(log);
  assert(active.endOffset >= active.baseOffset, 'only a non-empty segment is rolled');
  active.rolled = true;
  const next = newSegment(active.endOffset + 1, nowMs);
  log.segments.push(next);
  return next;
}

/**
 * Appends one batch at the log end. Rolls first when the batch would overflow
 * `segmentBytes` or the active segment has waited longer than `segmentMs` (Kafka's LogSegment.shouldRoll) (an empty active segment
 * is never rolled). Returns true when a roll happened.
 */
export function appendBatch(
  log: PartitionLog,
  batch: RecordBatch,
  segmentBytes: number,
  segmentMs: number,
  nowMs: number,
): boolean {
  if (batch.baseOffset !== logEndOffset(log)) fail(`batch at ${batch.baseOffset} appended at log end ${logEndOffset(log)}`);
  assert(batch.lastOffset >= batch.baseOffset, 'a batch holds at least one record');
  let rolled = false;
  const active = activeSegment(log);
  const nonEmpty = active.endOffset >= active.baseOffset;
  // segment.ms counts from the first batch's timestamp to the incoming one's
  // (LogSegment.timeWaitedForRoll), not from when this broker opened the segment.
  if (nonEmpty && (active.bytes + batch.bytes > segmentBytes || batch.appendedMs - active.batches[0].appendedMs > segmentMs)) {
    roll(log, nowMs);
    rolled = true;
  }
  const seg = activeSegment(log);
  seg.batches.push(batch);
  seg.endOffset = batch.lastOffset;
  seg.bytes += batch.bytes;
  seg.maxTimestampMs = Math.max(seg.maxTimestampMs, batch.appendedMs);
  if (latestEpoch(log.leaderEpochs) < batch.leaderEpoch) assignEpoch(log.leaderEpochs, batch.leaderEpoch, batch.baseOffset);
  applyBatchToProducerState(log.producers, batch);
  return rolled;
}

/**
 * The segment a read at `fetchOffset` starts in: the first whose last offset reaches it
 * (Kafka's LocalLog.read takes the floor segment, and moves to the next when that one has
 * nothing at or past the offset). -1 when the offset is at or past the log end.
 */
export function segmentIndexFor(log: PartitionLog, fetchOffset: number): number {
  const segs = log.segments;
  const i = firstNotBefore(segs, (s) => s.endOffset < fetchOffset);
  return i < segs.length ? i : -1;
}

/**
 * A local read at `fetchOffset` (Kafka 4.3 LocalLog.read → LogSegment.read): batches of the
 * one segment holding the offset, from the batch that holds it, up to `maxBytes` in total;
 * with `minOneMessage` the first batch comes whole even when it is larger (LogSegment.read:
 * adjustedMaxSize = max(maxSize, first batch size)). A read that reaches the segment's end
 * stops there: the next Fetch continues in the next segment. Batches are whole here: Kafka
 * sends a byte slice whose last batch may be cut short, which the reader drops.
 */
export function readBatches(log: PartitionLog, fetchOffset: number, maxBytes: number, minOneMessage = true): RecordBatch[] {
  const out: RecordBatch[] = [];
  const si = segmentIndexFor(log, fetchOffset);
  if (si < 0) return out;
  // Batches are in offset order: the first one ending at or past fetchOffset, by bisection.
  const batches = log.segments[si].batches;
  let bytes = 0;
  for (let i = firstNotBefore(batches, (b) => b.lastOffset < fetchOffset); i < batches.length; i++) {
    const b = batches[i];
    if (bytes + b.bytes > maxBytes && (out.length > 0 || !minOneMessage)) break;
    out.push(b);
    bytes += b.bytes;
  }
  return out;
}

/**
 * Where a Fetch at `fetchOffset` stands in the log, for the long poll (Kafka's
 * LogOffsetMetadata of the fetch position): the segment holding it (the active segment at
 * the log end), the size of the batch there, and the bytes from that batch to the segment's
 * end (the log end on the active segment), counted up to `upTo` only.
 */
export interface FetchPosition {
  segmentBaseOffset: number;
  firstBatchBytes: number;
  bytesToSegmentEnd: number;
}

export function fetchPosition(log: PartitionLog, fetchOffset: number, upTo: number): FetchPosition {
  const si = segmentIndexFor(log, fetchOffset);
  if (si < 0) return { segmentBaseOffset: activeSegment(log).baseOffset, firstBatchBytes: 0, bytesToSegmentEnd: 0 };
  const seg = log.segments[si];
  const batches = seg.batches;
  let i = firstNotBefore(batches, (b) => b.lastOffset < fetchOffset);
  const firstBatchBytes = batches[i].bytes;
  let bytes = 0;
  for (; i < batches.length && bytes < upTo; i++) bytes += batches[i].bytes;
  return { segmentBaseOffset: seg.baseOffset, firstBatchBytes, bytesToSegmentEnd: bytes };
}

/** Removes every batch at or above `offset` (Kafka's truncateTo; batches are atomic). */
export function truncateTo(log: PartitionLog, offset: number): void {
  if (offset >= logEndOffset(log)) {
    // Kafka trims the epoch cache even here: a former leader may have added an epoch at
    // the log end without appending to it.
    truncateFromEnd(log.leaderEpochs, logEndOffset(log));
    return;
  }
  assert(offset >= log.localLogStartOffset, `truncate to ${offset} below local log start ${log.localLogStartOffset}`);
  while (log.segments.length > 1 && activeSegment(log).baseOffset >= offset) log.segments.pop();
  const seg = activeSegment(log);
  seg.rolled = false;
  seg.batches = seg.batches.filter((b) => b.lastOffset < offset);
  seg.bytes = seg.batches.reduce((n, b) => n + b.bytes, 0);
  seg.endOffset = seg.batches.length > 0 ? seg.batches[seg.batches.length - 1].lastOffset : seg.baseOffset - 1;
  truncateFromEnd(log.leaderEpochs, logEndOffset(log));
  truncateProducerState(log.producers, logEndOffset(log));
  log.highWatermark = Math.min(log.highWatermark, logEndOffset(log));
}

/**
 * Kafka's truncateFullyAndStartAt: the local log is cleared and restarts empty at
 * `offset`; every offset below it is then held remotely or nowhere.
 */
export function truncateFullyAndStartAt(log: PartitionLog, offset: number, logStartOffset: number, nowMs: number): void {
  log.segments = [newSegment(offset, nowMs)];
  log.localLogStartOffset = offset;
  log.logStartOffset = Math.min(logStartOffset, offset);
  log.highWatermark = offset;
  log.leaderEpochs = [];
  log.producers = {};
}

/** Raises the log start offset (never lowers it); local segments wholly below go too. */
export function maybeIncrementLogStartOffset(log: PartitionLog, newStart: number): boolean {
  const bounded = Math.min(newStart, log.highWatermark);
  if (bounded <= log.logStartOffset) return false;
  log.logStartOffset = bounded;
  truncateFromStart(log.leaderEpochs, bounded);
  if (bounded > log.localLogStartOffset) {
    // Kafka: localLogStartOffset = max(newLogStartOffset, localLogStartOffset).
    while (log.segments.length > 1 && log.segments[0].endOffset < bounded) log.segments.shift();
    log.localLogStartOffset = bounded;
  }
  return true;
}

export function updateHighWatermark(log: PartitionLog, hw: number): void {
  log.highWatermark = Math.min(hw, logEndOffset(log));
}

/**
 * The producer snapshot Kafka writes at `endOffset` (exclusive) when a segment rolls: the
 * state built from the batches below it (producers seen only in deleted segments are
 * left out in the model).
 */
export function producerSnapshotAt(log: PartitionLog, endOffset: number): ProducerEntry[] {
  const state: ProducerState = {};
  for (const seg of log.segments) {
    if (seg.baseOffset >= endOffset) break;
    for (const b of seg.batches) if (b.lastOffset < endOffset) applyBatchToProducerState(state, b);
  }
  return Object.values(state).sort((a, b) => a.producerId - b.producerId);
}

/** Offsets of a replica, in the JSON output's names. */
export interface LogOffsets {
  logStartOffset: number;
  localLogStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
}

export function offsetsOf(log: PartitionLog): LogOffsets {
  return {
    logStartOffset: log.logStartOffset,
    localLogStartOffset: log.localLogStartOffset,
    logEndOffset: logEndOffset(log),
    highWatermark: log.highWatermark,
  };
}

/** Splits `records` records of `recordBytes` into batches of at most `batchBytes`. */
export function planBatches(records: number, recordBytes: number, batchBytes: number): number[] {
  const perBatch = Math.max(1, Math.floor(batchBytes / recordBytes));
  const out: number[] = [];
  let left = records;
  while (left > 0) {
    const n = Math.min(perBatch, left);
    out.push(n);
    left -= n;
  }
  return out;
}
