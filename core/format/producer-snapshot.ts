/**
 * Kafka's producer snapshot file (`<base offset>.snapshot`, version 1), as the broker writes
 * it when a segment rolls and as a remote storage plugin uploads it beside the segment:
 *
 *   version int16 (1), crc uint32 (CRC-32C of everything after it),
 *   producer_entries: int32 count, then per entry
 *     producer_id int64, epoch int16, last_sequence int32, last_offset int64,
 *     offset_delta int32, timestamp int64, coordinator_epoch int32,
 *     current_txn_first_offset int64.
 *
 * A follower building its remote auxiliary state reads this file back to restore the
 * producer state it skipped.
 */
import type { ProducerEntry } from '../domain/producer-state.js';
import { crc32c } from './crc32c.js';

export const PRODUCER_SNAPSHOT_VERSION = 1;
const ENTRY_BYTES = 46;
const ENTRIES_AT = 6;

export function encodeProducerSnapshot(entries: readonly ProducerEntry[]): Uint8Array {
  const out = new Uint8Array(ENTRIES_AT + 4 + ENTRY_BYTES * entries.length);
  const v = new DataView(out.buffer);
  v.setInt16(0, PRODUCER_SNAPSHOT_VERSION);
  v.setInt32(ENTRIES_AT, entries.length);
  let p = ENTRIES_AT + 4;
  for (const e of entries) {
    v.setBigInt64(p, BigInt(e.producerId));
    v.setInt16(p + 8, e.producerEpoch);
    v.setInt32(p + 10, e.lastSequence);
    v.setBigInt64(p + 14, BigInt(e.lastOffset));
    v.setInt32(p + 22, e.offsetDelta);
    v.setBigInt64(p + 26, BigInt(e.timestamp));
    v.setInt32(p + 34, e.coordinatorEpoch);
    v.setBigInt64(p + 38, BigInt(e.currentTxnFirstOffset));
    p += ENTRY_BYTES;
  }
  v.setUint32(2, crc32c(out, ENTRIES_AT));
  return out;
}

/** Reads a snapshot file; throws with the reason when it is not one (short, wrong version, bad CRC). */
export function decodeProducerSnapshot(bytes: Uint8Array): ProducerEntry[] {
  if (bytes.length < ENTRIES_AT + 4) throw new Error(`producer snapshot is ${bytes.length} bytes, shorter than its header`);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = v.getInt16(0);
  if (version !== PRODUCER_SNAPSHOT_VERSION) throw new Error(`producer snapshot version ${version}, expected ${PRODUCER_SNAPSHOT_VERSION}`);
  const count = v.getInt32(ENTRIES_AT);
  if (count < 0 || ENTRIES_AT + 4 + count * ENTRY_BYTES !== bytes.length) throw new Error(`producer snapshot says ${count} entries but has ${bytes.length} bytes`);
  if (v.getUint32(2) !== crc32c(bytes, ENTRIES_AT)) throw new Error('producer snapshot CRC-32C mismatch');
  const out: ProducerEntry[] = [];
  let p = ENTRIES_AT + 4;
  for (let i = 0; i < count; i++) {
    out.push({
      producerId: Number(v.getBigInt64(p)),
      producerEpoch: v.getInt16(p + 8),
      lastSequence: v.getInt32(p + 10),
      lastOffset: Number(v.getBigInt64(p + 14)),
      offsetDelta: v.getInt32(p + 22),
      timestamp: Number(v.getBigInt64(p + 26)),
      coordinatorEpoch: v.getInt32(p + 34),
      currentTxnFirstOffset: Number(v.getBigInt64(p + 38)),
    });
    p += ENTRY_BYTES;
  }
  return out;
}
