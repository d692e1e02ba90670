/**
 * `whatif` (issue 29): the scenario it builds from sizes and rates (core/scenario/whatif.ts,
 * core/scenario/generate.ts), checked by hand; and the command, run in process through the
 * CLI's `main` (src/cli/main.ts): the table, `--json`, `--out` and what `validate` and
 * `compare` make of its file, bad options. Nothing here depends on wall-clock speed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { layoutSegments, producePlan, rackAwareReplicas, zoneNames } from '../core/scenario/generate.js';
import { parseScenarioText } from '../core/scenario/parse.js';
import type { Scenario, TimelineAction } from '../core/scenario/types.js';
import { WHATIF_DEFAULTS, type WhatIfInput, buildWhatIf, estimateCatchUpMs } from '../core/scenario/whatif.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { compare } from '../core/study/compare.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import { workloadDocument } from '../bench/workloads.js';
import { whatIfScenario } from '../bench/whatif-1tib.js';
import { main } from '../src/cli/main.js';
import { WHATIF_MARKER } from '../src/cli/whatif.js';

const KiB = 1024;
const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n'), errLines: err.flatMap((s) => s.split('\n')) };
}

function built(over: Partial<WhatIfInput>) {
  const r = buildWhatIf({ ...WHATIF_DEFAULTS, ...over });
  if (!r.ok) throw new Error(r.problem);
  return r.whatIf;
}

function scenarioOf(over: Partial<WhatIfInput>): Scenario {
  const r = parseScenarioText(built(over).body, 'whatif.yaml');
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.scenario;
}

const tmp = mkdtempSync(join(tmpdir(), 'whatif-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the initial log laid out from sizes', () => {
  test('2.5 MiB tiered and 2.25 MiB local in 1 MiB segments of 1 KiB records, by hand', () => {
    // 1,024 records a segment. Remote: 2,560 records, 3 segments, the oldest holding the 512
    // left over. Local: 2,304 records, 2 full segments uploaded (both), the active one 256.
    const l = layoutSegments({ remoteBytes: 2.5 * MiB, localBytes: 2.25 * MiB, segmentBytes: MiB, recordBytes: KiB });
    expect(l.segments).toEqual([
      { baseOffset: 0, endOffset: 511, tier: 'remote' },
      { baseOffset: 512, endOffset: 1535, tier: 'remote' },
      { baseOffset: 1536, endOffset: 2559, tier: 'remote' },
      { baseOffset: 2560, endOffset: 3583, tier: 'both' },
      { baseOffset: 3584, endOffset: 4607, tier: 'both' },
      { baseOffset: 4608, endOffset: 4863, tier: 'local' },
    ]);
    expect({ perSegment: l.recordsPerSegment, remote: l.remoteSegments, both: l.bothSegments, active: l.activeBytes, llso: l.localLogStartOffset, leo: l.logEndOffset }).toEqual({
      perSegment: 1024, remote: 3, both: 2, active: 256 * KiB, llso: 2560, leo: 4864,
    });
  });

  test('--active: the active segment holds that much, the rolled segments the rest (the oldest what is left over)', () => {
    // 2,304 records local, 1,024 of them active: 1,280 rolled, in 256 + 1,024.
    expect(layoutSegments({ remoteBytes: MiB, localBytes: 2.25 * MiB, activeBytes: MiB, segmentBytes: MiB, recordBytes: KiB }).segments).toEqual([
      { baseOffset: 0, endOffset: 1023, tier: 'remote' },
      { baseOffset: 1024, endOffset: 1279, tier: 'both' },
      { baseOffset: 1280, endOffset: 2303, tier: 'both' },
      { baseOffset: 2304, endOffset: 3327, tier: 'local' },
    ]);
  });

  test('nothing local: one empty active segment; nothing tiered: the log starts local; whole segments local: all uploaded, the active one empty', () => {
    expect(layoutSegments({ remoteBytes: 2 * MiB, localBytes: 0, segmentBytes: MiB, recordBytes: KiB }).segments).toEqual([
      { baseOffset: 0, endOffset: 1023, tier: 'remote' },
      { baseOffset: 1024, endOffset: 2047, tier: 'remote' },
      { baseOffset: 2048, endOffset: 2047, tier: 'local' },
    ]);
    expect(layoutSegments({ remoteBytes: 0, localBytes: 3 * MiB, segmentBytes: MiB, recordBytes: KiB }).segments).toEqual([
      { baseOffset: 0, endOffset: 1023, tier: 'both' },
      { baseOffset: 1024, endOffset: 2047, tier: 'both' },
      { baseOffset: 2048, endOffset: 3071, tier: 'both' },
      { baseOffset: 3072, endOffset: 3071, tier: 'local' },
    ]);
  });

  test('a record size that does not divide the segment: whole records per segment, the sizes rounded down to whole records', () => {
    // 1 GB segments of 1 KiB records: floor(10^9 / 1024) = 976,562 records (999,999,488 bytes).
    const l = layoutSegments({ remoteBytes: 3e9, localBytes: 1e9, segmentBytes: 1e9, recordBytes: KiB });
    expect(l.recordsPerSegment).toBe(976_562);
    // 3e9 / 1024 = 2,929,687 records: 4 segments (3 x 976,562 = 2,929,686 is one short).
    expect(l.remoteSegments).toBe(4);
    expect(l.segments[0]).toEqual({ baseOffset: 0, endOffset: 0, tier: 'remote' });
    expect(l.remoteBytes).toBe(2_929_687 * KiB);
    // 10^9 / 1024 = 976,562 records: exactly one segment, uploaded; the active one empty.
    expect(l.segments.slice(4)).toEqual([
      { baseOffset: 2_929_687, endOffset: 2_929_687 + 976_562 - 1, tier: 'both' },
      { baseOffset: 2_929_687 + 976_562, endOffset: 2_929_687 + 976_562 - 1, tier: 'local' },
    ]);
  });

  test('whatif with the 1 TiB question and a full 1 GiB active segment lays out the same log as bench/whatif-1tib.yaml', () => {
    const s = scenarioOf({ tieredBytes: 1024 * GiB, localBytes: 50 * GiB, activeBytes: GiB });
    expect(s.topics[0].initial[0].segments).toEqual(whatIfScenario().topics[0].initial[0].segments);
    expect(s.topics[0].initial[0].followersInSync).toBe(true);
    expect(s.model).toMatchObject({ recordBytes: 1024, producerBatchBytes: MiB });
    expect(s.topics[0].config).toMatchObject({ 'remote.storage.enable': true, 'segment.bytes': GiB, 'local.retention.bytes': 50 * GiB });
  });

  test('every partition holds the layout (written once, named by a YAML alias)', () => {
    const w = built({ partitions: 3, tieredBytes: 4 * MiB, localBytes: 2 * MiB, segmentBytes: MiB });
    expect(w.body).toContain('segments: &log');
    expect(w.body.match(/segments: \*log/g)).toHaveLength(2);
    const s = scenarioOf({ partitions: 3, tieredBytes: 4 * MiB, localBytes: 2 * MiB, segmentBytes: MiB });
    expect(s.topics[0].initial.map((i) => i.partition)).toEqual([0, 1, 2]);
    for (const i of s.topics[0].initial) expect(i.segments).toEqual(s.topics[0].initial[0].segments);
  });
});

describe('more segments in remote storage only than a scenario file holds', () => {
  test('1 TB tiered in 10 MB segments: laid out in larger segments, a whole number of segment.bytes each, the local log as asked', () => {
    const w = built({ tieredBytes: 1e12, localBytes: 50e6, segmentBytes: 10e6, recordBytes: 1000, produceBytesPerSec: 0 });
    // 10,000 records a segment; 10^9 records tiered: 100,000 segments at segment.bytes, too many lines.
    expect(w.layout.recordsPerSegment).toBe(10_000);
    expect(w.layout.recordsPerRemoteSegment % w.layout.recordsPerSegment).toBe(0);
    expect(w.layout.remoteSegments).toBe(Math.ceil(1e9 / w.layout.recordsPerRemoteSegment));
    expect(w.body.length).toBeLessThanOrEqual(131_072);
    // 50 MB local: 5 uploaded segments of 10 MB, the active one empty.
    expect(w.layout.segments.slice(w.layout.remoteSegments)).toEqual([0, 1, 2, 3, 4, 5].map((n) => ({ baseOffset: 1e9 + n * 10_000, endOffset: 1e9 + (n < 5 ? n + 1 : n) * 10_000 - 1, tier: n < 5 ? 'both' : 'local' })));
    expect(w.estimate.copyBytes).toEqual({ classic: 50e6, kip1023: 0 });
  });

  test('no figure depends on their size: the same what-if with them at segment.bytes gives the same comparison', () => {
    const over = { tieredBytes: 256 * MiB, localBytes: 5 * MiB, segmentBytes: MiB, produceBytesPerSec: 100_000, lingerMs: 100, consumersPerZone: 1 };
    const fine = scenarioOf(over);
    expect(fine.topics[0].initial[0].segments.filter((g) => g.tier === 'remote')).toHaveLength(256);
    const coarse: Scenario = structuredClone(fine);
    coarse.topics[0].initial[0].segments = layoutSegments({ remoteBytes: 256 * MiB, localBytes: 5 * MiB, segmentBytes: MiB, recordBytes: KiB, remoteSegmentScale: 64 }).segments;
    expect(coarse.topics[0].initial[0].segments.filter((g) => g.tier === 'remote')).toHaveLength(4);
    const a = compare(fine, ['classic', 'kip1023'], undefined, { keepTrace: false });
    const b = compare(coarse, ['classic', 'kip1023'], undefined, { keepTrace: false });
    // Storage is priced by bytes held, not by segment: the costs agree too, the month's to the
    // last of its six decimals (the storage integral sums the same bytes in another order).
    // The steady-state month is priced from the scenario's rates (the same here); its
    // run-measured column comes from the run's storage integral, compared as the month is.
    const strip = (m: (typeof a.modes)[number]) => ({ ...m, costUsd: { run: m.costUsd!.run }, steadyStateCostUsd: m.steadyStateCostUsd?.month ?? null });
    expect(b.modes.map(strip)).toEqual(a.modes.map(strip));
    for (const [i, m] of b.modes.entries()) expect(m.costUsd!.month!).toBeCloseTo(a.modes[i].costUsd!.month!, 5);
  });
});

describe('zones and replicas', () => {
  test('zone names, broker i in zone i mod zones', () => {
    expect(zoneNames(3)).toEqual(['a', 'b', 'c']);
    expect(zoneNames(28).slice(24)).toEqual(['y', 'z', 'z1', 'z2']);
    const s = scenarioOf({ brokers: 4, zones: 2, replicationFactor: 2 });
    expect(s.zones).toEqual(['a', 'b']);
    const k = new Kernel(s);
    expect(k.state.brokers.map((b) => b.zone)).toEqual(['a', 'b', 'a', 'b']);
  });

  test('leaders round robin, the other replicas in zones that hold none yet (rack-aware), by hand', () => {
    expect(rackAwareReplicas(3, 3, 3, 3)).toEqual([[0, 1, 2], [1, 2, 0], [2, 0, 1]]);
    // Broker 3 is in zone a with broker 0: partition 2 skips broker 0 for broker 1 (zone b).
    expect(rackAwareReplicas(4, 3, 4, 3)).toEqual([[0, 1, 2], [1, 2, 3], [2, 3, 1], [3, 1, 2]]);
    // Two zones, three replicas: once each zone holds one, the next broker holding none.
    expect(rackAwareReplicas(6, 2, 2, 3)).toEqual([[0, 1, 2], [1, 2, 3]]);
    for (const [n, z, rf] of [[9, 3, 3], [7, 3, 3], [12, 4, 3], [5, 5, 4]]) {
      const r = rackAwareReplicas(n, z, 2 * n, rf);
      for (const replicas of r) {
        expect(new Set(replicas).size).toBe(rf);
        expect(new Set(replicas.map((b) => b % z)).size).toBe(Math.min(rf, z));
      }
      expect(r.map((x) => x[0])).toEqual(Array.from({ length: 2 * n }, (_, p) => p % n));
    }
  });

  test('bench/workloads.ts, which now uses the same pieces, builds the reference hour as before', () => {
    const d = workloadDocument();
    expect(d.topics[0].replicas).toEqual(Array.from({ length: 50 }, (_, p) => [p % 3, (p + 1) % 3, (p + 2) % 3]));
    expect(d.zones).toEqual(['a', 'b', 'c']);
    expect(d.timeline[7]).toEqual({ at: 10 + 7 * 20, produce: { topic: 'events', partition: 7, records: 100, acks: 'all', everyMs: 1000 } });
  });
});

describe('the producer', () => {
  test('a batch per partition each linger.ms: 1 MB/s of 1 KiB records, linger.ms 5, is 5 records every 5 ms', () => {
    // 1,000,000 / 1024 = 976.6 records a second; 4.88 in 5 ms, rounded to 5.
    expect(producePlan(1_000_000, 1, KiB, 5)).toEqual({ records: 5, everyMs: 5, bytesPerSec: 1_024_000, recordAtATime: false });
    // 10 MB/s over 4 partitions, linger.ms 100: 2.5 MB/s a partition, 244 records of 1 KiB (244.1).
    expect(producePlan(10_000_000, 4, KiB, 100)?.records).toBe(244);
  });

  test('under a record per linger.ms each record goes alone, at its own period; linger.ms 0 is one produce a ms', () => {
    // 1 kB/s of 1 KiB records: 0.98 a second, one every 1024 ms.
    expect(producePlan(1000, 1, KiB, 5)).toMatchObject({ records: 1, everyMs: 1024, recordAtATime: true });
    expect(producePlan(1_024_000, 1, KiB, 0)).toMatchObject({ records: 1, everyMs: 1 });
    expect(producePlan(0, 1, KiB, 5)).toBeNull();
  });

  test('the produce entries: acks=all from t=0, linger clocks staggered over the partitions', () => {
    const s = scenarioOf({ partitions: 4, produceBytesPerSec: 4_096_000, lingerMs: 8, tieredBytes: 0, localBytes: MiB, segmentBytes: MiB });
    const produces = s.timeline.filter((e) => e.action.kind === 'produce');
    expect(produces.map((e) => [e.at, e.action])).toEqual([0, 1, 2, 3].map((p) => [2 * p, { kind: 'produce', topic: 'events', partition: p, records: 8, acks: 'all', everyMs: 8 }]));
  });
});

describe('the event', () => {
  const actions = (s: Scenario) => s.timeline.filter((e) => e.action.kind !== 'produce' && e.action.kind !== 'consume').map((e) => [e.at, e.action] as [number, TimelineAction]);

  test('add-replica: a broker joins and an empty replica of partition 0 is added on it', () => {
    const s = scenarioOf({});
    expect(actions(s)).toEqual([
      [1000, { kind: 'addBroker', broker: 3 }],
      [1000, { kind: 'addReplica', topic: 'events', partition: 0, broker: 3 }],
    ]);
  });

  test('store-outage: the tiered store is unavailable from the addReplica for --outage-ms', () => {
    const s = scenarioOf({ event: 'store-outage', outageMs: 7000, eventAtMs: 2000 });
    expect(actions(s)).toEqual([
      [2000, { kind: 'objectStore', available: false, store: 'tiered' }],
      [2000, { kind: 'addBroker', broker: 3 }],
      [2000, { kind: 'addReplica', topic: 'events', partition: 0, broker: 3 }],
      [9000, { kind: 'objectStore', available: true, store: 'tiered' }],
    ]);
  });

  test('crash-leader: the leader of partition 0 crashes and restarts --down-ms later; no broker is added', () => {
    const s = scenarioOf({ event: 'crash-leader', downMs: 5000, partitions: 3 });
    expect(s.topics[0].replicas[0][0]).toBe(0);
    expect(actions(s)).toEqual([
      [1000, { kind: 'crash', broker: 0 }],
      [6000, { kind: 'restart', broker: 0 }],
    ]);
    expect(s.brokers).toBe(3);
  });

  test('the new broker sits in zone brokers mod zones (here b, the leader in a: a cross-zone copy)', () => {
    const w = built({ brokers: 4, zones: 3 });
    expect(w.event).toMatchObject({ broker: 4, zone: 'b', leaderZone: 'a' });
  });

  test('until, when not given: the slowest design\'s catch-up estimated, a quarter more and 5 s, in whole seconds', () => {
    const w = built({ tieredBytes: 10 * GiB, localBytes: 300 * MiB, segmentBytes: 64 * MiB, produceBytesPerSec: 0 });
    expect(w.estimate.copyBytes).toEqual({ classic: 300 * MiB, kip1023: 44 * MiB });
    expect(w.untilMs).toBe(Math.ceil((1000 + 1.25 * w.estimate.catchUpMs! + 5000) / 1000) * 1000);
    expect(built({ untilMs: 60_000 }).untilMs).toBe(60_000);
  });
});

describe('consumers in each zone', () => {
  test('each polls every second and reads the second before the last, from the leader, in its zone', () => {
    const s = scenarioOf({ consumersPerZone: 2, zones: 3, tieredBytes: 0, localBytes: MiB, segmentBytes: MiB, produceBytesPerSec: 1_024_000, lingerMs: 5, untilMs: 4000 });
    const consumes = s.timeline.filter((e) => e.action.kind === 'consume');
    // Polls at 2000, 3000 and 4000; 2 consumers in each of 3 zones.
    expect(consumes).toHaveLength(3 * 6);
    // The log ends at 1,024 (1 MiB of 1 KiB records); 5 records every 5 ms from t=0: 1,000 a second.
    expect(consumes.slice(0, 6).map((e) => e.action)).toEqual(['a', 'a', 'b', 'b', 'c', 'c'].map((zone) => ({ kind: 'consume', topic: 'events', partition: 0, fromOffset: 1024, records: 1000, zone })));
    expect(consumes.filter((e) => e.at === 4000).map((e) => (e.action as { fromOffset: number }).fromOffset)).toEqual(Array(6).fill(3024));
  });

  test('a consume\'s zone: its Fetches cross zones from there (latency and cross-zone bytes), not from the leader\'s zone', () => {
    const doc = {
      name: 'zones', brokers: 3, zones: ['a', 'b', 'c'],
      topics: [{ name: 't', partitions: 1, replicas: [[0, 1, 2]], initial: [{ partition: 0, followersInSync: true, segments: [{ baseOffset: 0, endOffset: 99, tier: 'local' }] }] }],
      timeline: [
        { at: 10, consume: { topic: 't', partition: 0, fromOffset: 0, records: 100 } },
        { at: 10, consume: { topic: 't', partition: 0, fromOffset: 0, records: 100, zone: 'b' } },
        { at: 10, consume: { topic: 't', partition: 0, fromOffset: 0, records: 100, zone: 'a' } },
      ],
      until: 1000,
    };
    const r = parseScenarioText(JSON.stringify(doc));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const k = new Kernel(r.scenario);
    k.runToEnd();
    const json = buildRunJson(k);
    expect((json.metrics.crossZoneBytes as Record<string, number>).consume).toBe(100 * 1024);
    const answered = json.trace.filter((e) => e.type === 'response' && (e as { target?: unknown }).target === 'consumer').map((e) => e.atMs);
    // 1 ms each way in the leader's zone, 2 ms across.
    expect(answered.sort()).toEqual([12, 12, 14]);
    const bad = parseScenarioText(JSON.stringify({ ...doc, timeline: [{ at: 10, consume: { topic: 't', partition: 0, fromOffset: 0, records: 1, zone: 'd' } }] }));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems).toEqual([{ path: 'timeline[0].consume.zone', message: `expected one of 'a', 'b', 'c', got "d"` }]);
  });
});

describe('what whatif refuses, naming the option', () => {
  test.each([
    [{ segmentBytes: 512 * KiB }, /^--segment-bytes 512KiB: Kafka refuses it \("Invalid value 524288 for configuration segment.bytes: Value must be at least 1048576"; LogConfig: atLeast\(1024 \* 1024\), Kafka 4.1\+\)/],
    [{ segmentBytes: 4 * GiB }, /Not a number of type INT/],
    // 50 GiB / 1 MiB: 51,200 uploaded segments and the empty active one, a line each.
    [{ segmentBytes: MiB }, /^--local 50GiB in --segment-bytes 1MiB segments make 51,201 local segments a partition; whatif writes at most 1,500 .*give a larger --segment-bytes \(64MiB fits\) or a smaller --local/],
    [{ tieredBytes: 1000 * 1024 * GiB }, /^--tiered 1000TiB is more than whatif lays out in a scenario file .* even in segments of 2 GiB/],
    [{ zones: 4 }, /^--zones must be from 1 to --brokers \(3\)/],
    [{ replicationFactor: 4 }, /^--replication-factor must be from 1 to --brokers \(3\)/],
    [{ brokers: 64 }, /^--brokers must be from 1 to 63 \(the add-replica event adds one/],
    [{ event: 'crash-leader', replicationFactor: 1 } as Partial<WhatIfInput>, /^--replication-factor must be at least 2 for --event crash-leader/],
    [{ recordBytes: 2 * GiB, segmentBytes: GiB }, /^--record-bytes \(2 GiB\) is more than a segment/],
    [{ activeBytes: 2 * GiB }, /^--active \(2 GiB\) is more than a segment \(--segment-bytes 1 GiB\)/],
    [{ activeBytes: 2 * MiB, localBytes: MiB }, /^--active \(2 MiB\) is more than --local \(1 MiB\), which includes it/],
    [{ produceBytesPerSec: 900_000_000 }, /^--produce 900MB\/s .* would never catch up/],
    [{ partitions: 102, tieredBytes: 0, localBytes: MiB, segmentBytes: MiB }, /at most 101 partitions/],
  ])('%j', (over, reason) => {
    const r = buildWhatIf({ ...WHATIF_DEFAULTS, ...over });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problem).toMatch(reason);
      expect(r.problem).not.toContain('\n');
    }
  });
});

describe('the command', () => {
  // Small: compare's kept-trace budget takes it, each design runs in well under a second.
  const small = ['--tiered', '1GiB', '--local', '40MiB', '--segment-bytes', '16MiB', '--produce', '200kB/s', '--linger-ms', '100', '--consumers-per-zone', '1'];

  test('prints what it assumed (each default), compare\'s table with its assumed: line, and the new replica in each design', async () => {
    const r = await cli('whatif', ...small, '--modes', 'classic,kip1023');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^whatif: add-replica on events-0; assumed:\n  cluster    3 brokers in 3 zones \(a, b, c; broker i in zone i mod 3\)/);
    expect(r.stdout).toContain('  log        each partition: 1 GiB in remote storage only (64 segments), 40 MiB local (2 uploaded and still local, then the active segment of 8 MiB)');
    expect(r.stdout).toContain('  consumers  1 in each zone');
    expect(r.stdout).toContain('  defaults   --brokers 3 --zones 3 --partitions 1 --replication-factor 3 --record-bytes 1KiB --producer-zones leader --event add-replica --event-at-ms 1000 --seed 1\n');
    expect(r.stdout).toMatch(/\nassumed: each broker's network 1.25 GB\/s \(10 Gbit\/s\) each way/);
    expect(r.stdout).toMatch(/\n {2}classic {2}in the ISR \d+ ms after it was added \(t=\d+ms\), having pulled 4\d\.\d MiB/);
    expect(r.stdout).toMatch(/\n {2}kip1023 {2}in the ISR \d+ ms after it was added/);
  });

  test('--json: one document with the flags as given, what was assumed, the scenario, and each mode\'s figures and new replica', async () => {
    const r = await cli('whatif', ...small, '--modes', 'kip1023', '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['whatif', 'scenario', 'seed', 'modes']);
    expect(doc.whatif.flags).toEqual({ tiered: '1GiB', local: '40MiB', 'segment-bytes': '16MiB', produce: '200kB/s', 'linger-ms': '100', 'consumers-per-zone': '1', modes: 'kip1023', json: true });
    expect(doc.whatif.assumed).toMatchObject({
      brokers: 3, zones: ['a', 'b', 'c'], brokerZones: ['a', 'b', 'c', 'a'], partitions: 1, replicationFactor: 3, replicas: [[0, 1, 2]],
      tieredBytes: GiB, localBytes: 40 * MiB, segmentBytes: 16 * MiB, recordBytes: 1024,
      layout: { remoteSegments: 64, uploadedLocalSegments: 2, activeSegmentBytes: 8 * MiB, localLogStartOffset: 1024 * 1024, followersInSync: true },
      produce: { recordsPerProduce: 20, everyMs: 100, acks: 'all', lingerMs: 100 },
      consumersPerZone: 1, event: { kind: 'add-replica', atMs: 1000, broker: 3, zone: 'a', leaderZone: 'a' }, untilEstimated: true, seed: 1, modes: ['kip1023'],
    });
    expect(doc.whatif.assumed.defaults).toContain('--brokers 3');
    expect(doc.whatif.assumed.network).toMatch(/^each broker's network/);
    expect(doc.whatif.command).toBe('npm run sim -- whatif --tiered 1GiB --local 40MiB --segment-bytes 16MiB --produce 200kB/s --linger-ms 100 --consumers-per-zone 1 --modes kip1023 --json');
    expect(doc.scenario.topics[0].initial[0].segments).toHaveLength(64 + 3);
    expect(doc.modes).toHaveLength(1);
    const m = doc.modes[0];
    expect(m).toMatchObject({ mode: 'kip1023', violations: 0, endMs: doc.whatif.assumed.untilMs });
    expect(m.newReplica).toMatchObject({ broker: 3, addedAtMs: 1000 });
    expect(m.newReplica.atIsrJoin.atMs).toBe(m.newReplica.isrJoinedAtMs);
    expect(m.newReplica.atIsrJoin.bytesFromLeader).toBeGreaterThanOrEqual(8 * MiB);
    expect(m.newReplica.bytesFromLeader).toBeGreaterThanOrEqual(m.newReplica.atIsrJoin.bytesFromLeader);
    expect(Object.keys(m.costUsd)).toEqual(['run', 'month', 'breakdown']);
    expect(Object.keys(m.costUsd.breakdown)).toEqual(['crossZone', 'objectStoreRequests', 'objectStoreTransfer', 'storage', 'total']);
    expect(m.costUsd.breakdown.total).toBe(m.costUsd.run);
    // The consumers in zones b and c read across zones.
    expect(m.crossZone.consume).toBeGreaterThan(0);
  });

  test('--out writes the scenario with the command in a header; validate accepts it and compare gives the same figures', async () => {
    const file = join(tmp, 'small.yaml');
    const w = await cli('whatif', ...small, '--modes', 'classic,kip1023', '--out', file, '--json');
    expect(w.code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.split('\n')[0]).toBe(`${WHATIF_MARKER}: npm run sim -- whatif ${small.join(' ')} --modes classic,kip1023 --out ${file} --json`);
    expect(text).toContain('# Defaults it filled in: --brokers 3');
    const doc = JSON.parse(w.stdout);
    expect(doc.scenario).toBe(file);
    expect(doc.scenarioFile).toBe(file);
    const v = await cli('validate', file);
    expect(v).toMatchObject({ code: 0, stderr: '' });
    const c = await cli('compare', file, '--modes', 'classic,kip1023', '--json');
    expect(c.code).toBe(0);
    const compared = JSON.parse(c.stdout);
    // whatif streams its traces, compare keeps them: the same figures either way.
    for (const [i, m] of compared.modes.entries()) {
      const { newReplica, costUsd, ...figures } = doc.modes[i];
      expect(newReplica.broker).toBe(3);
      expect(figures).toEqual({ ...m, costUsd: undefined });
      expect({ run: costUsd.run, month: costUsd.month }).toEqual(m.costUsd);
    }
  });

  test('--out never writes over a file whatif did not write; it does write over its own', async () => {
    const mine = join(tmp, 'mine.yaml');
    writeFileSync(mine, 'name: mine\n');
    const r = await cli('whatif', ...small, '--modes', 'kip1023', '--out', mine);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.errLines).toEqual([`whatif: --out ${mine} exists and was not written by whatif (its first line is not "${WHATIF_MARKER}..."): give a new file name, or remove it first`]);
    expect(readFileSync(mine, 'utf8')).toBe('name: mine\n');
    // A bundled scenario (an input of other commands) is never replaced either.
    const bundled = join(import.meta.dirname, '..', 'scenarios', 'kip1023-bootstrap.yaml');
    const before = readFileSync(bundled, 'utf8');
    expect((await cli('whatif', ...small, '--modes', 'kip1023', '--out', bundled)).code).toBe(2);
    expect(readFileSync(bundled, 'utf8')).toBe(before);
    const own = join(tmp, 'own.yaml');
    expect((await cli('whatif', ...small, '--modes', 'kip1023', '--out', own)).code).toBe(0);
    const again = await cli('whatif', ...small, '--modes', 'kip1023', '--seed', '2', '--out', own);
    expect(again.code).toBe(0);
    expect(readFileSync(own, 'utf8')).toContain('--seed 2 --out');
    expect(existsSync(join(tmp, 'nothing.yaml'))).toBe(false);
  });

  test.each([
    [['--tiered', '1XB'], 'tierscope: --tiered: "1XB": unknown unit "XB"; the units are B, kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024). See --help.'],
    [['--produce', '10MB'], 'tierscope: --produce: "10MB" is a size, not a rate: add /s (e.g. 10MB/s). See --help.'],
    [['--brokers', 'three'], 'tierscope: --brokers expects a whole number, got "three". See --help.'],
    [['--segment-bytes', '100kB'], /^tierscope: --segment-bytes 100kB: Kafka refuses it \("Invalid value 100000 for configuration segment.bytes: Value must be at least 1048576"/],
    [['--event', 'reboot'], 'tierscope: --event expects add-replica, crash-leader, store-outage, got "reboot". See --help.'],
    [['--modes', 'kip405'], 'tierscope: --modes expects a comma-separated list of classic, kip1023, wal, got "kip405". See --help.'],
    [['--tiered'], 'tierscope: --tiered needs a value. See --help.'],
    [['--tiered', '1TiB', '--tiered', '2TiB'], 'tierscope: --tiered is given twice. See --help.'],
    [['--store', 'fs'], 'tierscope: --store is not a whatif option (whatif runs every design in memory, as compare does). See --help.'],
    [['--bogus', '1'], 'tierscope: unknown option --bogus for whatif. See --help.'],
    [['scenarios/kip1023-bootstrap.yaml'], /^tierscope: whatif takes no FILE/],
    [['--zones', '5'], /^tierscope: --zones must be from 1 to --brokers \(3\)/],
  ])('bad options %j: exit 2, one line on stderr, nothing on stdout', async (args, message) => {
    const r = await cli('whatif', ...(args as string[]));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.errLines).toHaveLength(1);
    if (typeof message === 'string') expect(r.stderr).toBe(message);
    else expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test('--help names every option', async () => {
    const r = await cli('whatif', '--help');
    expect(r.code).toBe(0);
    for (const o of ['--active SIZE', '--brokers N', '--zones N', '--partitions N', '--replication-factor N', '--tiered SIZE', '--local SIZE', '--segment-bytes SIZE', '--produce RATE', '--record-bytes SIZE', '--linger-ms MS', '--modes LIST', '--event add-replica', '--event crash-leader', '--event store-outage', '--out FILE', '--json', '--consumers-per-zone N', '--until MS', '--duration MS', '--seed N', '--max-steps N']) {
      expect(r.stdout, o).toContain(o);
    }
    expect((await cli('--help')).stdout).toContain('  whatif ');
  });
});

describe('closed form: the bytes a new replica pulls from the leader are what the layout implies', () => {
  // 300 MiB local in 64 MiB segments: 4 uploaded (256 MiB) and the active one, 44 MiB. No
  // producer, so nothing is added while it copies (README, "How long until a new replica is in the ISR?").
  const args = ['--tiered', '10GiB', '--local', '300MiB', '--segment-bytes', '64MiB', '--produce', '0', '--modes', 'classic,kip1023', '--json'];

  test('classic copies the local log from its start; KIP-1023 from the Earliest-Pending-Upload-Offset, the active segment; times as the bandwidth model gives them', async () => {
    const r = await cli('whatif', ...args);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const [classic, kip] = doc.modes;
    expect(classic.newReplica.atIsrJoin.bytesFromLeader).toBe(300 * MiB);
    expect(kip.newReplica.atIsrJoin.bytesFromLeader).toBe(44 * MiB);
    // Without a producer the bytes at the join are the bytes of the run.
    expect(classic.newReplica.bytesFromLeader).toBe(300 * MiB);
    expect(kip.newReplica.bytesFromLeader).toBe(44 * MiB);
    // The remote auxiliary state (the leader-epoch checkpoint and producer snapshot) from the store, in both.
    expect(classic.newReplica.bytesFromStore).toBe(kip.newReplica.bytesFromStore);
    expect(classic.newReplica.bytesFromStore).toBeGreaterThan(0);
    // The same leader, zone (broker 3 in zone a, the leader's) and layout: the estimate is the closed form.
    for (const [m, bytes] of [[classic, 300 * MiB], [kip, 44 * MiB]] as const) {
      const took = m.newReplica.atIsrJoin.atMs - m.newReplica.addedAtMs;
      const closed = estimateCatchUpMs(bytes, { hopMs: 1, segmentBytes: 64 * MiB, producePerPartitionBytesPerSec: 0 })!;
      expect(Math.abs(took - closed) / closed, `${m.mode}: ${took} ms against ${closed} ms`).toBeLessThan(0.05);
      expect(m.catchUpMs).toBe(took);
    }
  });
});

describe('the README\'s question: 1 TB tiered and 50 MB local, in 10 MB segments', () => {
  test.each([
    [[], 0],
    [['--active', '5MB'], 5_000_000],
  ])('classic pulls the 50 MB local log from the leader, KIP-1023 the active segment (%j: %d bytes)', async (more, active) => {
    const r = await cli('whatif', '--tiered', '1TB', '--local', '50MB', '--segment-bytes', '10MB', '--record-bytes', '1000', '--produce', '0', '--modes', 'classic,kip1023', ...more, '--json');
    expect(r.code).toBe(0);
    const [classic, kip] = JSON.parse(r.stdout).modes;
    expect(classic.newReplica.atIsrJoin.bytesFromLeader).toBe(50_000_000);
    expect(kip.newReplica.atIsrJoin.bytesFromLeader).toBe(active);
    expect(kip.newReplica.atIsrJoin.atMs).toBeLessThan(classic.newReplica.atIsrJoin.atMs);
  });
});

describe('the other events, run', () => {
  test('store-outage: the bootstrap waits for the store; a KIP-1023 replica that failed its first try takes the classic path', async () => {
    const r = await cli('whatif', '--event', 'store-outage', '--outage-ms', '3000', '--tiered', '1GiB', '--local', '40MiB', '--segment-bytes', '16MiB', '--produce', '0', '--modes', 'classic,kip1023', '--json');
    expect(r.code).toBe(0);
    const [classic, kip] = JSON.parse(r.stdout).modes;
    for (const m of [classic, kip]) expect(m.newReplica.atIsrJoin.atMs).toBeGreaterThan(4000);
    // docs/protocol.md §9, example 7 (scenarios/kip1023-remote-storage-error.yaml): the retry is not empty, so classic.
    expect(kip.newReplica.atIsrJoin.bytesFromLeader).toBe(40 * MiB);
    expect(classic.newReplica.atIsrJoin.bytesFromLeader).toBe(40 * MiB);
  });

  test('crash-leader: the restarted leader rejoins the ISR; its figures are counted from the restart', async () => {
    const r = await cli('whatif', '--event', 'crash-leader', '--down-ms', '2000', '--tiered', '1GiB', '--local', '40MiB', '--segment-bytes', '16MiB', '--produce', '100kB/s', '--linger-ms', '50', '--modes', 'classic', '--json');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const m = doc.modes[0];
    expect(m.newReplica).toBeUndefined();
    expect(m.restartedLeader).toMatchObject({ broker: 0, addedAtMs: 3000 });
    expect(m.restartedLeader.atIsrJoin.atMs).toBeGreaterThan(3000);
    expect(m.violations).toBe(0);
  });
});

describe('the producer plan keeps the asked rate', () => {
  test('half a record per linger.ms is a record at a time at the rate records arrive, not one per linger (twice the rate)', () => {
    // 100 KiB/s of 1 KiB records is 100 records a second: one every 10 ms, each sent alone.
    expect(producePlan(102_400, 1, 1024, 5)).toEqual({ records: 1, everyMs: 10, bytesPerSec: 102_400, recordAtATime: true });
  });
  test('1.5 records per linger.ms: two records at the period that keeps the rate within 5%', () => {
    // 300 kB/s of 1 kB records: 1.5 per 5 ms; two every 7 ms is 285.7 kB/s (two every 5 ms would be 400).
    const p = producePlan(300_000, 1, 1000, 5)!;
    expect(p).toMatchObject({ records: 2, everyMs: 7, recordAtATime: false });
    expect(Math.abs(p.bytesPerSec - 300_000) / 300_000).toBeLessThan(0.05);
  });
  test('a count within 5% keeps linger.ms as the period', () => {
    expect(producePlan(5_000_000, 50, 1000, 1000)).toEqual({ records: 100, everyMs: 1000, bytesPerSec: 5_000_000, recordAtATime: false });
  });
});
