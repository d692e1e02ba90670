/**
 * The browser's pure helpers, tested in Node: web/lib/layout.ts (scales, offset markers,
 * label rows, sequence-lane columns, arrows and label places, the diagrams' descriptions),
 * web/lib/contrast.ts (WCAG contrast of the lanes' text colours), web/lib/url.ts (the share link) and
 * web/lib/machines.ts (state trees drawn beside each broker).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { followerFetcherMachine } from '../core/machines/follower-fetcher.js';
import { leaderPartitionMachine } from '../core/machines/leader-partition.js';
import { logRetentionMachine } from '../core/machines/log-retention.js';
import { remoteLogManagerMachine } from '../core/machines/remote-log-manager.js';
import { rlmExpirationMachine } from '../core/machines/rlm-expiration.js';
import type { RecordedAction } from '../core/session/session.js';
import { Session } from '../core/session/session.js';
import { buildView, offsetExtent, type PartitionView, type RemoteSegmentView, type ReplicaView } from '../core/session/view.js';
import { type MachineName, stateName } from '../core/sim/runtime/machines.js';
import { replicaJson } from '../core/sim/loop/output.js';
import type { TraceEntry } from '../core/sim/state/trace.js';
import { type Arrow, arrowFor, assignIntervalRows, COMPACT_BELOW, fitText, LABEL_GAP, lanePlan, lanesDescription, SEQ, sequenceDescription, sequenceLayout, LANES, laneBarY, MARKERS, markerLabelY, offsetTicks, replicaMarkers, rowsUsed, sequenceColumns, share, stableUpperBound, textWidth, xScale } from '../web/lib/layout.js';
import { contrastRatio, LANE_BACKGROUND, LANE_TEXT_COLOURS, LANE_TEXT_SHADES } from '../web/lib/contrast.js';
import { stateTree } from '../web/lib/machines.js';
import { decodeUrlState, encodeUrlState, type UrlState } from '../web/lib/url.js';
import { loadBundled, ROOT } from './support/run.js';

// ------------------------------------------------------------------ fixtures

function replica(over: Partial<ReplicaView> = {}): ReplicaView {
  return {
    broker: 0,
    role: 'leader',
    inIsr: true,
    logStartOffset: 0,
    localLogStartOffset: 0,
    logEndOffset: 0,
    highWatermark: 0,
    highestOffsetInRemoteStorage: -1,
    leaderEpochs: [],
    fetcher: null,
    addedAtMs: 0,
    isrJoinedAtMs: null,
    bytesFromLeader: 0,
    bytesFromStore: 0,
    alive: true,
    segments: [],
    earliestPendingUploadOffset: null,
    pendingFetchOffset: null,
    machines: { fetcher: '', leader: '', rlm: '', rlmExpiration: '', logRetention: '', walReplica: '', walCombiner: '' },
    inFlight: { receiving: null, sending: null, fromStore: [] },
    ...over,
  };
}

function follower(fetchOffset: number, over: Partial<ReplicaView> = {}): ReplicaView {
  return replica({
    broker: 1,
    role: 'follower',
    inIsr: false,
    fetcher: { state: 'fetching', fetchOffset, delayed: false, failed: false, machineState: 'fetching', path: null, retries: 0 },
    ...over,
  });
}

function remote(baseOffset: number, endOffset: number, state: RemoteSegmentView['state'] = 'COPY_SEGMENT_FINISHED'): RemoteSegmentView {
  return { segmentId: `s-${baseOffset}`, baseOffset, endOffset, state, sizeBytes: (endOffset - baseOffset + 1) * 1024 };
}

function partition(replicas: ReplicaView[], remoteSegments: RemoteSegmentView[] = []): PartitionView {
  return { key: 'orders-0', topic: 'orders', partition: 0, leader: 0, leaderEpoch: 0, isr: [0], tiered: true, walEnabled: false, replicas, remoteSegments };
}

/** The leader of kip1023-bootstrap: LSO 10, LLSO 100, Ry 149, EPUO 150, LEO 200. */
const bootstrapLeader = replica({
  logStartOffset: 10,
  localLogStartOffset: 100,
  highestOffsetInRemoteStorage: 149,
  earliestPendingUploadOffset: 150,
  highWatermark: 200,
  logEndOffset: 200,
});

const identity = (o: number) => o;

// ------------------------------------------------------------------ layout.ts

describe('offsetExtent and xScale', () => {
  test.each<[string, PartitionView, [number, number]]>([
    ['replicas only', partition([bootstrapLeader, follower(0)]), [0, 200]],
    ['the leader and its remote segments', partition([bootstrapLeader], [remote(10, 59), remote(60, 99), remote(100, 149)]), [10, 200]],
    ['a remote segment beyond every LEO widens the end to its end + 1', partition([replica({ logStartOffset: 10, logEndOffset: 200 })], [remote(150, 249)]), [10, 250]],
    ['a remote segment below LSO widens the start', partition([replica({ logStartOffset: 50, logEndOffset: 200 })], [remote(0, 49)]), [0, 200]],
    ['DELETE_SEGMENT_FINISHED segments are left out', partition([replica({ logStartOffset: 50, logEndOffset: 200 })], [remote(0, 49, 'DELETE_SEGMENT_FINISHED')]), [50, 200]],
    ['a segment being deleted still counts', partition([replica({ logStartOffset: 50, logEndOffset: 200 })], [remote(0, 49, 'DELETE_SEGMENT_STARTED')]), [0, 200]],
    ['empty logs give a domain of width 1', partition([replica(), follower(0)]), [0, 1]],
    ['no replicas and no segments', partition([]), [0, 1]],
  ])('%s', (_name, p, extent) => {
    expect(offsetExtent(p)).toEqual(extent);
    const x = xScale(p, 150, 600);
    // The axis starts at 0; its upper end grows in steps (stableUpperBound), never below the extent.
    expect(x.domain()).toEqual([0, stableUpperBound(0, extent[1])]);
    expect(x.domain()[1]).toBeGreaterThanOrEqual(extent[1]);
    expect(x.range()).toEqual([150, 600]);
    expect(x(0)).toBe(150);
    expect(x(extent[1])).toBeLessThanOrEqual(600);
  });

  test('a range narrower than one pixel is widened to one', () => {
    const p = partition([bootstrapLeader]);
    expect(xScale(p, 150, 100).range()).toEqual([150, 151]);
    expect(xScale(p, 150, 150).range()).toEqual([150, 151]);
  });

  // Issue 18, point 10: "the offsets axis rescales between stops (0 disappears)".
  test.each(['steady-state-upload', 'classic-two-rounds', 'kip1023-bootstrap', 'kip1023-epuo-below-log-start', 'remote-retention-under-bootstrap', 'failover-during-bootstrap'])(
    '%s: the axis starts at 0 at every step, covers the view, only grows in a forward run, and changes rarely',
    (name) => {
      const s = new Session(loadBundled(name));
      let changes = 0;
      let last = Number.NEGATIVE_INFINITY;
      let n = 0;
      do {
        for (const p of buildView(s.kernel).partitions) {
          const [lo, hi] = xScale(p, 0, 1000).domain();
          const [elo, ehi] = offsetExtent(p);
          expect(lo).toBe(0);
          expect(lo).toBeLessThanOrEqual(elo);
          expect(hi).toBeGreaterThanOrEqual(ehi);
          expect(hi, `step ${n}`).toBeGreaterThanOrEqual(last);
          if (hi !== last) changes++;
          last = hi;
        }
        n++;
      } while (s.forward() && n < 3000);
      expect(changes).toBeLessThan(20);
    },
  );

  test.each([
    [0, 1, 1], [0, 7, 8], [0, 101, 125], [0, 200, 200], [0, 201, 250], [10, 200, 210], [100, 3100, 3100], [100, 3101, 4100],
  ])('stableUpperBound(%i, %i) = %i', (lo, hi, expected) => {
    expect(stableUpperBound(lo, hi)).toBe(expected);
  });
});

