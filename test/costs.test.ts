/**
 * Zones and money (issue 6, part 2): bytes across zones, object-store requests per store,
 * stored bytes over time and the cost of a run, priced with docs/protocol.md §8's table.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BYTES_PER_GB, MS_PER_MONTH, resolvePrices } from '../core/domain/prices.js';
import { localBytes } from '../core/domain/partition-log.js';
import { validateScenario } from '../core/scenario/parse.js';
import { costUsd, countStoreRequest, gbMonths, newCrossZoneBytes, newStoreCounters, newUsage, roundUsd } from '../core/sim/state/costs.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { MemoryObjectStore, type ObjectStoreRequest, type ObjectStoreResult } from '../core/ports/object-store.js';
import { buildRunJson, type RunJson } from '../core/sim/loop/output.js';
import { type Loose, ROOT, loadBundled } from './support/run.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Raw = any;

function kernelOf(raw: unknown): Kernel {
  const parsed = validateScenario(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const k = new Kernel(parsed.scenario);
  k.runToEnd();
  return k;
}

function run(raw: unknown): RunJson {
  return buildRunJson(kernelOf(raw));
}

const m = (json: RunJson) => json.metrics as Loose;
const MiB = 1048576;

describe('cross-zone bytes', () => {
  const N = 100;
  const RB = 1000;
  const rf3 = (zones: string[], model: Record<string, unknown> = {}): Raw => ({
    name: 'rf3',
    brokers: 3,
    zones,
    model: { recordBytes: RB, ...model },
    topics: [{ name: 't', partitions: 1, replicas: [[0, 1, 2]] }],
    timeline: [{ at: 0, produce: { topic: 't', partition: 0, records: N, acks: 'all' } }],
    until: 5000,
  });

  test('RF 3 across zones a, b, c: replication moves every produced byte twice across zones', () => {
    // Goal: the figure KIP-1176 wants to cut, computed by hand.
    // Method: 100 records of 1000 bytes; once both followers have caught up, each fetched
    // all 100 000 bytes from a leader in another zone: 2 * N * recordBytes.
    const json = run(rf3(['a', 'b', 'c']));
    expect(json.violations).toEqual([]);
    for (const r of json.partitions[0].replicas) expect(r.logEndOffset).toBe(N);
    expect(m(json).crossZoneBytes).toEqual({ replication: 2 * N * RB, produce: 0, consume: 0, walMetadata: 0 });
    // The same figure from the trace: Fetch response bytes between brokers in different zones.
    const zoneOf = (b: number) => (json.config.zones as string[])[b];
    const fromTrace = (json.trace as Loose[])
      .filter((e) => e.type === 'response' && e.api === 'Fetch' && typeof e.target === 'number' && zoneOf(e.source) !== zoneOf(e.target))
      .reduce((n, e) => n + e.bytes, 0);
    expect(fromTrace).toBe(2 * N * RB);
  });

  test('only followers in another zone than the leader count', () => {
    expect(m(run(rf3(['a', 'a', 'b']))).crossZoneBytes.replication).toBe(N * RB);
    expect(m(run(rf3(['a']))).crossZoneBytes.replication).toBe(0);
  });

  const clients = (model: Record<string, unknown>): Raw => ({
    name: 'clients',
    brokers: 3,
    zones: ['a', 'b', 'c'],
    model: { recordBytes: RB, crossZoneLatencyMs: 5, ...model },
    topics: [{ name: 't', partitions: 1, replicas: [[0, 1, 2]] }],
    timeline: [
      { at: 0, produce: { topic: 't', partition: 0, records: N, acks: 1 } },
      { at: 1000, produce: { topic: 't', partition: 0, records: N, acks: 'all' } },
      { at: 2000, produce: { topic: 't', partition: 0, records: N, acks: 'all' } },
      { at: 3000, consume: { topic: 't', partition: 0, fromOffset: 0, records: 3 * N } },
    ],
    until: 5000,
  });

  test('clientZone in another zone: produce and consume bytes cross zones, and acks wait one cross-zone round trip', () => {
    // Goal: model.clientZone puts producers and consumers away from the leader (zone a).
    // Method: the same workload with the clients in the leader's zone and in zone b; the
    // cross-zone one-way latency is 5 ms (same zone 1 ms), so every acknowledgement is
    // 2 * (5 - 1) = 8 ms later and no other step moves.
    const near = run(clients({}));
    const far = run(clients({ clientZone: 'b' }));
    for (const json of [near, far]) expect(json.violations).toEqual([]);
    expect(m(near).crossZoneBytes).toMatchObject({ produce: 0, consume: 0 });
    expect(m(far).crossZoneBytes).toMatchObject({ produce: 3 * N * RB, consume: 3 * N * RB });
    expect(m(far).crossZoneBytes.replication).toBe(m(near).crossZoneBytes.replication);
    expect(m(near).produce.acks1).toMatchObject({ count: 1, latencyMsP50: 2 });
    expect(m(far).produce.acks1).toMatchObject({ count: 1, latencyMsP50: 10 });
    const acked = (json: RunJson) => (json.trace as Loose[]).filter((e) => e.type === 'produce' && e.action === 'acknowledged' && e.acks === 'all');
    expect(acked(near)).toHaveLength(2);
    expect(acked(far).map((e) => [e.atMs, e.latencyMs])).toEqual(acked(near).map((e) => [e.atMs, e.latencyMs + 8]));
    expect(m(far).produce.acksAll.latencyMsMax).toBe(m(near).produce.acksAll.latencyMsMax + 8);
    // The consumer read everything either way.
    const finished = (json: RunJson) => (json.trace as Loose[]).find((e) => e.type === 'consume' && e.action === 'finished');
    expect(finished(near)).toMatchObject({ recordsLocal: 3 * N, error: null });
    expect(finished(far)).toMatchObject({ recordsLocal: 3 * N, error: null });
  });

  test("clientZone set to the leader's zone is the default", () => {
    const near = run(clients({}));
    const explicit = run(clients({ clientZone: 'a' }));
    expect(explicit.metrics).toEqual(near.metrics);
    expect(explicit.trace).toEqual(near.trace);
  });

  test("a consumer reading from a follower in another zone crosses zones (it sits in the leader's zone)", () => {
    const raw = clients({});
    raw.timeline[3].consume.broker = 1;
    const json = run(raw);
    expect(m(json).crossZoneBytes.consume).toBe(3 * N * RB);
    expect(m(json).crossZoneBytes.produce).toBe(0);
  });
});

describe('object-store counters and stored bytes', () => {
  const bundled = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));

  test.each(bundled)('%s: counters match the trace; stored bytes match the store and the logs at every step', (name) => {
    // Goal: every request issued to an available store is billed once, with its bytes when
    // it succeeded; requests refused during an outage (ServiceUnavailable) are not.
    // Method: step the run; after each step compare the tracked stored bytes with the
    // store's objects and the replicas' local segments; at the end count the trace.
    const k = new Kernel(loadBundled(name));
    const check = () => {
      const objects = k.objectStore().snapshot();
      for (const store of ['tiered', 'wal'] as const) {
        const held = Object.values(objects[store]).reduce((n, o) => n + o.bytes, 0);
        expect(k.state.usage.storedBytes[store]).toBe(held);
      }
      let local = 0;
      for (const part of Object.values(k.state.partitions)) for (const r of Object.values(part.replicaStates)) local += localBytes(r.log);
      expect(k.state.usage.storedBytes.localDisk).toBe(local);
    };
    check();
    while (k.step()) check();
    const json = buildRunJson(k);
    for (const store of ['tiered', 'wal'] as const) {
      const entries = (json.trace as Loose[]).filter((e) => e.type === 'objectStore' && e.store === store);
      const billed = entries.filter((e) => e.error !== 'ServiceUnavailable');
      const ok = (op: string) => billed.filter((e) => e.op === op && e.ok);
      expect(m(json).objectStore[store]).toEqual({
        puts: billed.filter((e) => e.op === 'put').length,
        gets: billed.filter((e) => e.op === 'get').length,
        deletes: billed.filter((e) => e.op === 'delete').length,
        lists: billed.filter((e) => e.op === 'list').length,
        bytesPut: ok('put').reduce((n, e) => n + e.bytes, 0),
        bytesGot: ok('get').reduce((n, e) => n + e.bytes, 0),
      });
    }
    expect(m(json).storage.localDisk.bytes).toBe(k.state.usage.storedBytes.localDisk);
  });

  test('the bundled scenarios include refused requests, gets and deletes (the rules above are exercised)', () => {
    let refused = 0;
    let gets = 0;
    let deletes = 0;
    for (const name of bundled) {
      const k = new Kernel(loadBundled(name));
      k.runToEnd();
      refused += (k.trace as Loose[]).filter((e) => e.type === 'objectStore' && e.error === 'ServiceUnavailable').length;
      gets += k.state.metrics.objectStore.tiered.gets;
      deletes += k.state.metrics.objectStore.tiered.deletes;
    }
    expect(refused).toBeGreaterThan(0);
    expect(gets).toBeGreaterThan(0);
    expect(deletes).toBeGreaterThan(0);
  });

  /** The memory store, failing the first `failures` GETs as a real store might (HTTP 500). */
  class FlakyStore extends MemoryObjectStore {
    constructor(private failures: number) {
      super();
    }
    override execute(req: ObjectStoreRequest): ObjectStoreResult {
      if (req.op === 'get' && this.failures > 0) {
        this.failures--;
        return { ok: false, bytes: 0, error: 'S3 InternalError (HTTP 500)' };
      }
      return super.execute(req);
    }
  }

  /** The same, answering later, like S3: the kernel fills the result in before the next step. */
  class AsyncFlakyStore extends FlakyStore {
    executeAsync(req: ObjectStoreRequest): Promise<ObjectStoreResult> {
      return new Promise((resolve) => setTimeout(() => resolve(this.execute(req)), 0));
    }
  }

  test('a failed request is billed without bytes; an asynchronous store counts the same', async () => {
    // Goal: a request the store answered with an error is still a request (S3 bills it),
    // and counting once the result is final keeps asynchronous runs identical.
    // Method: kip1023-leader-epochs (aux-state GETs, then a consumer's remote reads) with its
    // first GET failing, on a synchronous and an asynchronous store.
    const name = 'kip1023-leader-epochs';
    const sync = new Kernel(loadBundled(name), { store: new FlakyStore(1) });
    sync.runToEnd();
    const async = new Kernel(loadBundled(name), { store: new AsyncFlakyStore(1) });
    while (await async.stepAsync()) {
      /* keep stepping */
    }
    const json = buildRunJson(sync);
    const gets = (json.trace as Loose[]).filter((e) => e.type === 'objectStore' && e.op === 'get');
    expect(gets.filter((e) => !e.ok)).toHaveLength(1);
    expect(gets.filter((e) => e.ok).length).toBeGreaterThan(0);
    expect(m(json).objectStore.tiered).toMatchObject({
      gets: gets.length,
      bytesGot: gets.filter((e) => e.ok).reduce((n, e) => n + e.bytes, 0),
    });
    expect(JSON.stringify(buildRunJson(async))).toBe(JSON.stringify(json));
  });
});

