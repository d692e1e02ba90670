/**
 * The bytes in flight a replica's lane shows (`ReplicaView.inFlight`, core/session/view.ts;
 * drawn by web/components/OffsetLanes.svelte through `laneFlows`), checked by hand:
 *
 * - a follower catching up alone over 1 Gbit/s (125,000 B/ms): its 1 MiB Fetch response
 *   has 1,048,576 - 125,000 x t bytes left t ms after it started, at 125 MB/s;
 * - two followers sharing the leader's interface: 62,500 B/ms each (max-min fair), and the
 *   leader sends both, 125 MB/s in all;
 * - a GET from a store: its first-byte latency, then its range at the per-request
 *   throughput, in whole ms (a 100 KiB chunk at 10 MB/s: 4 ms, then 10 ms of bytes);
 * - nothing once the follower is in the ISR, and nothing on a broker that is down.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenarioText } from '../core/scenario/parse.js';
import { buildView, type ReplicaView } from '../core/session/view.js';
import { bytesLeftAt, formatRateShort } from '../core/sim/world/bandwidth.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import type { KernelEventOf } from '../core/sim/state/state.js';
import { FLOW_GAUGE, flowRow, LANES, lanePlan, laneFlows, lanesDescription, lanesLayout, textWidth } from '../web/lib/layout.js';
import { catchUpScenario } from './support/catch-up.js';
import { ROOT } from './support/run.js';

const MiB = 1024 * 1024;
/** 1 Gbit/s: bytes per second and per ms. */
const LINK = 125_000_000;
const PER_MS = LINK / 1000;

/** A partition of 48 MiB (16 MiB remote only, 16 MiB both, 16 MiB local) and `followers` empty followers, at 1 Gbit/s. */
function catchUp(followers: number, until = 5000): Kernel {
  const text = catchUpScenario({ name: 'in flight', description: 'followers catching up at 1 Gbit/s', followers, bytesPerSec: LINK, until });
  const r = parseScenarioText(text, 'in-flight.yaml');
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('; '));
  return new Kernel(r.scenario);
}

/** Steps until `n` transfers are in flight; returns the ms they started (all in the same ms). */
function untilTransfers(k: Kernel, n: number): number {
  while (k.state.net.transfers.length < n) if (!k.step()) throw new Error('no transfers');
  const starts = new Set(k.state.net.transfers.map((t) => t.startedMs));
  expect(starts.size).toBe(1);
  return k.state.net.transfers[0].startedMs;
}

const replicaOf = (k: Kernel, broker: number): ReplicaView => buildView(k).partitions[0].replicas.find((r) => r.broker === broker)!;

