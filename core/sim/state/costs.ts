/**
 * Zones and money: the counters the kernel keeps for cross-zone transfer, object-store
 * requests and stored bytes, and the cost of a run priced with core/domain/prices.ts.
 * Everything is computed from the model (bytes and simulated milliseconds), never from a
 * clock, so a seed gives the same figures on every store and engine.
 *
 * The kernel calls the counting functions at a few call sites; they only touch the plain
 * data passed in (kept in the kernel state, so checkpoints carry them). Stored bytes are
 * integrated over simulated time at every change, O(1) per change.
 * Leaves out: anything AWS charges that the model has no traffic for (LIST results
 * paging, multipart parts, request retries inside an SDK, EBS provisioned capacity).
 */
import { BYTES_PER_GB, MS_PER_MONTH, type Prices } from '../../domain/prices.js';
import type { StoreName } from '../../ports/object-store.js';

/** Bytes that crossed between availability zones, by what carried them. */
export interface CrossZoneBytes {
  /** Record bytes of follower Fetch responses from a leader in another zone. */
  replication: number;
  /** Record bytes of produce requests sent to a leader in another zone than the producer. */
  produce: number;
  /** Record bytes of consumer Fetch responses from a broker in another zone than the consumer. */
  consume: number;
  /** Bytes of WAL metadata records read or written across zones (KIP-1176 mode). */
  walMetadata: number;
}

export type CrossZoneKind = keyof CrossZoneBytes;

/** Requests billed by one object store and the bytes they moved. */
export interface StoreCounters {
  puts: number;
  gets: number;
  deletes: number;
  /** LIST requests (billed at the PUT rate). */
  lists: number;
  /** Bytes of successful PUTs. */
  bytesPut: number;
  /** Bytes of successful GETs (the range for a ranged GET). */
  bytesGot: number;
}

/** Where bytes are held: the two object stores, and the brokers' disks (local logs). */
export type StorageName = StoreName | 'localDisk';
const STORAGE: readonly StorageName[] = ['tiered', 'wal', 'localDisk'];
const STORES: readonly StoreName[] = ['tiered', 'wal'];

/** What the cost needs beyond the counters of `metrics`; plain data in the kernel state. */
export interface Usage {
  /** Per store: bytes of successful PUTs above the store's free part of each request. */
  billableBytesPut: Record<StoreName, number>;
  /** Per store: bytes of successful GETs above the store's free part of each request. */
  billableBytesGot: Record<StoreName, number>;
  /** Bytes held now. */
  storedBytes: Record<StorageName, number>;
  /** The integral of `storedBytes` over simulated time, byte-milliseconds, up to `integratedToMs`. */
  storedByteMs: Record<StorageName, number>;
  integratedToMs: number;
  /** Size of every object held, per store (a DELETE's result does not say how big the object was). */
  objectBytes: Record<StoreName, Record<string, number>>;
}

export function newCrossZoneBytes(): CrossZoneBytes {
  return { replication: 0, produce: 0, consume: 0, walMetadata: 0 };
}

export function newStoreCounters(): Record<StoreName, StoreCounters> {
  const one = (): StoreCounters => ({ puts: 0, gets: 0, deletes: 0, lists: 0, bytesPut: 0, bytesGot: 0 });
  return { tiered: one(), wal: one() };
}

export function newUsage(): Usage {
  return {
    billableBytesPut: { tiered: 0, wal: 0 },
    billableBytesGot: { tiered: 0, wal: 0 },
    storedBytes: { tiered: 0, wal: 0, localDisk: 0 },
    storedByteMs: { tiered: 0, wal: 0, localDisk: 0 },
    integratedToMs: 0,
    objectBytes: { tiered: {}, wal: {} },
  };
}

/** Adds `bytes` to `kind` when the two zones differ. */
export function countCrossZone(c: CrossZoneBytes, kind: CrossZoneKind, fromZone: string, toZone: string, bytes: number): void {
  if (fromZone !== toZone) c[kind] += bytes;
}

/** Brings the storage integral up to `nowMs` (time never goes back). */
export function integrateStorage(u: Usage, nowMs: number): void {
  const dt = nowMs - u.integratedToMs;
  if (dt <= 0) return;
  for (const s of STORAGE) u.storedByteMs[s] += u.storedBytes[s] * dt;
  u.integratedToMs = nowMs;
}

/** Bytes held in `where` change by `deltaBytes` at `nowMs`. */
export function changeStoredBytes(u: Usage, where: StorageName, deltaBytes: number, nowMs: number): void {
  if (deltaBytes === 0) return;
  integrateStorage(u, nowMs);
  u.storedBytes[where] += deltaBytes;
}

/** An object of `bytes` is now held under `key` (a PUT, or an object present at t = 0). */
export function objectStored(u: Usage, store: StoreName, key: string, bytes: number, nowMs: number): void {
  const held = u.objectBytes[store];
  const before = Object.prototype.hasOwnProperty.call(held, key) ? held[key] : 0;
  held[key] = bytes;
  changeStoredBytes(u, store, bytes - before, nowMs);
}

