/**
 * The bandwidth model (core/sim/world/bandwidth.ts, docs/protocol.md §10): fair shares by hand,
 * and a follower's catch-up time against the closed form
 *
 *   joined = bootstrap + N / B + rounds x (2 x hop) + hop
 *
 * where N is the bytes it fetches, B its share of the leader's interface, rounds =
 * ceil(N / replica.fetch.max.bytes) full Fetch round trips, and the last hop is the Fetch at
 * the log end that lets the leader add it to the ISR. The bootstrap (the requests before the
 * first Fetch that returns records) is checked on its own: a round trip per request and the
 * store's first-byte latency per GET.
 */
import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../core/scenario/parse.js';
import { shareOut } from '../core/sim/world/bandwidth.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';

const MiB = 1024 * 1024;
const RECORD = 1024;

interface Setup {
  /** Bytes per second of each interface. */
  bps: number;
  kip1023: boolean;
  /** Empty followers added at t = 0 (brokers 1..n). */
  followers: number;
  /** Zones: one per broker, or all in one. */
  zones?: string[];
  /** Segments of 16 MiB: [tier, ...] from offset 0. */
  tiers: Array<'remote' | 'both' | 'local'>;
  /** A KIP-73 replication throttle on every replica, bytes/s, on the leader's side or the follower's. */
  throttle?: { side: 'leader' | 'follower'; bytesPerSec: number };
}

function scenarioText(o: Setup): string {
  const per = (16 * MiB) / RECORD;
  const segs = o.tiers.map((t, i) => `          - { baseOffset: ${i * per}, endOffset: ${(i + 1) * per - 1}, tier: ${t} }`).join('\n');
  const brokers = 1 + o.followers;
  return `name: bandwidth check
description: closed-form catch-up
brokers: ${brokers}
${o.zones ? `zones: [${o.zones.join(', ')}]\n` : ''}config:
  follower.fetch.last.tiered.offset.enable: ${o.kip1023}
${o.throttle ? `  ${o.throttle.side}.replication.throttled.rate: ${o.throttle.bytesPerSec}\n` : ''}model:
  brokerNetworkBytesPerSec: ${o.bps}
  recordBytes: ${RECORD}
topics:
  - name: orders
    partitions: 1
    replicas: [[${Array.from({ length: brokers }, (_, i) => i).join(', ')}]]
    config:
      remote.storage.enable: true
      segment.bytes: ${16 * MiB}
      remote.log.copy.disable: true
${o.throttle ? `      ${o.throttle.side}.replication.throttled.replicas: "*"\n` : ''}    initial:
      - partition: 0
        segments:
${segs}
until: 60000
`;
}

function run(o: Setup) {
  const r = parseScenarioText(scenarioText(o), 'bandwidth.yaml');
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('; '));
  const k = new Kernel(r.scenario);
  k.runToEnd();
  return { k, json: buildRunJson(k) };
}

/** The bootstrap by hand: 2 hops per request before the first Fetch with records, the GET latency per store read. */
function bootstrapOf(json: ReturnType<typeof buildRunJson>, broker: number, hopMs: number, getMs: number) {
  const firstData = json.trace.findIndex((e) => e.type === 'response' && e.api === 'Fetch' && e.target === broker && ((e as { bytes?: number }).bytes ?? 0) > 0);
  const before = json.trace.slice(0, firstData);
  const requests = before.filter((e) => e.type === 'request' && e.source === broker).length;
  const gets = before.filter((e) => e.type === 'objectStore' && e.broker === broker && (e as { op?: string }).op === 'get').length;
  // The last request before the data is that first data Fetch itself: its round trip belongs to the rounds.
  return { ms: (requests - 1) * 2 * hopMs + gets * getMs, requests, gets };
}

describe('fair shares (max-min, by progressive filling)', () => {
  it('two transfers out of one broker get half each', () => {
    expect(shareOut([{ from: 0, to: 1 }, { from: 0, to: 2 }], 100)).toEqual([50, 50]);
  });
  it('a transfer held back elsewhere leaves its share to the others', () => {
    // in:2 carries three transfers (a third each); broker 0's out then has 2/3 left for the first.
    const r = shareOut([{ from: 0, to: 1 }, { from: 0, to: 2 }, { from: 3, to: 2 }, { from: 4, to: 2 }], 90);
    expect(r).toEqual([60, 30, 30, 30]);
  });
  it('a client end has no interface of its own', () => {
    expect(shareOut([{ from: 0, to: null }, { from: null, to: 0 }], 80)).toEqual([80, 80]);
  });
  it('out and in are separate ways of one interface', () => {
    expect(shareOut([{ from: 0, to: 1 }, { from: 1, to: 0 }], 10)).toEqual([10, 10]);
  });
});

