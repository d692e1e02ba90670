/**
 * How the model's stored objects become files in Kafka's formats and back: segment `.log`
 * files as RecordBatch v2, `.index` files as Kafka's offset index (relative offset int32,
 * position int32 per batch), `.snapshot` files as Kafka's producer snapshot (version 1,
 * CRC-32C), and the leader-epoch checkpoint as its text file. Shared by the directory and
 * S3 stores.
 *
 * The model sizes a batch as it lies on disk, so each file is exactly as many bytes as the
 * model's object and every byte position the model computes (a batch in a segment, a
 * partition's chunk in a WAL object) is the file's: a ranged GET sends the model's range as
 * it is, and the bytes a server sends are the bytes the run counts.
 */
import type { RecordBatch } from '../../core/domain/partition-log.js';
import { decodeBatches, encodeBatchesWithPositions } from '../../core/format/record-batch.js';
import { type ProducerEntry, formatProducerSnapshot } from '../../core/domain/producer-state.js';
import { formatOffsetIndex, parseOffsetIndexText } from '../../core/domain/remote-metadata.js';
import { decodeProducerSnapshot, encodeProducerSnapshot } from '../../core/format/producer-snapshot.js';
import type { ObjectStoreRequest, ObjectStoreResult, StoredObject } from '../../core/ports/object-store.js';

/** The base offset in a key `<topic>-<partition>/<20-digit base>-<id>.<ext>`. */
function baseOffsetOf(key: string): number {
  const m = /\/(\d{20})-[^/]*$/.exec(key);
  return m ? Number(m[1]) : 0;
}

/** A segment's offset index: the base offset and byte position of each batch in its `.log`. */
export interface OffsetIndex {
  offsets: number[];
  positions: number[];
}

/** Reads a Kafka `.index` file (relative offset int32, position int32 per entry). */
export function parseOffsetIndex(key: string, bytes: Uint8Array): OffsetIndex {
  const base = baseOffsetOf(key);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: OffsetIndex = { offsets: [], positions: [] };
  for (let i = 0; i + 8 <= bytes.length; i += 8) {
    out.offsets.push(base + view.getInt32(i));
    out.positions.push(view.getInt32(i + 4));
  }
  return out;
}

/** The file bytes of an object. */
export function encodeObject(key: string, object: StoredObject, buffer?: (size: number) => Uint8Array): Uint8Array {
  const body = object.body;
  if (body.kind === 'segment') return encodeBatchesWithPositions(body.batches, buffer).bytes;
  if (key.endsWith('.index')) {
    // Kafka's offset index: one entry per batch, relative offset and physical position.
    const entries = parseOffsetIndexText(body.text);
    const base = baseOffsetOf(key);
    const out = new Uint8Array(entries.length * 8);
    const view = new DataView(out.buffer);
    entries.forEach(([o, p], i) => {
      view.setInt32(i * 8, o - base);
      view.setInt32(i * 8 + 4, p);
    });
    return out;
  }
  if (key.endsWith('.snapshot')) return encodeProducerSnapshot(JSON.parse(body.text) as ProducerEntry[]);
  return Uint8Array.from(body.text, (c) => c.charCodeAt(0) & 0xff);
}

export function decodeObject(key: string, bytes: Uint8Array): StoredObject {
  // A segment, or a KIP-1176 WAL object (batches of several partitions back to back).
  if (key.endsWith('.log') || key.endsWith('.wal')) {
    const batches: RecordBatch[] = decodeBatches(bytes).map((d) => {
      if (!d.crcValid) throw new Error(`corrupt record batch at ${d.position} in ${key}: CRC-32C mismatch`);
      return {
        baseOffset: d.baseOffset,
        lastOffset: d.lastOffset,
        leaderEpoch: d.partitionLeaderEpoch,
        producerId: d.producerId,
        baseSequence: d.baseSequence,
        bytes: d.sizeBytes,
        appendedMs: d.baseTimestamp,
      };
    });
    return { bytes: bytes.length, body: { kind: 'segment', batches } };
  }
  if (key.endsWith('.index')) {
    const index = parseOffsetIndex(key, bytes);
    return { bytes: bytes.length, body: { kind: 'text', text: formatOffsetIndex(index.offsets.map((o, i) => [o, index.positions[i]] as const)) } };
  }
  if (key.endsWith('.snapshot')) {
    const entries = decodeProducerSnapshot(bytes);
    return { bytes: bytes.length, body: { kind: 'text', text: formatProducerSnapshot(entries) } };
  }
  const text = new TextDecoder('latin1').decode(bytes);
  return { bytes: bytes.length, body: { kind: 'text', text } };
}

/** What a store read and wrote for real (not the model's figures): for tests and --verbose. */
export interface StoreStats {
  puts: number;
  gets: number;
  rangedGets: number;
  /** Bytes of file content written. */
  bytesPut: number;
  /** Bytes of file content fetched. */
  bytesGot: number;
}

export const emptyStats = (): StoreStats => ({ puts: 0, gets: 0, rangedGets: 0, bytesPut: 0, bytesGot: 0 });

/** A decoding failure, as an error the model sees on a failed GET. */
export function corruptObject(key: string, e: unknown): string {
  return `CorruptObject: ${key}: ${e instanceof Error ? e.message : String(e)}`;
}

type GetRequest = Extract<ObjectStoreRequest, { op: 'get' }>;

/** The file bytes a GET reads, inclusive: the model's range, which is the file's. Undefined for the whole object. */
export function fileRange(req: GetRequest): { start: number; end: number } | undefined {
  return req.range ? { start: req.range[0], end: req.range[1] } : undefined;
}

/** The result of a GET from the file bytes read (a range, or the whole object): counted and decoded. */
export function readResult(req: GetRequest, bytes: Uint8Array, stats: StoreStats): ObjectStoreResult {
  stats.gets++;
  if (req.range) stats.rangedGets++;
  stats.bytesGot += bytes.length;
  let object: StoredObject;
  try {
    object = decodeObject(req.key, bytes);
  } catch (e) {
    return { ok: false, bytes: 0, error: corruptObject(req.key, e) };
  }
  // A range that starts inside a WAL object holds one partition's chunk: where it starts tells the reader its batches' positions.
  return { ok: true, bytes: bytes.length, object, ...(req.range && req.key.endsWith('.wal') ? { objectStart: req.range[0] } : {}) };
}
