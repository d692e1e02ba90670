/**
 * How the model's stored objects become files in Kafka's formats and back: segment `.log`
 * files as RecordBatch v2, `.index` files as Kafka's offset index (relative offset int32,
 * position int32 per batch), `.snapshot` files as Kafka's producer snapshot (version 1,
 * CRC-32C), and the leader-epoch checkpoint as its text file. Shared by the directory and
 * S3 stores.
 */
import type { RecordBatch } from '../../core/domain/partition-log.js';
import { decodeBatches, encodeBatchesWithPositions } from '../../core/format/record-batch.js';
import { type ProducerEntry, formatProducerSnapshot } from '../../core/domain/producer-state.js';
import { decodeProducerSnapshot, encodeProducerSnapshot } from '../../core/format/producer-snapshot.js';
import { type ObjectStoreRequest, type ObjectStoreResult, type StoredObject, bytesRead } from '../../core/ports/object-store.js';

/** The base offset in a key `<topic>-<partition>/<20-digit base>-<id>.<ext>`. */
function baseOffsetOf(key: string): number {
  const m = /\/(\d{20})-[^/]*$/.exec(key);
  return m ? Number(m[1]) : 0;
}

export const stem = (key: string) => key.replace(/\.[a-z_]+$/, '');

/** A segment's offset index: the base offset and byte position of each batch in its `.log`. */
export interface OffsetIndex {
  offsets: number[];
  positions: number[];
  /** Where each batch starts in the model's bytes (known when this store wrote the object). */
  modelPositions?: number[];
}

/**
 * The stores' offset indexes by segment (key without extension), like Kafka's remote index
 * cache: filled when a segment is written, fetched from the `.index` object on a miss,
 * bounded (least recently used goes first).
 */
export class OffsetIndexCache {
  private entries = new Map<string, OffsetIndex>();
  constructor(private readonly capacity = 1024) {}

  get(segment: string): OffsetIndex | undefined {
    const e = this.entries.get(segment);
    if (e !== undefined) {
      this.entries.delete(segment);
      this.entries.set(segment, e);
    }
    return e;
  }