describe('catch-up time against the closed form', () => {
  const fetchMax = MiB;
  const cases: Array<{ name: string; o: Setup; fetched: number; hop: number; share: number }> = [
    { name: 'classic, 1 Gbit/s, one zone', o: { bps: 125_000_000, kip1023: false, followers: 1, tiers: ['remote', 'both', 'local', 'local'] }, fetched: 48 * MiB, hop: 1, share: 1 },
    { name: 'KIP-1023, 1 Gbit/s, one zone', o: { bps: 125_000_000, kip1023: true, followers: 1, tiers: ['remote', 'both', 'local', 'local'] }, fetched: 32 * MiB, hop: 1, share: 1 },
    { name: 'classic, 10 Gbit/s, across zones', o: { bps: 1_250_000_000, kip1023: false, followers: 1, zones: ['a', 'b'], tiers: ['remote', 'local', 'local', 'local', 'local'] }, fetched: 64 * MiB, hop: 2, share: 1 },
    { name: 'KIP-1023, two new followers share the leader', o: { bps: 125_000_000, kip1023: true, followers: 2, zones: ['a', 'b', 'c'], tiers: ['remote', 'both', 'local', 'local'] }, fetched: 32 * MiB, hop: 2, share: 2 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { json } = run(c.o);
      const perMs = c.o.bps / 1000 / c.share;
      for (let b = 1; b <= c.o.followers; b++) {
        const rep = json.partitions[0].replicas.find((r) => r.broker === b)!;
        expect(rep.bytesFromLeader).toBe(c.fetched);
        expect(rep.isrJoinedAtMs).not.toBeNull();
        const boot = bootstrapOf(json, b, c.hop, 60);
        const rounds = Math.ceil(c.fetched / fetchMax);
        const expected = boot.ms + c.fetched / perMs + rounds * 2 * c.hop + c.hop;
        const got = rep.isrJoinedAtMs!;
        expect(Math.abs(got - expected) / expected, `joined at ${got} ms, closed form ${expected.toFixed(1)} ms (bootstrap ${boot.ms} ms)`).toBeLessThan(0.05);
        // The trace floors times to whole ms: within one ms of the closed form here.
        expect(Math.abs(got - expected)).toBeLessThanOrEqual(1);
      }
    });
  }

  // With a replication throttle of R bytes/s below the link's share, the throttle sets the
  // pace: the follower is held back whenever Kafka's sampled rate is above R, so it pulls N
  // bytes in about N / R after its bootstrap (the round trips hide in the throttle's waits).
  // A throttled follower leaves the partition out and waits replica.fetch.backoff.ms (1 s)
  // before it asks again (AbstractFetcherThread.maybeFetch with an empty request), so its
  // pace moves in steps of up to a second: the sizes keep that under 5% of the whole.
  const throttled: Array<{ name: string; o: Setup; fetched: number }> = [
    { name: 'classic, leader throttle 2 MiB/s', o: { bps: 125_000_000, kip1023: false, followers: 1, tiers: ['remote', 'both', 'local', 'local'], throttle: { side: 'leader', bytesPerSec: 2 * MiB } }, fetched: 48 * MiB },
    { name: 'KIP-1023, leader throttle 2 MiB/s', o: { bps: 125_000_000, kip1023: true, followers: 1, tiers: ['remote', 'both', 'local', 'local'], throttle: { side: 'leader', bytesPerSec: 2 * MiB } }, fetched: 32 * MiB },
    { name: 'classic, follower throttle 1 MiB/s', o: { bps: 125_000_000, kip1023: false, followers: 1, tiers: ['remote', 'both', 'local', 'local'], throttle: { side: 'follower', bytesPerSec: 1 * MiB } }, fetched: 48 * MiB },
    { name: 'KIP-1023, follower throttle 1 MiB/s', o: { bps: 125_000_000, kip1023: true, followers: 1, tiers: ['remote', 'both', 'local', 'local'], throttle: { side: 'follower', bytesPerSec: 1 * MiB } }, fetched: 32 * MiB },
  ];
  for (const c of throttled) {
    it(c.name, () => {
      const { json } = run(c.o);
      const rep = json.partitions[0].replicas[1];
      expect(rep.bytesFromLeader).toBe(c.fetched);
      const boot = bootstrapOf(json, 1, 1, 60);
      const expected = boot.ms + (c.fetched / c.o.throttle!.bytesPerSec) * 1000;
      const got = rep.isrJoinedAtMs!;
      expect(Math.abs(got - expected) / expected, `joined at ${got} ms, closed form ${expected.toFixed(0)} ms`).toBeLessThan(0.05);
      // Slower than the link alone could carry it: the throttle, not the bandwidth, set the pace.
      expect(got).toBeGreaterThan(boot.ms + (c.fetched / c.o.bps) * 1000 * 5);
    });
  }

  it('the bootstrap matches its hand count (KIP-1023: 4 round trips, 2 GETs, ListOffsets -1)', () => {
    const { json } = run({ bps: 125_000_000, kip1023: true, followers: 1, tiers: ['remote', 'both', 'local', 'local'] });
    const boot = bootstrapOf(json, 1, 1, 60);
    expect(boot).toEqual({ ms: 130, requests: 6, gets: 2 });
  });

  it('without a limit, the transfer takes no time: only the round trips', () => {
    const { json } = run({ bps: 0, kip1023: true, followers: 1, tiers: ['remote', 'both', 'local', 'local'] });
    const rep = json.partitions[0].replicas[1];
    expect(rep.isrJoinedAtMs).toBe(130 + 32 * 2 + 1);
  });

  it('runs the same twice (rates and ends are exact IEEE arithmetic)', () => {
    const o: Setup = { bps: 125_000_000, kip1023: true, followers: 2, zones: ['a', 'b', 'c'], tiers: ['remote', 'both', 'local', 'local'] };
    expect(JSON.stringify(run(o).json)).toBe(JSON.stringify(run(o).json));
  });
});

