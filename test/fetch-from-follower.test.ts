/**
 * KIP-392, fetch from follower (docs/protocol.md §5.3): a consumer with client.rack, on
 * brokers whose replica.selector.class is RackAwareReplicaSelector, is sent by the leader
 * (ReplicaManager.findPreferredReadReplica) to an in-sync replica of its rack, reads there up
 * to that replica's high watermark, keeps it for metadata.max.age.ms, and falls back to the
 * leader on an error (FetchCollector.handleInitializeErrors). Producers may sit in any zone.
 * Every figure below is counted by hand from the scenario: 3 brokers in zones a, b, c, one
 * replica each; 1 KiB records.
 */
import { describe, expect, test } from 'vitest';
import { RACK_AWARE_REPLICA_SELECTOR } from '../core/domain/config.js';
import { parseScenarioText, validateScenario } from '../core/scenario/parse.js';
import type { Scenario } from '../core/scenario/types.js';
import { WHATIF_DEFAULTS, type WhatIfInput, buildWhatIf } from '../core/scenario/whatif.js';
import { scenarioForMode } from '../core/study/compare.js';
import { steadyState } from '../core/study/steady-cost.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson, type RunJson } from '../core/sim/loop/output.js';
import type { Loose } from './support/run.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const RB = 1024;

interface Opts {
  selector?: string;
  consume?: Record<string, unknown>;
  timeline?: Record<string, unknown>[];
  config?: Record<string, unknown>;
  until?: number;
}

function scenario(o: Opts = {}): Record<string, unknown> {
  return {
    name: 'kip-392',
    seed: 1,
    brokers: 3,
    zones: ['a', 'b', 'c'],
    config: { ...(o.selector === undefined ? {} : { 'replica.selector.class': o.selector }), ...o.config },
    model: { recordBytes: RB },
    topics: [{ name: 't', partitions: 1, replicas: [[0, 1, 2]] }],
    timeline: [
      { at: 0, produce: { topic: 't', partition: 0, records: 100, acks: 'all', everyMs: 100, untilMs: 900 } },
      { at: 2000, consume: { topic: 't', partition: 0, fromOffset: 0, records: 1000, ...o.consume } },
      ...(o.timeline ?? []),
    ].sort((x, y) => (x.at as number) - (y.at as number)),
    until: o.until ?? 5000,
  };
}

