/**
 * A record batch as the model keeps it: offsets, epoch, producer and size, no records. Its
 * own module because both the log (partition-log.ts) and the producer state
 * (producer-state.ts) read batches, and the log holds the producer state: with the type in
 * the log, the two files imported each other.
 */
export interface RecordBatch {
  baseOffset: number;
  /** Inclusive. */
  lastOffset: number;
  leaderEpoch: number;
  producerId: number;
  /** Sequence of the first record, per producer. */
  baseSequence: number;
  bytes: number;
  /** Simulated time the leader appended it. */
  appendedMs: number;
}
