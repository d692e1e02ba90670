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

/**
 * Batches described by a rule instead of listed one by one, as the log a scenario's
 * `initial` gives at t = 0 is laid out (a terabyte of 16 KiB batches is 67 million of them):
 * the offsets [firstOffset, lastOffset] cut every `recordsPerBatch` records from firstOffset
 * (the last batch may be shorter), `recordBytes` a record, all in one leader epoch, by one
 * producer whose sequence at firstOffset is `firstSequence`, written from byte `position`
 * of their segment.
 */
export interface BatchRun {
  firstOffset: number;
  /** Inclusive. */
  lastOffset: number;
  recordsPerBatch: number;
  recordBytes: number;
  /** Byte position of the run's first batch in its segment. */
  position: number;
  leaderEpoch: number;
  producerId: number;
  firstSequence: number;
  appendedMs: number;
}

/** The number of batches of a run. */
export function runBatchCount(r: BatchRun): number {
  return Math.ceil((r.lastOffset - r.firstOffset + 1) / r.recordsPerBatch);
}

/** Batch `j` of a run. */
export function runBatch(r: BatchRun, j: number): RecordBatch {
  const baseOffset = r.firstOffset + j * r.recordsPerBatch;
  const lastOffset = Math.min(baseOffset + r.recordsPerBatch - 1, r.lastOffset);
  return {
    baseOffset,
    lastOffset,
    leaderEpoch: r.leaderEpoch,
    producerId: r.producerId,
    baseSequence: r.firstSequence + (baseOffset - r.firstOffset),
    bytes: (lastOffset - baseOffset + 1) * r.recordBytes,
    appendedMs: r.appendedMs,
  };
}

/** Every batch of the runs, listed. */
export function batchesOfRuns(runs: readonly BatchRun[]): RecordBatch[] {
  const out: RecordBatch[] = [];
  for (const r of runs) for (let j = 0, n = runBatchCount(r); j < n; j++) out.push(runBatch(r, j));
  return out;
}