/** The object under `key` is gone (a DELETE; deleting a missing key changes nothing). */
export function objectDeleted(u: Usage, store: StoreName, key: string, nowMs: number): void {
  const held = u.objectBytes[store];
  if (!Object.prototype.hasOwnProperty.call(held, key)) return;
  const before = held[key];
  delete held[key];
  changeStoredBytes(u, store, -before, nowMs);
}

/** Bytes of a request above the part free of per-GB fees. */
export function billableBytes(bytes: number, freePerRequestBytes: number): number {
  return Math.max(0, bytes - freePerRequestBytes);
}

export function freeTransferPerRequestBytes(prices: Prices, store: StoreName): number {
  return store === 'tiered' ? prices.tieredFreeTransferPerRequestBytes : prices.walFreeTransferPerRequestBytes;
}

/**
 * One request issued to an available store, with its final result: every request is
 * billed, bytes only for successful ones. Stored bytes follow successful PUTs and DELETEs.
 */
export function countStoreRequest(
  counters: Record<StoreName, StoreCounters>,
  u: Usage,
  prices: Prices,
  req: { op: 'put' | 'get' | 'delete' | 'list'; store: StoreName; key: string; objectBytes?: number },
  result: { ok: boolean; bytes: number },
  nowMs: number,
): void {
  const c = counters[req.store];
  const free = freeTransferPerRequestBytes(prices, req.store);
  switch (req.op) {
    case 'put':
      c.puts++;
      if (!result.ok) return;
      c.bytesPut += result.bytes;
      u.billableBytesPut[req.store] += billableBytes(result.bytes, free);
      objectStored(u, req.store, req.key, req.objectBytes ?? result.bytes, nowMs);
      return;
    case 'get':
      c.gets++;
      if (!result.ok) return;
      c.bytesGot += result.bytes;
      u.billableBytesGot[req.store] += billableBytes(result.bytes, free);
      return;
    case 'delete':
      c.deletes++;
      if (result.ok) objectDeleted(u, req.store, req.key, nowMs);
      return;
    case 'list':
      c.lists++;
      return;
  }
}

/** Rounds USD to 6 decimals (a millionth of a dollar), so outputs are stable. */
export function roundUsd(usd: number): number {
  const r = Math.round(usd * 1e6) / 1e6;
  return r === 0 ? 0 : r; // no -0
}

export interface CostUsd {
  crossZone: number;
  objectStoreRequests: number;
  objectStoreTransfer: number;
  storage: number;
  total: number;
}

/** GB-months held in each place from t = 0 to `endMs` (the integral brought up to the end, `u` unchanged). */
export function gbMonths(u: Usage, endMs: number): Record<StorageName, number> {
  const dt = Math.max(0, endMs - u.integratedToMs);
  const out = { tiered: 0, wal: 0, localDisk: 0 };
  for (const s of STORAGE) out[s] = (u.storedByteMs[s] + u.storedBytes[s] * dt) / BYTES_PER_GB / MS_PER_MONTH;
  return out;
}

/**
 * The cost of a run from t = 0 to `endMs`. Each part is rounded to 6 decimals and the
 * total is the sum of the rounded parts, so the output adds up (`round` false: unrounded).
 */
export function costUsd(crossZone: CrossZoneBytes, counters: Record<StoreName, StoreCounters>, u: Usage, prices: Prices, endMs: number, round = true): CostUsd {
  const zoneBytes = crossZone.replication + crossZone.produce + crossZone.consume + crossZone.walMetadata;
  const crossZoneUsd = (zoneBytes / BYTES_PER_GB) * 2 * prices.crossZoneUsdPerGbEachDirection;
  const rate = {
    tiered: { put: prices.tieredPutUsdPer1000, get: prices.tieredGetUsdPer1000, del: prices.tieredDeleteUsdPer1000, up: prices.tieredUploadUsdPerGb, down: prices.tieredRetrievalUsdPerGb },
    wal: { put: prices.walPutUsdPer1000, get: prices.walGetUsdPer1000, del: prices.walDeleteUsdPer1000, up: prices.walUploadUsdPerGb, down: prices.walRetrievalUsdPerGb },
  };
  let requests = 0;
  let transfer = 0;
  for (const s of STORES) {
    const c = counters[s];
    const r = rate[s];
    requests += ((c.puts + c.lists) * r.put + c.gets * r.get + c.deletes * r.del) / 1000;
    transfer += (u.billableBytesPut[s] * r.up + u.billableBytesGot[s] * r.down) / BYTES_PER_GB;
  }
  const held = gbMonths(u, endMs);
  const storage = held.tiered * prices.tieredStorageUsdPerGbMonth + held.wal * prices.walStorageUsdPerGbMonth + held.localDisk * prices.localDiskUsdPerGbMonth;
  // Unrounded figures are for extrapolation (compare's month), never for output.
  const r = round ? roundUsd : (x: number) => x;
  const parts = {
    crossZone: r(crossZoneUsd),
    objectStoreRequests: r(requests),
    objectStoreTransfer: r(transfer),
    storage: r(storage),
  };
  return { ...parts, total: r(parts.crossZone + parts.objectStoreRequests + parts.objectStoreTransfer + parts.storage) };
}
