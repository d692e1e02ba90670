/**
 * KIP-1176 mode (docs/protocol.md §7): the WAL machines on their own, and each bundled WAL
 * scenario's story with the figures it is there to show.
 */
import { type AnyMachineSnapshot, initialTransition, transition } from 'xstate';
import { describe, expect, test } from 'vitest';
import { walCombinerMachine, type WalCombinerEvent } from '../core/machines/wal-combiner.js';
import { type WalChunkRef, type WalReplicaEvent, walReplicaMachine } from '../core/machines/wal-replica.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { BROKER_KEY } from '../core/sim/state/state.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import { MemoryObjectStore } from '../core/ports/object-store.js';
import { MODES, compare, formatCompare, scenarioForMode } from '../core/study/compare.js';
import { type Loose, loadBundled, replicaOf, runBundled } from './support/run.js';

interface Effect {
  type: string;
  params: Record<string, unknown>;
}

/** Feeds events to a fresh machine; returns the snapshot and every effect asked for. */
function feed<E>(machine: typeof walReplicaMachine | typeof walCombinerMachine, input: unknown, events: Array<E | ((fx: Effect[]) => E)>) {
  const [s0, a0] = initialTransition(machine as never, input as never);
  let snapshot = s0 as AnyMachineSnapshot;
  const effects: Effect[] = [];
  const collect = (actions: readonly unknown[]) => {
    for (const a of actions as Array<{ type: string; params?: Record<string, unknown> }>) if (!a.type.startsWith('xstate.')) effects.push({ type: a.type, params: a.params ?? {} });
  };
  collect(a0);
  for (const step of events) {
    const ev = typeof step === 'function' ? (step as (fx: Effect[]) => E)(effects) : step;
    const [s, a] = transition(machine as never, snapshot as never, ev as never);
    snapshot = s as AnyMachineSnapshot;
    collect(a);
  }
  return { state: snapshot.value as string, context: snapshot.context as Record<string, unknown>, effects };
}

const lastId = (fx: Effect[]) => {
  for (let i = fx.length - 1; i >= 0; i--) {
    const p = fx[i].params;
    if (typeof p.requestId === 'number') return p.requestId;
    if (typeof p.timerId === 'number') return p.timerId;
  }
  throw new Error('no request or timer');
};

const chunk = (id: number, baseOffset: number, lastOffset: number, leaderEpoch = 0): WalChunkRef => ({
  id,
  objectKey: `broker-0/${String(id).padStart(20, '0')}.wal`,
  range: [0, (lastOffset - baseOffset + 1) * 1024 - 1],
  baseOffset,
  lastOffset,
  leaderEpoch,
});

const REPLICA = { broker: 1, topic: 'orders', partition: 0 };

