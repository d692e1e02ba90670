/**
 * Quotas (docs/protocol.md §3.1 and §5.1): Kafka's sampled rate (core/domain/rate.ts)
 * against Kafka's own ReplicationQuotaManagerTest and hand calculations; the throttled
 * replica lists as Kafka validates and reads them; the remote reader pool with several
 * threads; a crash forgetting a broker's quotas. The behaviour in runs is checked by the
 * conformance cases conformance/quota-*.yaml.
 */
import { describe, expect, test } from 'vitest';
import { validateThrottledReplicas } from '../core/domain/config.js';
import { isQuotaExceeded, measure, newRateStat, ratePerSecond, recordBytes, throttleTimeMs } from '../core/domain/rate.js';
import { parseScenarioText } from '../core/scenario/parse.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { isThrottledReplica } from '../core/sim/world/quotas.js';
import type { Loose } from './support/run.js';

describe('the sampled rate (SampledStat, SimpleRate)', () => {
  test("Kafka's ReplicationQuotaManagerTest.shouldExceedQuotaThenReturnBackBelowBoundAsTimePasses, step by step", () => {
    // ReplicationQuotaManagerConfig(10 samples, 1 s windows), Quota(100, upper).
    const cfg = { samples: 10, windowMs: 1000, bound: 100 };
    const st = newRateStat();
    let t = 0;
    const rate = () => {
      const m = measure(st, cfg, t);
      return (m.sum * 1000) / m.windowMs;
    };
    expect(isQuotaExceeded(st, cfg, t)).toBe(false);
    t += 1500;
    recordBytes(st, cfg, 1, t);
    expect(isQuotaExceeded(st, cfg, t)).toBe(false);
    recordBytes(st, cfg, 149, t); // 150 B, 1.5 s
    expect(isQuotaExceeded(st, cfg, t)).toBe(false);
    recordBytes(st, cfg, 1, t); // 151 B, 1.5 s
    expect(rate()).toBe(151 / 1.5);
    expect(isQuotaExceeded(st, cfg, t)).toBe(true);
    t += 500; // 151 B, 2 s
    expect(isQuotaExceeded(st, cfg, t)).toBe(false);
    expect(rate()).toBeCloseTo(151 / 2, 1);
    t += 500;
    recordBytes(st, cfg, 99, t); // 250 B, 2.5 s
    expect(rate()).toBe(250 / 2.5);
    expect(isQuotaExceeded(st, cfg, t)).toBe(false);
    recordBytes(st, cfg, 1, t);
    expect(isQuotaExceeded(st, cfg, t)).toBe(true);
    expect(rate()).toBe(251 / 2.5);
    t += 2000; // 4.5 s
    expect(isQuotaExceeded(st, cfg, t)).toBe(false);
    expect(rate()).toBe(251 / 4.5);
  });

  test('a burst in a quiet stat is spread over at least one window; a sample is purged window.num windows after its last record', () => {
    const cfg = { samples: 11, windowMs: 1000, bound: 51200 };
    const st = newRateStat();
    recordBytes(st, cfg, 102400, 0);
    // 102400 B over max(10 ms, 1000 ms): 102400 B/s.
    expect(ratePerSecond(measure(st, cfg, 10))).toBe(102400);
    // Within the quota once the window reaches 102400 / 51200 = 2 s.
    expect(isQuotaExceeded(st, cfg, 1999)).toBe(true);
    expect(isQuotaExceeded(st, cfg, 2000)).toBe(false);
    // 11 windows after the record the sample is reset: nothing is left.
    expect(measure(st, cfg, 10999).sum).toBe(102400);
    expect(measure(st, cfg, 11000).sum).toBe(0);
  });

  test('the ring holds window.num + 1 samples: the oldest slot is reused when a new window starts; a sample window.num windows past its last record is purged', () => {
    const cfg = { samples: 2, windowMs: 1000, bound: 1 };
    const st = newRateStat();
    recordBytes(st, cfg, 10, 0);
    recordBytes(st, cfg, 20, 1000);
    recordBytes(st, cfg, 30, 2000);
    expect(st.samples.length).toBe(3);
    expect(measure(st, cfg, 1999).sum).toBe(60);
    // At 2000 ms the 10 B sample (last record at 0) is 2 windows old: purged.
    expect(measure(st, cfg, 2000).sum).toBe(50);
    recordBytes(st, cfg, 40, 3000); // the 2000 ms sample is complete: the next slot (the first) is reused
    expect(st.samples.length).toBe(3);
    expect(st.samples[0]).toEqual([3000, 3000, 40]);
    // 30 + 40: the 20 B sample (last record at 1000) is purged too.
    expect(measure(st, cfg, 3000).sum).toBe(70);
  });

  test('QuotaUtils.throttleTime: round((rate - bound) / bound * windowSize), by hand', () => {
    const cfg = { samples: 11, windowMs: 1000, bound: 51200 };
    const st = newRateStat();
    recordBytes(st, cfg, 102400, 0);
    // At 200 ms: 102400 B/s over 1000 ms, (102400 - 51200) / 51200 * 1000 = 1000 ms.
    expect(throttleTimeMs(st, cfg, 200)).toBe(1000);
    // At 1200 ms: 85333.3 B/s over 1200 ms, (85333.3 - 51200) / 51200 * 1200 = 800 ms.
    expect(throttleTimeMs(st, cfg, 1200)).toBe(800);
    // At 1999 ms: (102400000 - 51200 * 1999) / 51200 = 1.0 -> 1 ms; at 2000 ms, within the quota.
    expect(throttleTimeMs(st, cfg, 1999)).toBe(1);
    expect(throttleTimeMs(st, cfg, 2000)).toBe(0);
  });
});

