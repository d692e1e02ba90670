/**
 * Kafka's on-disk and on-wire RecordBatch v2 (magic 2): what a segment's `.log` file holds,
 * and so what a remote storage plugin uploads. Encodes the model's batches (whose records
 * are not stored one by one) with deterministic record values, each batch exactly as many
 * bytes as the model gives it, and decodes them back, checking the CRC-32C. No compression,
 * no transactions, no headers; a record's key is null unless one or two key bytes are
 * needed to make its size exact.
 *
 * Layout: baseOffset int64, batchLength int32, partitionLeaderEpoch int32, magic int8,
 * crc uint32 (CRC-32C of everything after it), attributes int16, lastOffsetDelta int32,
 * baseTimestamp int64, maxTimestamp int64, producerId int64, producerEpoch int16,
 * baseSequence int32, records int32 count, then each record: length varint, attributes
 * int8, timestampDelta varlong, offsetDelta varint, keyLength varint (-1 = null), key,
 * valueLength varint, value, headers count varint.
 */
import type { RecordBatch } from '../domain/partition-log.js';
import { type CrcSkip, crc32c, crc32cSkip, crc32cSkipOf, crc32cUpdate } from './crc32c.js';

/** Bytes of RecordBatch v2 fields before the records (baseOffset .. records count). */
export const BATCH_HEADER_BYTES = 61;

