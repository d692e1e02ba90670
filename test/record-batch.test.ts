/**
 * Kafka's RecordBatch v2 encoding (groundwork for writing real segment objects): CRC-32C
 * against the standard check value, a round trip, and an independent decoder (kafkajs)
 * reading what we write.
 */
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import type { RecordBatch } from '../core/domain/partition-log.js';
import { crc32c, crc32cSkip, crc32cSkipOf, crc32cUpdate } from '../core/format/crc32c.js';
import { BATCH_HEADER_BYTES, decodeBatches, encodeBatch, encodeBatchesWithPositions, minBatchBytes, unencodable } from '../core/format/record-batch.js';
import { batchIndexOf } from '../core/domain/remote-metadata.js';
import { runBundled } from './support/run.js';
import { type ProducerEntry, producerSnapshotBytes } from '../core/domain/producer-state.js';
import { decodeProducerSnapshot, encodeProducerSnapshot } from '../core/format/producer-snapshot.js';

const require = createRequire(import.meta.url);
const KafkaDecoder = require('kafkajs/src/protocol/decoder');
const decodeRecordBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder');

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

const batch = (o: Partial<RecordBatch> = {}): RecordBatch => ({
  baseOffset: 100,
  lastOffset: 115,
  leaderEpoch: 2,
  producerId: 1,
  baseSequence: 100,
  bytes: 16 * 1024,
  appendedMs: 1234,
  ...o,
});

describe('CRC-32C', () => {
  test.each([
    ['123456789', 0xe3069283],
    ['', 0],
    ['a', 0xc1d04330],
  ])('crc32c(%j)', (s, expected) => {
    expect(crc32c(ascii(s))).toBe(expected);
  });

  // The encoder skips each value's filler with crc32cSkip; it must equal reading the bytes.
  test.each([1, 7, 8, 9, 100, 1016, 70000])('skipping a %i-byte block equals feeding it', (n) => {
    const block = Uint8Array.from({ length: n }, (_, i) => (i * 131 + 7) & 0xff);
    const head = ascii('tierscope');
    const tail = ascii('end');
    const whole = new Uint8Array(head.length + n + tail.length);
    whole.set(head);
    whole.set(block, head.length);
    whole.set(tail, head.length + n);
    let reg = crc32cUpdate(0xffffffff, head);
    reg = crc32cSkip(reg, crc32cSkipOf(block));
    reg = crc32cUpdate(reg, tail);
    expect((reg ^ 0xffffffff) >>> 0).toBe(crc32c(whole));
  });
});