describe('the throttled replica lists (ThrottledReplicaListValidator, ConfigHandler.parseThrottledPartitions)', () => {
  const v = validateThrottledReplicas('leader.replication.throttled.replicas');
  test('valid: empty, *, partition:broker pairs with spaces', () => {
    for (const ok of ['', '*', ' * ', '0:1', '0:1,1:2', '0:1, 1:2', '0:1,,1:2']) expect(v(ok), ok).toBeNull();
  });
  test("invalid values get Kafka's reason", () => {
    for (const bad of ['0', '0:a', '*,0:1', 'all', '0:1:2']) expect(v(bad), bad).toMatch(/must be the literal '\*' or a list of replicas in the following format: \[partitionId\]:\[brokerId\]/);
  });
  test('a scenario with a bad list is refused, naming the config', () => {
    const text = ['name: bad', 'brokers: 2', 'topics:', '  - name: orders', '    partitions: 1', '    replicas: [[0, 1]]', '    config: { follower.replication.throttled.replicas: "0-1" }', 'until: 10'].join('\n');
    const r = parseScenarioText(text, 'bad.yaml');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.map((x) => `${x.path}: ${x.message}`).join('\n')).toMatch(/follower\.replication\.throttled\.replicas.*must be the literal '\*'/);
  });
  test('a negative rate is refused (Range.atLeast(0)); the copy quota must be at least 1', () => {
    const text = (cfg: string) => ['name: a', 'brokers: 1', `config: { ${cfg} }`, 'topics:', '  - name: orders', '    partitions: 1', '    replicas: [[0]]', 'until: 10'].join('\n');
    expect(parseScenarioText(text('leader.replication.throttled.rate: -1'), 'a.yaml').ok).toBe(false);
    expect(parseScenarioText(text('leader.replication.throttled.rate: 0'), 'a.yaml').ok).toBe(true);
    expect(parseScenarioText(text('remote.log.manager.copy.max.bytes.per.second: 0'), 'a.yaml').ok).toBe(false);
    expect(parseScenarioText(text('remote.log.reader.threads: 0'), 'a.yaml').ok).toBe(false);
  });
  test('a list names the partition on the broker that reads it', () => {
    const text = ['name: lists', 'brokers: 3', 'topics:', '  - name: orders', '    partitions: 2', '    replicas: [[0, 1], [1, 2]]', '    config: { leader.replication.throttled.replicas: "0:0,1:2", follower.replication.throttled.replicas: "*" }', 'until: 10'].join('\n');
    const r = parseScenarioText(text, 'lists.yaml');
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const k = new Kernel(r.scenario);
    expect(isThrottledReplica(k.state, 'orders-0', 0, 'leader')).toBe(true);
    expect(isThrottledReplica(k.state, 'orders-0', 1, 'leader')).toBe(false);
    expect(isThrottledReplica(k.state, 'orders-1', 2, 'leader')).toBe(true);
    expect(isThrottledReplica(k.state, 'orders-1', 1, 'leader')).toBe(false);
    expect(isThrottledReplica(k.state, 'orders-1', 1, 'follower')).toBe(true);
  });
});

