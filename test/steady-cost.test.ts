/**
 * The month at steady state (issue 29, part 3; core/study/steady-cost.ts, docs/protocol.md
 * §8.1): every line against a hand calculation, the lines against the total, and the lines
 * against a run long enough to reach them (the run-measured month of each line).
 *
 * The workload of the hand calculations: 3 brokers in zones a, b, c; one tiered partition,
 * RF 3, leader 0 (zone a), followers 1 (b) and 2 (c); a producer writing 800 records of
 * 1000 B every 80 ms, 10,000,000 B/s; Kafka's default segment.bytes (1 GiB) and
 * retention.ms (7 days), local.retention.ms -2 (so 7 days locally too); the model's default
 * batch.size (16384), remote.log.manager.task.interval.ms 30 s, the price table of
 * docs/protocol.md §8 (S3 Express One Zone's 2025-04 list).
 */
import { describe, expect, test } from 'vitest';
import { parseScenarioText } from '../core/scenario/parse.js';
import type { Scenario } from '../core/scenario/types.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { MODES, compare, runWarnings, scenarioForMode } from '../core/study/compare.js';
import { type SteadyMode, measuredMonthByLine, replayCombiner, steadyState } from '../core/study/steady-cost.js';
import { loadBundled } from './support/run.js';

const GB = 1_073_741_824; // 2^30 bytes: AWS bills binary GB (core/domain/prices.ts)
const MONTH_S = 2_592_000; // 30 days
const MONTH_MS = MONTH_S * 1000;

function scenario(text: string): Scenario {
  const r = parseScenarioText(text, 'test');
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.scenario;
}

/** The workload above; `produce` replaces the producer's cadence, `extra` adds YAML lines under the topic config. */
function tenMBs(produce = 'records: 800, acks: all, everyMs: 80', extra = '', model = ''): Scenario {
  return scenario(`
name: ten MB/s
brokers: 3
zones: [a, b, c]
model: { recordBytes: 1000${model} }
topics:
  - name: orders
    partitions: 1
    replicas: [[0, 1, 2]]
    config:
      remote.storage.enable: true
      min.insync.replicas: 2${extra}
timeline:
  - at: 0
    produce: { topic: orders, partition: 0, ${produce} }
until: 30000
`);
}

function steady(s: Scenario, mode: SteadyMode) {
  return steadyState(scenarioForMode(s, mode), mode);
}

const line = (r: ReturnType<typeof steady>, id: string) => {
  const l = r.cost.lines.find((x) => x.id === id);
  if (l === undefined) throw new Error(`no line ${id}: ${r.cost.lines.map((x) => x.id).join(', ')}`);
  return l;
};

/** Dollars as the lines round them: to a millionth. */
const usd = (x: number) => Math.round(x * 1e6) / 1e6;