describe('cost of a run', () => {
  test('local disk: 1 GiB held for 30 days is one GB-month, $0.08 on EBS gp3', () => {
    // Goal: the storage integral and the month of 30 days, by hand.
    // Method: one broker, 1024 records of 1 MiB appended at t = 0, nothing deleted, a run of
    // exactly 2 592 000 000 ms; then the same with a price override and with the data
    // arriving at half time.
    const raw = (at: number, prices?: Record<string, unknown>): Raw => ({
      name: 'one GB-month',
      brokers: 1,
      // Few timer steps in a month: the task and the ISR check run about every 10^9 ms.
      config: { 'remote.log.manager.task.interval.ms': 1_000_000_000, 'replica.lag.time.max.ms': 2_000_000_000 },
      model: { recordBytes: MiB, producerBatchBytes: MiB },
      ...(prices ? { prices } : {}),
      topics: [{ name: 't', partitions: 1, replicas: [[0]], config: { 'retention.ms': -1 } }],
      timeline: [{ at, produce: { topic: 't', partition: 0, records: 1024, acks: 1 } }],
      until: MS_PER_MONTH,
    });
    const json = run(raw(0));
    expect(json.endMs).toBe(2_592_000_000);
    expect(m(json).storage.localDisk).toEqual({ bytes: BYTES_PER_GB, gbMonths: 1 });
    expect(m(json).costUsd).toEqual({ crossZone: 0, objectStoreRequests: 0, objectStoreTransfer: 0, storage: 0.08, total: 0.08 });
    expect(m(run(raw(0, { localDiskUsdPerGbMonth: 0.1 }))).costUsd.total).toBe(0.1);
    expect(m(run(raw(MS_PER_MONTH / 2))).costUsd.storage).toBe(0.04);
  });

  const tiered = (prices: Record<string, unknown>): Raw => ({
    name: 'two zones, one upload',
    brokers: 2,
    zones: ['a', 'b'],
    model: { recordBytes: MiB, producerBatchBytes: MiB },
    prices,
    topics: [{ name: 't', partitions: 1, replicas: [[0, 1]], config: { 'remote.storage.enable': true, 'segment.bytes': 256 * MiB } }],
    timeline: [{ at: 0, produce: { topic: 't', partition: 0, records: 512, acks: 1 } }],
    until: 60000,
  });

  test('cross-zone transfer and S3 Standard requests, by hand; a prices block changes them', () => {
    // Goal: docs/protocol.md §8's arithmetic on a run small enough to follow.
    // Method: 512 records of 1 MiB to a leader in zone a; the follower in zone b fetches all
    // 512 MiB (0.5 GB at $0.01 each side = $0.01); the first 256 MiB segment rolls and is
    // uploaded as 4 objects (segment, offset index, epoch checkpoint, producer snapshot):
    // 4 PUTs at $0.005 per 1000 = $0.00002. Storage is priced at 0 here.
    const free = { tieredStorageUsdPerGbMonth: 0, localDiskUsdPerGbMonth: 0 };
    const json = run(tiered(free));
    expect(json.violations).toEqual([]);
    expect(m(json).crossZoneBytes.replication).toBe(512 * MiB);
    expect(m(json).objectStore.tiered).toMatchObject({ puts: 4, gets: 0, deletes: 0 });
    expect(m(json).costUsd).toEqual({ crossZone: 0.01, objectStoreRequests: 0.00002, objectStoreTransfer: 0, storage: 0, total: 0.01002 });
    const dearer = run(tiered({ ...free, crossZoneUsdPerGbEachDirection: 0.02, tieredPutUsdPer1000: 1 }));
    expect(m(dearer).costUsd).toEqual({ crossZone: 0.02, objectStoreRequests: 0.004, objectStoreTransfer: 0, storage: 0, total: 0.024 });
    expect((dearer.config.prices as Loose).crossZoneUsdPerGbEachDirection).toBe(0.02);
    // Only the cost moved.
    expect(m(dearer).crossZoneBytes).toEqual(m(json).crossZoneBytes);
  });

  test('tiered storage: the uploaded objects are held from their PUT to the end of the run', () => {
    // Method: GB-months from the trace: each successful PUT's bytes times the time left.
    const json = run(tiered({}));
    const end = json.endMs;
    const byteMs = (json.trace as Loose[])
      .filter((e) => e.type === 'objectStore' && e.op === 'put' && e.ok)
      .reduce((n, e) => n + e.bytes * (end - e.atMs), 0);
    expect(m(json).storage.tiered.gbMonths).toBeCloseTo(byteMs / BYTES_PER_GB / MS_PER_MONTH, 15);
    expect(m(json).storage.tiered.bytes).toBe(m(json).objectStore.tiered.bytesPut);
    const c = m(json).costUsd;
    expect(c.total).toBeCloseTo(c.crossZone + c.objectStoreRequests + c.objectStoreTransfer + c.storage, 9);
  });

  test('the default prices are docs/protocol.md §8 and are reported in config.prices', () => {
    const json = run(tiered({}));
    expect(json.config.prices).toEqual({
      crossZoneUsdPerGbEachDirection: 0.01,
      tieredStorageUsdPerGbMonth: 0.023,
      tieredPutUsdPer1000: 0.005,
      tieredGetUsdPer1000: 0.0004,
      tieredDeleteUsdPer1000: 0,
      tieredUploadUsdPerGb: 0,
      tieredRetrievalUsdPerGb: 0,
      tieredFreeTransferPerRequestBytes: 0,
      walPriceList: '2025-04',
      walStorageUsdPerGbMonth: 0.11,
      walPutUsdPer1000: 0.00113,
      walGetUsdPer1000: 0.00003,
      walDeleteUsdPer1000: 0,
      walUploadUsdPerGb: 0.0032,
      walRetrievalUsdPerGb: 0.0006,
      walFreeTransferPerRequestBytes: 0,
      localDiskUsdPerGbMonth: 0.08,
    });
  });

  test('walPriceList picks the S3 Express list; explicit wal prices override it', () => {
    const before = resolvePrices({ walPriceList: 'before-2025-04' });
    expect(before).toMatchObject({ walStorageUsdPerGbMonth: 0.16, walPutUsdPer1000: 0.0025, walGetUsdPer1000: 0.0002, walFreeTransferPerRequestBytes: 524288 });
    expect(resolvePrices({ walPriceList: 'before-2025-04', walPutUsdPer1000: 0.001 }).walPutUsdPer1000).toBe(0.001);
    const json = run(tiered({ walPriceList: 'before-2025-04' }));
    expect(json.config.prices).toEqual(before);
  });

  test.each([
    // 1000 PUTs and 1000 GETs of 1 MiB each in the wal store.
    // 2025-04: requests 1000 * (0.00113 + 0.00003) / 1000 = $0.00116; every byte pays
    // (1000 MiB = 0.9765625 GB) * (0.0032 + 0.0006) = $0.003710937...
    ['2025-04', MiB, 0.00116, 0.003711],
    // Before: requests 1000 * (0.0025 + 0.0002) / 1000 = $0.0027; only the 512 KiB above
    // 512 KiB of each request pays: 0.48828125 GB * (0.008 + 0.0015) = $0.004638671875.
    ['before-2025-04', MiB, 0.0027, 0.004639],
    // Requests of 512 KiB are free of per-GB fees before April 2025, not after.
    ['before-2025-04', 512 * 1024, 0.0027, 0],
    ['2025-04', 512 * 1024, 0.00116, 0.001855],
  ] as const)('S3 Express One Zone %s: %d-byte requests', (list, size, requests, transfer) => {
    // Goal: both price lists, including the 512 KiB rule, on the wal store's counters.
    // Method: the counting functions the kernel calls, then the cost at t = 0 (no storage time).
    const prices = resolvePrices({ walPriceList: list });
    const counters = newStoreCounters();
    const usage = newUsage();
    for (let i = 0; i < 1000; i++) {
      countStoreRequest(counters, usage, prices, { op: 'put', store: 'wal', key: `k${i}`, objectBytes: size }, { ok: true, bytes: size }, 0);
      countStoreRequest(counters, usage, prices, { op: 'get', store: 'wal', key: `k${i}` }, { ok: true, bytes: size }, 0);
    }
    expect(counters.wal).toEqual({ puts: 1000, gets: 1000, deletes: 0, lists: 0, bytesPut: 1000 * size, bytesGot: 1000 * size });
    expect(counters.tiered.puts).toBe(0);
    const cost = costUsd(newCrossZoneBytes(), counters, usage, prices, 0);
    expect(cost).toEqual({ crossZone: 0, objectStoreRequests: requests, objectStoreTransfer: transfer, storage: 0, total: roundUsd(requests + transfer) });
  });

  test('wal storage, DELETE and failed requests', () => {
    // 1 GiB PUT at t = 0 and deleted at half a month: half a GB-month at $0.11 (2025-04).
    const prices = resolvePrices();
    const counters = newStoreCounters();
    const usage = newUsage();
    countStoreRequest(counters, usage, prices, { op: 'put', store: 'wal', key: 'x', objectBytes: BYTES_PER_GB }, { ok: true, bytes: BYTES_PER_GB }, 0);
    countStoreRequest(counters, usage, prices, { op: 'get', store: 'wal', key: 'missing' }, { ok: false, bytes: 0 }, 10);
    countStoreRequest(counters, usage, prices, { op: 'delete', store: 'wal', key: 'x' }, { ok: true, bytes: 0 }, MS_PER_MONTH / 2);
    expect(counters.wal).toEqual({ puts: 1, gets: 1, deletes: 1, lists: 0, bytesPut: BYTES_PER_GB, bytesGot: 0 });
    expect(usage.storedBytes.wal).toBe(0);
    expect(gbMonths(usage, MS_PER_MONTH).wal).toBe(0.5);
    const cost = costUsd(newCrossZoneBytes(), counters, usage, prices, MS_PER_MONTH);
    // Requests: (0.00113 + 0.00003) / 1000, rounded: $0.000001. Upload: 1 GB * 0.0032.
    expect(cost).toEqual({ crossZone: 0, objectStoreRequests: 0.000001, objectStoreTransfer: 0.0032, storage: 0.055, total: 0.058201 });
  });
});