/** A broker with `threads` reader threads and `pending` queue slots, and `n` consumers asking remote data at once. */
function poolRun(threads: number, pending: number, n: number, extra: string[] = []): Kernel {
  const consumers: string[] = [];
  for (let i = 0; i < n; i++) consumers.push('  - at: 10', `    consume: { topic: orders, partition: 0, fromOffset: ${i}, records: 1 }`);
  const text = [
    'name: pool',
    'brokers: 1',
    `config: { remote.log.reader.threads: ${threads}, remote.log.reader.max.pending.tasks: ${pending} }`,
    'topics:',
    '  - name: orders',
    '    partitions: 1',
    '    replicas: [[0]]',
    '    config: { remote.storage.enable: true }',
    '    initial:',
    '      - partition: 0',
    '        segments:',
    '          - { baseOffset: 0, endOffset: 49, tier: remote }',
    '          - { baseOffset: 50, endOffset: 59, tier: local }',
    'timeline:',
    ...consumers,
    ...extra,
    'until: 5000',
  ].join('\n');
  const r = parseScenarioText(text, 'pool.yaml');
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const k = new Kernel(r.scenario);
  k.runToEnd();
  return k;
}

describe('the remote log reader pool (RemoteStorageThreadPool)', () => {
  test('3 threads and 2 queue slots: of 7 reads at once, 3 run, 2 wait, 2 are rejected; the queued ones run as threads free up', () => {
    const k = poolRun(3, 2, 7);
    const quota = k.trace.filter((e) => e.type === 'quota') as Loose[];
    expect(quota.map((e) => `${String(e.action)}@${String(e.fetchOffset)}`)).toEqual(['remoteReadQueued@3', 'remoteReadQueued@4', 'remoteReadRejected@5', 'remoteReadRejected@6']);
    const finished = k.trace.filter((e) => e.type === 'consume' && (e as Loose).action === 'finished') as Loose[];
    expect(finished.filter((e) => e.recordsRemote === 1).length).toBe(5);
    expect(finished.filter((e) => e.error === 'UNKNOWN_SERVER_ERROR').length).toBe(2);
    // Each read took its own GET; no read is left holding a thread.
    expect(k.state.quotas.readers).toEqual({});
  });

  test('a read that expires in the queue is answered then, keeps its queue slot until the thread takes it, and never reads', () => {
    // Goal: DelayedRemoteFetch.onExpiration cancels a task still queued (FutureTask.cancel):
    // the Fetch is answered at once, the task stays in the pool's queue and, taken by the
    // thread, returns without reading (docs/protocol.md §5.1).
    // Method: one thread and a slow store; the second read's wait is cut to 100 ms by a
    // setConfig, so it expires while the first read holds the thread.
    const k = poolRun(1, 1, 1, [
      '  - at: 10',
      '    objectStore: { available: true, store: tiered, extraLatencyMs: 300 }',
      '  - at: 15',
      '    setConfig: { remote.fetch.max.wait.ms: 100 }',
      '  - at: 20',
      '    consume: { topic: orders, partition: 0, fromOffset: 10, records: 1 }',
      '  - at: 30',
      '    consume: { topic: orders, partition: 0, fromOffset: 20, records: 1 }',
    ]);
    const rows = (k.trace as Loose[]).filter((e) => (e.type === 'quota' || (e.type === 'response' && e.target === 'consumer')) && (e.fetchOffset === 10 || e.fetchOffset === 20));
    // The read of 10 waits in the queue's one slot (the read of 20 is rejected), and expires
    // at 20 + 100 ms while the read of 0 still holds the thread; the consumer's next Fetch of
    // 10 is rejected: the cancelled task still takes the slot.
    expect(rows.slice(0, 5).map((e) => `${String(e.type)} ${String(e.type === 'quota' ? e.action : e.rule)}@${String(e.fetchOffset)}@${String(e.atMs)}`)).toEqual([
      'quota remoteReadQueued@10@21',
      'quota remoteReadRejected@20@31',
      'response remoteReadRejected@20@32',
      'response remoteFetchExpired@10@122',
      'quota remoteReadRejected@10@123',
    ]);
    // When the thread frees (the read of 0 expires at 510 ms), it takes the cancelled task,
    // which returns at once: no read of offset 10 ever reaches the store.
    expect(k.state.quotas.readers['0']?.cancelled).toBeUndefined();
    expect((k.trace as Loose[]).some((e) => e.type === 'response' && e.target === 'consumer' && e.fetchOffset === 10 && e.servedFrom === 'remote' && e.rule === 'consumerRemoteRead')).toBe(false);
  });

  test('a crash forgets the pool and the quota sensors (in memory in Kafka)', () => {
    const k = poolRun(1, 5, 3, ['  - at: 20', '    crash: { broker: 0 }']);
    expect(k.state.quotas.readers).toEqual({});
    expect(Object.keys(k.state.quotas.rates)).toEqual([]);
  });
});