describe('the JSON and the checkpoint', () => {
  it('a checkpoint taken mid-transfer continues to the same run', () => {
    const text = scenarioText({ bps: 125_000_000, kip1023: false, followers: 1, tiers: ['local', 'local'] });
    const r = parseScenarioText(text, 'x.yaml');
    if (!r.ok) throw new Error('bad');
    const a = new Kernel(r.scenario);
    a.runToEnd();
    const b = new Kernel(r.scenario);
    while (b.state.net.transfers.length === 0) b.step();
    b.step();
    const cp = b.checkpoint();
    const c = Kernel.restore(r.scenario, cp);
    c.runToEnd();
    expect(JSON.stringify(buildRunJson(c).partitions)).toBe(JSON.stringify(buildRunJson(a).partitions));
    expect(c.trace.length).toBe(a.trace.length);
  });

  /**
   * One follower catching up at 125 MB/s with `timeline` (its events at t = 5 and later): the
   * leader's 1 MiB answer is on the wire at t = 4 and cut by t = 6; run to the end.
   */
  function cutMidTransfer(timeline: string): Kernel {
    const text = scenarioText({ bps: 125_000_000, kip1023: false, followers: 1, tiers: ['local', 'local'] }).replace('until: 60000', `timeline:\n${timeline}until: 20000`);
    const r = parseScenarioText(text, 'x.yaml');
    if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('; '));
    const k = new Kernel(r.scenario);
    k.runUntil(4);
    expect(k.state.net.transfers.length).toBe(1);
    k.runUntil(6);
    expect(k.state.net.transfers.length).toBe(0);
    k.runToEnd();
    return k;
  }

  it('a leader that crashes mid-transfer cuts it: the follower sees a network error, the interface is free', () => {
    const k = cutMidTransfer('  - at: 5\n    crash: { broker: 0 }\n');
    const first = k.trace.find((e) => e.type === 'response' && e.api === 'Fetch' && e.target === 1)!;
    expect(first).toMatchObject({ error: 'NETWORK_EXCEPTION', rule: 'brokerUnreachable', atMs: 6 });
    expect(k.trace.some((e) => e.type === 'response' && e.api === 'Fetch' && ((e as { bytes?: number }).bytes ?? 0) > 0)).toBe(false);
  });

  it('a follower cut off mid-transfer hears of it (a network error), backs off, and after heal catches up and joins the ISR', () => {
    // The leader's 1 MiB answer to broker 1 takes 8.4 ms at 125 MB/s; broker 1 is isolated at
    // t = 5 while it is on the wire. An isolated broker is alive: unlike a crashed one, it must
    // be told its answer is lost, or it waits for it forever.
    const k = cutMidTransfer('  - at: 5\n    isolate: { broker: 1 }\n  - at: 200\n    heal: { broker: 1 }\n');
    const first = k.trace.find((e) => e.type === 'response' && e.api === 'Fetch' && e.target === 1)!;
    expect(first).toMatchObject({ error: 'NETWORK_EXCEPTION', rule: 'networkPartition' });
    const json = buildRunJson(k);
    const follower = json.partitions[0].replicas.find((x) => x.broker === 1)!;
    expect(follower.isrJoinedAtMs).not.toBeNull();
    expect(follower.isrJoinedAtMs!).toBeGreaterThan(200);
    expect(follower.logEndOffset).toBe(json.partitions[0].replicas.find((x) => x.broker === 0)!.logEndOffset);
  });

  it('trace times stay whole milliseconds', () => {
    const { json } = run({ bps: 125_000_000, kip1023: false, followers: 1, tiers: ['local', 'local'] });
    for (const e of json.trace) expect(Number.isInteger(e.atMs)).toBe(true);
  });
});