describe('offsetTicks and a fitted lane plan', () => {
  test('ticks are whole offsets, also for an empty log (scale [0, 1])', () => {
    const empty = { ...({} as PartitionView), replicas: [], remoteSegments: [] } as PartitionView;
    const x = xScale(empty, 150, 600);
    expect(x.ticks(6).some((t) => !Number.isInteger(t))).toBe(true);
    expect(offsetTicks(x, 6)).toEqual([0, 1]);
  });

  test('a fitted plan reserves the rows used, at least one above and two below, lane after lane', () => {
    const rows = [rowsUsed([{ side: 'top', row: 2 }, { side: 'bottom', row: 0 }]), rowsUsed([])];
    expect(rows).toEqual([{ top: 3, bottom: 1 }, { top: 0, bottom: 0 }]);
    const fixed = lanePlan(800);
    const fit = lanePlan(800, rows);
    expect(fit.barY(0) - fit.laneTop(0)).toBe(3 * LANES.rowPx + 8);
    expect(fit.barY(1) - fit.laneTop(1)).toBe(1 * LANES.rowPx + 8);
    // Lane 1 starts where lane 0's two bottom rows and the gap end; both are shorter than the fixed plan's.
    expect(fit.laneTop(1)).toBe(fit.barY(0) + LANES.barPx + 8 + 2 * LANES.rowPx + LANES.gapPx);
    expect(fit.laneTop(2)).toBeLessThan(fixed.laneTop(2));
  });
});