describe('ReplicaView.inFlight over the network, by hand', () => {
  it('a follower alone gets the whole link: 1 MiB less 125,000 B a ms', () => {
    const k = catchUp(1);
    const start = untilTransfers(k, 1);
    // 4 ms into the transfer, with no share-out since it started (its `remaining` is still 1 MiB).
    k.runUntil(start + 4);
    expect(k.state.net.transfers[0]).toMatchObject({ bytes: MiB, remaining: MiB, updatedMs: start });
    const left = MiB - 4 * PER_MS; // 548,576
    expect(replicaOf(k, 1).inFlight).toEqual({
      receiving: { transfers: 1, bytes: MiB, bytesLeft: left, bytesPerSec: LINK, linkBytesPerSec: LINK, peers: [0], clients: 0 },
      sending: null,
      fromStore: [],
    });
    expect(replicaOf(k, 0).inFlight).toEqual({
      receiving: null,
      sending: { transfers: 1, bytes: MiB, bytesLeft: left, bytesPerSec: LINK, linkBytesPerSec: LINK, peers: [1], clients: 0 },
      fromStore: [],
    });
    // The network table counts the same bytes at the same moment.
    const net = buildView(k).network.brokers;
    expect(net[0].out).toEqual({ transfers: 1, bytesLeft: left, bytesPerSec: LINK });
    expect(net[1].in).toEqual({ transfers: 1, bytesLeft: left, bytesPerSec: LINK });
  });

  it('two followers share the leader interface fairly: half each, the leader sends at the whole link', () => {
    const k = catchUp(2);
    const start = untilTransfers(k, 2);
    k.runUntil(start + 8);
    const half = PER_MS / 2; // 62,500 B/ms each
    const left = MiB - 8 * half; // 548,576
    for (const b of [1, 2]) {
      expect(replicaOf(k, b).inFlight.receiving).toEqual({ transfers: 1, bytes: MiB, bytesLeft: left, bytesPerSec: LINK / 2, linkBytesPerSec: LINK, peers: [0], clients: 0 });
    }
    expect(replicaOf(k, 0).inFlight.sending).toEqual({ transfers: 2, bytes: 2 * MiB, bytesLeft: 2 * left, bytesPerSec: LINK, linkBytesPerSec: LINK, peers: [1, 2], clients: 0 });
    // Both end when 1 MiB has gone at 62,500 B/ms (rounded up to the microsecond).
    for (const t of k.state.net.transfers) expect(t.endMs - (start + MiB / half)).toBeGreaterThanOrEqual(0);
    for (const t of k.state.net.transfers) expect(t.endMs - (start + MiB / half)).toBeLessThan(0.001);
  });

  it('bytes left never go below 0 (a picture a microsecond past the rounded end)', () => {
    expect(bytesLeftAt({ remaining: 1000, rate: 100, updatedMs: 10 }, 12)).toBe(800);
    expect(bytesLeftAt({ remaining: 1000, rate: 100, updatedMs: 10 }, 20.001)).toBe(0);
    expect(bytesLeftAt({ remaining: 1000, rate: 100, updatedMs: 10 }, 10)).toBe(1000);
  });

  it('the lane text and the description say the same, with the rate as a part of the link', () => {
    const k = catchUp(2);
    const start = untilTransfers(k, 2);
    k.runUntil(start + 8);
    const p = buildView(k).partitions[0];
    const follower = laneFlows(p.replicas[1]);
    expect(follower).toEqual([
      expect.objectContaining({ kind: 'receiving', text: '↓ 536 KiB in flight · 62.5 MB/s from broker 0', share: 0.5, bytesLeft: 548_576, bytesPerSec: 62_500_000 }),
    ]);
    expect(follower[0].sentence).toBe("receiving 536 KiB of 1 MiB from broker 0 at 62.5 MB/s (0.5 Gbit/s), 1/2 of a broker's 125 MB/s interface (1 transfer)");
    expect(laneFlows(p.replicas[0])).toEqual([expect.objectContaining({ kind: 'sending', text: '↑ 1.05 MiB in flight · 125 MB/s to brokers 1, 2', share: 1 })]);
    const d = lanesDescription(p);
    expect(d).toContain('broker 1 follower not in the ISR');
    expect(d).toContain(follower[0].sentence);
    expect(d).toContain("sending 1.05 MiB of 2 MiB to brokers 1, 2 at 125 MB/s (1 Gbit/s), all of a broker's 125 MB/s interface (2 transfers)");
  });

  it('nothing in flight once caught up, and nothing on a broker that is down', () => {
    const k = catchUp(1);
    k.runToEnd();
    const p = buildView(k).partitions[0];
    expect(p.isr).toEqual([0, 1]);
    for (const r of p.replicas) {
      expect(r.inFlight).toEqual({ receiving: null, sending: null, fromStore: [] });
      expect(laneFlows(r)).toEqual([]);
    }
    expect(lanesDescription(p)).not.toMatch(/receiving|sending|reading/);
    // A follower that crashes while its GET of the auxiliary state is out: the answer is
    // still queued (and dropped when it comes), the lane shows nothing.
    const c = catchUp(1);
    while (!c.state.queue.heap.some((q) => q.ev.kind === 'storeDone')) c.step();
    expect(replicaOf(c, 1).inFlight.fromStore).toHaveLength(1);
    c.applyAction({ kind: 'crash', broker: 1 });
    expect(c.state.queue.heap.some((q) => q.ev.kind === 'storeDone')).toBe(true);
    expect(replicaOf(c, 1).inFlight).toEqual({ receiving: null, sending: null, fromStore: [] });
  });
});

