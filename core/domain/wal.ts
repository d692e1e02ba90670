/**
 * KIP-1176's write-ahead log in the fast object store, as data (docs/protocol.md §7): the
 * objects a broker's combiner writes (the new batches of every partition it leads,
 * concatenated), the chunk of each partition inside an object, and the WAL metadata
 * topic `__remote_wal_log_metadata` with one record per chunk and its own retention.
 * KIP-1176 was withdrawn before its details were fixed; names here are the model's.
 */
import type { RecordBatch } from './partition-log.js';

export const WAL_METADATA_TOPIC = '__remote_wal_log_metadata';

/** One partition's bytes inside a WAL object: a record of the WAL metadata topic. */
export interface WalChunk {
  /** Offset of its record in the WAL metadata topic. */
  id: number;
  /** `topic-partition`. */
  key: string;
  topic: string;
  partition: number;
  objectKey: string;
  /** Model bytes of the chunk in the object, inclusive. */
  range: [number, number];
  baseOffset: number;
  lastOffset: number;
  leaderEpoch: number;
  /** The broker that wrote it (the partition's leader then). */
  broker: number;
  /** When its metadata record was published. */
  atMs: number;
}

/** `orphan`: its PUT was in flight when the broker crashed, so it may exist without metadata. */
export type WalObjectState = 'putting' | 'live' | 'deleting' | 'deleted' | 'failed' | 'orphan';

export interface WalObject {
  key: string;
  broker: number;
  bytes: number;
  createdMs: number;
  state: WalObjectState;
  /** Chunk ids (metadata offsets) once published. */
  chunkIds: number[];
}

/** A chunk assembled by the combiner, before its metadata record exists. */
export interface PendingChunk {
  key: string;
  baseOffset: number;
  lastOffset: number;
  leaderEpoch: number;
  range: [number, number];
  batches: RecordBatch[];
}

/** `broker-<id>/<20-digit sequence>.wal`: a readable key in the fast store. */
export function walObjectKey(broker: number, seq: number): string {
  return `broker-${broker}/${String(seq).padStart(20, '0')}.wal`;
}

/**
 * Lays out one object: each partition's batches back to back, in the order given, with
 * its byte range (model bytes) in the object.
 */
export function assembleWalObject(parts: Array<{ key: string; leaderEpoch: number; batches: RecordBatch[] }>): { chunks: PendingChunk[]; batches: RecordBatch[]; bytes: number } {
  const chunks: PendingChunk[] = [];
  const batches: RecordBatch[] = [];
  let pos = 0;
  for (const p of parts) {
    if (p.batches.length === 0) continue;
    const size = p.batches.reduce((n, b) => n + b.bytes, 0);
    chunks.push({
      key: p.key,
      baseOffset: p.batches[0].baseOffset,
      lastOffset: p.batches[p.batches.length - 1].lastOffset,
      leaderEpoch: p.leaderEpoch,
      range: [pos, pos + size - 1],
      batches: p.batches,
    });
    // Not push(...p.batches): one produce at the record limit is 625,000 batches, past the
    // number of arguments a call can take.
    for (const b of p.batches) batches.push(b);
    pos += size;
  }
  return { chunks, batches, bytes: pos };
}

/** The batches of one chunk in an object's batches (a ranged read returns a superset or exactly them). */
export function chunkBatches(objectBatches: readonly RecordBatch[], chunk: Pick<WalChunk, 'baseOffset' | 'lastOffset' | 'range'>, positions?: readonly number[]): RecordBatch[] {
  // Positions let a whole-object read pick the chunk by bytes, since offsets of different
  // partitions may coincide inside one object.
  if (positions !== undefined) {
    const out: RecordBatch[] = [];
    objectBatches.forEach((b, i) => {
      if (positions[i] >= chunk.range[0] && positions[i] <= chunk.range[1]) out.push(b);
    });
    return out;
  }
  return objectBatches.filter((b) => b.baseOffset >= chunk.baseOffset && b.lastOffset <= chunk.lastOffset);
}

/** Byte position (model bytes) of each batch in an object's body. */
export function batchPositions(batches: readonly RecordBatch[]): number[] {
  const out: number[] = [];
  let pos = 0;
  for (const b of batches) {
    out.push(pos);
    pos += b.bytes;
  }
  return out;
}