describe('replicaMarkers', () => {
  test.each<[string, ReplicaView, Array<[string, number]>]>([
    [
      'the bootstrap leader: every leader marker, EPUO included',
      bootstrapLeader,
      [
        ['logStartOffset', 10],
        ['localLogStartOffset', 100],
        ['highestOffsetInRemoteStorage', 149],
        ['earliestPendingUploadOffset', 150],
        ['highWatermark', 200],
        ['logEndOffset', 200],
      ],
    ],
    [
      'an empty follower: Ry -1 and EPUO null are left out, fetch offset 0 is kept',
      follower(0),
      [
        ['logStartOffset', 0],
        ['localLogStartOffset', 0],
        ['highWatermark', 0],
        ['logEndOffset', 0],
        ['fetchOffset', 0],
      ],
    ],
    [
      'a leader whose Ry is unknown answers EPUO -1: left out',
      replica({ logStartOffset: 10, localLogStartOffset: 100, highWatermark: 200, logEndOffset: 200, earliestPendingUploadOffset: -1 }),
      [
        ['logStartOffset', 10],
        ['localLogStartOffset', 100],
        ['highWatermark', 200],
        ['logEndOffset', 200],
      ],
    ],
    [
      'a follower after a KIP-1023 jump',
      follower(200, { logStartOffset: 10, localLogStartOffset: 150, highWatermark: 200, logEndOffset: 200 }),
      [
        ['logStartOffset', 10],
        ['localLogStartOffset', 150],
        ['highWatermark', 200],
        ['logEndOffset', 200],
        ['fetchOffset', 200],
      ],
    ],
  ])('%s', (_name, r, expected) => {
    const ms = replicaMarkers(r, identity);
    expect(ms.map((m) => [m.field, m.offset])).toEqual(expected);
    for (const m of ms) {
      expect(m.x).toBe(m.offset);
      const def = MARKERS.find((d) => d.field === m.field)!;
      expect([m.short, m.name]).toEqual([def.short, def.name]);
      // Log start, local log start and the tiered offsets label above the lane; HW, LEO and fetch below.
      expect(m.side, m.field).toBe(TOP_FIELDS.has(m.field) ? 'top' : 'bottom');
    }
  });

  test.each([200, 320, 600, 1200])('markers use the scale for x; labels on one side never overlap and stay inside the SVG (width %i)', (width) => {
    const p = partition([bootstrapLeader, follower(120, { logStartOffset: 10, localLogStartOffset: 110, highWatermark: 118, logEndOffset: 120 })], [remote(10, 149)]);
    const x = xScale(p, 150, width - 44);
    for (const r of p.replicas) {
      const ms = replicaMarkers(r, (o) => x(o), 4, width - 4);
      for (const m of ms) {
        expect(m.x).toBeCloseTo(x(m.offset));
        expect(m.label).toBe(`${m.short} ${m.offset}`);
        expect(m.labelWidth).toBe(textWidth(m.label, 11, true));
        expect(m.labelX).toBeGreaterThanOrEqual(4);
        expect(m.labelX + m.labelWidth).toBeLessThanOrEqual(width - 4);
        // Rows stay within what each lane reserves.
        expect(m.row).toBeLessThan(m.side === 'top' ? LANES.topRows : LANES.bottomRows);
      }
      expectNoIntervalOverlap(ms);
    }
    // HW and LEO of the leader are both at 200: the same x and side, so different rows.
    const ms = replicaMarkers(bootstrapLeader, (o) => x(o), 4, width - 4);
    const hw = ms.find((m) => m.field === 'highWatermark')!;
    const leo = ms.find((m) => m.field === 'logEndOffset')!;
    expect(hw.side).toBe(leo.side);
    expect(hw.row).not.toBe(leo.row);
  });

  test('a label is centred on its marker unless that crosses an edge', () => {
    const [m] = replicaMarkers(replica({ logStartOffset: 100, localLogStartOffset: -1, logEndOffset: -1, highWatermark: -1 }), identity, 0, 1000);
    expect(m.labelX + m.labelWidth / 2).toBeCloseTo(100);
    const [atRight] = replicaMarkers(replica({ logStartOffset: 995, localLogStartOffset: -1, logEndOffset: -1, highWatermark: -1 }), identity, 0, 1000);
    expect(atRight.labelX + atRight.labelWidth).toBe(1000);
    const [atLeft] = replicaMarkers(replica({ logStartOffset: 3, localLogStartOffset: -1, logEndOffset: -1, highWatermark: -1 }), identity, 0, 1000);
    expect(atLeft.labelX).toBe(0);
  });

  // Issue 18, point 10: "'EPUO 48' over the axis ticks" (and over each other).
  // From 360 px (the narrowest the page draws the lanes: a 150 px left column and room for the widest label).
  test('any markers, any width: labels on a side never overlap, never leave [minX, maxX], and fit the rows a lane reserves (property)', () => {
    const offset = fc.integer({ min: -1, max: 400 });
    fc.assert(
      fc.property(offset, offset, offset, offset, offset, offset, offset, fc.option(offset, { nil: null }), fc.integer({ min: 360, max: 1600 }),
        (lso, llso, ry, epuo, hw, leo, fetch, pending, width) => {
          const r = follower(Math.max(0, fetch), { logStartOffset: lso, localLogStartOffset: llso, highestOffsetInRemoteStorage: ry, earliestPendingUploadOffset: epuo, highWatermark: hw, logEndOffset: leo, pendingFetchOffset: pending });
          const x = xScale(partition([r]), 150, width - 44);
          const ms = replicaMarkers(r, (o) => x(o), 134, width - 4);
          for (const m of ms) {
            if (m.labelX < 134 || m.labelX + m.labelWidth > width - 4) return false;
            if (m.row >= (m.side === 'top' ? LANES.topRows : LANES.bottomRows)) return false;
          }
          return noIntervalOverlap(ms);
        }),
    );
  });

  test('the label rows of a lane lie between the axis (or the lane above) and the lane below', () => {
    // Top rows: between the axis labels (baseline 14) and the bar; bottom rows: above the next lane's top row.
    const fontBox = 13;
    for (let i = 0; i < 3; i++) {
      const bar = laneBarY(i);
      const topmost = markerLabelY(bar, 'top', LANES.topRows - 1);
      const lowest = markerLabelY(bar, 'bottom', LANES.bottomRows - 1);
      const above = i === 0 ? 14 + 3 : markerLabelY(laneBarY(i - 1), 'bottom', LANES.bottomRows - 1) + 3;
      expect(topmost - fontBox + 3).toBeGreaterThanOrEqual(above);
      expect(markerLabelY(bar, 'top', 0)).toBeLessThanOrEqual(bar - 6 - 2);
      expect(markerLabelY(bar, 'bottom', 0) - fontBox + 3).toBeGreaterThanOrEqual(bar + LANES.barPx + 6);
      expect(lowest + 3).toBeLessThanOrEqual(markerLabelY(laneBarY(i + 1), 'top', LANES.topRows - 1) - fontBox + 3);
    }
  });

  test.each([120, 160, 300, 439, 440, 800])('lanePlan(%i): compact below 440 px; the axis, the label bounds and the lanes fit the width', (width) => {
    const plan = lanePlan(width);
    expect(plan.compact).toBe(width < COMPACT_BELOW);
    expect(plan.left).toBe(plan.compact ? 12 : LANES.label);
    expect(plan.right).toBeLessThanOrEqual(width - 14);
    expect(plan.labelMaxX).toBe(width - 4);
    for (let i = 0; i < 3; i++) {
      // Compact: the name and role lines sit above the topmost label row; wide: beside the bar.
      if (plan.compact) expect(plan.subY(i) + 4).toBeLessThanOrEqual(markerLabelY(plan.barY(i), 'top', LANES.topRows - 1) - 10);
      else expect(plan.titleY(i)).toBeGreaterThan(plan.barY(i));
      expect(plan.laneTop(i + 1)).toBeGreaterThanOrEqual(markerLabelY(plan.barY(i), 'bottom', LANES.bottomRows - 1) + 3);
    }
    // Labels of the bootstrap picture (three stacked at 200) fit between the bounds.
    const x = xScale(partition([bootstrapLeader]), plan.left, plan.right);
    for (const m of replicaMarkers(bootstrapLeader, (o) => x(o), plan.labelMinX, plan.labelMaxX)) {
      expect(m.labelX).toBeGreaterThanOrEqual(plan.labelMinX);
      expect(m.labelX + m.labelWidth).toBeLessThanOrEqual(plan.labelMaxX);
    }
  });

  // Issue 18, point 7: the fetch marker during aux-state building.
  test('while the aux state is built after the truncation, the fetch marker stands at the pending offset, labelled', () => {
    const r = follower(0, { logStartOffset: 10, localLogStartOffset: 150, logEndOffset: 150, highWatermark: 0, pendingFetchOffset: 150 });
    const fetch = replicaMarkers(r, identity).find((m) => m.field === 'fetchOffset')!;
    expect(fetch).toMatchObject({ offset: 150, x: 150, label: 'next fetch 150', heldFetchOffset: 0, side: 'bottom' });
    expect(fetch.title).toMatch(/next fetch offset.*holds 0.*: 150$/);
    // Without a pending offset the marker is the fetch state's.
    const plain = replicaMarkers(follower(200), identity).find((m) => m.field === 'fetchOffset')!;
    expect(plain).toMatchObject({ offset: 200, label: 'fetch 200' });
    expect(plain.heldFetchOffset).toBeUndefined();
  });

  test.each([
    ['kip1023-bootstrap', 150, 0],
    ['classic-two-rounds', 100, 10],
  ])('%s: at every step of aux-state building the fetch marker is not left of the log start, and it is the offset fetched next', (name, pending, held) => {
    const s = new Session(loadBundled(name));
    let building = 0;
    do {
      const p = buildView(s.kernel).partitions[0];
      for (const r of p.replicas) {
        if (r.role !== 'follower' || r.fetcher === null) continue;
        const fetch = replicaMarkers(r, identity).find((m) => m.field === 'fetchOffset')!;
        if (r.pendingFetchOffset !== null) {
          building++;
          expect(r.fetcher.machineState).toMatch(/^buildingAuxState\./);
          expect(fetch).toMatchObject({ offset: pending, heldFetchOffset: held, label: `next fetch ${pending}` });
          expect(fetch.offset).toBe(r.localLogStartOffset);
          expect(fetch.offset).toBeGreaterThanOrEqual(r.logStartOffset);
        }
      }
    } while (s.forward());
    // The three states after truncateFullyAndStartAt: the checkpoint, the producer snapshot and ListOffsets -1.
    expect(building).toBe(3);
  });

  test('marker fields are named as in the JSON output (ReplicaJson), plus the view-only EPUO', () => {
    const s = new Session(loadBundled('kip1023-bootstrap'));
    s.runToEnd();
    const key = s.kernel.state.partitionOrder[0];
    const leaderJson = replicaJson(s.kernel, key, 0) as unknown as Record<string, unknown>;
    const followerJson = replicaJson(s.kernel, key, 1);
    const view = buildView(s.kernel).partitions[0];
    for (const { field } of MARKERS) {
      if (field === 'fetchOffset') expect(followerJson.fetcher).toHaveProperty('fetchOffset');
      else if (field === 'earliestPendingUploadOffset') expect(view.replicas[0]).toHaveProperty(field);
      else expect(leaderJson).toHaveProperty(field);
    }
    // And the markers of the real view carry the real values.
    const [leader, fol] = view.replicas;
    const byField = (r: ReplicaView) => Object.fromEntries(replicaMarkers(r, identity).map((m) => [m.field, m.offset]));
    expect(byField(leader)).toMatchObject({ logStartOffset: 10, localLogStartOffset: 100, highestOffsetInRemoteStorage: 149, earliestPendingUploadOffset: 150, logEndOffset: 200 });
    expect(byField(fol)).toMatchObject({ localLogStartOffset: 150, logEndOffset: 200, fetchOffset: 200 });
  });
});