describe('each line against a hand calculation (10 MB/s, RF 3 over 3 zones, 1 GiB segments, 7 days)', () => {
  const produced = 10_000_000 * MONTH_S; // 25,920,000,000,000 B a month
  // The producer's 800 records go in batches of 16 records (floor(16384 / 1000)), 16,000 B
  // each: 50 batches a request. A 1 GiB segment takes floor(1,073,741,824 / 16,000) =
  // 67,108 batches (the next would pass segment.bytes: appendBatch rolls first), so it
  // holds 67,108 x 16,000 = 1,073,728,000 B and fills in 107.3728 s.
  const segment = 67_108 * 16_000;
  const segments = produced / segment; // 24,140.19... uploaded a month

  for (const mode of ['classic', 'kip1023'] as const) {
    test(`${mode}: follower replication across zones, tiered requests and transfer, storage`, () => {
      const r = steady(tenMBs(), mode);
      // Each follower (1 in b, 2 in c) fetches every byte from the leader in a: 2 copies
      // cross zones, and a byte moved between zones is billed $0.01 on each side.
      expect(line(r, 'crossZoneReplication').usdPerMonth).toBe(usd(((produced * 2) / GB) * 2 * 0.01)); // $965.595245
      expect(line(r, 'crossZoneReplication').usdPerMonth).toBeCloseTo(965.595245, 6);
      // Clients in the leader's zone (clientZone ''), no consumer in the scenario.
      expect(line(r, 'crossZoneProduce').usdPerMonth).toBe(0);
      expect(line(r, 'crossZoneConsume').usdPerMonth).toBe(0);
      // 4 objects a segment (.log, .index, leader-epoch checkpoint, producer snapshot), $0.005 per 1000 PUTs.
      expect(r.facts.quantities.tieredPut).toBeCloseTo(segments * 4, 6);
      expect(line(r, 'tieredPut').usdPerMonth).toBe(usd((segments * 4 * 0.005) / 1000)); // $0.482804
      // At steady state nobody reads the tiered store; once 7 days are reached, as many
      // segments expire as are uploaded: 4 DELETEs each, free on S3.
      expect(line(r, 'tieredGet').usdPerMonth).toBe(0);
      expect(r.facts.quantities.tieredDelete).toBeCloseTo(segments * 4, 6);
      expect(line(r, 'tieredDelete').usdPerMonth).toBe(0);
      // Upload bytes: the segment, its offset index (8 B a batch: 536,864 B), the checkpoint
      // "0\n1\n0 0\n" (8 B) and a one-producer snapshot (56 B); S3 Standard charges no transfer in the region.
      expect(r.facts.quantities.tieredTransfer).toBeCloseTo(segments * (segment + 8 * 67_108 + 8 + 56), 0);
      expect(line(r, 'tieredTransfer').usdPerMonth).toBe(0);
      // Each replica keeps local retention (7 days of 10 MB/s = 6,048,000,000,000 B), half a
      // segment on average (536,864,000 B) and half a log.retention.check.interval.ms's bytes,
      // since local retention runs with the broker's log retention task, every 300 s
      // (150 s x 10 MB/s = 1,500,000,000 B): 6,050,036,864,000 B a replica, 3 replicas,
      // $0.08 per GB-month.
      const perReplica = 604_800 * 10_000_000 + segment / 2 + 150 * 10_000_000;
      expect(perReplica).toBe(6_050_036_864_000);
      // The replay of the tasks agrees to within a few tens of MB in 6 TB (the phase of a
      // roll against a run).
      expect(Math.abs(r.facts.quantities.storageLocal - 3 * perReplica)).toBeLessThan(0.1 * GB);
      expect(line(r, 'storageLocal').usdPerMonth).toBeCloseTo(((3 * perReplica) / GB) * 0.08, 2); // $1,352.29
      // The tiered store holds retention.ms of data (6,048,000,000,000 B) to within a segment
      // (the newest not yet uploaded, the oldest waiting for the next expiry run), $0.023 per GB-month.
      expect(Math.abs(r.facts.quantities.storageTiered - 604_800 * 10_000_000)).toBeLessThan(segment);
      expect(line(r, 'storageTiered').usdPerMonth).toBeCloseTo(((604_800 * 10_000_000) / GB) * 0.023, 0); // $129.55
      // No fast store without KIP-1176.
      expect(r.cost.lines.map((l) => l.id)).not.toContain('walPut');
      // The month (docs/protocol.md §8.1 quotes it): $965.60 + $0.48 + $1,352.29 + $129.55 = $2,447.92.
      expect(r.cost.month).toBeCloseTo(2447.915, 2); // $2,447.92
    });
  }

  test('wal: the WAL replaces follower fetches; one object per produce request of 800,000 B', () => {
    const r = steady(tenMBs(), 'wal');
    // Each request (800,000 B) reaches wal.combine.max.bytes (409,600) and is flushed at
    // once; its PUT takes 6 + floor(800,000 / 200,000) = 10 ms, less than the 80 ms to the
    // next request: one object per request, 2,592,000,000 ms / 80 ms = 32,400,000 a month.
    const objects = MONTH_MS / 80;
    expect(r.facts.quantities.walPut).toBeCloseTo(objects, 3);
    expect(line(r, 'walPut').usdPerMonth).toBe(usd((objects * 0.00113) / 1000)); // $36.612
    // Each follower reads its chunk with one ranged GET: 2 x 32,400,000.
    expect(line(r, 'walGet').usdPerMonth).toBe(usd((2 * objects * 0.00003) / 1000)); // $1.944
    // Every object is deleted once its chunk is tiered; DELETE is free.
    expect(r.facts.quantities.walDelete).toBeCloseTo(objects, 3);
    expect(line(r, 'walDelete').usdPerMonth).toBe(0);
    // Every byte is uploaded once ($0.0032/GB) and read by 2 followers ($0.0006/GB).
    expect(line(r, 'walTransfer').usdPerMonth).toBe(usd((produced / GB) * 0.0032 + ((2 * produced) / GB) * 0.0006)); // $106.215477
    // Across zones: one 120 B WAL metadata record per chunk, 4 hops between zones: the
    // writer (broker 0) is the metadata leader (0, zone a); the leader to its replicas 1 (b)
    // and 2 (c); the leader to the partition's followers 1 (b) and 2 (c).
    expect(line(r, 'crossZoneReplication').usdPerMonth).toBe(usd(((objects * 120 * 4) / GB) * 2 * 0.01)); // $0.289679
    // The tiered store and the local disks are classic's: closed segments still tier.
    const classic = steady(tenMBs(), 'classic');
    for (const id of ['tieredPut', 'tieredDelete', 'storageLocal', 'storageTiered']) expect(line(r, id).usdPerMonth).toBe(line(classic, id).usdPerMonth);
    // The fast store holds an object until its chunk's segment is tiered: the segment
    // holding the request's last batch rolls about half a segment's fill later (53.7 s), its
    // copy starts at the next task run and takes 100 + floor(1,073,728,000 / 100,000) ms =
    // 10.84 s (about 15 + 10.84 = 25.84 s in all); x 10 MB/s, about 795 MB, $0.11 per GB-month.
    const hand = (107_372.8 / 2 + 15_000 + 10_837) * 10_000;
    expect(Math.abs(r.facts.quantities.storageWal - hand) / hand).toBeLessThan(0.01);
    expect(line(r, 'storageWal').usdPerMonth).toBeCloseTo((hand / GB) * 0.11, 3); // $0.08
    // The month (docs/protocol.md §8.1 quotes it).
    expect(r.cost.month).toBeCloseTo(1627.46, 2);
  });

  test("wal: the cost of the same bytes depends on the producer's cadence (10 records every 1 ms)", () => {
    // 10,000 B every 1 ms, still 10 MB/s. A request never reaches wal.combine.max.bytes, so
    // the combiner waits wal.combine.interval.ms (15): the first object holds the requests
    // at t0..t0+14 (150,000 B; the timer was queued before the request at t0+15). Each PUT
    // takes 6 ms + floor(bytes / 200,000 B/ms); the requests arriving meanwhile wait another
    // interval. From the third object on: 22 requests (220,000 B) every 22 ms (15 + 7), so
    // 2,592,000,000 / 22 = 117,818,181.8 objects a month, 3.6 times the 80 ms cadence's.
    const r = steady(tenMBs('records: 10, acks: all, everyMs: 1'), 'wal');
    const objects = MONTH_MS / 22;
    expect(r.facts.quantities.walPut / objects).toBeCloseTo(1, 6);
    expect(line(r, 'walPut').usdPerMonth).toBeCloseTo((objects * 0.00113) / 1000, 5); // $133.13 against $36.61
    expect(line(r, 'walGet').usdPerMonth).toBeCloseTo((2 * objects * 0.00003) / 1000, 5); // $7.07 against $1.94
    // The per-GB fees are the same: every byte goes up once and down twice either way.
    expect(line(r, 'walTransfer').usdPerMonth).toBe(line(steady(tenMBs(), 'wal'), 'walTransfer').usdPerMonth);
    // The figure says what it assumed and why it depends on it.
    const batching = r.cost.assumptions.find((a) => a.startsWith('KIP-1176 batching'));
    expect(batching).toContain('10 records (10,000 B) every 1 ms');
    expect(batching).toContain('wal.combine.interval.ms (15 ms)');
    expect(batching).toContain('wal.combine.max.bytes (409600 B)');
    expect(batching).toContain('45.4545 objects a second, 220,000 B on average, 22 produce requests each');
    expect(batching).toContain('the fast store bills each PUT');
  });

  test('the combiner replay, one flush rule at a time', () => {
    const c = { intervalMs: 15, maxBytes: 409_600, putLatencyMs: 6, putBytesPerMs: 200_000, freeBytes: 0 };
    // A request below max.bytes every 500 ms: one object per request, flushed by the interval.
    const slow = replayCombiner([{ key: 't-0', at: 0, everyMs: 500, bytes: 102_400 }], c);
    expect(slow.objects).toBeCloseTo(MONTH_MS / 500, 6);
    expect(slow.byReason.maxBytes).toBe(0);
    // A request at max.bytes: flushed at once.
    const big = replayCombiner([{ key: 't-0', at: 0, everyMs: 100, bytes: 409_600 }], c);
    expect(big.objects).toBeCloseTo(MONTH_MS / 100, 6);
    expect(big.byReason.interval).toBe(0);
    // Two partitions led by one broker share objects: one chunk each per object.
    const two = replayCombiner([{ key: 't-0', at: 0, everyMs: 500, bytes: 1000 }, { key: 't-1', at: 0, everyMs: 500, bytes: 1000 }], c);
    expect(two.objects).toBeCloseTo(MONTH_MS / 500, 6);
    expect(two.chunks['t-0'].count).toBeCloseTo(MONTH_MS / 500, 6);
    expect(two.chunks['t-1'].count).toBeCloseTo(MONTH_MS / 500, 6);
  });

  test('clients in another zone than the leader: producer and consumer lines', () => {
    // clientZone b, the leader in a: every produced byte crosses once; the scenario's
    // consumer reads 400 of the 300,800 records produced over its 30 s run (376 produces of
    // 800 records), so the fan-out is 400 / 300,800.
    const s = scenario(`
name: clients
brokers: 3
zones: [a, b, c]
model: { recordBytes: 1000, clientZone: b }
topics: [{ name: orders, partitions: 1, replicas: [[0, 1, 2]], config: { remote.storage.enable: true } }]
timeline:
  - at: 0
    produce: { topic: orders, partition: 0, records: 800, everyMs: 80 }
  - at: 1000
    consume: { topic: orders, partition: 0, fromOffset: 0, records: 400 }
until: 30000
`);
    const r = steady(s, 'classic');
    expect(line(r, 'crossZoneProduce').usdPerMonth).toBe(usd((produced / GB) * 2 * 0.01)); // $482.80
    const fanout = 400 / (376 * 800);
    expect(line(r, 'crossZoneConsume').usdPerMonth).toBeCloseTo(((produced * fanout) / GB) * 2 * 0.01, 6);
    expect(r.cost.assumptions.find((a) => a.startsWith('The producer sits in zone b'))).toContain('model.clientZone');
    // The option overrides the fan-out: one consumer group reading everything.
    const one = steadyState(scenarioForMode(s, 'classic'), 'classic', { readFanout: 1 });
    expect(one.cost.lines.find((l) => l.id === 'crossZoneConsume')!.usdPerMonth).toBe(usd((produced / GB) * 2 * 0.01));
  });

  test('every input names its unit and where it came from', () => {
    const r = steady(tenMBs(), 'wal');
    const inputs = r.cost.lines.flatMap((l) => l.inputs);
    for (const i of inputs) {
      expect(['scenario', 'Kafka default', 'model default', 'price table', 'derived']).toContain(i.source);
      expect(i.unit.length).toBeGreaterThan(0);
      expect(i.from.length).toBeGreaterThan(0);
    }
    const find = (name: string) => inputs.find((i) => i.name === name)!;
    expect(find('segment.bytes')).toMatchObject({ value: 1_073_741_824, unit: 'B', source: 'Kafka default' });
    expect(find('retention.ms')).toMatchObject({ value: 604_800_000, source: 'Kafka default' });
    expect(find('model.recordBytes')).toMatchObject({ value: 1000, source: 'scenario', from: 'model.recordBytes' });
    expect(find('wal.combine.interval.ms')).toMatchObject({ value: 15, source: 'model default' });
    expect(find('walPutUsdPer1000')).toMatchObject({ value: 0.00113, source: 'price table' });
    expect(find('produce rate')).toMatchObject({ value: 10_000_000, unit: 'B/s', source: 'scenario' });
    // A price the scenario sets is the scenario's.
    const priced = steady(scenario(`
name: priced
brokers: 3
zones: [a, b, c]
prices: { crossZoneUsdPerGbEachDirection: 0.02 }
topics: [{ name: t, partitions: 1, replicas: [[0, 1, 2]] }]
timeline: [{ at: 0, produce: { topic: t, partition: 0, records: 10, everyMs: 100 } }]
until: 1000
`), 'classic');
    expect(line(priced, 'crossZoneReplication').inputs.find((i) => i.name === 'crossZoneUsdPerGbEachDirection')).toMatchObject({ value: 0.02, source: 'scenario', from: 'prices.crossZoneUsdPerGbEachDirection' });
  });
});