describe('WAL replica machine', () => {
  test('reads the chunk that continues its log, appends it, and waits for a gap to fill', () => {
    // Goal: chunks apply in offset order from the log end; one past the end waits.
    // Method: start at LEO 10 with chunks [20,29] and [10,19] known; read both in turn.
    const r = feed<WalReplicaEvent>(walReplicaMachine, REPLICA, [
      { type: 'wal.started', leaderEpoch: 0, logEndOffset: 10, chunks: [chunk(1, 20, 29), chunk(0, 10, 19)] },
      (fx) => ({ type: 'wal.chunkRead', requestId: lastId(fx), ok: true, error: null }),
      (fx) => ({ type: 'wal.chunkRead', requestId: lastId(fx), ok: true, error: null }),
    ]);
    const gets = r.effects.filter((e) => e.type === 'getChunk').map((e) => (e.params.chunk as WalChunkRef).baseOffset);
    expect(gets).toEqual([10, 20]);
    expect(r.effects.filter((e) => e.type === 'appendChunk')).toHaveLength(2);
    expect(r.state).toBe('following');
    expect(r.context.logEndOffset).toBe(30);
  });

  test('a chunk of an older leader epoch is dropped, and a new epoch drops the ones held', () => {
    // Goal: docs/protocol.md §7.7, followers ignore chunks whose leader epoch is older than the current one.
    const r = feed<WalReplicaEvent>(walReplicaMachine, REPLICA, [
      { type: 'wal.started', leaderEpoch: 1, logEndOffset: 10, chunks: [] },
      { type: 'wal.chunkPublished', chunk: chunk(5, 10, 19, 0) },
    ]);
    expect(r.state).toBe('following');
    expect(r.effects.find((e) => e.type === 'explain')?.params).toMatchObject({ rule: 'walChunkStaleEpoch' });
    expect(r.effects.some((e) => e.type === 'getChunk')).toBe(false);
    const held = feed<WalReplicaEvent>(walReplicaMachine, REPLICA, [
      { type: 'wal.started', leaderEpoch: 0, logEndOffset: 10, chunks: [chunk(1, 30, 39, 0)] },
      { type: 'wal.leaderEpoch', leaderEpoch: 1 },
    ]);
    expect(held.context.chunks).toEqual([]);
  });

  test('a failed read backs off and retries; an elected replica syncs what it knows, then reports', () => {
    const r = feed<WalReplicaEvent>(walReplicaMachine, REPLICA, [
      { type: 'wal.started', leaderEpoch: 0, logEndOffset: 10, chunks: [chunk(0, 10, 19)] },
      (fx) => ({ type: 'wal.chunkRead', requestId: lastId(fx), ok: false, error: 'ServiceUnavailable' }),
    ]);
    expect(r.state).toBe('backoff');
    expect(r.effects.at(-1)).toMatchObject({ type: 'startRetryTimer' });
    const synced = feed<WalReplicaEvent>(walReplicaMachine, REPLICA, [
      { type: 'wal.started', leaderEpoch: 0, logEndOffset: 10, chunks: [chunk(0, 10, 19)] },
      { type: 'wal.syncTail' },
      (fx) => ({ type: 'wal.chunkRead', requestId: lastId(fx), ok: true, error: null }),
    ]);
    expect(synced.state).toBe('inactive');
    expect(synced.effects.at(-1)).toEqual({ type: 'tailSynced', params: { logEndOffset: 20, applied: 1 } });
    // With the store failing, the elected replica does not wait: it leads with what it has.
    const failed = feed<WalReplicaEvent>(walReplicaMachine, REPLICA, [
      { type: 'wal.started', leaderEpoch: 0, logEndOffset: 10, chunks: [chunk(0, 10, 19)] },
      { type: 'wal.syncTail' },
      (fx) => ({ type: 'wal.chunkRead', requestId: lastId(fx), ok: false, error: 'ServiceUnavailable' }),
    ]);
    expect(failed.state).toBe('inactive');
    expect(failed.effects.some((e) => e.type === 'explain' && e.params.rule === 'walTailSyncFailed')).toBe(true);
    expect(failed.effects.at(-1)).toEqual({ type: 'tailSynced', params: { logEndOffset: 10, applied: 0 } });
  });
});

describe('WAL combiner machine', () => {
  const facts = (pendingBytes: number) => ({ pendingBytes, maxBytes: 409600 });

  test('waits one interval after data arrives, flushes, publishes, and rests when nothing is pending', () => {
    const r = feed<WalCombinerEvent>(walCombinerMachine, { broker: 0 }, [
      { type: 'wal.appended', ...facts(1024) },
      (fx) => ({ type: 'wal.timer', timerId: lastId(fx), ...facts(1024) }),
      (fx) => ({ type: 'wal.putCompleted', requestId: lastId(fx), ok: true, error: null, ...facts(0) }),
    ]);
    expect(r.effects.map((e) => e.type)).toEqual(['startIntervalTimer', 'flush', 'publishChunks']);
    expect(r.state).toBe('idle');
  });

  test('wal.combine.max.bytes flushes at once; a failed PUT puts the chunks back and retries after a backoff', () => {
    const r = feed<WalCombinerEvent>(walCombinerMachine, { broker: 0 }, [
      { type: 'wal.appended', ...facts(500000) },
      (fx) => ({ type: 'wal.putCompleted', requestId: lastId(fx), ok: false, error: 'ServiceUnavailable', ...facts(0) }),
    ]);
    expect(r.effects.map((e) => e.type)).toEqual(['flush', 'restoreChunks', 'startRetryTimer']);
    expect(r.effects[0].params.reason).toBe('maxBytes');
    expect(r.state).toBe('retrying');
    expect(r.effects[2].params.failures).toBe(1);
  });
});