const TOP_FIELDS = new Set(['logStartOffset', 'localLogStartOffset', 'highestOffsetInRemoteStorage', 'earliestPendingUploadOffset']);

/** Marker labels on one side and in one row do not overlap (as intervals, `LABEL_GAP` apart). */
function noIntervalOverlap(ms: Array<{ side: string; row: number; labelX: number; labelWidth: number }>): boolean {
  for (const a of ms) {
    for (const b of ms) {
      if (a === b || a.side !== b.side || a.row !== b.row) continue;
      if (a.labelX < b.labelX + b.labelWidth + LABEL_GAP && b.labelX < a.labelX + a.labelWidth + LABEL_GAP) return false;
    }
  }
  return true;
}

function expectNoIntervalOverlap(ms: Array<{ side: string; row: number; labelX: number; labelWidth: number; field?: string }>) {
  expect(noIntervalOverlap(ms), JSON.stringify(ms.map((m) => [m.field, m.side, m.row, m.labelX, m.labelWidth]))).toBe(true);
}

describe('assignIntervalRows', () => {
  test.each<[string, number[], number, number[]]>([
    ['far apart: one row', [0, 40, 80], 30, [0, 0, 0]],
    ['labels LABEL_GAP apart share a row', [0, 34, 68], 30, [0, 0, 0]],
    ['closer than the gap: a row each', [0, 10, 20], 30, [0, 1, 2]],
    ['the first free row is reused', [0, 10, 50], 30, [0, 1, 0]],
    ['input order is kept, rows are by left edge', [50, 0, 10], 30, [0, 0, 1]],
    ['same place: stacked', [100, 100, 100, 100], 30, [0, 1, 2, 3]],
    ['nothing to place', [], 30, []],
  ])('%s', (_name, lefts, width, rows) => {
    const items = lefts.map((left) => ({ left, width, row: -1 }));
    const out = assignIntervalRows(items);
    expect(out).toBe(items);
    expect(out.map((i) => i.row)).toEqual(rows);
  });

  test('labels in one row never come closer than the gap, and rows never outnumber labels (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: -2000, max: 2000 }), fc.integer({ min: 1, max: 160 })), { maxLength: 30 }), (boxes) => {
        const out = assignIntervalRows(boxes.map(([left, width]) => ({ left, width, row: -1 })));
        for (const a of out) {
          if (a.row < 0 || a.row >= out.length) return false;
          for (const b of out) {
            if (a === b || a.row !== b.row) continue;
            if (a.left < b.left + b.width + LABEL_GAP && b.left < a.left + a.width + LABEL_GAP) return false;
          }
        }
        return true;
      }),
    );
  });
});

describe('sequenceColumns', () => {
  test.each<[number, number, number, Array<[string, string, number]>]>([
    [2, 500, 10, [['broker-0', 'broker 0', 10], ['broker-1', 'broker 1', 170], ['tiered', 'tiered store', 330], ['consumer', 'consumer', 490]]],
    [3, 640, 40, [['broker-0', 'broker 0', 40], ['broker-1', 'broker 1', 180], ['broker-2', 'broker 2', 320], ['tiered', 'tiered store', 460], ['consumer', 'consumer', 600]]],
    [0, 100, 10, [['tiered', 'tiered store', 10], ['consumer', 'consumer', 90]]],
  ])('%i brokers, width %i, margin %i', (brokers, width, left, expected) => {
    const cols = sequenceColumns(brokers, width, left);
    expect(cols.map((c) => [c.id, c.label, c.x])).toEqual(expected);
    const gaps = cols.slice(1).map((c, i) => c.x - cols[i].x);
    for (const g of gaps) expect(g).toBeCloseTo(gaps[0]);
    expect(cols[0].x).toBe(left);
    expect(cols[cols.length - 1].x).toBeCloseTo(width - left);
  });

  test('the default margin is 10', () => {
    expect(sequenceColumns(1, 220)[0].x).toBe(10);
    expect(sequenceColumns(1, 220).map((c) => c.x)).toEqual([10, 110, 210]);
  });
});

