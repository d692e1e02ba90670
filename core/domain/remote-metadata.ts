/**
 * Remote log segment metadata (KIP-405's RemoteLogSegmentMetadata) and the lookups the
 * brokers make on it. The model has one topic-based metadata store shared by every
 * broker (Kafka's __remote_log_metadata, consumed by all), with a per-partition time
 * before which it is still loading.
 */
import { type BatchRun, runBatchCount } from './batch.js';
import type { EpochEntry } from './leader-epoch-cache.js';
import { endOffsetFor } from './leader-epoch-cache.js';
import type { ProducerEntry } from './producer-state.js';

export type RemoteSegmentState =
  | 'COPY_SEGMENT_STARTED'
  | 'COPY_SEGMENT_FINISHED'
  | 'DELETE_SEGMENT_STARTED'
  | 'DELETE_SEGMENT_FINISHED';

/** Safety: a segment's state only moves along these edges. */
export const REMOTE_STATE_EDGES: Record<RemoteSegmentState, readonly RemoteSegmentState[]> = {
  COPY_SEGMENT_STARTED: ['COPY_SEGMENT_FINISHED', 'DELETE_SEGMENT_STARTED'],
  COPY_SEGMENT_FINISHED: ['DELETE_SEGMENT_STARTED'],
  DELETE_SEGMENT_STARTED: ['DELETE_SEGMENT_FINISHED'],
  DELETE_SEGMENT_FINISHED: [],
};

/** Kafka's RemoteLogSegmentState.isValidTransition: an edge, or the same state again (an idempotent re-publish). */
export function isAllowedTransition(from: RemoteSegmentState, to: RemoteSegmentState): boolean {
  return from === to || REMOTE_STATE_EDGES[from].includes(to);
}

export interface RemoteSegmentMetadata {
  segmentId: string;
  topic: string;
  partition: number;
  baseOffset: number;
  /** Inclusive. */
  endOffset: number;
  state: RemoteSegmentState;
  /** Broker that copied it. */
  brokerId: number;
  /** Epochs of the records inside the segment: (epoch, first offset of that epoch in it). */
  segmentLeaderEpochs: EpochEntry[];
  sizeBytes: number;
  maxTimestampMs: number;
  /** Object keys of the segment's files in the tiered store. */
  objectKeys: RemoteSegmentObjectKeys;
  /**
   * The segment's offset index, as a broker's remote index cache holds it once fetched
   * (`KernelState.remoteIndexCache` says which brokers have): per batch [baseOffset, lastOffset, position, bytes]: the byte positions in the `.log` file
   * (the file stores write each batch exactly `bytes` long). Empty when `batchRuns` is set.
   */
  batchIndex: Array<[number, number, number, number]>;
  /**
   * The index as rules instead of entries, for the segments of a scenario's `initial` log
   * (a terabyte of them is millions of batches): the entries are computed from the runs
   * (`batchIndexLength`, `batchIndexEntry`). Absent on the segments the run copies.
   */
  batchRuns?: BatchRun[];
}

/** The number of entries of a segment's offset index. */
export function batchIndexLength(meta: Pick<RemoteSegmentMetadata, 'batchIndex' | 'batchRuns'>): number {
  if (meta.batchRuns === undefined) return meta.batchIndex.length;
  let n = 0;
  for (const r of meta.batchRuns) n += runBatchCount(r);
  return n;
}

/** Entry `i` of a segment's offset index: [baseOffset, lastOffset, position, bytes]. */
export function batchIndexEntry(meta: Pick<RemoteSegmentMetadata, 'batchIndex' | 'batchRuns'>, i: number): [number, number, number, number] {
  if (meta.batchRuns === undefined) return meta.batchIndex[i];
  for (const r of meta.batchRuns) {
    const n = runBatchCount(r);
    if (i >= n) {
      i -= n;
      continue;
    }
    const base = r.firstOffset + i * r.recordsPerBatch;
    const last = Math.min(base + r.recordsPerBatch - 1, r.lastOffset);
    return [base, last, r.position + i * r.recordsPerBatch * r.recordBytes, (last - base + 1) * r.recordBytes];
  }
  throw new RangeError(`offset index entry ${i} past the end`);
}