const walEntries = (trace: unknown[], action: string) => (trace as Loose[]).filter((e) => e.type === 'wal' && e.action === action);

describe('bundled WAL scenarios', () => {
  test('wal-steady-state: records reach followers only through the fast store; WAL objects go once tiered', () => {
    const { kernel, json } = runBundled('wal-steady-state');
    expect(json.violations).toEqual([]);
    const m = json.metrics as Loose;
    // No follower Fetch returned records: every answer to a follower is the WAL's empty one.
    expect(m.bytesFetchedByFollowers).toBe(0);
    const followerAnswers = (json.trace as Loose[]).filter((e) => e.type === 'response' && e.api === 'Fetch' && e.target !== 'consumer' && e.records > 0);
    expect(followerAnswers).toEqual([]);
    expect(m.wal.chunksApplied).toBe(2 * m.wal.chunksPublished);
    expect(m.wal.bytesApplied).toBe(2 * m.wal.bytesPut);
    expect(m.wal.bytesPut).toBeGreaterThanOrEqual(m.produced.bytes - 100 * 1024);
    // Every deleted WAL object held only chunks at or below Ry at that moment.
    // (About 23 in the 20 s run: an object goes once its segment is tiered, and the copy task
    // copies only what it listed at its run's start, then waits 5 s after the run ends.)
    const deletes = walEntries(json.trace, 'deleteObject');
    expect(deletes.length).toBeGreaterThan(15);
    expect(new Set(deletes.map((e) => e.rule))).toEqual(new Set(['walObjectTiered']));
    // What is left: the objects of the segments not yet tiered (up to a copy-task cycle of them).
    expect(kernel.state.wal.objectOrder['0'].length).toBeLessThan(25);
    for (const r of json.partitions[0].replicas) expect(r.logEndOffset).toBeGreaterThanOrEqual(3900);
  });

  test('wal-acks-all-latency: acks=1 is a round trip; acks=all adds the combiner, PUT, metadata, GET and a Fetch', () => {
    const { json } = runBundled('wal-acks-all-latency');
    expect(json.violations).toEqual([]);
    const p = (json.metrics as Loose).produce;
    expect(p.acks1).toMatchObject({ latencyMsP50: 2, latencyMsMax: 2 });
    // 15 (wal.combine.interval.ms) + 6 (PUT) + 1 + 2 (metadata: writer -> metadata leader ->
    // follower in another zone) + 4 (ranged GET) + 2 (Fetch to the leader) + 2 (client round trip).
    expect(p.acksAll.latencyMsP50).toBe(15 + 6 + 1 + 2 + 4 + 2 + 2);
    expect(p.acksAll.count).toBeGreaterThan(90);
  });

  test('wal-fast-store-outage: HW freezes, acks=all blocks, followers leave the ISR, then all catch up', () => {
    const { json } = runBundled('wal-fast-store-outage');
    expect(json.violations).toEqual([]);
    const trace = json.trace as Loose[];
    const isr = trace.filter((e) => e.type === 'isr').map((e) => [e.atMs, e.isr, e.rule]);
    expect(isr).toContainEqual([20000, [0], 'followerLagging']);
    // No high watermark moved on the leader between the outage and the ISR shrink.
    const hw = trace.filter((e) => e.type === 'highWatermark' && e.broker === 0 && e.atMs > 5500 && e.atMs < 20000);
    expect(hw).toEqual([]);
    expect(walEntries(trace, 'putFailed').length).toBeGreaterThan(10);
    const p = (json.metrics as Loose).produce.acksAll;
    expect(p.latencyMsMax).toBeGreaterThan(10000);
    expect(json.partitions[0].isr).toEqual([0, 1, 2]);
    const ends = json.partitions[0].replicas.map((r) => r.logEndOffset);
    expect(new Set(ends.slice(1)).size).toBe(1);
    expect((json.metrics as Loose).bytesFetchedByFollowers).toBe(0);
  });

  test('wal-fast-store-outage-fallback: the leader serves records while the store is down; the ISR stays whole', () => {
    const { json } = runBundled('wal-fast-store-outage-fallback');
    expect(json.violations).toEqual([]);
    const trace = json.trace as Loose[];
    expect(trace.filter((e) => e.type === 'isr' && e.rule === 'followerLagging')).toEqual([]);
    const served = trace.filter((e) => e.type === 'response' && e.api === 'Fetch' && e.records > 0);
    expect(served.length).toBeGreaterThan(20);
    expect(served.every((e) => e.atMs > 5500 && e.atMs < 37000)).toBe(true);
    expect((json.metrics as Loose).produce.acksAll.latencyMsMax).toBeLessThan(100);
    expect(json.partitions[0].isr).toEqual([0, 1, 2]);
  });

  test('wal-failover-chunks-in-flight: the elected replica syncs the WAL tail before it leads; nothing in the WAL is lost', () => {
    const { kernel, json } = runBundled('wal-failover-chunks-in-flight');
    expect(json.violations).toEqual([]);
    const trace = json.trace as Loose[];
    const sync = walEntries(trace, 'syncingTail')[0];
    const synced = walEntries(trace, 'tailSynced')[0];
    expect(sync).toMatchObject({ broker: 1, logEndOffset: 60 });
    expect(synced).toMatchObject({ broker: 1, chunks: 1, logEndOffset: 70 });
    const leader = trace.find((e) => e.type === 'leader' && e.leaderEpoch === 1);
    expect(leader).toMatchObject({ broker: 1, atMs: synced.atMs });
    expect(replicaOf(json, 1).leaderEpochs).toEqual([[0, 0], [1, 70]]);
    // New chunks carry the new epoch and come from the new leader's combiner.
    const published = walEntries(trace, 'chunkPublished').filter((e) => e.atMs > leader!.atMs);
    expect(published.every((e) => e.leaderEpoch === 1 && e.broker === 1)).toBe(true);
    for (const b of [0, 1, 2]) expect(replicaOf(json, b)).toMatchObject({ logEndOffset: 110, inIsr: true });
    expect(kernel.state.wal.tailSync).toEqual({});
  });

  test('wal-metadata-growth: one metadata record per chunk, retention keeps half an hour, against KIP-405 records', () => {
    const { json } = runBundled('wal-metadata-growth');
    expect(json.violations).toEqual([]);
    const md = (json.metrics as Loose).wal.metadata;
    expect(md.records).toBe(360);
    expect(md.retainedRecords).toBeLessThan(md.records);
    expect(md.retainedRecords).toBeGreaterThan(170);
    expect(md.remoteLogMetadataRecords).toBeGreaterThan(0);
    expect(md.records / md.remoteLogMetadataRecords).toBeGreaterThan(3);
    expect((json.metrics as Loose).wal.objectsDeleted).toBeGreaterThan(300);
  });

  test('the combiner is one machine per broker, not per partition', () => {
    const { kernel } = runBundled('wal-acks-all-latency');
    expect(kernel.machineState(0, BROKER_KEY, 'walCombiner')).not.toBe('');
    const flushes = walEntries(kernel.trace, 'flush');
    // Both partitions' bytes travel in the same objects when they are pending together.
    expect(flushes.some((e) => e.chunks === 2)).toBe(true);
  });
});