function run(raw: unknown): RunJson {
  const parsed = validateScenario(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const k = new Kernel(parsed.scenario);
  k.runToEnd();
  return buildRunJson(k);
}

const trace = (j: RunJson) => j.trace as Loose[];
const finished = (j: RunJson) => trace(j).filter((e) => e.type === 'consume' && e.action === 'finished');
const steps = (j: RunJson, action: string) => trace(j).filter((e) => e.type === 'consume' && e.action === action);
const crossZone = (j: RunJson) => (j.metrics as any).crossZoneBytes;

describe('KIP-392: the leader sends a rack-aware consumer to a replica of its rack', () => {
  test('client.rack b with RackAwareReplicaSelector: broker 1 (zone b) serves the read; no consumed byte crosses zones', () => {
    const j = run(scenario({ selector: RACK_AWARE_REPLICA_SELECTOR, consume: { zone: 'b', config: { 'client.rack': 'b' } } }));
    const redirect = trace(j).find((e) => e.type === 'response' && e.source === 0 && e.target === 'consumer' && e.preferredReadReplica !== undefined);
    expect(redirect).toMatchObject({ preferredReadReplica: 1, records: 0, rule: 'preferredReadReplica' });
    expect(steps(j, 'readReplicaChosen')).toEqual([expect.objectContaining({ broker: 1, leader: 0, clientRack: 'b', untilMs: redirect!.atMs + 300000 })]);
    // 10 produces of 100 records (0, 100, ..., 900 ms): 1000 records, all read from broker 1 in one Fetch (max.partition.fetch.bytes 1 MiB).
    expect(finished(j)).toEqual([expect.objectContaining({ broker: 1, recordsLocal: 1000, nextOffset: 1000 })]);
    expect(crossZone(j).consume).toBe(0);
    const fetches = trace(j).filter((e) => e.type === 'request' && e.source === 'consumer');
    expect(fetches.map((e) => e.target)).toEqual([0, 1]);
  });

  test('no selector (Kafka default null): the leader serves; 1000 records cross from zone a to zone b', () => {
    const j = run(scenario({ consume: { zone: 'b', config: { 'client.rack': 'b' } } }));
    expect(steps(j, 'readReplicaChosen')).toEqual([]);
    expect(finished(j)).toEqual([expect.objectContaining({ broker: 0, recordsLocal: 1000 })]);
    expect(crossZone(j).consume).toBe(1000 * RB);
  });

  test("LeaderSelector, or a client.rack of the leader's zone, or a rack no broker has: the leader serves", () => {
    for (const o of [
      { selector: 'org.apache.kafka.common.replica.LeaderSelector', consume: { config: { 'client.rack': 'b' } } },
      { selector: RACK_AWARE_REPLICA_SELECTOR, consume: { config: { 'client.rack': 'a' } } },
      { selector: RACK_AWARE_REPLICA_SELECTOR, consume: { config: { 'client.rack': 'us-east-1z' } } },
    ]) {
      const j = run(scenario(o));
      expect(steps(j, 'readReplicaChosen')).toEqual([]);
      expect(finished(j)).toEqual([expect.objectContaining({ broker: 0, recordsLocal: 1000 })]);
    }
  });

  test('client.rack names the zone the consumer is in when it gives no zone of its own', () => {
    const j = run(scenario({ selector: RACK_AWARE_REPLICA_SELECTOR, consume: { config: { 'client.rack': 'c' } } }));
    expect(finished(j)).toEqual([expect.objectContaining({ broker: 2, recordsLocal: 1000 })]);
    expect(crossZone(j).consume).toBe(0);
  });

  test('a replica out of the ISR is never named: broker 1 down since t=0 left the ISR, so the leader serves zone b', () => {
    const j = run(scenario({ selector: RACK_AWARE_REPLICA_SELECTOR, consume: { zone: 'b', config: { 'client.rack': 'b' } }, timeline: [{ at: 0, crash: { broker: 1 } }], until: 40000 }));
    const isr = trace(j).filter((e) => e.type === 'isr').map((e) => e.isr);
    expect(isr.at(-1)).toEqual([0, 2]);
    expect(steps(j, 'readReplicaChosen')).toEqual([]);
    expect(finished(j)).toEqual([expect.objectContaining({ broker: 0, recordsLocal: 1000 })]);
  });

  test('the named replica fails mid-read: the consumer forgets it and reads the rest from the leader, nothing lost', () => {
    // 10 records (10 KiB) a Fetch: 100 Fetches; broker 1 crashes while they run.
    const j = run(
      scenario({
        selector: RACK_AWARE_REPLICA_SELECTOR,
        consume: { zone: 'b', config: { 'client.rack': 'b', 'max.partition.fetch.bytes': 10 * RB } },
        timeline: [{ at: 2050, crash: { broker: 1 } }],
      }),
    );
    const cleared = steps(j, 'readReplicaCleared');
    expect(cleared).toHaveLength(1);
    expect(cleared[0]).toMatchObject({ broker: 1 });
    const done = finished(j);
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ broker: 0, recordsLocal: 1000, nextOffset: 1000, error: null });
    // What broker 1 served stayed in zone b; the rest came from zone a.
    const fromLeader = trace(j)
      .filter((e) => e.type === 'response' && e.source === 0 && e.target === 'consumer')
      .reduce((n, e) => n + (e.bytes as number), 0);
    expect(crossZone(j).consume).toBe(fromLeader);
    expect(fromLeader).toBeGreaterThan(0);
    expect(fromLeader).toBeLessThan(1000 * RB);
  });

  test('metadata.max.age.ms ends the lease: the consumer asks the leader again, which names the same replica', () => {
    const j = run(
      scenario({
        selector: RACK_AWARE_REPLICA_SELECTOR,
        consume: { zone: 'b', config: { 'client.rack': 'b', 'max.partition.fetch.bytes': 10 * RB, 'metadata.max.age.ms': 20 } },
      }),
    );
    const expired = steps(j, 'readReplicaExpired');
    const chosen = steps(j, 'readReplicaChosen');
    expect(expired.length).toBeGreaterThan(0);
    expect(chosen).toHaveLength(expired.length + 1);
    for (const c of chosen) expect(c.broker).toBe(1);
    expect(finished(j)).toEqual([expect.objectContaining({ broker: 1, recordsLocal: 1000 })]);
  });

  test('an empty answer from the named replica (its high watermark not yet past the offset) is asked again after fetch.max.wait.ms', () => {
    // Reading from offset 1000 while the produce at 2000 ms is still replicating: the leader's
    // answer names broker 1, whose high watermark learns of the new records one fetch round later.
    const j = run(
      scenario({
        selector: RACK_AWARE_REPLICA_SELECTOR,
        consume: { zone: 'b', fromOffset: 1000, records: 100, config: { 'client.rack': 'b' } },
        timeline: [{ at: 2000, produce: { topic: 't', partition: 0, records: 100, acks: 'all' } }],
      }),
    );
    const fromFollower = trace(j).filter((e) => e.type === 'response' && e.source === 1 && e.target === 'consumer');
    expect(fromFollower.length).toBeGreaterThanOrEqual(2);
    expect(fromFollower[0]).toMatchObject({ records: 0 });
    // The next Fetch leaves fetch.max.wait.ms (500 ms) after the empty answer.
    const requests = trace(j).filter((e) => e.type === 'request' && e.source === 'consumer' && e.target === 1);
    expect(requests[1].atMs - fromFollower[0].atMs).toBe(500);
    expect(finished(j)).toEqual([expect.objectContaining({ broker: 1, recordsLocal: 100, nextOffset: 1100 })]);
  });
});