describe('arrowFor', () => {
  const at = { atMs: 42, topic: 'orders', partition: 0 };
  test.each<[string, Record<string, unknown>, ReturnType<typeof arrowFor>]>([
    [
      'follower Fetch request',
      { ...at, type: 'request', api: 'Fetch', source: 1, target: 0, correlationId: 1, fetchOffset: 0 },
      { from: 'broker-1', to: 'broker-0', label: 'Fetch(0)', error: false, kind: 'request', atMs: 42 },
    ],
    [
      'consumer Fetch request',
      { ...at, type: 'request', api: 'Fetch', source: 'consumer', target: 0, correlationId: 2, fetchOffset: 15 },
      { from: 'consumer', to: 'broker-0', label: 'Fetch(15)', error: false, kind: 'request', atMs: 42 },
    ],
    [
      'ListOffsets -6 request',
      { ...at, type: 'request', api: 'ListOffsets', source: 1, target: 0, correlationId: 3, timestamp: -6 },
      { from: 'broker-1', to: 'broker-0', label: 'ListOffsets(-6)', error: false, kind: 'request', atMs: 42 },
    ],
    [
      'OffsetsForLeaderEpoch request',
      { ...at, type: 'request', api: 'OffsetsForLeaderEpoch', source: 2, target: 0, correlationId: 4, leaderEpoch: 3 },
      { from: 'broker-2', to: 'broker-0', label: 'OffsetsForLeaderEpoch(3)', error: false, kind: 'request', atMs: 42 },
    ],
    [
      'Fetch error response',
      { ...at, type: 'response', api: 'Fetch', source: 0, target: 1, correlationId: 1, error: 'OFFSET_MOVED_TO_TIERED_STORAGE', fetchOffset: 0 },
      { from: 'broker-0', to: 'broker-1', label: 'OFFSET_MOVED_TO_TIERED_STORAGE', error: true, kind: 'response', atMs: 42 },
    ],
    [
      'Fetch records response',
      { ...at, type: 'response', api: 'Fetch', source: 0, target: 1, correlationId: 5, error: null, records: 50, servedFrom: 'local' },
      { from: 'broker-0', to: 'broker-1', label: '50 records', error: false, kind: 'response', atMs: 42 },
    ],
    [
      'remote read to a consumer',
      { ...at, type: 'response', api: 'Fetch', source: 0, target: 'consumer', correlationId: 6, error: null, records: 10, servedFrom: 'remote' },
      { from: 'broker-0', to: 'consumer', label: '10 records (remote)', error: false, kind: 'response', atMs: 42 },
    ],
    [
      'ListOffsets response',
      { ...at, type: 'response', api: 'ListOffsets', source: 0, target: 1, correlationId: 3, error: null, timestamp: -6, offset: 150, leaderEpoch: 0 },
      { from: 'broker-0', to: 'broker-1', label: 'offset 150', error: false, kind: 'response', atMs: 42 },
    ],
    [
      'OffsetsForLeaderEpoch response',
      { ...at, type: 'response', api: 'OffsetsForLeaderEpoch', source: 0, target: 2, correlationId: 4, error: null, leaderEpoch: 3, endOffset: 120 },
      { from: 'broker-0', to: 'broker-2', label: 'epoch 3 ends 120', error: false, kind: 'response', atMs: 42 },
    ],
    [
      'object store GET',
      { ...at, type: 'objectStore', op: 'get', store: 'tiered', key: 'orders-0/00000000000000000100-init-100.snapshot', bytes: 70, ok: true, broker: 1 },
      { from: 'broker-1', to: 'tiered', label: 'GET .snapshot', error: false, kind: 'objectStore', atMs: 42 },
    ],
    [
      'failed object store PUT',
      { ...at, type: 'objectStore', op: 'put', store: 'tiered', key: 'orders-0/seg.log', bytes: 0, ok: false, error: 'unavailable', broker: 0 },
      { from: 'broker-0', to: 'tiered', label: 'PUT .log ✖ unavailable', error: true, kind: 'objectStore', atMs: 42 },
    ],
    [
      'fetcher backoff',
      { ...at, type: 'fetcher', action: 'delayed', broker: 1, delayMs: 1000, retryAtMs: 1042 },
      { from: 'broker-1', to: 'broker-1', label: 'backoff 1000 ms → retry at 1042 ms', error: false, kind: 'backoff', atMs: 42 },
    ],
    ['another fetcher entry: no arrow', { ...at, type: 'fetcher', action: 'started', broker: 1 }, null],
    ['a log entry: no arrow', { ...at, type: 'log', broker: 0 }, null],
  ])('%s', (_name, entry, arrow) => {
    expect(arrowFor(entry as TraceEntry)).toEqual(arrow);
  });

  test('every request, response and object-store entry of a real run has an arrow to known columns', () => {
    const s = new Session(loadBundled('kip1023-remote-storage-error'));
    s.runToEnd();
    const cols = new Set(sequenceColumns(s.kernel.scenario.brokers, 600).map((c) => c.id));
    let n = 0;
    for (const e of s.kernel.trace) {
      const a = arrowFor(e);
      if (e.type === 'request' || e.type === 'response' || e.type === 'objectStore') expect(a).not.toBeNull();
      if (a === null) continue;
      n++;
      expect(cols.has(a.from), a.from).toBe(true);
      expect(cols.has(a.to), a.to).toBe(true);
      expect(a.label.length).toBeGreaterThan(0);
    }
    expect(n).toBeGreaterThan(10);
  });
});

// ------------------------------------------------------------------ url.ts

const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

