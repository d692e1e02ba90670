/**
 * Producer state: per producer id, the last sequence and offset written. A snapshot is
 * the state as of an offset; it is stored with every remote segment so a follower that
 * skips the records can still deduplicate retried produces. Does not model transactions.
 */
import type { RecordBatch } from './batch.js';

/**
 * One producer's entry, with the fields of Kafka's producer snapshot file (version 1). The
 * model has no producer epochs or transactions, so `producerEpoch` is 0, `coordinatorEpoch`
 * -1 and `currentTxnFirstOffset` -1, as Kafka writes them for an idempotent producer.
 */
export interface ProducerEntry {
  producerId: number;
  producerEpoch: number;
  lastSequence: number;
  lastOffset: number;
  /** lastSequence - firstSequence of the last batch written. */
  offsetDelta: number;
  /** Max timestamp of the last batch written. */
  timestamp: number;
  coordinatorEpoch: number;
  currentTxnFirstOffset: number;
}

/** The entry after `batch`, fields in the snapshot file's order. */
export function producerEntryOf(batch: RecordBatch): ProducerEntry {
  return {
    producerId: batch.producerId,
    producerEpoch: 0,
    lastSequence: batch.baseSequence + (batch.lastOffset - batch.baseOffset),
    lastOffset: batch.lastOffset,
    offsetDelta: batch.lastOffset - batch.baseOffset,
    timestamp: batch.appendedMs,
    coordinatorEpoch: -1,
    currentTxnFirstOffset: -1,
  };
}

export type ProducerState = Record<string, ProducerEntry>;

export function applyBatchToProducerState(state: ProducerState, batch: RecordBatch): void {
  if (batch.producerId < 0) return;
  state[String(batch.producerId)] = producerEntryOf(batch);
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

/** Bytes of Kafka's producer snapshot file: version, CRC, entry count, 46 bytes an entry. */
export function producerSnapshotBytes(entries: readonly ProducerEntry[]): number {
  return 2 + 4 + 4 + 46 * entries.length;
}

/** The snapshot as the model keeps it (JSON, fields in the file's order); stores write Kafka's binary file. */
export function formatProducerSnapshot(entries: readonly ProducerEntry[]): string {
  return JSON.stringify(entries.map((e) => ({
    producerId: e.producerId,
    producerEpoch: e.producerEpoch,
    lastSequence: e.lastSequence,
    lastOffset: e.lastOffset,
    offsetDelta: e.offsetDelta,
    timestamp: e.timestamp,
    coordinatorEpoch: e.coordinatorEpoch,
    currentTxnFirstOffset: e.currentTxnFirstOffset,
  })));
}

export function restoreProducerState(entries: readonly ProducerEntry[]): ProducerState {
  const out: ProducerState = {};
  for (const e of entries) out[String(e.producerId)] = { ...e };
  return out;
}