describe('waits that outlive their reason', () => {
  const copyScenario = (timeline: string[]) =>
    [
      'name: copy wait',
      'brokers: 1',
      'config: { remote.log.manager.copy.max.bytes.per.second: 51200 }',
      'topics:',
      '  - name: orders',
      '    partitions: 1',
      '    replicas: [[0]]',
      '    config: { remote.storage.enable: true }',
      '    initial:',
      '      - partition: 0',
      '        segments:',
      '          - { baseOffset: 0, endOffset: 49, tier: local }',
      '          - { baseOffset: 50, endOffset: 99, tier: local }',
      '          - { baseOffset: 100, endOffset: 149, tier: local }',
      '          - { baseOffset: 150, endOffset: 159, tier: local }',
      ...(timeline.length > 0 ? ['timeline:', ...timeline] : []),
      'until: 5000',
    ].join('\n');
  const run = (text: string) => {
    const r = parseScenarioText(text, 'copy.yaml');
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const k = new Kernel(r.scenario);
    k.runToEnd();
    return k;
  };
  const started = (k: Kernel) => k.trace.filter((e) => e.type === 'remoteMetadata' && (e as Loose).to === 'COPY_SEGMENT_STARTED').map((e) => (e as Loose).baseOffset);

  test('a copy waiting for the quota starts once the window allows it', () => {
    expect(started(run(copyScenario([])))).toEqual([0, 50, 100]);
  });

  test('remote.log.copy.disable set during the wait: the copy never starts (Kafka cancels the copy task), and the run goes on', () => {
    const k = run(copyScenario(['  - at: 500', '    setConfig: { topic: orders, remote.log.copy.disable: true }']));
    expect(started(k)).toEqual([0, 50]);
    expect(k.state.violations).toEqual([]);
  });

  test('a crash during the wait drops it; the restarted broker, its quota forgotten, copies at once', () => {
    const k = run(copyScenario(['  - at: 500', '    crash: { broker: 0 }', '  - at: 600', '    restart: { broker: 0 }']));
    expect(started(k)).toEqual([0, 50, 100]);
    const copy100 = k.trace.find((e) => e.type === 'remoteMetadata' && (e as Loose).to === 'COPY_SEGMENT_STARTED' && (e as Loose).baseOffset === 100)!;
    expect(copy100.atMs).toBeLessThan(1200);
    expect(k.state.violations).toEqual([]);
  });

  test('the same scenario gives the same trace twice (the rates are plain data in the state)', () => {
    const a = run(copyScenario([]));
    const b = run(copyScenario([]));
    expect(JSON.stringify(b.trace)).toBe(JSON.stringify(a.trace));
    expect(b.state.quotas).toEqual(a.state.quotas);
  });
});

describe('checkpoints', () => {
  test('a run restored from a checkpoint taken mid-throttle, through JSON, continues exactly as the original', async () => {
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('yaml');
    const { validateScenario } = await import('../core/scenario/parse.js');
    for (const name of ['quota-leader-throttle', 'quota-follower-throttle', 'quota-remote-fetch', 'quota-remote-reader-pool']) {
      const doc = parse(readFileSync(new URL(`../conformance/${name}.yaml`, import.meta.url), 'utf8')) as { scenario: unknown };
      const r = validateScenario(doc.scenario);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      const a = new Kernel(r.scenario);
      a.runUntil(1000);
      expect(Object.keys(a.state.quotas.rates).length + Object.keys(a.state.quotas.readers).length, name).toBeGreaterThan(0);
      const cp = JSON.parse(JSON.stringify(a.checkpoint()));
      const b = Kernel.restore(r.scenario, cp);
      a.runToEnd();
      b.runToEnd();
      expect(JSON.stringify(b.trace), name).toBe(JSON.stringify(a.trace));
      expect(b.state.quotas, name).toEqual(a.state.quotas);
    }
  });
});