describe('the lines add up to the total', () => {
  const names = ['wal-steady-state', 'steady-state-upload', 'wal-metadata-growth', 'kip1023-bootstrap', 'classic-promoted-follower-local-reads'];
  test.each(names)('%s, every mode', (name) => {
    for (const mode of MODES) {
      const { cost } = steady(loadBundled(name), mode);
      const total = cost.lines.reduce((n, l) => n + l.usdPerMonth, 0);
      expect(cost.month).toBe(usd(total));
      for (const l of cost.lines) expect(l.calculation.endsWith(`= $${l.usdPerMonth.toLocaleString('en-US', { maximumSignificantDigits: 6 })}`) || l.usdPerMonth === 0).toBe(true);
    }
  });

  test('a scenario without a repeating produce has no steady state, and says so', () => {
    const { cost } = steady(loadBundled('kip1023-bootstrap'), 'kip1023');
    expect(cost.month).toBe(0);
    expect(cost.warnings[0]).toMatch(/^No steady state: the scenario has no repeating produce/);
  });
});

describe('cross-check: a run long enough to reach each line measures what the steady state prices', () => {
  // The bundled steady-state workloads (200 KiB/s, 50 KiB segments, local.retention.bytes
  // 200 KiB, a task every 5 s) run for 120 s instead of 20 s. The run-measured month of
  // each line (its counters over 120 s, scaled to 30 days; stored bytes averaged over the
  // run) against the steady state's.
  const TRAFFIC = 0.03; // the last produces of the run are not yet replicated, uploaded or read (a few of 240)
  // Uploads lag further: a copy-task run copies only the candidates it listed at its start
  // (RLMCopyTask), then waits 5 s after it ends, so at 4 segments/s and about 100 ms a copy a
  // cycle is n = 4 x 5 / (1 - 4 x 0.1) = 33 segments, 8.3 s: up to that many of the run's 480
  // segments (7 %), about half of it on average, are not uploaded when the run ends; a WAL
  // object is deleted once its chunks are tiered, so its DELETEs lag the same way.
  const UPLOADS = 0.07;
  const STORAGE = 0.1; // the run's average includes its first seconds, before retention is reached

  function measured(s: Scenario, mode: SteadyMode) {
    const k = new Kernel(scenarioForMode(s, mode));
    k.runToEnd();
    return { k, m: measuredMonthByLine(k.state.metrics, k.state.usage, k.state.prices, k.state.nowMs) };
  }

  test.each([
    ['steady-state-upload', 'classic'],
    ['wal-steady-state', 'wal'],
  ] as const)('%s as %s, 120 s', (name, mode) => {
    const s = { ...loadBundled(name), until: 120_000 };
    const r = steady(s, mode);
    const { m } = measured(s, mode);
    const ratio = (id: string) => m[id].quantity / r.facts.quantities[id];
    // Traffic and requests: within 3 %.
    const traffic = mode === 'wal' ? ['crossZoneReplication', 'tieredPut', 'tieredTransfer', 'walPut', 'walGet', 'walDelete', 'walTransfer'] : ['crossZoneReplication', 'tieredPut', 'tieredTransfer'];
    for (const id of traffic) expect(Math.abs(ratio(id) - 1), id).toBeLessThan(id.startsWith('tiered') || id === 'walDelete' ? UPLOADS : TRAFFIC);
    // The local disks (and the fast store) reach their steady state in seconds: within 10 %.
    for (const id of mode === 'wal' ? ['storageLocal', 'storageWal'] : ['storageLocal']) expect(Math.abs(ratio(id) - 1), id).toBeLessThan(STORAGE);
    // Where it should not agree: remote retention (retention.ms, 7 days) is never reached in
    // 120 s, so the run expired nothing and its tiered store holds a few MB of the ~124 GB
    // seven days hold. The run-measured month is wrong there by construction; the warning says so.
    expect(m.tieredDelete.quantity).toBe(0);
    expect(ratio('storageTiered')).toBeLessThan(0.001);
  });

  test('with retention.ms 10 s the run reaches remote retention too: tiered DELETEs and storage agree', () => {
    const base = loadBundled('steady-state-upload');
    base.topics[0].config = { ...base.topics[0].config, 'retention.ms': 10_000 };
    const s = { ...base, until: 120_000 };
    const r = steady(s, 'classic');
    const { m } = measured(s, 'classic');
    // Nothing expires in the run's first 10 s (its first segments are younger): (120 - 10) / 120 = 0.917.
    expect(m.tieredDelete.quantity / r.facts.quantities.tieredDelete).toBeCloseTo(110 / 120, 1);
    expect(Math.abs(m.storageTiered.quantity / r.facts.quantities.storageTiered - 1)).toBeLessThan(0.1);
    expect(Math.abs(m.storageLocal.quantity / r.facts.quantities.storageLocal - 1)).toBeLessThan(0.1);
  });
});