describe('compare', () => {
  test('one workload in three modes: KIP-1176 fetches nothing from the leader and pays in WAL requests and acks=all latency', () => {
    const r = compare(loadBundled('wal-steady-state'), MODES);
    expect(r.modes.map((m) => m.mode)).toEqual(['classic', 'kip1023', 'wal']);
    const [classic, kip1023, wal] = r.modes;
    expect(classic.bytesFromLeader).toBeGreaterThan(7 * 1048576);
    expect(wal.bytesFromLeader).toBe(0);
    expect(classic.objectStore.walRequests).toBe(0);
    expect(wal.objectStore.walRequests).toBeGreaterThan(100);
    expect(wal.produce.acksAll.p50).toBeGreaterThan(classic.produce.acksAll.p50!);
    expect(kip1023.violations + classic.violations + wal.violations).toBe(0);
    expect(wal.walMetadataRecords).toBe(39);
    const text = formatCompare(r);
    expect(text).toContain('bytes fetched from the leader');
    expect(text.split('\n')[2]).toMatch(/classic\s+kip1023\s+wal$/);
  });

  test('a new follower\'s catch-up time: KIP-1023 starts it at the earliest pending upload offset', () => {
    const r = compare(loadBundled('classic-two-rounds'), ['classic', 'kip1023']);
    const [classic, kip1023] = r.modes;
    expect(classic.catchUpMs).not.toBeNull();
    expect(kip1023.catchUpMs!).toBeLessThan(classic.catchUpMs!);
    expect(kip1023.bytesFromLeader).toBeLessThan(classic.bytesFromLeader);
  });

  test('the modes change only the switches: a timeline that flips them is left out', () => {
    const s = loadBundled('kip1023-bootstrap');
    const withFlip = { ...s, timeline: [...s.timeline, { at: 10, action: { kind: 'setConfig' as const, values: { 'wal.enable': false } } }] };
    const w = scenarioForMode(withFlip, 'wal');
    expect(w.topics.every((t) => t.config['wal.enable'] === true)).toBe(true);
    expect(w.timeline).toHaveLength(s.timeline.length);
    expect(scenarioForMode(s, 'classic').config['follower.fetch.last.tiered.offset.enable']).toBe(false);
  });
});