describe('ReplicaView.inFlight from a store, by hand', () => {
  it('the remote auxiliary state: a whole-object GET waits for its first byte, then arrives whole', () => {
    const k = catchUp(1);
    while (!k.state.queue.heap.some((q) => q.ev.kind === 'storeDone')) k.step();
    const q = k.state.queue.heap.find((x) => x.ev.kind === 'storeDone')!;
    const ev = q.ev as KernelEventOf<'storeDone'>;
    expect(ev.completion.for).toBe('auxState');
    k.runUntil(q.at - 1);
    const bytes = ev.result.bytes;
    expect(replicaOf(k, 1).inFlight.fromStore).toEqual([{ store: 'tiered', gets: 1, bytes, bytesLeft: bytes, bytesPerSec: 0, getBytesPerSec: 90_000_000, waiting: 1 }]);
    expect(laneFlows(replicaOf(k, 1))[0]).toMatchObject({ kind: 'tiered', text: `↓ ${bytes} B from the tiered store · waiting for the first byte`, share: 0 });
  });

  it('a KIP-1176 chunk at 10 MB/s: 4 ms to the first byte, then 100 KiB over 10 ms', () => {
    const text = readFileSync(join(ROOT, 'scenarios', 'wal-steady-state.yaml'), 'utf8').replace('topics:', 'model:\n  walGetBytesPerMs: 10000\ntopics:');
    const r = parseScenarioText(text, 'wal.yaml');
    if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('; '));
    const k = new Kernel(r.scenario);
    const chunkGet = () => k.state.queue.heap.find((x) => x.ev.kind === 'storeDone' && (x.ev as KernelEventOf<'storeDone'>).completion.for === 'walChunk');
    while (chunkGet() === undefined) k.step();
    const q = chunkGet()!;
    const ev = q.ev as KernelEventOf<'storeDone'>;
    const issued = k.state.nowMs;
    // 100 records of 1 KiB; walGetLatencyMs 4, then floor(102,400 / 10,000) = 10 ms.
    expect(ev.result.bytes).toBe(102_400);
    expect(q.at).toBe(issued + 4 + 10);
    k.runUntil(issued + 2);
    expect(replicaOf(k, ev.broker).inFlight.fromStore).toEqual([{ store: 'wal', gets: 1, bytes: 102_400, bytesLeft: 102_400, bytesPerSec: 0, getBytesPerSec: 10_000_000, waiting: 1 }]);
    // 5 of its 10 ms of bytes are done: half is left, arriving at 102,400 B / 10 ms.
    k.runUntil(issued + 9);
    expect(replicaOf(k, ev.broker).inFlight.fromStore).toEqual([{ store: 'wal', gets: 1, bytes: 102_400, bytesLeft: 51_200, bytesPerSec: 10_240_000, getBytesPerSec: 10_000_000, waiting: 0 }]);
    expect(laneFlows(replicaOf(k, ev.broker))[0]).toMatchObject({ kind: 'wal', text: '↓ 50 KiB from the fast store · 10.2 MB/s', share: 1 });
  });
});

describe('the lanes make room for the bytes in flight', () => {
  it('the fixed plan keeps a row for them under every lane; a fitted plan only where something is in flight', () => {
    const fixed = lanePlan(800);
    for (let i = 0; i < 3; i++) {
      // Under the lowest bottom label row (baseline bar + 22 + 18 + 2 x 13), above the next lane.
      expect(fixed.flowY(i) - 11).toBeGreaterThanOrEqual(fixed.barY(i) + LANES.barPx + 18 + 2 * LANES.rowPx + 3);
      expect(fixed.flowY(i) + 4).toBeLessThanOrEqual(fixed.laneTop(i + 1));
    }
    const without = lanePlan(800, [{ top: 1, bottom: 1 }, { top: 1, bottom: 1 }]);
    const withFlow = lanePlan(800, [{ top: 1, bottom: 1, flow: true }, { top: 1, bottom: 1 }]);
    expect(withFlow.laneTop(1) - without.laneTop(1)).toBe(LANES.flowPx);
    expect(withFlow.flowY(0) + 4).toBeLessThanOrEqual(withFlow.laneTop(1));
  });

  it('fitted lanes at a catch-up: the leader and both followers get the row; the texts fit the width', () => {
    const k = catchUp(2);
    const start = untilTransfers(k, 2);
    k.runUntil(start + 8);
    const p = buildView(k).partitions[0];
    for (const width of [360, 700, 1000]) {
      const l = lanesLayout(p, width, true);
      for (let i = 0; i < 3; i++) {
        expect(l.flows[i]).toHaveLength(1);
        const f = l.flows[i][0];
        expect(f.x).toBe(l.plan.left);
        expect(f.textX + textWidth(f.label, 11, false)).toBeLessThanOrEqual(l.plan.labelMaxX);
      }
    }
    // Narrow: cut with an ellipsis, never past the edge.
    const cut = flowRow(laneFlows(p.replicas[0]), 12, 200);
    expect(cut[0].label.endsWith('…')).toBe(true);
    expect(cut[0].textX).toBe(12 + FLOW_GAUGE.width + FLOW_GAUGE.gap);
  });
});

describe('rates as the page writes them', () => {
  it.each([
    [1_250_000_000, '1.25 GB/s'],
    [125_000_000, '125 MB/s'],
    [62_500_000, '62.5 MB/s'],
    [1_048_576, '1 MB/s'],
    [200_000, '200 kB/s'],
    [12_345, '12.3 kB/s'],
    [999, '999 B/s'],
  ])('formatRateShort(%i) = %s', (bps, text) => {
    expect(formatRateShort(bps)).toBe(text);
  });
});