describe('sequenceLayout', () => {
  const arrow = (over: Partial<Arrow>): Arrow => ({ from: 'broker-1', to: 'broker-0', label: 'Fetch(0)', error: false, kind: 'request', atMs: 0, ...over });
  const omtts = arrow({ from: 'broker-0', to: 'broker-1', label: 'OFFSET_MOVED_TO_TIERED_STORAGE', error: true, kind: 'response', atMs: 1234567 });

  // Issue 18, point 10: "long error names over the time column" and "'OFFSET_MOVED_TO_TIERED_STORAG' clipped".
  test.each([320, 400, 600, 900])('width %i: no label starts in the time column or ends past the right edge; a cut label keeps its full text for the tooltip', (width) => {
    const items = [
      { a: omtts, step: 1 },
      { a: arrow({ atMs: 12 }), step: 1 },
      { a: arrow({ from: 'broker-2', to: 'broker-2', kind: 'backoff', label: 'backoff 1000 ms → retry at 1234567 ms', atMs: 99 }), step: 2 },
      { a: arrow({ from: 'broker-2', to: 'tiered', kind: 'objectStore', label: 'GET .rsm-manifest ✖ REMOTE_STORAGE_UNAVAILABLE', error: true }), step: 2 },
      { a: arrow({ from: 'broker-0', to: 'broker-0', kind: 'note', label: 'metadata record 12: orders-0 [100, 149] e3' }), step: 3 },
    ];
    const lay = sequenceLayout(items, 3, width, true);
    expect(lay.timeRight).toBeGreaterThanOrEqual(SEQ.timeX + textWidth('1234567', SEQ.timePx));
    for (const r of lay.rows) {
      expect(r.labelX, r.text).toBeGreaterThanOrEqual(lay.timeRight + SEQ.pad);
      expect(r.labelX + r.labelWidth, r.text).toBeLessThanOrEqual(width - SEQ.pad);
      expect(r.full).toBe(r.a.label);
      if (r.text !== (r.a.error ? `⚠ ${r.full}` : r.full)) {
        expect(r.text.endsWith('…')).toBe(true);
        expect((r.a.error ? `⚠ ${r.full}` : r.full).startsWith(r.text.slice(0, -1))).toBe(true);
      }
    }
    // Columns: the first right of the time column; column names never touch (staggered when crowded).
    expect(lay.cols[0].x).toBeGreaterThan(lay.timeRight + SEQ.pad);
    const names = lay.cols.map((c) => ({ l: c.x - textWidth(c.label, 11, true) / 2, r: c.x + textWidth(c.label, 11, true) / 2, y: c.labelY }));
    for (const n of names) {
      expect(n.l).toBeGreaterThanOrEqual(0);
      expect(n.r).toBeLessThanOrEqual(width);
    }
    for (let i = 1; i < names.length; i++) if (names[i].y === names[i - 1].y) expect(names[i].l).toBeGreaterThanOrEqual(names[i - 1].r);
    for (let i = 2; i < names.length; i++) if (names[i].y === names[i - 2].y) expect(names[i].l).toBeGreaterThanOrEqual(names[i - 2].r);
  });

  test.each<[number, number, boolean, string[]]>([
    [900, 3, true, ['broker 0', 'broker 1', 'broker 2', 'tiered store', 'fast store', 'consumer']],
    [140, 2, false, ['b0', 'b1', 'tiered', 'client']],
  ])('width %i, %i brokers: column names full when they fit, short and staggered when tight', (width, brokers, wal, labels) => {
    const lay = sequenceLayout([], brokers, width, wal);
    expect(lay.cols.map((c) => c.label)).toEqual(labels);
    expect(lay.cols.map((c) => c.full)).toEqual(sequenceColumns(brokers, width, 10, wal).map((c) => c.label));
  });

  test('OFFSET_MOVED_TO_TIERED_STORAGE fits whole when the row has room, centred over its arrow where it can be', () => {
    const lay = sequenceLayout([{ a: omtts, step: 0 }], 2, 700);
    const [r] = lay.rows;
    expect(r.text).toBe('⚠ OFFSET_MOVED_TO_TIERED_STORAGE');
    expect(r.labelX).toBeGreaterThanOrEqual(lay.timeRight + SEQ.pad);
  });

  test('fitText cuts at the end with an ellipsis, never wider than asked', () => {
    expect(fitText('Fetch(0)', 200)).toBe('Fetch(0)');
    const cut = fitText('OFFSET_MOVED_TO_TIERED_STORAGE', 120);
    expect(cut).toMatch(/^OFFSET_.*…$/);
    expect(textWidth(cut, 11, true)).toBeLessThanOrEqual(120);
    expect(fitText('OFFSET_MOVED_TO_TIERED_STORAGE', 1)).toBe('O…');
  });

  test('rows go one per line under the column names, the height holds them all', () => {
    const items = Array.from({ length: 9 }, (_, i) => ({ a: arrow({ atMs: i }), step: i }));
    const lay = sequenceLayout(items, 2, 600);
    lay.rows.forEach((r, i) => expect(r.y).toBe(lay.top + i * SEQ.row + 8));
    expect(lay.height).toBeGreaterThanOrEqual(lay.rows[8].y + 10);
  });

  test('the description names the current step\'s rows in words', () => {
    const items = [
      { a: arrow({ label: 'Fetch(0)', atMs: 5 }), step: 1 },
      { a: omtts, step: 2 },
      { a: arrow({ from: 'broker-1', to: 'tiered', kind: 'objectStore', label: 'GET .log' }), step: 2 },
    ];
    const d = sequenceDescription(items, 2);
    expect(d).toContain('3 shown, from 5 ms to 0 ms');
    expect(d).toContain('This step: broker 0 to broker 1: OFFSET_MOVED_TO_TIERED_STORAGE (error); broker 1 to tiered store: GET .log.');
    expect(sequenceDescription(items, 7)).toContain('No request in this step.');
    expect(sequenceDescription([], 0)).toMatch(/none yet\.$/);
  });

  test('every row of a real run gets a label inside the lane at 320 px', () => {
    const s = new Session(loadBundled('kip1023-remote-storage-error'));
    s.runToEnd();
    const items = s.kernel.trace.map((e, i) => ({ a: arrowFor(e), step: i })).filter((r): r is { a: Arrow; step: number } => r.a !== null);
    const lay = sequenceLayout(items, s.kernel.scenario.brokers, 320);
    for (const r of lay.rows) {
      expect(r.labelX).toBeGreaterThanOrEqual(lay.timeRight + SEQ.pad);
      expect(r.labelX + r.labelWidth).toBeLessThanOrEqual(320 - SEQ.pad);
      expect(r.text.length).toBeGreaterThan(1);
    }
  });
});

describe('lanesDescription', () => {
  test('names each replica\'s offsets and the follower\'s fetch offset, pending included', () => {
    const f = follower(0, { logStartOffset: 10, localLogStartOffset: 150, logEndOffset: 150, highWatermark: 0, pendingFetchOffset: 150, fetcher: { state: 'fetching', fetchOffset: 0, delayed: false, failed: false, machineState: 'buildingAuxState.awaitingProducerSnapshot', path: 'kip1023', retries: 0 } });
    const d = lanesDescription(partition([bootstrapLeader, f], [remote(10, 99), remote(100, 149, 'COPY_SEGMENT_STARTED')]));
    expect(d).toContain('orders-0, leader broker 0, leader epoch 0.');
    expect(d).toContain('broker 0 leader in the ISR, log [10, 200), local from 100, high watermark 200, highest offset in remote storage 149, Earliest-Pending-Upload-Offset 150.');
    expect(d).toContain('broker 1 follower not in the ISR, log [10, 150), local from 150, high watermark 0, building the remote auxiliary state: next fetch offset 150 (fetch state still 0).');
    expect(d).toContain('remote storage: 2 segments over [10, 149] (1 COPY_SEGMENT_FINISHED, 1 COPY_SEGMENT_STARTED).');
    expect(lanesDescription(partition([follower(200, { fetcher: { state: 'fetching', fetchOffset: 200, delayed: true, failed: false, machineState: 'delayed', path: null, retries: 1 } })]))).toContain('fetch offset 200, backoff.');
  });
});