describe('clients in every zone', () => {
  test("a produce's zone: its records cross zones when the leader is elsewhere, and its acks=all latency has two cross-zone hops", () => {
    const base = scenario();
    const far = { ...base, timeline: [{ at: 0, produce: { topic: 't', partition: 0, records: 100, acks: 'all', zone: 'c' } }], until: 1000 };
    const near = { ...base, timeline: [{ at: 0, produce: { topic: 't', partition: 0, records: 100, acks: 'all', zone: 'a' } }], until: 1000 };
    const jf = run(far);
    const jn = run(near);
    expect(crossZone(jf).produce).toBe(100 * RB);
    expect(crossZone(jn).produce).toBe(0);
    const lat = (j: RunJson) => trace(j).find((e) => e.type === 'produce' && e.action === 'acknowledged')!.latencyMs as number;
    // Same replication; the producer's round trip: 2 × 2 ms across zones against 2 × 1 ms within.
    expect(lat(jf) - lat(jn)).toBe(2);
  });
});

describe('configs refused as Kafka would, or as the model must', () => {
  const problems = (raw: unknown) => {
    const r = validateScenario(raw);
    return r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`);
  };
  test('replica.selector.class must be a selector the model knows', () => {
    expect(problems(scenario({ selector: 'com.example.MySelector' })).join('\n')).toMatch(/replica\.selector\.class.*RackAwareReplicaSelector/);
  });
  test('client.rack must be a string', () => {
    expect(problems(scenario({ consume: { config: { 'client.rack': 5 } } })).join('\n')).toMatch(/client\.rack.*expected a string, got 5/);
  });
  test("a produce's zone must be one of the scenario's", () => {
    const raw = scenario();
    (raw.timeline as any[])[0].produce.zone = 'd';
    expect(problems(raw).join('\n')).toMatch(/timeline\[0\]\.produce\.zone/);
  });
});

describe('whatif: --producer-zones spread and --fetch-from-follower', () => {
  const GB = 1_073_741_824; // 2^30 bytes (core/domain/prices.ts)
  const MONTH_S = 2_592_000;
  // 3 brokers in 3 zones, RF 3 (a replica in every zone), 1 consumer per zone.
  const input = { ...WHATIF_DEFAULTS, tieredBytes: 1024 ** 3, localBytes: 40 * 1024 ** 2, segmentBytes: 16 * 1024 ** 2, produceBytesPerSec: 1_000_000, lingerMs: 100, consumersPerZone: 1, untilMs: 10_000 };
  const built = (over: Partial<WhatIfInput>) => {
    const r = buildWhatIf({ ...input, ...over });
    if (!r.ok) throw new Error(r.problem);
    const parsed = parseScenarioText(r.whatIf.body, 'whatif.yaml');
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    return { text: r.whatIf.body, scenario: parsed.scenario };
  };
  const lineUsd = (s: Scenario, id: string) => steadyState(scenarioForMode(s, 'classic'), 'classic', { readFanout: 3 }).cost.lines.find((l) => l.id === id)!.usdPerMonth;

  test('spread: each partition gets a produce from each zone in turn, at the same rate; the file says so', () => {
    const { text, scenario: s } = built({ producerZones: 'spread' });
    const produces = s.timeline.filter((e) => e.action.kind === 'produce').map((e) => ({ at: e.at, ...(e.action as any) }));
    // 1 MB/s of 1 KiB records, linger 100 ms: 98 records every 100 ms; three zones take turns every 300 ms.
    expect(produces.map((p) => [p.at, p.zone, p.everyMs, p.records])).toEqual([
      [0, 'a', 300, 98],
      [100, 'b', 300, 98],
      [200, 'c', 300, 98],
    ]);
    expect(text).toContain('the producers of the 3 zones taking turns');
  });

  test('steady state, by hand: producers spread send 2 bytes in 3 across zones; consumers of every zone read 2 in 3 across from the leader, none with KIP-392', () => {
    const rate = (98 * 1024 * 1000) / 100; // B/s produced
    const month = (share: number) => ((rate * MONTH_S * share) / GB) * 2 * 0.01; // $0.01/GB each way
    const leader = built({}).scenario;
    const spread = built({ producerZones: 'spread' }).scenario;
    const ffr = built({ fetchFromFollower: true }).scenario;
    expect(lineUsd(leader, 'crossZoneProduce')).toBe(0);
    expect(lineUsd(spread, 'crossZoneProduce')).toBeCloseTo(month(2 / 3), 3); // $32.30
    // Three consumer groups (fan-out 3), one in each zone, two of them in another zone than the leader's.
    expect(lineUsd(leader, 'crossZoneConsume')).toBeCloseTo(month(3 * (2 / 3)), 3); // $96.90
    expect(lineUsd(ffr, 'crossZoneConsume')).toBe(0);
    // The leader-read scenario's assumptions say what KIP-392 would save: all of it here.
    const said = steadyState(scenarioForMode(leader, 'classic'), 'classic', { readFanout: 3 }).cost.assumptions.join('\n');
    expect(said).toContain(`With KIP-392 (the brokers' replica.selector.class org.apache.kafka.common.replica.RackAwareReplicaSelector`);
    expect(said).toMatch(/\$\d[\d,.]* a month less/);
  });

  test('--fetch-from-follower: the brokers get RackAwareReplicaSelector and each consumer its zone as client.rack; the run reads nothing across zones', () => {
    const { text, scenario: s } = built({ fetchFromFollower: true });
    expect(text).toContain(`replica.selector.class: ${RACK_AWARE_REPLICA_SELECTOR}`);
    const consumes = s.timeline.filter((e) => e.action.kind === 'consume').map((e) => e.action as any);
    expect(consumes.length).toBeGreaterThan(0);
    for (const c of consumes) expect(c.config['client.rack']).toBe(c.zone);
    const k = new Kernel(s);
    k.runToEnd();
    const j = buildRunJson(k);
    expect(crossZone(j).consume).toBe(0);
    expect(steps(j, 'readReplicaChosen').length).toBeGreaterThan(0);
  });
});
