/**
 * Kafka's RecordBatch v2 encoding (groundwork for writing real segment objects): CRC-32C
 * against the standard check value, a round trip, and an independent decoder (kafkajs)
 * reading what we write.
 */
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import type { RecordBatch } from '../core/domain/partition-log.js';
import { crc32c } from '../core/format/crc32c.js';
import { BATCH_HEADER_BYTES, decodeBatches, encodeBatch, encodeBatches } from '../core/format/record-batch.js';
import { runBundled } from './support/run.js';

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
});

describe('RecordBatch v2', () => {
  test('round trip: offsets, epoch, producer, sequence, record count and sizes; CRC valid', () => {
    const b = batch();
    const bytes = encodeBatch(b, { valueBytes: 1000 });
    const [d] = decodeBatches(bytes);
    expect(d).toMatchObject({
      baseOffset: 100, lastOffset: 115, partitionLeaderEpoch: 2, magic: 2, crcValid: true,
      producerId: 1, baseSequence: 100, baseTimestamp: 1234, position: 0, sizeBytes: bytes.length,
    });
    expect(d.records.map((r) => r.offset)).toEqual(Array.from({ length: 16 }, (_, i) => 100 + i));
    expect(d.records.every((r) => r.valueBytes === 1000)).toBe(true);
    expect(bytes.length).toBeGreaterThan(BATCH_HEADER_BYTES + 16 * 1000);
  });

  test('a flipped byte fails the CRC', () => {
    const bytes = encodeBatch(batch(), { valueBytes: 10 });
    bytes[bytes.length - 3] ^= 0xff;
    expect(decodeBatches(bytes)[0].crcValid).toBe(false);
  });

  test('kafkajs decodes what we write', async () => {
    const bytes = encodeBatch(batch({ baseOffset: 7, lastOffset: 9, leaderEpoch: 5 }), { valueBytes: 20 });
    const decoded = await decodeRecordBatch(new KafkaDecoder(Buffer.from(bytes)));
    expect(decoded.firstOffset).toBe('7');
    expect(decoded.partitionLeaderEpoch).toBe(5);
    expect(decoded.producerId).toBe('1');
    expect(decoded.records.map((r: { offset: string }) => r.offset)).toEqual(['7', '8', '9']);
    expect(decoded.records[0].value.length).toBe(20);
    expect(decoded.records[0].key).toBeNull();
  });

  test('a segment from a real run: every batch decodes with its offsets and epochs', () => {
    const { kernel } = runBundled('kip1023-leader-epochs');
    const log = kernel.replica('orders-0', 0).log;
    const batches = log.segments.flatMap((s) => s.batches);
    const bytes = encodeBatches(batches, { valueBytes: 1000 });
    const decoded = decodeBatches(bytes);
    expect(decoded.map((d) => [d.baseOffset, d.lastOffset, d.partitionLeaderEpoch, d.crcValid])).toEqual(
      batches.map((b) => [b.baseOffset, b.lastOffset, b.leaderEpoch, true]),
    );
  });
});