  set(segment: string, index: OffsetIndex): void {
    this.entries.delete(segment);
    this.entries.set(segment, index);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(segment: string): void {
    this.entries.delete(segment);
  }
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

/**
 * The bytes of a `.log` that hold the batches from base offset `first` through the batch
 * holding offset `last`: [start, end] inclusive, or end undefined for "to the end of the
 * object". Undefined when `first` is not a batch's base offset in the index.
 */
export function fileRange(index: OffsetIndex, [first, last]: [number, number]): { start: number; end?: number } | undefined {
  const i = index.offsets.indexOf(first);
  if (i < 0) return undefined;
  let j = i;
  while (j + 1 < index.offsets.length && index.offsets[j + 1] <= last) j++;
  return j + 1 < index.offsets.length ? { start: index.positions[i], end: index.positions[j + 1] - 1 } : { start: index.positions[i] };
}

/**
 * The file bytes holding the model bytes [from, to] of an object (a WAL chunk: batches of
 * one partition inside an object of several), and the model position of its first batch.
 * Undefined when the range does not start at a batch.
 */
export function fileRangeOfModelRange(index: OffsetIndex, [from, to]: [number, number]): { start: number; end?: number; modelStart: number } | undefined {
  const mp = index.modelPositions;
  if (mp === undefined) return undefined;
  const i = mp.indexOf(from);
  if (i < 0) return undefined;
  let j = i;
  while (j + 1 < mp.length && mp[j + 1] <= to) j++;
  const r = j + 1 < index.positions.length ? { start: index.positions[i], end: index.positions[j + 1] - 1 } : { start: index.positions[i] };
  return { ...r, modelStart: from };
}

/** The file bytes of an object; a segment's batch positions go to `indexes` for its `.index`. */
export function encodeObject(key: string, object: StoredObject, indexes: OffsetIndexCache, buffer?: (size: number) => Uint8Array): Uint8Array {
  const body = object.body;
  if (body.kind === 'segment') {
    const { bytes, positions } = encodeBatchesWithPositions(body.batches, valueBytesOf, buffer);
    let at = 0;
    const modelPositions = body.batches.map((b) => ((at += b.bytes), at - b.bytes));
    indexes.set(stem(key), { offsets: body.batches.map((b) => b.baseOffset), positions, modelPositions });
    return bytes;
  }
  if (key.endsWith('.index')) {
    // Kafka's offset index: one entry per batch, relative offset and physical position.
    const offsets = body.text.length === 0 ? [] : body.text.split('\n').map(Number);
    const base = baseOffsetOf(key);
    const at = indexes.get(stem(key))?.positions ?? [];
    const out = new Uint8Array(offsets.length * 8);
    const view = new DataView(out.buffer);
    offsets.forEach((o, i) => {
      view.setInt32(i * 8, o - base);
      view.setInt32(i * 8 + 4, at[i] ?? 0);
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
      const count = d.lastOffset - d.baseOffset + 1;
      return {
        baseOffset: d.baseOffset,
        lastOffset: d.lastOffset,
        leaderEpoch: d.partitionLeaderEpoch,
        producerId: d.producerId,
        baseSequence: d.baseSequence,
        bytes: count * (d.records[0]?.valueBytes ?? 0),
        appendedMs: d.baseTimestamp,
      };
    });
    return { bytes: batches.reduce((n, b) => n + b.bytes, 0), body: { kind: 'segment', batches } };
  }
  if (key.endsWith('.index')) {
    return { bytes: bytes.length, body: { kind: 'text', text: parseOffsetIndex(key, bytes).offsets.join('\n') } };
  }
  if (key.endsWith('.snapshot')) {
    const entries = decodeProducerSnapshot(bytes);
    return { bytes: bytes.length, body: { kind: 'text', text: formatProducerSnapshot(entries) } };
  }
  const text = new TextDecoder('latin1').decode(bytes);
  return { bytes: bytes.length, body: { kind: 'text', text } };
}

/** The model's records are `bytes / count` bytes each. */
function valueBytesOf(b: RecordBatch): number {
  const count = b.lastOffset - b.baseOffset + 1;
  return Math.floor(b.bytes / count);
}

/** What a store read and wrote for real (not the model's figures): for tests and --verbose. */
export interface StoreStats {
  puts: number;
  gets: number;
  rangedGets: number;
  /** Bytes of file content fetched. */
  bytesGot: number;
  /** `.index` objects fetched because the index cache missed. */
  indexFetches: number;
}

export const emptyStats = (): StoreStats => ({ puts: 0, gets: 0, rangedGets: 0, bytesGot: 0, indexFetches: 0 });

/** A decoding failure, as an error the model sees on a failed GET. */
export function corruptObject(key: string, e: unknown): string {
  return `CorruptObject: ${key}: ${e instanceof Error ? e.message : String(e)}`;
}

/** File bytes to read ([start, end] inclusive, end open when absent); for a WAL chunk, the model position of its first batch. */
export interface FileRange {
  start: number;
  end?: number;
  modelStart?: number;
}

type GetRequest = Extract<ObjectStoreRequest, { op: 'get' }>;

/**
 * Where a GET reads, from the cache alone: a WAL chunk through the positions kept when
 * the object was written, a segment's batches through its offset index; `needIndex` when
 * the segment's index is not cached (the store loads `indexKey` and calls `rememberIndex`);
 * undefined for the whole object.
 */
export function cachedRange(req: GetRequest, indexes: OffsetIndexCache): FileRange | { needIndex: string } | undefined {
  if (req.range && !req.offsets && req.key.endsWith('.wal')) {
    const index = indexes.get(stem(req.key));
    return index === undefined ? undefined : fileRangeOfModelRange(index, req.range);
  }
  if (!req.offsets || !req.key.endsWith('.log')) return undefined;
  const index = indexes.get(stem(req.key));
  return index === undefined ? { needIndex: `${stem(req.key)}.index` } : fileRange(index, req.offsets);
}

/** Caches a segment's `.index` the store just read and gives the GET's range through it. */
export function rememberIndex(req: GetRequest, indexes: OffsetIndexCache, stats: StoreStats, indexKey: string, bytes: Uint8Array): FileRange | undefined {
  stats.indexFetches++;
  stats.bytesGot += bytes.length;
  const index = parseOffsetIndex(indexKey, bytes);
  indexes.set(stem(req.key), index);
  return req.offsets ? fileRange(index, req.offsets) : undefined;
}

/** The result of a GET from the file bytes read (a range, or the whole object): counted, decoded, sized in model bytes. */
export function readResult(req: GetRequest, bytes: Uint8Array, range: FileRange | undefined, stats: StoreStats): ObjectStoreResult {
  stats.gets++;
  if (range) stats.rangedGets++;
  stats.bytesGot += bytes.length;
  let object: StoredObject;
  try {
    object = decodeObject(req.key, bytes);
  } catch (e) {
    return { ok: false, bytes: 0, error: corruptObject(req.key, e) };
  }
  return { ok: true, bytes: bytesRead(req, range ? Number.MAX_SAFE_INTEGER : object.bytes), object, ...(range?.modelStart !== undefined ? { objectStart: range.modelStart } : {}) };
}

/** Drops a segment's or WAL object's cached index when the object goes. */
export function forgetIndex(indexes: OffsetIndexCache, key: string): void {
  if (/\.(log|index|wal)$/.test(key)) indexes.delete(stem(key));
}
