/**
 * Producer state: per producer id, the last sequence and offset written. A snapshot is
 * the state as of an offset; it is stored with every remote segment so a follower that
 * skips the records can still deduplicate retried produces. Does not model transactions.
 */
import type { RecordBatch } from './partition-log.js';

export interface ProducerEntry {
  producerId: number;
  lastSequence: number;
  lastOffset: number;
  leaderEpoch: number;
}

export type ProducerState = Record<string, ProducerEntry>;

export function applyBatchToProducerState(state: ProducerState, batch: RecordBatch): void {
  if (batch.producerId < 0) return;
  state[String(batch.producerId)] = {
    producerId: batch.producerId,
    lastSequence: batch.baseSequence + (batch.lastOffset - batch.baseOffset),
    lastOffset: batch.lastOffset,
    leaderEpoch: batch.leaderEpoch,
  };
}

/** Drops producers whose last write is at or above `endOffset` (approximation: Kafka reloads from a snapshot). */
export function truncateProducerState(state: ProducerState, endOffset: number): void {
  for (const key of Object.keys(state)) if (state[key].lastOffset >= endOffset) delete state[key];
}

/** The snapshot Kafka would take at `endOffset` (exclusive): entries written below it. */
export function snapshotProducerState(state: ProducerState, endOffset: number): ProducerEntry[] {
  return Object.values(state)
    .filter((e) => e.lastOffset < endOffset)
    .sort((a, b) => a.producerId - b.producerId)
    .map((e) => ({ ...e }));
}

export function restoreProducerState(entries: readonly ProducerEntry[]): ProducerState {
  const out: ProducerState = {};
  for (const e of entries) out[String(e.producerId)] = { ...e };
  return out;
}