describe('turning KIP-1176 on and off at run time', () => {
  test('setConfig wal.enable starts the WAL from the leader\'s log end, and stopping it returns to Fetch', () => {
    const base = loadBundled('wal-steady-state');
    const s = {
      ...base,
      topics: base.topics.map((t) => ({ ...t, config: { ...t.config, 'wal.enable': false } })),
      timeline: [
        ...base.timeline,
        { at: 5200, action: { kind: 'setConfig' as const, topic: 'orders', values: { 'wal.enable': true } } },
        { at: 12200, action: { kind: 'setConfig' as const, topic: 'orders', values: { 'wal.enable': false } } },
      ],
    };
    const k = new Kernel(s);
    k.runToEnd();
    const json = buildRunJson(k);
    expect(json.violations).toEqual([]);
    const trace = json.trace as Loose[];
    const published = trace.filter((e) => e.type === 'wal' && e.action === 'chunkPublished');
    expect(published.length).toBeGreaterThan(10);
    expect(published.every((e) => e.atMs > 5200 && e.atMs < 12300)).toBe(true);
    const records = trace.filter((e) => e.type === 'response' && e.api === 'Fetch' && e.records > 0);
    expect(records.some((e) => e.atMs < 5200) && records.some((e) => e.atMs > 12200)).toBe(true);
    expect(records.filter((e) => e.atMs > 5300 && e.atMs < 12200)).toEqual([]);
    for (const b of [1, 2]) expect(replicaOf(json, b).logEndOffset).toBeGreaterThanOrEqual(3900);
  });
});

describe('orphan WAL objects', () => {
  test('an object whose PUT was in flight when its broker crashed is deleted when the broker restarts', () => {
    // Goal: no WAL object is left in the fast store without a metadata record naming it.
    // Method: wal-failover-chunks-in-flight, with the crash moved into the PUT of [60, 69] (t=1115..1121).
    const base = loadBundled('wal-failover-chunks-in-flight');
    const s = { ...base, timeline: base.timeline.map((e) => (e.action.kind === 'crash' ? { ...e, at: 1118 } : e)) };
    const store = new MemoryObjectStore();
    const k = new Kernel(s, { store });
    k.runToEnd();
    const json = buildRunJson(k);
    expect(json.violations).toEqual([]);
    const trace = json.trace as Loose[];
    const orphan = trace.find((e) => e.type === 'wal' && e.action === 'deleteObject' && e.rule === 'walOrphan');
    expect(orphan).toMatchObject({ broker: 0, atMs: 3000 });
    expect(walEntries(trace, 'chunkPublished').some((e) => e.objectKey === orphan!.objectKey)).toBe(false);
    expect(Object.keys(store.snapshot().wal)).not.toContain(orphan!.objectKey);
  });
});

