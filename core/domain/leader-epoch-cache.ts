/**
 * Leader epoch cache: Kafka's LeaderEpochFileCache as plain data and functions.
 * Entries are (epoch, startOffset), epochs strictly ascending, start offsets
 * non-decreasing. The checkpoint file stored with a remote segment is the same list.
 */
import { UNDEFINED_EPOCH, UNDEFINED_OFFSET } from './protocol.js';

export type EpochEntry = [epoch: number, startOffset: number];

export interface EpochEndOffset {
  leaderEpoch: number;
  endOffset: number;
}

export function latestEpoch(cache: readonly EpochEntry[]): number {
  return cache.length === 0 ? UNDEFINED_EPOCH : cache[cache.length - 1][0];
}

/**
 * Records that `epoch` starts at `startOffset`. Like Kafka's `assign`: an entry for an
 * older epoch, or one that starts before the latest entry, is ignored; an entry that
 * replaces the latest one at the same start offset with a higher epoch removes it.
 */
export function assignEpoch(cache: EpochEntry[], epoch: number, startOffset: number): void {
  const last = cache[cache.length - 1];
  if (last !== undefined) {
    if (epoch < last[0]) return;
    if (epoch === last[0]) return;
    if (startOffset < last[1]) return;
    // Kafka removes entries whose start offset is >= the new entry's, keeping the cache
    // free of empty epochs at the same offset.
    while (cache.length > 0 && cache[cache.length - 1][1] >= startOffset) cache.pop();
  }
  cache.push([epoch, startOffset]);
}

/** The epoch of the last entry with `startOffset <= offset`, or -1 when none. */
export function epochForOffset(cache: readonly EpochEntry[], offset: number): number {
  let epoch = UNDEFINED_EPOCH;
  for (let i = 0; i < cache.length; i++) {
    const entry = cache[i];
    if (entry[1] <= offset) epoch = entry[0];
    else break;
  }
  return epoch;
}

/**
 * Kafka's `endOffsetFor(requestedEpoch, logEndOffset)`: for the latest epoch, the log end
 * offset; for an older epoch, the start offset of the next higher epoch, paired with the
 * largest epoch <= the requested one; unknown epochs give (-1, -1).
 */
export function endOffsetFor(
  cache: readonly EpochEntry[],
  requestedEpoch: number,
  logEndOffset: number,
): EpochEndOffset {
  if (requestedEpoch === UNDEFINED_EPOCH || cache.length === 0) {
    return { leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_OFFSET };
  }
  if (requestedEpoch === latestEpoch(cache)) {
    return { leaderEpoch: requestedEpoch, endOffset: logEndOffset };
  }
  let higher: EpochEntry | undefined;
  for (let i = 0; i < cache.length && higher === undefined; i++) if (cache[i][0] > requestedEpoch) higher = cache[i];
  if (higher === undefined) return { leaderEpoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_OFFSET };
  let floor: EpochEntry | undefined;
  for (const entry of cache) if (entry[0] <= requestedEpoch) floor = entry;
  if (floor === undefined) return { leaderEpoch: requestedEpoch, endOffset: higher[1] };
  return { leaderEpoch: floor[0], endOffset: higher[1] };
}

/**
 * Removes what lies below `startOffset` (log start moved): entries wholly below go, and
 * the entry that covers `startOffset` is moved up to start there.
 */
export function truncateFromStart(cache: EpochEntry[], startOffset: number): void {
  let keepFrom = 0;
  for (let i = 0; i < cache.length; i++) {
    const next = cache[i + 1];
    if (next !== undefined && next[1] <= startOffset) keepFrom = i + 1;
  }
  cache.splice(0, keepFrom);
  if (cache.length > 0 && cache[0][1] < startOffset) cache[0] = [cache[0][0], startOffset];
}

/** Removes every entry that starts at or after `endOffset` (log truncated to it). */
export function truncateFromEnd(cache: EpochEntry[], endOffset: number): void {
  while (cache.length > 0 && cache[cache.length - 1][1] >= endOffset) cache.pop();
}

/** The entries a checkpoint taken for a segment ending at `endOffset` (inclusive) holds. */
export function checkpointUpTo(cache: readonly EpochEntry[], endOffset: number): EpochEntry[] {
  const out: EpochEntry[] = [];
  for (const [e, s] of cache) if (s <= endOffset) out.push([e, s]);
  return out;
}

/** Leader-epoch checkpoint file text, as Kafka writes it: version, count, one entry a line. */
export function formatCheckpoint(cache: readonly EpochEntry[]): string {
  return ['0', String(cache.length), ...cache.map(([e, s]) => `${e} ${s}`)].join('\n') + '\n';
}

export function parseCheckpoint(text: string): EpochEntry[] {
  const lines = text.split('\n').filter((l) => l.length > 0);
  const count = Number(lines[1]);
  const out: EpochEntry[] = [];
  for (let i = 0; i < count; i++) {
    const [e, s] = lines[2 + i].split(' ').map(Number);
    out.push([e, s]);
  }
  return out;
}

/** The latest epoch the cache would hold after the log is truncated to `endOffset`. */
export function latestEpochAfterTruncation(cache: readonly EpochEntry[], endOffset: number): number {
  let epoch = -1;
  for (const [e, start] of cache) if (start < endOffset) epoch = e;
  return epoch;
}

/**
 * Where a follower truncates on a diverging-epoch Fetch answer (Kafka's
 * AbstractFetcherThread.getOffsetTruncationState): with the leader's (epoch, endOffset)
 * for the follower's last fetched epoch, compare with the follower's own end offset for
 * that epoch. When the follower does not know the leader's epoch it truncates to the end
 * of its own nearest epoch and the next Fetch checks again.
 */
export function divergenceTruncationOffset(
  cache: readonly EpochEntry[],
  logEndOffset: number,
  diverging: { epoch: number; endOffset: number },
): number {
  if (diverging.endOffset === UNDEFINED_OFFSET || diverging.epoch === UNDEFINED_EPOCH) {
    return Math.min(Math.max(diverging.endOffset, 0), logEndOffset);
  }
  const mine = endOffsetFor(cache, diverging.epoch, logEndOffset);
  if (mine.endOffset === UNDEFINED_OFFSET) return Math.min(diverging.endOffset, logEndOffset);
  if (mine.leaderEpoch !== diverging.epoch) return Math.min(mine.endOffset, logEndOffset);
  return Math.min(diverging.endOffset, mine.endOffset, logEndOffset);
}
