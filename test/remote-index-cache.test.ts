/**
 * The remote index cache (Kafka's RemoteIndexCache, docs/protocol.md "Consumer reads"): a
 * broker's first read of a remote segment fetches the segment's offset index before the
 * segment itself; later reads of that segment on that broker do not; the cache outlives a
 * restart (Kafka keeps it on disk); a failed index fetch fails the read and is tried again
 * by the next one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseScenarioText } from '../core/scenario/parse.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import type { ObjectStoreEntry } from '../core/sim/state/trace.js';
import { ROOT, type Loose } from './support/run.js';

const ELECT = ['  - at: 2000', '    electLeader: { topic: orders, partition: 0, broker: 1 }'];
const CONSUME = ['  - at: 3000', '    consume: { topic: orders, partition: 0, fromOffset: 100, records: 100 }'];

/** The bundled promoted-follower scenario with this timeline (YAML lines) and a later end. */
function run(timeline: string[]): Kernel {
  const base = readFileSync(join(ROOT, 'scenarios', 'kip1023-promoted-follower-remote-reads.yaml'), 'utf8');
  const text = base.replace(/^timeline:\n[\s\S]*?^until: \d+$/m, `timeline:\n${timeline.join('\n')}\nuntil: 8000`);
  const r = parseScenarioText(text, 'remote-index-cache.yaml');
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const k = new Kernel(r.scenario);
  k.runToEnd();
  return k;
}

/** The tiered GETs of the run, as `<broker> <purpose> <key suffix> <ok>`. */
function gets(k: Kernel): string[] {
  return k.trace
    .filter((e): e is ObjectStoreEntry => e.type === 'objectStore' && e.op === 'get' && (e.purpose === 'remoteIndex' || e.purpose === 'consumerRead'))
    .map((e) => `${e.broker} ${e.purpose} ${e.key.replace(/^orders-0\/0+/, '')}${e.ok ? '' : ` ${e.error}`}`);
}

const consumed = (k: Kernel) => k.trace.filter((e) => e.type === 'consume' && (e as Loose).action === 'finished') as Loose[];

describe('the remote index cache', () => {
  test('the first read of a segment on a broker fetches its offset index first; later reads of it do not', () => {
    const k = run([...ELECT, ...CONSUME, '  - at: 3500', '    consume: { topic: orders, partition: 0, fromOffset: 110, records: 10 }', '  - at: 3600', '    consume: { topic: orders, partition: 0, fromOffset: 60, records: 10 }']);
    expect(gets(k)).toEqual([
      '1 remoteIndex 100-init-100.index',
      '1 consumerRead 100-init-100.log',
      // 110 is in the same segment: cached.
      '1 consumerRead 100-init-100.log',
      // 60 is in segment 50-99: its index first.
      '1 remoteIndex 50-init-50.index',
      '1 consumerRead 50-init-50.log',
    ]);
    expect(k.state.remoteIndexCache).toEqual({ '1': { [segmentIdOf(k, 50)]: true, [segmentIdOf(k, 100)]: true } });
    expect(consumed(k).map((c) => [c.recordsRemote, c.error])).toEqual([[50, null], [10, null], [10, null]]);
    // The index GET is a store round trip before the segment's: the first read took two.
    const first = k.trace.filter((e): e is ObjectStoreEntry => e.type === 'objectStore' && e.broker === 1 && e.op === 'get' && e.atMs >= 3000 && e.atMs < 3500);
    expect(first.map((e) => e.purpose)).toEqual(['remoteIndex', 'consumerRead']);
    expect(first[1].atMs).toBeGreaterThan(first[0].atMs);
    expect(k.state.metrics.objectStore.tiered.gets).toBe(2 + 5); // the follower's checkpoint and snapshot, then these
    expect(k.state.violations).toEqual([]);
  });

  test('a restart keeps the cache (Kafka keeps it on disk)', () => {
    const k = run([...ELECT, ...CONSUME, '  - at: 3300', '    crash: { broker: 1 }', '  - at: 3400', '    restart: { broker: 1 }', '  - at: 6000', '    consume: { topic: orders, partition: 0, broker: 1, fromOffset: 110, records: 10 }']);
    expect(gets(k)).toEqual(['1 remoteIndex 100-init-100.index', '1 consumerRead 100-init-100.log', '1 consumerRead 100-init-100.log']);
    expect(consumed(k).map((c) => [c.broker, c.recordsRemote, c.error])).toEqual([[1, 50, null], [1, 10, null]]);
  });

  test('a failed index fetch fails the read; the next read fetches the index again', () => {
    const k = run([
      ...ELECT,
      '  - at: 2900',
      '    objectStore: { available: false, store: tiered }',
      ...CONSUME,
      '  - at: 3200',
      '    objectStore: { available: true, store: tiered }',
      '  - at: 3300',
      '    consume: { topic: orders, partition: 0, fromOffset: 100, records: 10 }',
    ]);
    expect(gets(k)).toEqual(['1 remoteIndex 100-init-100.index ServiceUnavailable', '1 remoteIndex 100-init-100.index', '1 consumerRead 100-init-100.log']);
    const fails = k.trace.filter((e) => e.type === 'response' && (e as Loose).rule === 'remoteReadFailed');
    expect(fails).toHaveLength(1);
    expect(consumed(k).map((c) => [c.recordsRemote, c.error])).toEqual([[0, 'NETWORK_EXCEPTION'], [10, null]]);
  });
});

function segmentIdOf(k: Kernel, base: number): string {
  return k.state.partitions['orders-0'].remoteMetadata.find((m) => m.baseOffset === base)!.segmentId;
}
