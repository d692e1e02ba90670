/**
 * KIP-1176 in the walkthrough, tested in Node: the view model's fast store (`wal`),
 * metrics (`metrics`) and `walEnabled` (core/session/view.ts) against the kernel state and
 * the JSON output, and the page's pure helpers for the fast-store lane
 * (web/lib/wal-layout.ts), the request lane's WAL rows (web/lib/layout.ts) and number
 * formatting (core/util/format.ts).
 */
import { describe, expect, test } from 'vitest';
import { walCombinerMachine } from '../core/machines/wal-combiner.js';
import { walReplicaMachine } from '../core/machines/wal-replica.js';
import { Session } from '../core/session/session.js';
import { buildView, WAL_OBJECTS_SHOWN, type WalChunkView, type WalObjectView, walView } from '../core/session/view.js';
import type { Kernel } from '../core/sim/loop/kernel.js';
import { BROKER_KEY } from '../core/sim/state/state.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import type { TraceEntry } from '../core/sim/state/trace.js';
import { formatBytes, formatCount, formatMs, formatUsd } from '../core/util/format.js';
import { arrowFor, inSequence, sequenceColumns, share } from '../web/lib/layout.js';
import { chunkLabel, chunkPatterns, layoutWalObjects, stableBytesBound, walDescription, walHops, walObjectName, walSeqOfKey } from '../web/lib/wal-layout.js';
import { stateTree } from '../web/lib/machines.js';
import { loadBundled, type Loose } from './support/run.js';

const WAL_SCENARIOS = ['wal-steady-state', 'wal-acks-all-latency', 'wal-fast-store-outage', 'wal-fast-store-outage-fallback', 'wal-failover-chunks-in-flight', 'wal-metadata-growth'];

/** Runs a bundled scenario step by step, calling `check` after every visible step (and at step 0). */
function everyStep(id: string, check: (s: Session) => void, maxSteps = Number.MAX_SAFE_INTEGER): Session {
  const s = new Session(loadBundled(id));
  check(s);
  while (s.step < maxSteps && s.forward()) check(s);
  return s;
}

/** The metrics the panel shows, as the JSON output has them. */
function jsonMetrics(k: Kernel) {
  const m = buildRunJson(k).metrics as Loose;
  const store = (c: Loose) => ({ puts: c.puts, gets: c.gets, deletes: c.deletes, bytesPut: c.bytesPut, bytesGot: c.bytesGot });
  return {
    crossZoneBytes: m.crossZoneBytes,
    objectStore: { tiered: store(m.objectStore.tiered), wal: store(m.objectStore.wal) },
    produce: { acks1: m.produce.acks1, acksAll: m.produce.acksAll },
    costUsd: m.costUsd,
  };
}

// ------------------------------------------------------------------ view model: wal