describe('RecordBatch v2', () => {
  test('round trip: offsets, epoch, producer, sequence, record count; exactly the model\'s bytes; CRC valid', () => {
    const b = batch();
    const bytes = encodeBatch(b);
    expect(bytes.length).toBe(16 * 1024);
    const [d] = decodeBatches(bytes);
    expect(d).toMatchObject({
      baseOffset: 100, lastOffset: 115, partitionLeaderEpoch: 2, magic: 2, crcValid: true,
      producerId: 1, baseSequence: 100, baseTimestamp: 1234, position: 0, sizeBytes: 16 * 1024,
    });
    expect(d.records.map((r) => r.offset)).toEqual(Array.from({ length: 16 }, (_, i) => 100 + i));
    // The header's 61 bytes come out of the records: (16384 - 61) / 16 = 1020.2 bytes a record, 9 of them around the value.
    expect(new Set(d.records.map((r) => r.valueBytes))).toEqual(new Set([1012, 1011]));
  });

  test.each([1, 2, 3, 63, 64, 65, 200])('a batch of %i records is exactly its model size, for every size from the smallest up', (count) => {
    // Goal: no size is out of reach (varint lengths grow at 64 and 8192 bytes; a short key fills the gap).
    // Method: every size from minBatchBytes(count) through 20,000 bytes (and past 8,192 bytes a record for one record): encode, decode, compare.
    const min = minBatchBytes(count);
    const sizes = Array.from({ length: 20_000 - min + 1 }, (_, i) => min + i);
    if (count === 1) sizes.push(...Array.from({ length: 200 }, (_, i) => 8100 + i * 3), 70_000);
    for (const size of sizes) {
      const b = batch({ baseOffset: 5, lastOffset: 4 + count, bytes: size });
      const bytes = encodeBatch(b);
      if (bytes.length !== size) throw new Error(`${count} records in ${size} bytes: encoded ${bytes.length}`);
      const [d] = decodeBatches(bytes);
      if (!d.crcValid || d.sizeBytes !== size || d.records.length !== count || d.records[count - 1].offset !== 4 + count) throw new Error(`${count} records in ${size} bytes: decoded ${JSON.stringify({ crc: d.crcValid, size: d.sizeBytes, records: d.records.length })}`);
    }
  });

  test('a batch too small for its records is refused with the reason', () => {
    expect(minBatchBytes(1)).toBe(BATCH_HEADER_BYTES + 7);
    const b = batch({ lastOffset: 100, bytes: 10 });
    expect(unencodable(b)).toBe('the batch at offset 100 is 10 bytes in the model, fewer than the 68 a RecordBatch v2 of 1 record needs');
    expect(() => encodeBatch(b)).toThrow('fewer than the 68');
    expect(unencodable(batch())).toBeNull();
  });

  test('encoding into a lent buffer that held other bytes gives the same bytes', () => {
    // Goal: the S3 store lends reused buffers to the encoder; none of their old bytes may leak.
    // Method: encode a segment fresh, then into a larger buffer filled with 0xAB; compare.
    const batches: RecordBatch[] = Array.from({ length: 9 }, (_, i) => ({ baseOffset: i * 7, lastOffset: i * 7 + 6, leaderEpoch: i % 3, producerId: 1, baseSequence: i * 7, bytes: 7 * (i % 2 ? 1024 : 70), appendedMs: 1000 + i }));
    const fresh = encodeBatchesWithPositions(batches);
    const dirty = new Uint8Array(fresh.bytes.length + 4096).fill(0xab);
    const lent = encodeBatchesWithPositions(batches, () => dirty);
    expect(lent.bytes.length).toBe(fresh.bytes.length);
    expect(Buffer.from(lent.bytes).equals(Buffer.from(fresh.bytes))).toBe(true);
    expect(lent.positions).toEqual(fresh.positions);
    expect(decodeBatches(lent.bytes).every((d) => d.crcValid)).toBe(true);
  });

  test('a flipped byte fails the CRC', () => {
    const bytes = encodeBatch(batch({ bytes: 16 * 20 + 61 }));
    bytes[bytes.length - 3] ^= 0xff;
    expect(decodeBatches(bytes)[0].crcValid).toBe(false);
  });

  test('kafkajs decodes what we write, a padding key included', async () => {
    // 3 records in 142 bytes: 27 bytes a record, a 20-byte value and a null key.
    const plain = await decodeRecordBatch(new KafkaDecoder(Buffer.from(encodeBatch(batch({ baseOffset: 7, lastOffset: 9, leaderEpoch: 5, bytes: 61 + 3 * 27 })))));
    expect(plain.firstOffset).toBe('7');
    expect(plain.partitionLeaderEpoch).toBe(5);
    expect(plain.producerId).toBe('1');
    expect(plain.records.map((r: { offset: string }) => r.offset)).toEqual(['7', '8', '9']);
    expect(plain.records.map((r: { value: Buffer }) => r.value.length)).toEqual([20, 20, 20]);
    expect(plain.records[0].key).toBeNull();
    // One record of 72 bytes: a 63-byte value makes 71 and a 64-byte one 73 (its length takes two bytes), so a one-byte key fills the gap.
    const padded = await decodeRecordBatch(new KafkaDecoder(Buffer.from(encodeBatch(batch({ baseOffset: 7, lastOffset: 7, bytes: 61 + 72 })))));
    expect(padded.records).toHaveLength(1);
    expect(padded.records[0].key?.toString()).toBe('k');
    expect(padded.records[0].value.readBigInt64BE(0)).toBe(7n);
    // One record of 65 bytes: no body gives it (63 bytes and a one-byte length make 64, 64 and a two-byte length 66), so its length takes two bytes.
    const long = encodeBatch(batch({ baseOffset: 7, lastOffset: 7, bytes: 61 + 65 }));
    expect(long.length).toBe(126);
    const longDecoded = await decodeRecordBatch(new KafkaDecoder(Buffer.from(long)));
    expect(longDecoded.records).toHaveLength(1);
    expect(longDecoded.records[0].value.length).toBe(57);
    expect(decodeBatches(long)[0]).toMatchObject({ crcValid: true, sizeBytes: 126 });
  });

  test('a segment from a real run: every batch decodes with its offsets, epochs and sizes; positions are the model\'s', () => {
    const { kernel } = runBundled('kip1023-leader-epochs');
    const log = kernel.replica('orders-0', 0).log;
    const batches = log.segments.flatMap((s) => s.batches);
    const { bytes, positions } = encodeBatchesWithPositions(batches);
    const decoded = decodeBatches(bytes);
    expect(decoded.map((d) => [d.baseOffset, d.lastOffset, d.partitionLeaderEpoch, d.sizeBytes, d.crcValid])).toEqual(
      batches.map((b) => [b.baseOffset, b.lastOffset, b.leaderEpoch, b.bytes, true]),
    );
    expect(positions).toEqual(batchIndexOf(batches).map(([, , pos]) => pos));
  });
});