describe('contrast of the lanes\' text (issue 18, point 6)', () => {
  const css = readFileSync(join(ROOT, 'web', 'styles.css'), 'utf8');
  const cssVar = (name: string) => new RegExp(`${name}:\\s*(#[0-9a-fA-F]{6})`).exec(css)?.[1];

  test.each([
    ['#1d232a', '#ffffff', 15.84],
    ['#5b6570', '#ffffff', 5.93],
    ['#2f8f6b', '#ffffff', 3.99],
    ['#ffffff', '#ffffff', 1],
    ['#000000', '#ffffff', 21],
  ])('contrastRatio(%s, %s) = %f', (a, b, r) => {
    expect(contrastRatio(a, b)).toBeCloseTo(r, 2);
    expect(contrastRatio(b, a)).toBeCloseTo(r, 2);
  });

  test.each(LANE_TEXT_COLOURS.map((c) => [c.variable, c.where]))('%s (%s) is at least 4.5:1 on the panel', (variable) => {
    const value = (LANE_TEXT_SHADES as Record<string, string>)[variable] ?? cssVar(variable);
    expect(value, `${variable} in web/styles.css`).toBeDefined();
    expect(contrastRatio(value!, LANE_BACKGROUND)).toBeGreaterThanOrEqual(4.5);
  });

  test('the lanes define their own text shades as contrast.ts says, fade no text, and use no other text colour', () => {
    for (const file of ['OffsetLanes.svelte', 'SequenceLane.svelte', 'WalLane.svelte']) {
      const src = readFileSync(join(ROOT, 'web', 'components', file), 'utf8');
      const style = src.slice(src.indexOf('<style>')).replace(/\/\*[\s\S]*?\*\//g, '');
      for (const [name, value] of Object.entries(LANE_TEXT_SHADES)) if (style.includes(`${name}:`)) expect(style).toContain(`${name}: ${value};`);
      // Opacity only on shapes (rect, segments, lines, boxes), never on a row, a lane or text.
      for (const m of style.matchAll(/([^{}]+)\{[^}]*opacity/g)) expect(m[1], `${file}: ${m[1].trim()}`).not.toMatch(/\btext\b|\.row|\.lane\b|\.label|\.obj\.\w+\s*$/);
      // Every fill of a text rule is one of the colours tested above (or currentColor set from them).
      const allowed = new Set([...LANE_TEXT_COLOURS.map((c) => `var(${c.variable})`), 'currentColor']);
      for (const m of style.matchAll(/([^{}]*(?:text|label|time|name|badge|bytes|lane-title|lane-sub|down)[^{}]*)\{([^}]*)\}/g)) {
        const fill = /(?:^|;)\s*fill:\s*([^;]+?)\s*(?:;|$)/.exec(m[2])?.[1];
        if (fill !== undefined) expect(allowed, `${file}: ${m[1].trim()} fill ${fill}`).toContain(fill.replace(/\s*!important/, ''));
        const color = /(?:^|;)\s*color:\s*([^;]+?)\s*(?:;|$)/.exec(m[2])?.[1];
        if (color !== undefined) expect(allowed, `${file}: ${m[1].trim()} color ${color}`).toContain(color);
      }
    }
  });
});

describe('url state', () => {
  const actions: RecordedAction[] = [
    { step: 0, action: { kind: 'setConfig', values: { 'follower.fetch.last.tiered.offset.enable': true } } },
    { step: 3, action: { kind: 'produce', topic: 'orders', partition: 0, records: 100, acks: 'all' } },
    { step: 7, action: { kind: 'objectStore', available: false, store: 'tiered' } },
    { step: 9, action: { kind: 'crash', broker: 1 } },
  ];

  test.each<[string, UrlState]>([
    ['a bundled scenario at step 0', { scenario: 'kip1023-bootstrap', step: 0, actions: [] }],
    ['seed, partition, step and actions', { scenario: 'classic-two-rounds', seed: 4294967295, step: 12, actions, partition: 'orders-1' }],
    ['a pasted scenario (non-ASCII text) with actions', { source: 'name: Über-Szenario ✓ \u{1F680}\nbrokers: 2\nuntil: 3000\n', step: 5, actions }],
    ['no step', { scenario: 'kip1023-no-jump', actions: [] }],
  ])('round trip: %s', (_name, state) => {
    const q = encodeUrlState(state);
    const { state: back, problems } = decodeUrlState(`?${q}`);
    expect(problems).toEqual([]);
    expect(back).toEqual(state);
    // Without the leading "?" too.
    expect(decodeUrlState(q).state).toEqual(state);
  });

  test('the encoding is URL-safe and leaves out what is empty', () => {
    const q = encodeUrlState({ source: '??>>>~~~ÿÿÿ'.repeat(20), step: 1, actions });
    const p = new URLSearchParams(q);
    for (const key of ['src', 'actions']) expect(p.get(key)).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(encodeUrlState({ scenario: 'x', actions: [] })).toBe('scenario=x');
  });

  test('a pasted source wins over a scenario id', () => {
    const q = encodeUrlState({ scenario: 'kip1023-bootstrap', source: 'name: mine', actions: [] });
    expect(new URLSearchParams(q).has('scenario')).toBe(false);
    expect(decodeUrlState(q).state).toEqual({ source: 'name: mine', actions: [] });
  });

  test.each<[string, string, UrlState, string[]]>([
    ['seed not a number', 'scenario=a&seed=abc&step=2', { scenario: 'a', step: 2, actions: [] }, ['seed: expected a whole number, got "abc"']],
    ['negative and exponent', 'seed=1e3&step=-1', { actions: [] }, ['seed: expected a whole number, got "1e3"', 'step: expected a whole number, got "-1"']],
    ['fractional step', 'step=2.5&seed=7', { seed: 7, actions: [] }, ['step: expected a whole number, got "2.5"']],
    ['above 32 bits', 'step=4294967296&seed=4294967295', { seed: 4294967295, actions: [] }, ['step: expected a whole number, got "4294967296"']],
    ['empty values', 'seed=&step=', { actions: [] }, ['seed: expected a whole number, got ""', 'step: expected a whole number, got ""']],
    ['actions not base64', 'scenario=a&actions=!!!', { scenario: 'a', actions: [] }, ['actions: not readable']],
    ['actions not JSON', `actions=${b64url('[{step: 1')}`, { actions: [] }, ['actions: not readable']],
    ['actions not a list', `actions=${b64url('{"step":1}')}`, { actions: [] }, ['actions: not readable']],
    [
      'a bad entry among good ones',
      `step=3&actions=${b64url(JSON.stringify([{ step: 'x', action: { kind: 'produce' } }, null, { step: 1, action: { kind: 'crash', broker: 0 } }, { step: 2 }, { step: 1.5, action: { kind: 'crash' } }]))}`,
      { step: 3, actions: [{ step: 1, action: { kind: 'crash', broker: 0 } }] },
      Array(4).fill('actions: an entry is not a recorded action'),
    ],
    ['src not base64', 'src=!!!&step=1', { step: 1, actions: [] }, ['src: not a readable scenario']],
  ])('malformed: %s is reported and left out', (_name, search, state, problems) => {
    const r = decodeUrlState(`?${search}`);
    expect(r.problems).toEqual(problems);
    expect(r.state).toEqual(state);
  });
});