/** The first entry of a segment's offset index whose batch ends at or past `offset` (the length when none), by bisection. */
export function firstBatchIndexEntryAt(meta: Pick<RemoteSegmentMetadata, 'batchIndex' | 'batchRuns'>, offset: number): number {
  let lo = 0;
  let hi = batchIndexLength(meta);
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (batchIndexEntry(meta, mid)[1] < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The offset index of a segment's batches: each batch's byte position in the segment. */
export function batchIndexOf(batches: ReadonlyArray<{ baseOffset: number; lastOffset: number; bytes: number }>): Array<[number, number, number, number]> {
  const out: Array<[number, number, number, number]> = [];
  let pos = 0;
  for (const b of batches) {
    out.push([b.baseOffset, b.lastOffset, pos, b.bytes]);
    pos += b.bytes;
  }
  return out;
}

/** A segment's `.index` object as the model keeps it: a line `<base offset> <position>` per batch. */
export function formatOffsetIndex(entries: ReadonlyArray<readonly [number, number]>): string {
  return entries.map(([offset, pos]) => `${offset} ${pos}`).join('\n');
}

/** The entries of a `.index` text written by `formatOffsetIndex`. */
export function parseOffsetIndexText(text: string): Array<[number, number]> {
  if (text.length === 0) return [];
  return text.split('\n').map((line) => {
    const [offset, pos] = line.split(' ').map(Number);
    return [offset, pos ?? 0];
  });
}

export interface RemoteSegmentObjectKeys {
  log: string;
  offsetIndex: string;
  leaderEpochCheckpoint: string;
  producerSnapshot: string;
}

/** What the copy stores beside the segment: what a follower restores from. */
export interface RemoteSegmentAuxData {
  leaderEpochCheckpoint: EpochEntry[];
  producerSnapshot: ProducerEntry[];
}

export function objectKeysFor(topic: string, partition: number, baseOffset: number, segmentId: string): RemoteSegmentObjectKeys {
  const base = `${topic}-${partition}/${String(baseOffset).padStart(20, '0')}-${segmentId}`;
  return {
    log: `${base}.log`,
    offsetIndex: `${base}.index`,
    leaderEpochCheckpoint: `${base}.leader_epoch_checkpoint`,
    producerSnapshot: `${base}.snapshot`,
  };
}

/** The end offset (inclusive) of `epoch` inside the segment, or undefined if absent. */
export function epochEndInSegment(meta: RemoteSegmentMetadata, epoch: number): number | undefined {
  const entries = meta.segmentLeaderEpochs;
  for (let i = 0; i < entries.length; i++) {
    if (entries[i][0] !== epoch) continue;
    const next = entries[i + 1];
    return next === undefined ? meta.endOffset : next[1] - 1;
  }
  return undefined;
}

/**
 * Kafka's RemoteLogMetadataManager.remoteLogSegmentMetadata(epoch, offset): the finished
 * segment that holds `offset` written in `epoch`.
 */
export function findRemoteSegment(
  metas: readonly RemoteSegmentMetadata[],
  epoch: number,
  offset: number,
): RemoteSegmentMetadata | undefined {
  for (const m of metas) {
    if (m.state !== 'COPY_SEGMENT_FINISHED') continue;
    if (offset < m.baseOffset || offset > m.endOffset) continue;
    const end = epochEndInSegment(m, epoch);
    if (end === undefined) continue;
    const start = m.segmentLeaderEpochs.find(([e]) => e === epoch)![1];
    if (offset >= start && offset <= end) return m;
  }
  return undefined;
}

/** Highest offset of `epoch` in finished remote segments (RLMM.highestOffsetForEpoch). */
export function highestOffsetForEpoch(metas: readonly RemoteSegmentMetadata[], epoch: number): number | undefined {
  let best: number | undefined;
  for (const m of metas) {
    if (m.state !== 'COPY_SEGMENT_FINISHED') continue;
    const end = epochEndInSegment(m, epoch);
    if (end !== undefined && (best === undefined || end > best)) best = end;
  }
  return best;
}

/**
 * Kafka's RemoteLogManager.findHighestRemoteOffset: walk the local leader epoch cache
 * from the latest epoch down and take the first epoch with uploaded data, capped at that
 * epoch's end offset in the local lineage. -1 when nothing in the lineage was uploaded.
 */
export function findHighestRemoteOffset(
  metas: readonly RemoteSegmentMetadata[],
  leaderEpochs: readonly EpochEntry[],
  logEndOffset: number,
): number {
  for (let i = leaderEpochs.length - 1; i >= 0; i--) {
    const epoch = leaderEpochs[i][0];
    const highest = highestOffsetForEpoch(metas, epoch);
    if (highest === undefined) continue;
    const { endOffset } = endOffsetFor(leaderEpochs, epoch, logEndOffset);
    return endOffset <= highest ? endOffset - 1 : highest;
  }
  return -1;
}

/**
 * Kafka's RemoteLogManager.findLogStartOffset, run by a new leader's copy task before its
 * first copy: walk the local leader epoch cache from the earliest epoch up and take the
 * start of the first remote segment listed for that epoch (RLMM.listRemoteLogSegments(epoch)
 * lists every segment not yet DELETE_SEGMENT_FINISHED, a copy or a delete in progress
 * included, in base offset order). With none listed, the local log start.
 */
export function findLogStartOffset(
  metas: readonly RemoteSegmentMetadata[],
  leaderEpochs: readonly EpochEntry[],
  localLogStartOffset: number,
): number {
  for (const [epoch] of leaderEpochs) {
    let start: number | undefined;
    for (const m of metas) {
      if (m.state === 'DELETE_SEGMENT_FINISHED') continue;
      if (!m.segmentLeaderEpochs.some(([e]) => e === epoch)) continue;
      if (start === undefined || m.baseOffset < start) start = m.baseOffset;
    }
    if (start !== undefined) return start;
  }
  return localLogStartOffset;
}

/** The epochs of a segment's records, from the log's leader epoch cache. */
export function segmentLeaderEpochs(
  leaderEpochs: readonly EpochEntry[],
  baseOffset: number,
  endOffset: number,
): EpochEntry[] {
  const out: EpochEntry[] = [];
  for (let i = 0; i < leaderEpochs.length; i++) {
    const [epoch, start] = leaderEpochs[i];
    const next = leaderEpochs[i + 1];
    const epochEnd = next === undefined ? Number.MAX_SAFE_INTEGER : next[1] - 1;
    if (epochEnd < baseOffset || start > endOffset) continue;
    out.push([epoch, Math.max(start, baseOffset)]);
  }
  return out;
}