describe('view: the fast store (wal)', () => {
  test.each(WAL_SCENARIOS)('%s: at every step, the objects that exist, newest last, with chunks inside their bytes', (id) => {
    // Goal: the lane draws exactly the WAL objects that exist now (putting, live, deleting),
    //   the newest WAL_OBJECTS_SHOWN of them in sequence order, each chunk a byte range
    //   inside its object, and the metadata counts of metrics.wal.metadata.
    // Method: every visible step of each WAL scenario; compare walView with kernel.state.wal.
    let sawPutting = false;
    let sawLive = false;
    everyStep(id, (s) => {
      const wal = s.kernel.state.wal;
      const v = walView(s.kernel);
      const existing = Object.values(wal.objects).filter((o) => ['putting', 'live', 'deleting'].includes(o.state));
      expect(v.objects.length + v.hiddenObjects).toBe(existing.length);
      expect(v.objects.length).toBe(Math.min(WAL_OBJECTS_SHOWN, existing.length));
      const seqs = v.objects.map((o) => o.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      // The hidden ones are older than every one shown.
      const shown = new Set(v.objects.map((o) => o.key));
      for (const o of existing) if (!shown.has(o.key)) expect(walSeqOfKey(o.key)!).toBeLessThan(seqs[0]);
      for (const o of v.objects) {
        const k = wal.objects[o.key];
        expect(o).toMatchObject({ broker: k.broker, bytes: k.bytes, createdMs: k.createdMs, state: k.state });
        let end = -1;
        for (const c of o.chunks) {
          expect(c.range[0]).toBeGreaterThan(end);
          expect(c.range[1]).toBeGreaterThanOrEqual(c.range[0]);
          expect(c.range[1]).toBeLessThan(o.bytes);
          expect(c.lastOffset).toBeGreaterThanOrEqual(c.baseOffset);
          expect(`${c.topic}-${c.partition}`).toBe(c.key);
          end = c.range[1];
        }
        if (o.state === 'putting') {
          sawPutting = true;
          expect(o.chunks.length).toBeGreaterThan(0);
          for (const c of o.chunks) expect(c.id).toBeNull();
        } else {
          if (o.state === 'live') sawLive = true;
          expect(o.chunks.map((c) => c.id)).toEqual(k.chunkIds.filter((cid) => wal.chunks[String(cid)] !== undefined).sort((a, b) => wal.chunks[String(a)].range[0] - wal.chunks[String(b)].range[0]));
        }
      }
      const m = s.kernel.state.metrics.wal.metadata;
      expect(v.metadata).toMatchObject({ topic: '__remote_wal_log_metadata', records: m.records, retainedRecords: wal.metadata.length });
      expect(v.topics.length).toBeGreaterThan(0);
    });
    expect(sawPutting).toBe(true);
    expect(sawLive).toBe(true);
  });

  test('wal-steady-state: the first flush shows wal#1 being put, with chunk orders-0 [0, 99] at bytes 0-102399', () => {
    // Goal: the object appears at its PUT, before its metadata record exists.
    // Method: step until the trace has the first walPut; read the view; one step on, the record is published.
    const s = new Session(loadBundled('wal-steady-state'));
    while (!s.currentEntries.some((e) => e.type === 'objectStore' && (e as Loose).purpose === 'walPut')) expect(s.forward()).toBe(true);
    const v = buildView(s.kernel).wal;
    expect(v.objects).toHaveLength(1);
    const expected: WalChunkView = { id: null, key: 'orders-0', topic: 'orders', partition: 0, range: [0, 102399], baseOffset: 0, lastOffset: 99, leaderEpoch: 0 };
    expect(v.objects[0]).toEqual({ key: 'broker-0/00000000000000000001.wal', seq: 1, broker: 0, bytes: 102400, createdMs: 515, state: 'putting', chunks: [expected] } satisfies WalObjectView);
    expect(v.metadata.retainedRecords).toBe(0);
    s.forward();
    const after = buildView(s.kernel).wal;
    expect(after.objects[0].state).toBe('live');
    expect(after.objects[0].chunks).toEqual([{ ...expected, id: 0 }]);
    expect(after.metadata).toMatchObject({ records: 1, retainedRecords: 1 });
  });

  test('wal-acks-all-latency: only the newest 24 objects are carried, and the view says how many more exist', () => {
    // Goal: the view stays small however many objects the store holds.
    // Method: run to the end (96 objects, none deleted: the topics are not tiered).
    const s = new Session(loadBundled('wal-acks-all-latency'));
    s.runToEnd();
    const v = walView(s.kernel);
    const all = Object.keys(s.kernel.state.wal.objects).length;
    expect(all).toBeGreaterThan(WAL_OBJECTS_SHOWN);
    expect(v.objects).toHaveLength(WAL_OBJECTS_SHOWN);
    expect(v.hiddenObjects).toBe(all - WAL_OBJECTS_SHOWN);
    expect(v.objects[WAL_OBJECTS_SHOWN - 1].seq).toBe(Math.max(...Object.keys(s.kernel.state.wal.objects).map((k) => walSeqOfKey(k)!)));
    // Each object holds a chunk of both partitions.
    for (const o of v.objects) expect(o.chunks.map((c) => c.key)).toEqual(['clicks-0', 'payments-0']);
  });

  test('wal-fast-store-outage: records wait outside any object while the store is down', () => {
    // Goal: `pending` shows what the leader holds that is in no object (the outage's backlog).
    // Method: step to the first failed walPut; pending covers the records above the last chunk and the store is down.
    const s = new Session(loadBundled('wal-fast-store-outage'));
    while (!s.currentEntries.some((e) => e.type === 'wal' && (e as Loose).action === 'putFailed')) expect(s.forward()).toBe(true);
    const v = buildView(s.kernel);
    expect(v.storeAvailable.wal).toBe(false);
    expect(v.storeAvailable.tiered).toBe(true);
    const leader = v.partitions[0].replicas.find((r) => r.role === 'leader')!;
    expect(v.wal.pending).toEqual([{ key: 'orders-0', broker: 0, baseOffset: expect.any(Number), lastOffset: leader.logEndOffset - 1 }]);
    const lastChunk = Math.max(...v.wal.objects.flatMap((o) => o.chunks.map((c) => c.lastOffset)));
    expect(v.wal.pending[0].baseOffset).toBe(lastChunk + 1);
    // Without WAL there is nothing pending.
    const classic = new Session(loadBundled('steady-state-upload'));
    classic.goTo(30);
    expect(buildView(classic.kernel).wal).toMatchObject({ topics: [], objects: [], hiddenObjects: 0, pending: [] });
  });
});

// ------------------------------------------------------------------ view model: metrics, walEnabled

describe('view: metrics and walEnabled', () => {
  test.each([...WAL_SCENARIOS, 'steady-state-upload', 'kip1023-bootstrap'])('%s: the metrics equal the JSON output at every 25th step and at the end', (id) => {
    // Goal: the panel shows the JSON's figures (crossZoneBytes, objectStore, produce by acks, costUsd) as the run steps.
    // Method: compare metricsView with buildRunJson's metrics along the run.
    const s = everyStep(id, (x) => {
      if (x.step % 25 === 0) expect(buildView(x.kernel).metrics).toEqual(jsonMetrics(x.kernel));
    });
    expect(buildView(s.kernel).metrics).toEqual(jsonMetrics(s.kernel));
  });

  test('latency percentiles stay right after a step back (the memo follows the restored lists)', () => {
    // Method: wal-acks-all-latency at step 300, back to 100, forward to 200: each equals the JSON.
    const s = new Session(loadBundled('wal-acks-all-latency'));
    for (const n of [300, 100, 200]) {
      s.goTo(n);
      expect(buildView(s.kernel).metrics.produce).toEqual(jsonMetrics(s.kernel).produce);
    }
  });

  test('walEnabled follows wal.enable on the topic, and only that topic', () => {
    // Method: steady-state-upload (classic), act setConfig wal.enable on orders; the view says so; off again.
    const s = new Session(loadBundled('steady-state-upload'));
    expect(buildView(s.kernel).partitions.map((p) => p.walEnabled)).toEqual([false]);
    s.forward();
    s.act({ kind: 'setConfig', topic: 'orders', values: { 'wal.enable': true } });
    const on = buildView(s.kernel);
    expect(on.partitions.map((p) => p.walEnabled)).toEqual([true]);
    expect(on.wal.topics).toEqual(['orders']);
    s.act({ kind: 'setConfig', topic: 'orders', values: { 'wal.enable': false } });
    expect(buildView(s.kernel).partitions.map((p) => p.walEnabled)).toEqual([false]);
    const two = new Session(loadBundled('wal-acks-all-latency'));
    two.act({ kind: 'setConfig', topic: 'clicks', values: { 'wal.enable': false } });
    expect(Object.fromEntries(buildView(two.kernel).partitions.map((p) => [p.key, p.walEnabled]))).toEqual({ 'clicks-0': false, 'payments-0': true });
  });

  test('WAL turned on mid-run: the next produce shows up in the fast store as an object', () => {
    // Goal: the toggle's effect reaches the view (the kernel starts the combiner and the WAL replicas at run time).
    // Method: steady-state-upload, act wal.enable at step 3, step until the first walPut.
    const s = new Session(loadBundled('steady-state-upload'));
    s.goTo(3);
    s.act({ kind: 'setConfig', topic: 'orders', values: { 'wal.enable': true } });
    while (!s.currentEntries.some((e) => e.type === 'objectStore' && (e as Loose).purpose === 'walPut')) expect(s.forward()).toBe(true);
    const v = walView(s.kernel);
    // The produce at t = 0 went the classic way (the topic's ISR is every replica from creation),
    // so the first produce after the toggle is [100, 199].
    expect(v.objects.map((o) => [o.seq, o.state, o.chunks.map((c) => `${c.key} [${c.baseOffset}, ${c.lastOffset}]`)])).toEqual([[1, 'putting', ['orders-0 [100, 199]']]]);
  });

  test('structural sharing keeps the WAL view equal to a fresh one at every step', () => {
    const s = new Session(loadBundled('wal-failover-chunks-in-flight'));
    let view = buildView(s.kernel);
    while (s.forward()) {
      const fresh = buildView(s.kernel);
      view = share(view, fresh);
      expect(view).toEqual(fresh);
    }
  });
});

// ------------------------------------------------------------------ wal-layout.ts

function obj(seq: number, bytes: number, chunks: Array<[string, number, number]> = [], state: WalObjectView['state'] = 'live'): WalObjectView {
  return {
    key: `broker-0/${String(seq).padStart(20, '0')}.wal`,
    seq,
    broker: 0,
    bytes,
    createdMs: seq * 10,
    state,
    chunks: chunks.map(([key, from, to], i) => ({ id: i, key, topic: key.split('-')[0], partition: 0, range: [from, to], baseOffset: i * 10, lastOffset: i * 10 + 9, leaderEpoch: 0 })),
  };
}

describe('layoutWalObjects', () => {
  test('box widths are proportional to bytes, on a round binary scale; chunks split their box by byte range', () => {
    const l = layoutWalObjects([obj(1, 102400, [['a-0', 0, 51199], ['b-0', 51200, 102399]]), obj(2, 51200, [['a-0', 0, 51199]])], { left: 100, right: 900, gap: 8, minWidth: 10 });
    expect(l.scaleBytes).toBe(100 * 1024);
    expect(l.rows).toBe(1);
    const [a, b] = l.boxes;
    expect(a.x).toBe(100);
    expect(a.w).toBeCloseTo(l.scaleWidth);
    expect(b.w).toBeCloseTo(a.w / 2);
    expect(b.x).toBeCloseTo(a.x + a.w + 8);
    // Chunk positions are from the box's left edge.
    expect(a.chunks[0].x).toBe(0);
    expect(a.chunks[0].w).toBeCloseTo(a.w / 2);
    expect(a.chunks[1].x).toBeCloseTo(a.w / 2);
    expect(a.chunks[1].x + a.chunks[1].w).toBeCloseTo(a.w);
  });

  test('boxes wrap into rows, oldest first, never past the right edge (unless one box is wider than the lane)', () => {
    const objects = Array.from({ length: 24 }, (_, i) => obj(i + 1, 40960 + (i % 3) * 1024, [['a-0', 0, 20479], ['b-0', 20480, 40959]]));
    for (const right of [300, 600, 1000]) {
      const l = layoutWalObjects(objects, { left: 150, right });
      expect(l.boxes.map((b) => b.object.seq)).toEqual(objects.map((o) => o.seq));
      for (const b of l.boxes) {
        expect(b.x).toBeGreaterThanOrEqual(150);
        expect(b.x + b.w).toBeLessThanOrEqual(right + 0.001);
        expect(b.w).toBeGreaterThanOrEqual(44);
        for (const c of b.chunks) expect(c.x + c.w).toBeLessThanOrEqual(b.w + 0.001);
      }
      // Reading order: left to right within a row, rows top to bottom.
      for (let i = 1; i < l.boxes.length; i++) {
        const [p, q] = [l.boxes[i - 1], l.boxes[i]];
        expect(q.row === p.row ? q.x > p.x : q.row === p.row + 1 && q.x === 150).toBe(true);
      }
      expect(l.rows).toBe(l.boxes[l.boxes.length - 1].row + 1);
    }
    expect(layoutWalObjects([], { left: 0, right: 500 })).toMatchObject({ boxes: [], rows: 0 });
  });

  test.each<[number, number]>([
    [1, 1],
    [1000, 1000],
    [1024, 1024],
    [102400, 102400],
    [40960, 40960],
    [409600, 400 * 1024],
    [130000, 150 * 1024],
    [3 * 1024 * 1024 + 1, 4 * 1024 * 1024],
  ])('stableBytesBound(%i) = %i', (bytes, bound) => {
    expect(stableBytesBound(bytes)).toBe(bound);
    expect(stableBytesBound(bytes)).toBeGreaterThanOrEqual(bytes);
  });

  test.each<[number, string[]]>([
    [400, ['orders-0 [120, 139] e3']],
    [100, ['[120, 139] e3']],
    [76, ['[120, 139]']],
    [40, ['120–', '139']],
    [20, []],
  ])('chunkLabel at %i px', (width, lines) => {
    expect(chunkLabel({ key: 'orders-0', baseOffset: 120, lastOffset: 139, leaderEpoch: 3 }, width)).toEqual(lines);
  });

  test('patterns by partition, in order, cycling; names of objects', () => {
    const p = chunkPatterns(['a-0', 'a-1', 'b-0', 'c-0', 'd-0', 'e-0', 'f-0']);
    expect(Object.values(p)).toEqual(['stripes', 'dots', 'grid', 'bars', 'zigzag', 'solid', 'stripes']);
    expect(walObjectName(12)).toBe('wal#12');
    expect(walSeqOfKey('broker-2/00000000000000000012.wal')).toBe(12);
    expect(walSeqOfKey('orders-0/00000000000000000100-abc.log')).toBeNull();
  });
});

// ------------------------------------------------------------------ hops

const at = { atMs: 524 };

describe('walDescription (the fast-store diagram\'s accessible name)', () => {
  const metadata = { topic: '__remote_wal_log_metadata', records: 5, retainedRecords: 3, retainedBytes: 300, peakRetainedRecords: 3 };
  test('names the store\'s state, each object with its size, state, writer and chunks, and the metadata retained', () => {
    const objects = [obj(1, 2048, [['orders-0', 0, 1023], ['logs-0', 1024, 2047]]), obj(2, 1024, [], 'putting')];
    expect(walDescription({ objects, hiddenObjects: 4, topics: ['orders'], metadata }, true)).toBe(
      'KIP-1176 fast store (up): 2 WAL objects and 4 older, oldest first: wal#1 2 KiB live by broker 0 (orders-0 [0, 9] e0, logs-0 [10, 19] e0); wal#2 1 KiB being put by broker 0. 3 metadata records retained (5 written).',
    );
    expect(walDescription({ objects: [], hiddenObjects: 0, topics: [], metadata }, false)).toBe('KIP-1176 fast store (down): WAL is off on every topic; 3 metadata records retained.');
    expect(walDescription({ objects: [], hiddenObjects: 0, topics: ['orders'], metadata }, true)).toContain('no WAL objects now');
  });
});

describe('walHops', () => {
  test.each<[string, Loose, Loose | null]>([
    [
      'a PUT by the leader',
      { ...at, type: 'objectStore', op: 'put', store: 'wal', key: 'broker-0/00000000000000000001.wal', bytes: 102400, ok: true, broker: 0, purpose: 'walPut' },
      { kind: 'put', broker: 0, seq: 1, ok: true, bytes: 102400, text: 'broker 0 → fast store: PUT wal#1 (100 KiB)' },
    ],
    [
      'a failed PUT',
      { ...at, type: 'objectStore', op: 'put', store: 'wal', key: 'broker-0/00000000000000000006.wal', bytes: 0, ok: false, error: 'ServiceUnavailable', broker: 0, purpose: 'walPut' },
      { kind: 'put', ok: false, error: 'ServiceUnavailable', text: 'broker 0 → fast store: PUT wal#6: failed, ServiceUnavailable' },
    ],
    [
      'the metadata record',
      { ...at, type: 'wal', action: 'chunkPublished', broker: 0, topic: 'orders', partition: 0, objectKey: 'broker-0/00000000000000000001.wal', range: [0, 102399], baseOffset: 0, lastOffset: 99, leaderEpoch: 0, metadataOffset: 0 },
      { kind: 'publish', seq: 1, range: [0, 102399], offsets: [0, 99], metadataOffset: 0, partition: 'orders-0' },
    ],
    [
      "a follower's ranged GET",
      { ...at, type: 'objectStore', op: 'get', store: 'wal', key: 'broker-0/00000000000000000001.wal', bytes: 20480, ok: true, broker: 2, topic: 'payments', partition: 0, purpose: 'walChunk', range: [20480, 40959] },
      { kind: 'get', broker: 2, seq: 1, range: [20480, 40959], text: 'fast store → broker 2: ranged GET wal#1 bytes 20480–40959 (payments-0)' },
    ],
    [
      'the append as follower',
      { ...at, type: 'log', action: 'walChunkAppended', broker: 1, topic: 'orders', partition: 0, objectKey: 'broker-0/00000000000000000001.wal', baseOffset: 0, lastOffset: 99, records: 100, leaderEpoch: 0 },
      { kind: 'append', broker: 1, offsets: [0, 99], text: 'broker 1 appended orders-0 [0, 99] from wal#1 as follower (100 records)' },
    ],
    [
      'a DELETE',
      { ...at, type: 'objectStore', op: 'delete', store: 'wal', key: 'broker-0/00000000000000000003.wal', bytes: 0, ok: true, broker: 0, purpose: 'walDelete' },
      { kind: 'delete', seq: 3 },
    ],
    ['a tiered-store GET is no hop', { ...at, type: 'objectStore', op: 'get', store: 'tiered', key: 'orders-0/x.log', bytes: 1, ok: true, broker: 1 }, null],
    ['a Fetch response is no hop', { ...at, type: 'response', api: 'Fetch', source: 0, target: 1, correlationId: 1, error: null, records: 0, wal: true }, null],
  ])('%s', (_name, entry, hop) => {
    const hops = walHops([entry as TraceEntry]);
    if (hop === null) expect(hops).toEqual([]);
    else expect(hops).toEqual([expect.objectContaining(hop)]);
  });

  test('wal-steady-state: a chunk goes leader -> fast store -> each follower, one hop a step', () => {
    // Goal: stepping shows the flow in order: PUT, metadata record, two ranged GETs, two appends.
    const s = new Session(loadBundled('wal-steady-state'));
    const seen: string[] = [];
    while (seen.length < 6 && s.forward()) for (const h of walHops(s.currentEntries)) seen.push(`${h.kind}@${h.broker}`);
    expect(seen).toEqual(['put@0', 'publish@0', 'get@1', 'get@2', 'append@1', 'append@2']);
  });
});

// ------------------------------------------------------------------ request lane

describe('request lane: WAL rows', () => {
  test.each<[string, Loose, Loose | null]>([
    [
      'WAL PUT goes to the fast store',
      { ...at, type: 'objectStore', op: 'put', store: 'wal', key: 'broker-0/00000000000000000001.wal', bytes: 102400, ok: true, broker: 0 },
      { from: 'broker-0', to: 'wal', label: 'PUT wal#1', error: false, kind: 'objectStore', atMs: 524 },
    ],
    [
      'a ranged GET names its bytes',
      { ...at, type: 'objectStore', op: 'get', store: 'wal', key: 'broker-0/00000000000000000001.wal', bytes: 102400, ok: true, broker: 1, range: [0, 102399] },
      { from: 'broker-1', to: 'wal', label: 'GET wal#1 bytes 0–102399', error: false, kind: 'objectStore', atMs: 524 },
    ],
    [
      'a failed WAL PUT is an error',
      { ...at, type: 'objectStore', op: 'put', store: 'wal', key: 'broker-0/00000000000000000006.wal', bytes: 0, ok: false, error: 'ServiceUnavailable', broker: 0 },
      { from: 'broker-0', to: 'wal', label: 'PUT wal#6 ✖ ServiceUnavailable', error: true, kind: 'objectStore', atMs: 524 },
    ],
    [
      'the chunk reaching the follower',
      { ...at, type: 'log', action: 'walChunkAppended', broker: 2, topic: 'orders', partition: 0, objectKey: 'broker-0/00000000000000000001.wal', baseOffset: 0, lastOffset: 99, records: 100, leaderEpoch: 0 },
      { from: 'wal', to: 'broker-2', label: 'chunk [0, 99] appended', error: false, kind: 'walChunk', atMs: 524 },
    ],
    [
      'the metadata record, a note on the writer',
      { ...at, type: 'wal', action: 'chunkPublished', broker: 0, topic: 'orders', partition: 0, objectKey: 'k', range: [0, 9], baseOffset: 0, lastOffset: 99, leaderEpoch: 1, metadataOffset: 7 },
      { from: 'broker-0', to: 'broker-0', label: 'metadata record 7: orders-0 [0, 99] e1', error: false, kind: 'note', atMs: 524 },
    ],
    [
      'an empty WAL Fetch answer reads "no records, HW only"',
      { ...at, type: 'response', api: 'Fetch', source: 0, target: 1, correlationId: 1, error: null, records: 0, bytes: 0, fetchOffset: 0, highWatermark: 0, wal: true },
      { from: 'broker-0', to: 'broker-1', label: 'no records, HW only', error: false, kind: 'response', atMs: 524 },
    ],
    ['the flush itself draws nothing (its PUT does)', { ...at, type: 'wal', action: 'flush', broker: 0, objectKey: 'k', chunks: 1, bytes: 10, reason: 'interval' }, null],
  ])('%s', (_name, entry, arrow) => {
    expect(arrowFor(entry as TraceEntry)).toEqual(arrow);
    expect(inSequence(entry as TraceEntry)).toBe(arrow !== null);
  });

  test('the fast store gets a column between the tiered store and the consumer, only when asked', () => {
    expect(sequenceColumns(3, 600, 40).map((c) => c.id)).toEqual(['broker-0', 'broker-1', 'broker-2', 'tiered', 'consumer']);
    const cols = sequenceColumns(3, 600, 40, true);
    expect(cols.map((c) => c.label)).toEqual(['broker 0', 'broker 1', 'broker 2', 'tiered store', 'fast store', 'consumer']);
    expect(cols[0].x).toBe(40);
    expect(cols[cols.length - 1].x).toBe(560);
  });

  test.each(WAL_SCENARIOS)('%s: every entry the lane draws has an arrow to known columns, and inSequence agrees with arrowFor', (id) => {
    const s = new Session(loadBundled(id));
    s.runToEnd();
    const cols = new Set(sequenceColumns(s.kernel.scenario.brokers, 600, 40, true).map((c) => c.id));
    let wal = 0;
    for (const e of s.kernel.trace) {
      const a = arrowFor(e);
      expect(inSequence(e)).toBe(a !== null);
      if (a === null) continue;
      expect(cols.has(a.from), a.from).toBe(true);
      expect(cols.has(a.to), a.to).toBe(true);
      if (a.from === 'wal' || a.to === 'wal') wal++;
    }
    expect(wal).toBeGreaterThan(0);
  });
});

// ------------------------------------------------------------------ machine states panel

describe('WAL machines in the machine states panel', () => {
  const leaves = (root: Parameters<typeof stateTree>[0]) => {
    const paths = stateTree(root).map((r) => r.path);
    return new Set(paths.filter((p) => !paths.some((q) => q.startsWith(`${p}.`))));
  };
  const replicaLeaves = leaves(walReplicaMachine.root);
  const combinerLeaves = leaves(walCombinerMachine.root);

  test.each(WAL_SCENARIOS)('%s: every walReplica and walCombiner state the kernel reports is a leaf of the tree drawn', (id) => {
    const seen = { walReplica: new Set<string>(), walCombiner: new Set<string>() };
    everyStep(id, (s) => {
      for (const key of s.kernel.state.partitionOrder) for (const b of s.kernel.state.partitions[key].replicas) seen.walReplica.add(s.kernel.machineState(b, key, 'walReplica'));
      for (const b of s.kernel.state.brokers) seen.walCombiner.add(s.kernel.machineState(b.id, BROKER_KEY, 'walCombiner'));
    });
    for (const st of seen.walReplica) expect(replicaLeaves.has(st), `walReplica: ${st}`).toBe(true);
    for (const st of seen.walCombiner) expect(combinerLeaves.has(st), `walCombiner: ${st}`).toBe(true);
    expect(seen.walCombiner.size).toBeGreaterThan(1);
  });
});

// ------------------------------------------------------------------ format.ts

describe('format', () => {
  test.each<[number, string]>([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1 KiB'],
    [1536, '1.5 KiB'],
    [102400, '100 KiB'],
    [1884160, '1.8 MiB'],
    [3768320, '3.59 MiB'],
    [7987200, '7.62 MiB'],
    [5 * 1024 ** 3, '5 GiB'],
  ])('formatBytes(%i) = %s', (n, s) => expect(formatBytes(n)).toBe(s));

  test.each<[number, string]>([
    [0, '$0'],
    [0.000066, '$0.000066'],
    [0.00115, '$0.00115'],
    [0.5, '$0.5'],
    [12.345, '$12.35'],
    [0.0000004, '< $0.000001'],
  ])('formatUsd(%d) = %s', (n, s) => expect(formatUsd(n)).toBe(s));

  // The same quantities at the precisions the figure tables and the chart ticks print them.
  test('options: the figure tables, the chart ticks, durations and counts', () => {
    const table = { decimals: 1, keepZeros: true, largest: 'MiB' } as const;
    expect([1023, 1024, 7987200, 5 * 1024 ** 3].map((n) => formatBytes(n, table))).toEqual(['1023 B', '1.0 KiB', '7.6 MiB', '5120.0 MiB']);
    expect([0, 2 * 1048576, 524288].map((n) => formatBytes(n, { unit: 'MiB', decimals: 2 }))).toEqual(['0 MiB', '2 MiB', '0.5 MiB']);
    const usd = { wholeFrom: 100, significant: 2 };
    expect([0, 0.0017123, 0.000012, 12.345, 1234.5].map((n) => formatUsd(n, usd))).toEqual(['$0', '$0.0017', '$0.000012', '$12.35', '$1235']);
    expect([0, 0.0005, 0.0012].map((n) => formatUsd(n, { decimals: 4 }))).toEqual(['$0', '$0.0005', '$0.0012']);
    expect(formatUsd(0.001234, { asIs: true })).toBe('$0.001234');
    expect([formatMs(250), formatMs(1500), formatMs(250, { unit: 'auto' }), formatMs(1500, { unit: 'auto' }), formatMs(60000, { unit: 's' })]).toEqual(['250 ms', '1500 ms', '250 ms', '1.5 s', '60 s']);
    expect([formatCount(1500), formatCount(1500, { compact: true }), formatCount(999, { compact: true })]).toEqual(['1,500', '1.5k', '999']);
  });
});
