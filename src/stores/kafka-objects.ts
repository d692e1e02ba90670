/**
 * How the model's stored objects become files in Kafka's formats and back: segment `.log`
 * files as RecordBatch v2, `.index` files as Kafka's offset index (relative offset int32,
 * position int32 per batch), and text objects (leader-epoch checkpoint, producer snapshot)
 * as bytes. Shared by the directory and S3 stores.
 */
import type { RecordBatch } from '../../core/domain/partition-log.js';
import { decodeBatches, encodeBatchesWithPositions } from '../../core/format/record-batch.js';
import type { StoredObject } from '../../core/ports/object-store.js';

/** The base offset in a key `<topic>-<partition>/<20-digit base>-<id>.<ext>`. */
function baseOffsetOf(key: string): number {
  const m = /\/(\d{20})-[^/]*$/.exec(key);
  return m ? Number(m[1]) : 0;
}

const stem = (key: string) => key.replace(/\.[a-z_]+$/, '');

export function encodeObject(key: string, object: StoredObject, positions: Map<string, number[]>): Uint8Array {
  const body = object.body;
  if (body.kind === 'segment') {
    const { bytes, positions: at } = encodeBatchesWithPositions(body.batches, valueBytesOf);
    positions.set(stem(key), at);
    return bytes;
  }
  if (key.endsWith('.index')) {
    // Kafka's offset index: one entry per batch, relative offset and physical position.
    const offsets = body.text.length === 0 ? [] : body.text.split('\n').map(Number);
    const base = baseOffsetOf(key);
    const at = positions.get(stem(key)) ?? [];
    positions.delete(stem(key));
    const out = new Uint8Array(offsets.length * 8);
    const view = new DataView(out.buffer);
    offsets.forEach((o, i) => {
      view.setInt32(i * 8, o - base);
      view.setInt32(i * 8 + 4, at[i] ?? 0);
    });
    return out;
  }
  return Uint8Array.from(body.text, (c) => c.charCodeAt(0) & 0xff);
}

export function decodeObject(key: string, bytes: Uint8Array): StoredObject {
  if (key.endsWith('.log')) {
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
    const base = baseOffsetOf(key);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const offsets: number[] = [];
    for (let i = 0; i + 8 <= bytes.length; i += 8) offsets.push(base + view.getInt32(i));
    return { bytes: bytes.length, body: { kind: 'text', text: offsets.join('\n') } };
  }
  const text = String.fromCharCode(...bytes);
  return { bytes: bytes.length, body: { kind: 'text', text } };
}

/** The model's records are `bytes / count` bytes each. */
function valueBytesOf(b: RecordBatch): number {
  const count = b.lastOffset - b.baseOffset + 1;
  return Math.floor(b.bytes / count);
}