describe('what a run too short for steady state is told', () => {
  test('a 3 s run at 10 MB/s: no segment rolled, no retention reached', () => {
    const s = { ...tenMBs(), until: 3000 };
    const r = compare(s, ['classic']).modes[0];
    const w = r.steadyStateCostUsd!.warnings;
    expect(w.some((x) => x.includes('no segment rolled (one fills in about 1.8 min)'))).toBe(true);
    expect(w.some((x) => x.includes('local retention was not reached (at this rate, from about 7 days on)'))).toBe(true);
    expect(w.some((x) => x.includes('remote retention was not reached'))).toBe(true);
    // Each line carries the run's own month beside it.
    expect(r.steadyStateCostUsd!.lines.find((l) => l.id === 'tieredPut')!.runMeasuredUsdPerMonth).toBe(0);
  });

  test('wal-steady-state (20 s): segments roll and local retention is reached, remote retention is not', () => {
    const { facts } = steady(loadBundled('wal-steady-state'), 'wal');
    const k = new Kernel(scenarioForMode(loadBundled('wal-steady-state'), 'wal'));
    k.runToEnd();
    const w = runWarnings({ trace: k.trace, endMs: k.state.nowMs }, facts);
    expect(w.join('\n')).not.toContain('no segment rolled');
    expect(w.join('\n')).not.toContain('local retention was not reached');
    expect(w.join('\n')).toContain('remote retention was not reached (at this rate, from about 7 days on)');
  });
});