describe("Kafka's producer snapshot file", () => {
  const entries: ProducerEntry[] = [
    { producerId: 1, producerEpoch: 0, lastSequence: 99, lastOffset: 99, offsetDelta: 15, timestamp: 1234, coordinatorEpoch: -1, currentTxnFirstOffset: -1 },
    { producerId: 2 ** 40, producerEpoch: 3, lastSequence: 7, lastOffset: 2 ** 33, offsetDelta: 0, timestamp: 1_700_000_000_000, coordinatorEpoch: -1, currentTxnFirstOffset: -1 },
  ];

  test('version 1 layout: version, CRC-32C of the rest, int32 count, 46 bytes an entry', () => {
    const bytes = encodeProducerSnapshot(entries);
    expect(bytes.length).toBe(producerSnapshotBytes(entries));
    expect(bytes.length).toBe(2 + 4 + 4 + 46 * 2);
    const v = new DataView(bytes.buffer);
    expect(v.getInt16(0)).toBe(1);
    expect(v.getUint32(2)).toBe(crc32c(bytes, 6));
    expect(v.getInt32(6)).toBe(2);
    // First entry: producer_id int64, epoch int16, last_sequence int32, last_offset int64 ...
    expect(v.getBigInt64(10)).toBe(1n);
    expect(v.getInt16(18)).toBe(0);
    expect(v.getInt32(20)).toBe(99);
    expect(v.getBigInt64(24)).toBe(99n);
    expect(v.getInt32(32)).toBe(15);
    expect(v.getBigInt64(36)).toBe(1234n);
    expect(v.getInt32(44)).toBe(-1);
    expect(v.getBigInt64(48)).toBe(-1n);
  });

  test('reads back what it writes, and refuses a damaged file with the reason', () => {
    const bytes = encodeProducerSnapshot(entries);
    expect(decodeProducerSnapshot(bytes)).toEqual(entries);
    expect(decodeProducerSnapshot(encodeProducerSnapshot([]))).toEqual([]);
    const flipped = bytes.slice();
    flipped[30] ^= 1;
    expect(() => decodeProducerSnapshot(flipped)).toThrow(/CRC-32C mismatch/);
    const v2 = bytes.slice();
    v2[1] = 2;
    expect(() => decodeProducerSnapshot(v2)).toThrow(/version 2/);
    expect(() => decodeProducerSnapshot(bytes.subarray(0, 5))).toThrow(/shorter than its header/);
    expect(() => decodeProducerSnapshot(bytes.subarray(0, bytes.length - 1))).toThrow(/says 2 entries/);
  });
});