class Writer {
  buf: Uint8Array;
  view: DataView;
  pos = 0;
  /** `buf`: a buffer to write into (any contents; every byte up to the end is written). */
  constructor(size: number, buf?: Uint8Array) {
    this.buf = buf !== undefined && buf.length >= size ? buf : new Uint8Array(size);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
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

/** The fewest bytes a RecordBatch v2 of `count` records can take (a model batch must be at least this big to be written). */
export function minBatchBytes(count: number): number {
  // The smallest record: length, attributes, timestamp delta, offset delta, a null key, an
  // empty value, no headers: 7 bytes, one more for each byte its offset delta's varint grows
  // by (at 64, 8192 and 2^20).
  let size = BATCH_HEADER_BYTES + 7 * count;
  for (const at of [64, 8192, 1 << 20]) size += Math.max(0, count - at);
  return size;
}

/** Whether a record can total `size` bytes with its length varint as short as it can be (at 64 and 8192 bytes of body the varint grows, and one total is skipped). */
function plainSize(size: number): boolean {
  // The totals skipped: where the body's varint grows (64, 8192, 2^20, 2^27 bytes of body).
  return size !== 65 && size !== 8194 && size !== 1048579 && size !== 134217732;
}

/**
 * How a record fills exactly `size` bytes: a value of `vb` bytes, a key
 * of `kb` bytes (0: a null key), and its length varint `extra` bytes longer than it needs to
 * be. Varint lengths grow at 64 and 8192, so a value alone skips some body sizes: a one- or
 * two-byte key closes the gap. The record's total skips a size where its length varint
 * grows; the batch moves that byte to the next record, and only a batch's last record takes
 * a one-byte-longer length varint (`extra`, which Kafka's varint reader accepts). `d`: the
 * bytes of the record's offset delta varint. Packed as `vb * 8 + extra * 4 + kb` and cached
 * by size and `d`: a batch uses two or three layouts.
 */
const layouts = new Map<number, number>();
function recordLayout(d: number, size: number): number {
  const cacheKey = size * 8 + d;
  const hit = layouts.get(cacheKey);
  if (hit !== undefined) return hit;
  for (let extra = 0; extra <= 1; extra++) {
    for (let kb = 0; kb <= 2; kb++) {
      const keyPart = kb === 0 ? 1 : varintSize(kb) + kb;
      for (let body = size - 1 - extra; body >= size - 4 - extra && body > 0; body--) {
        if (varintSize(body) + extra + body !== size) continue;
        const rest = body - 3 - d - keyPart;
        for (let vb = rest - 1; vb >= rest - 3 && vb >= 0; vb--) {
          if (varintSize(vb) + vb !== rest) continue;
          const packed = vb * 8 + extra * 4 + kb;
          if (layouts.size > 4096) layouts.clear();
          layouts.set(cacheKey, packed);
          return packed;
        }
      }
    }
  }
  throw new Error(`no record of ${size} bytes with a ${d}-byte offset delta`);
}

/** Why a model batch cannot be written as RecordBatch v2 (too few bytes for its records), or null when it can. */
export function unencodable(b: RecordBatch): string | null {
  const count = b.lastOffset - b.baseOffset + 1;
  return tooSmall(b, count, minBatchBytes(count));
}

function tooSmall(b: RecordBatch, count: number, need: number): string | null {
  const s = count === 1 ? '' : 's';
  return b.bytes >= need ? null : `the batch at offset ${b.baseOffset} is ${b.bytes} bytes in the model, fewer than the ${need} a RecordBatch v2 of ${count} record${s} needs`;
}

/** The filler of a value of `vb` bytes (after its 8-byte offset) and how to skip it in a CRC. */
const skips = new Map<number, CrcSkip>();
function fillerSkip(vb: number): CrcSkip {
  let s = skips.get(vb);
  if (s === undefined) {
    const v = recordValue(0, vb);
    s = crc32cSkipOf(v.subarray(8));
    if (skips.size > 4096) skips.clear();
    skips.set(vb, s);
  }
  return s;
}

function putVarint(buf: Uint8Array, pos: number, v: number): number {
  let z = v >= 0 ? v * 2 : -v * 2 - 1;
  while (z >= 128) {
    buf[pos++] = (z % 128) | 0x80;
    z = Math.floor(z / 128);
  }
  buf[pos++] = z;
  return pos;
}

/** `v` as a zigzag varint one byte longer than it needs (a continuation bit on its last byte, then a zero byte). */
function putLongVarint(buf: Uint8Array, pos: number, v: number): number {
  const end = putVarint(buf, pos, v);
  buf[end - 1] |= 0x80;
  buf[end] = 0;
  return end + 1;
}

/** The byte of a record's key, when a key pads a record to its size. */
const KEY_BYTE = 0x6b; // 'k'

/**
 * Writes one batch at `at` in `w` (sized by the caller), exactly `b.bytes` bytes long, and
 * returns where it ends. The model sizes a batch as it lies on disk, header included; its
 * records share what the header leaves (each its smallest size, then an even share of the
 * rest, the first few one byte more), so a file is byte for
 * byte as big as the model says and every position the model computes is the file's.
 * The CRC is fed as the bytes are written; a value's filler is the same block each time, so
 * the CRC skips it in four look-ups instead of reading it.
 */
function writeBatch(w: Writer, at: number, b: RecordBatch): number {
  const count = b.lastOffset - b.baseOffset + 1;
  const need = minBatchBytes(count);
  const why = tooSmall(b, count, need);
  if (why !== null) throw new Error(why);
  const buf = w.buf;
  const view = w.view;
  view.setBigInt64(at, BigInt(b.baseOffset));
  const lengthAt = at + 8;
  view.setInt32(at + 12, b.leaderEpoch);
  view.setInt8(at + 16, 2);
  const crcAt = at + 17;
  const crcFrom = at + 21;
  view.setInt16(crcFrom, 0); // attributes: no compression, CreateTime, not transactional, not control
  view.setInt32(crcFrom + 2, count - 1);
  view.setBigInt64(crcFrom + 6, BigInt(b.appendedMs));
  view.setBigInt64(crcFrom + 14, BigInt(b.appendedMs));
  view.setBigInt64(crcFrom + 22, BigInt(b.producerId));
  view.setInt16(crcFrom + 30, 0);
  view.setInt32(crcFrom + 32, b.baseSequence);
  view.setInt32(crcFrom + 36, count);
  let pos = crcFrom + 40;
  // Each record gets its smallest size, then an even share of what is left.
  const spare = b.bytes - need;
  const base = Math.floor(spare / count);
  const rem = spare - base * count;
  let reg = 0xffffffff;
  let fed = crcFrom;
  let carry = 0;
  // The last layout looked up: consecutive records mostly share one.
  let lastKey = -1;
  let packed = 0;
  for (let i = 0; i < count; i++) {
    const d = i < 64 ? 1 : varintSize(i);
    let size = 6 + d + (i < rem ? base + 1 : base) + carry;
    carry = 0;
    if (i + 1 < count && !plainSize(size)) {
      size--;
      carry = 1;
    }
    if (size * 8 + d !== lastKey) {
      lastKey = size * 8 + d;
      packed = recordLayout(d, size);
    }
    const vb = Math.floor(packed / 8);
    const kb = packed & 3;
    const extra = packed & 4;
    const keyPart = kb === 0 ? 1 : 1 + kb;
    const body = 3 + d + keyPart + (vb < 64 ? 1 : varintSize(vb)) + vb;
    if (extra === 0) pos = putVarint(buf, pos, body);
    else pos = putLongVarint(buf, pos, body);
    buf[pos++] = 0; // attributes
    buf[pos++] = 0; // timestampDelta 0
    pos = putVarint(buf, pos, i); // offsetDelta
    if (kb === 0) buf[pos++] = 1; // key length -1 (null)
    else {
      pos = putVarint(buf, pos, kb);
      for (let k = 0; k < kb; k++) buf[pos++] = KEY_BYTE;
    }
    pos = putVarint(buf, pos, vb);
    const offset = b.baseOffset + i;
    const hi = Math.floor(offset / 0x100000000);
    const lo = offset >>> 0;
    const head = Math.min(8, vb);
    for (let k = 0; k < head; k++) buf[pos + k] = k < 4 ? (hi >>> (24 - 8 * k)) & 0xff : (lo >>> (56 - 8 * k)) & 0xff;
    pos += head;
    if (vb > 8) {
      const skip = fillerSkip(vb);
      reg = crc32cUpdate(reg, buf, fed, pos);
      buf.set(fillerBlock.subarray(8, vb), pos);
      reg = crc32cSkip(reg, skip);
      pos += vb - 8;
      fed = pos;
    }
    buf[pos++] = 0; // no headers
  }
  reg = crc32cUpdate(reg, buf, fed, pos);
  view.setInt32(lengthAt, pos - lengthAt - 4);
  view.setUint32(crcAt, (reg ^ 0xffffffff) >>> 0);
  return pos;
}

/** One batch as RecordBatch v2 bytes: `b.bytes` of them, in one allocation. */
export function encodeBatch(b: RecordBatch): Uint8Array {
  const w = new Writer(b.bytes);
  writeBatch(w, 0, b);
  return w.buf;
}

/**
 * Several batches, back to back, as in a segment's `.log` file, in one allocation; with the
 * byte position of each batch (what the segment's offset index records, and where the model
 * puts it too). `buffer(size)` may lend a buffer of at least `size` bytes to write into
 * instead (its old contents do not matter: every byte is written); the bytes returned are
 * then a view of it.
 */
export function encodeBatchesWithPositions(batches: readonly RecordBatch[], buffer?: (size: number) => Uint8Array): { bytes: Uint8Array; positions: number[] } {
  let total = 0;
  for (const b of batches) total += b.bytes;
  const w = new Writer(total, buffer?.(total));
  const positions: number[] = [];
  let pos = 0;
  for (const b of batches) {
    positions.push(pos);
    pos = writeBatch(w, pos, b);
  }
  return { bytes: w.buf.length === total ? w.buf : w.buf.subarray(0, total), positions };
}

/** Several batches, back to back, as in a segment's `.log` file. */
export function encodeBatches(batches: readonly RecordBatch[]): Uint8Array {
  return encodeBatchesWithPositions(batches).bytes;
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