describe('a fast-store outage and the follower Fetch', () => {
  // The fast store goes down before the first produce and fails every request after a
  // second, so the combiner's first object is in flight 1015..2021, then fails and is
  // retried (in flight 2121..3127, 3327..4333, 4733..5739) until the store returns at 6000.
  // The followers fetch at offset 0 every 504 ms. (conformance/wal-no-fetch-fallback-during-outage.yaml)
  const slowOutage = (fallback: boolean) => {
    const base = loadBundled('wal-fast-store-outage');
    return {
      ...base,
      config: { ...base.config, 'wal.fallback.fetch.enable': fallback },
      timeline: [
        { at: 500, action: { kind: 'objectStore' as const, store: 'wal' as const, available: false, extraLatencyMs: 1000 } },
        { at: 1000, action: { kind: 'produce' as const, topic: 'orders', partition: 0, records: 10, acks: 'all' as const } },
        { at: 6000, action: { kind: 'objectStore' as const, store: 'wal' as const, available: true, extraLatencyMs: 0 } },
      ],
      until: 9000,
    };
  };
  const run = (s: ReturnType<typeof loadBundled>) => {
    const k = new Kernel(s);
    k.runToEnd();
    return buildRunJson(k);
  };
  const acked = (trace: Loose[]) => trace.filter((e) => e.type === 'produce' && e.action === 'acknowledged').map((e) => e.atMs);

  test('fallback off: records of a PUT in flight or failed reach no follower by Fetch; acks=all waits for the store', () => {
    const json = run(slowOutage(false));
    expect(json.violations).toEqual([]);
    const trace = json.trace as Loose[];
    expect(trace.filter((e) => e.type === 'response' && e.api === 'Fetch' && e.records > 0)).toEqual([]);
    expect(walEntries(trace, 'putFailed').length).toBe(4);
    expect(trace.filter((e) => e.type === 'highWatermark' && e.broker === 0 && e.atMs < 6000)).toEqual([]);
    expect(acked(trace)).toEqual([6558]);
    for (const b of [1, 2]) expect(replicaOf(json, b)).toMatchObject({ logEndOffset: 10, inIsr: true });
  });

  test('fallback on: from the first failed PUT, the retries\' PUTs in flight included, the leader serves them by Fetch', () => {
    const json = run(slowOutage(true));
    expect(json.violations).toEqual([]);
    const trace = json.trace as Loose[];
    const served = trace.filter((e) => e.type === 'response' && e.api === 'Fetch' && e.records > 0);
    // Not while the first PUT is in flight (nothing has failed yet); the first Fetch after
    // the failure at 2021 arrives at 2520, while the combiner waits out its backoff.
    expect(served.map((e) => [e.atMs, e.target, e.fetchOffset, e.records])).toEqual([[2524, 1, 0, 10], [2524, 2, 0, 10]]);
    expect(acked(trace)).toEqual([2526]);
  });

  test('a lagging replica below the WAL start is served the classic way only up to the records the fast store took', () => {
    // Broker 1 crashes at 20; leader 0 crashes at 40 and broker 2 leads epoch 1, whose first
    // chunk [40, 49] is published before the store goes down at 5500. Broker 1 restarts at
    // 12000 below the WAL start (40): Fetch gives it [20, 49], not the unput [50, 119].
    const base = loadBundled('wal-fast-store-outage');
    const s = {
      ...base,
      timeline: [
        ...base.timeline.filter((e) => e.action.kind === 'produce'),
        { at: 2400, action: { kind: 'crash' as const, broker: 1 } },
        { at: 4600, action: { kind: 'crash' as const, broker: 0 } },
        { at: 5500, action: { kind: 'objectStore' as const, store: 'wal' as const, available: false } },
        { at: 12000, action: { kind: 'restart' as const, broker: 1 } },
        { at: 20000, action: { kind: 'objectStore' as const, store: 'wal' as const, available: true } },
      ],
      until: 25000,
    };
    const json = run(s);
    expect(json.violations).toEqual([]);
    const trace = json.trace as Loose[];
    const served = trace.filter((e) => e.type === 'response' && e.api === 'Fetch' && e.records > 0);
    expect(served.map((e) => [e.atMs, e.target, e.fetchOffset, e.records])).toEqual([[12004, 1, 20, 30]]);
    // It rejoins the ISR only once the store is back and it has read the WAL.
    const joined = trace.find((e) => e.type === 'isr' && e.atMs > 12000 && e.isr.includes(1));
    expect(joined!.atMs).toBeGreaterThan(20000);
    expect(replicaOf(json, 1)).toMatchObject({ logEndOffset: 240, inIsr: true });
  });
});
