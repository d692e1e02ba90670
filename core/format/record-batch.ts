/**
 * Kafka's on-disk and on-wire RecordBatch v2 (magic 2): what a segment's `.log` file holds,
 * and so what a remote storage plugin uploads. Encodes the model's batches (whose records
 * are not stored one by one) with deterministic record values of the modelled size, and
 * decodes them back, checking the CRC-32C. No compression, no transactions, no headers.
 *
 * Layout: baseOffset int64, batchLength int32, partitionLeaderEpoch int32, magic int8,
 * crc uint32 (CRC-32C of everything after it), attributes int16, lastOffsetDelta int32,
 * baseTimestamp int64, maxTimestamp int64, producerId int64, producerEpoch int16,
 * baseSequence int32, records int32 count, then each record: length varint, attributes
 * int8, timestampDelta varlong, offsetDelta varint, keyLength varint (-1 = null), key,
 * valueLength varint, value, headers count varint.
 */
import type { RecordBatch } from '../domain/partition-log.js';
import { crc32c } from './crc32c.js';

/** Bytes of RecordBatch v2 fields before the records (baseOffset .. records count). */
export const BATCH_HEADER_BYTES = 61;

class Writer {
  buf: Uint8Array;
  view: DataView;
  pos = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
    this.view = new DataView(this.buf.buffer);
  }
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    next.set(this.buf);
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  int8(v: number): void { this.ensure(1); this.view.setInt8(this.pos, v); this.pos += 1; }
  int16(v: number): void { this.ensure(2); this.view.setInt16(this.pos, v); this.pos += 2; }
  int32(v: number): void { this.ensure(4); this.view.setInt32(this.pos, v); this.pos += 4; }
  uint32(v: number): void { this.ensure(4); this.view.setUint32(this.pos, v >>> 0); this.pos += 4; }
  int64(v: number): void { this.ensure(8); this.view.setBigInt64(this.pos, BigInt(v)); this.pos += 8; }
  /** Zigzag varint (Kafka's varint and varlong for values within 2^53). */
  varint(v: number): void {
    let z = v >= 0 ? v * 2 : -v * 2 - 1;
    this.ensure(10);
    while (z >= 128) {
      this.buf[this.pos++] = (z % 128) | 0x80;
      z = Math.floor(z / 128);
    }
    this.buf[this.pos++] = z;
  }
  bytes(b: Uint8Array): void { this.ensure(b.length); this.buf.set(b, this.pos); this.pos += b.length; }
}

class Reader {
  view: DataView;
  pos: number;
  constructor(readonly buf: Uint8Array, pos = 0) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.pos = pos;
  }
  int8(): number { const v = this.view.getInt8(this.pos); this.pos += 1; return v; }
  int16(): number { const v = this.view.getInt16(this.pos); this.pos += 2; return v; }
  int32(): number { const v = this.view.getInt32(this.pos); this.pos += 4; return v; }
  uint32(): number { const v = this.view.getUint32(this.pos); this.pos += 4; return v; }
  int64(): number { const v = this.view.getBigInt64(this.pos); this.pos += 8; return Number(v); }
  varint(): number {
    let z = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.buf[this.pos++];
      z |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
    }
    return Number(z & 1n ? -((z + 1n) >> 1n) : z >> 1n);
  }
}

/**
 * The value of the record at `offset`: `size` deterministic bytes, the offset as a
 * big-endian int64 first (readable in a hex dump), then a fixed filler.
 */
export function recordValue(offset: number, size: number): Uint8Array {
  const v = new Uint8Array(Math.max(0, size));
  fillValue(v, 0, offset, size);
  return v;
}

const FILLER = Uint8Array.from('tierscope record value ', (c) => c.charCodeAt(0));
/** The filler laid out by position, so a value is one block copy. */
let fillerBlock = new Uint8Array(0);

function fillValue(buf: Uint8Array, at: number, offset: number, size: number): void {
  if (fillerBlock.length < size) {
    fillerBlock = new Uint8Array(Math.max(size, 4096));
    for (let i = 0; i < fillerBlock.length; i++) fillerBlock[i] = FILLER[i % FILLER.length];
  }
  if (size > 8) buf.set(fillerBlock.subarray(8, size), at + 8);
  const hi = Math.floor(offset / 0x100000000);
  const lo = offset >>> 0;
  const head = [hi >>> 24, (hi >>> 16) & 0xff, (hi >>> 8) & 0xff, hi & 0xff, lo >>> 24, (lo >>> 16) & 0xff, (lo >>> 8) & 0xff, lo & 0xff];
  for (let i = 0; i < Math.min(8, size); i++) buf[at + i] = head[i];
}