// ------------------------------------------------------------------ machines.ts

const MACHINES = { fetcher: followerFetcherMachine, leader: leaderPartitionMachine, rlm: remoteLogManagerMachine, rlmExpiration: rlmExpirationMachine, logRetention: logRetentionMachine } as const;
const trees = Object.fromEntries(Object.entries(MACHINES).map(([name, m]) => [name, stateTree(m.root)])) as Record<MachineName, ReturnType<typeof stateTree>>;
const leaves = (name: MachineName) => {
  const paths = trees[name].map((r) => r.path);
  return new Set(paths.filter((p) => !paths.some((q) => q.startsWith(`${p}.`))));
};

describe('stateTree', () => {
  test('the follower fetcher tree holds the KIP-1023 and classic states as dot paths', () => {
    const rows = trees.fetcher;
    const byPath = new Map(rows.map((r) => [r.path, r]));
    expect(byPath.get('kip1023')).toMatchObject({ key: 'kip1023', depth: 0 });
    expect(byPath.get('kip1023.awaitingEarliestOffset')).toMatchObject({ key: 'awaitingEarliestOffset', depth: 1 });
    expect(byPath.get('kip1023.awaitingEarliestPendingUploadOffset')).toMatchObject({ key: 'awaitingEarliestPendingUploadOffset', depth: 1 });
    expect(byPath.get('kip1023.awaitingEarliestLocalOffset')).toMatchObject({ depth: 1 });
    expect(byPath.get('tieredOffset.awaitingEarliestLocalOffset')).toMatchObject({ depth: 1 });
    for (const p of ['fetching', 'delayed', 'failed', 'buildingAuxState.lookingUpRemoteSegment']) expect(byPath.has(p), p).toBe(true);
  });

  test('rows are depth-first: every child follows its parent, with depth = dots in the path', () => {
    for (const rows of Object.values(trees)) {
      expect(rows.length).toBeGreaterThan(1);
      expect(new Set(rows.map((r) => r.path)).size).toBe(rows.length);
      rows.forEach((r, i) => {
        expect(r.depth).toBe(r.path.split('.').length - 1);
        expect(r.path.endsWith(r.key)).toBe(true);
        if (r.depth > 0) {
          const parent = r.path.slice(0, r.path.lastIndexOf('.'));
          const pi = rows.findIndex((x) => x.path === parent);
          expect(pi).toBeGreaterThanOrEqual(0);
          expect(pi).toBeLessThan(i);
        }
      });
    }
  });

  test.each<[unknown, string]>([
    ['fetching', 'fetching'],
    [{ kip1023: 'awaitingEarliestPendingUploadOffset' }, 'kip1023.awaitingEarliestPendingUploadOffset'],
    [{ tieredOffset: 'awaitingEarliestLocalOffset' }, 'tieredOffset.awaitingEarliestLocalOffset'],
    [{ buildingAuxState: 'lookingUpRemoteSegment' }, 'buildingAuxState.lookingUpRemoteSegment'],
  ])("the kernel's stateName(%j) is a leaf of the fetcher tree", (value, path) => {
    expect(stateName(value)).toBe(path);
    expect(leaves('fetcher').has(path)).toBe(true);
  });

  const bundled = readdirSync(join(ROOT, 'scenarios'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.replace(/\.yaml$/, ''));

  test.each(bundled)('every state the kernel reports in %s is a leaf path of its tree', (id) => {
    const s = new Session(loadBundled(id));
    const seen: Record<MachineName, Set<string>> = { fetcher: new Set(), leader: new Set(), rlm: new Set(), rlmExpiration: new Set(), logRetention: new Set(), walReplica: new Set(), walCombiner: new Set() };
    const record = () => {
      for (const key of s.kernel.state.partitionOrder) {
        for (const b of s.kernel.state.partitions[key].replicas) {
          for (const name of Object.keys(MACHINES) as MachineName[]) {
            const st = s.kernel.machineState(b, key, name);
            if (st !== '') seen[name].add(st);
          }
        }
      }
    };
    record();
    while (s.forward()) record();
    // The transitions the trace records use the same names.
    for (const e of s.kernel.trace as Array<Record<string, unknown>>) {
      const name = typeof e.type === 'string' && e.type.endsWith('State') ? (e.type.replace(/State$/, '') as MachineName) : null;
      if (name === null || !(name in MACHINES)) continue;
      for (const v of [e.from, e.to]) if (typeof v === 'string' && v !== '') seen[name].add(v);
    }
    for (const name of Object.keys(MACHINES) as MachineName[]) {
      const ok = leaves(name);
      for (const st of seen[name]) expect(ok.has(st), `${name}: ${st}`).toBe(true);
    }
    expect(seen.fetcher.size + seen.leader.size + seen.rlm.size).toBeGreaterThan(0);
  });
});

describe('share (structural sharing of views)', () => {
  test('unchanged parts keep their identity; changed parts and their parents do not', () => {
    const prev = { a: { x: 1, list: [{ k: 1 }, { k: 2 }] }, b: { y: 2 } };
    const next = { a: { x: 1, list: [{ k: 1 }, { k: 3 }] }, b: { y: 2 } };
    const out = share(prev, next);
    expect(out).toEqual(next);
    expect(out.b).toBe(prev.b);
    expect(out.a).not.toBe(prev.a);
    expect(out.a.list[0]).toBe(prev.a.list[0]);
    expect(out.a.list[1]).not.toBe(prev.a.list[1]);
    expect(share(prev, structuredClone(prev))).toBe(prev);
  });

  test('a real run: the shared view equals the fresh one at every step', () => {
    const s = new Session(loadBundled('kip1023-leader-epochs'));
    let view = buildView(s.kernel);
    while (s.forward()) {
      const fresh = buildView(s.kernel);
      view = share(view, fresh);
      expect(view).toEqual(fresh);
    }
  });
});