/** Bytes of a zigzag varint. */
function varintSize(v: number): number {
  let z = v >= 0 ? v * 2 : -v * 2 - 1;
  let n = 1;
  while (z >= 128) {
    z = Math.floor(z / 128);
    n++;
  }
  return n;
}

export interface EncodeOptions {
  /** Bytes of each record's value. */
  valueBytes: number;
}

/** One batch as RecordBatch v2 bytes (sized exactly, one allocation). */
export function encodeBatch(b: RecordBatch, opts: EncodeOptions): Uint8Array {
  const count = b.lastOffset - b.baseOffset + 1;
  const vb = opts.valueBytes;
  let size = BATCH_HEADER_BYTES;
  const bodies: number[] = [];
  for (let i = 0; i < count; i++) {
    const body = 1 + 1 + varintSize(i) + 1 + varintSize(vb) + vb + 1;
    bodies.push(body);
    size += varintSize(body) + body;
  }
  const w = new Writer(size);
  w.int64(b.baseOffset);
  const lengthAt = w.pos;
  w.int32(0);
  w.int32(b.leaderEpoch);
  w.int8(2);
  const crcAt = w.pos;
  w.uint32(0);
  const crcFrom = w.pos;
  w.int16(0); // attributes: no compression, CreateTime, not transactional, not control
  w.int32(count - 1);
  w.int64(b.appendedMs);
  w.int64(b.appendedMs);
  w.int64(b.producerId);
  w.int16(0);
  w.int32(b.baseSequence);
  w.int32(count);
  for (let i = 0; i < count; i++) {
    w.varint(bodies[i]);
    w.int8(0);
    w.varint(0); // timestampDelta
    w.varint(i); // offsetDelta
    w.varint(-1); // null key
    w.varint(vb);
    fillValue(w.buf, w.pos, b.baseOffset + i, vb);
    w.pos += vb;
    w.varint(0); // no headers
  }
  const end = w.pos;
  w.view.setInt32(lengthAt, end - lengthAt - 4);
  w.view.setUint32(crcAt, crc32c(w.buf, crcFrom, end));
  return end === w.buf.length ? w.buf : w.buf.slice(0, end);
}

/** Several batches, back to back, as in a segment's `.log` file. */
export function encodeBatches(batches: readonly RecordBatch[], opts: EncodeOptions): Uint8Array {
  const parts = batches.map((b) => encodeBatch(b, opts));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

export interface DecodedBatch {
  baseOffset: number;
  lastOffset: number;
  partitionLeaderEpoch: number;
  magic: number;
  crcValid: boolean;
  producerId: number;
  baseSequence: number;
  baseTimestamp: number;
  records: Array<{ offset: number; valueBytes: number }>;
  /** Byte position of the batch in the input. */
  position: number;
  sizeBytes: number;
}

/** Decodes every batch in `bytes`, checking each CRC-32C. */
export function decodeBatches(bytes: Uint8Array): DecodedBatch[] {
  const out: DecodedBatch[] = [];
  let pos = 0;
  while (pos + 12 <= bytes.length) {
    const r = new Reader(bytes, pos);
    const baseOffset = r.int64();
    const length = r.int32();
    const end = r.pos + length;
    const partitionLeaderEpoch = r.int32();
    const magic = r.int8();
    const crc = r.uint32();
    const crcValid = crc === crc32c(bytes, r.pos, end);
    r.int16();
    const lastOffsetDelta = r.int32();
    const baseTimestamp = r.int64();
    r.int64();
    const producerId = r.int64();
    r.int16();
    const baseSequence = r.int32();
    const count = r.int32();
    const records: Array<{ offset: number; valueBytes: number }> = [];
    for (let i = 0; i < count; i++) {
      const len = r.varint();
      const recEnd = r.pos + len;
      r.int8();
      r.varint();
      const offsetDelta = r.varint();
      const keyLen = r.varint();
      if (keyLen > 0) r.pos += keyLen;
      const valueLen = r.varint();
      r.pos += Math.max(0, valueLen);
      records.push({ offset: baseOffset + offsetDelta, valueBytes: valueLen });
      r.pos = recEnd;
    }
    out.push({
      baseOffset,
      lastOffset: baseOffset + lastOffsetDelta,
      partitionLeaderEpoch,
      magic,
      crcValid,
      producerId,
      baseSequence,
      baseTimestamp,
      records,
      position: pos,
      sizeBytes: end - pos,
    });
    pos = end;
  }
  return out;
}
