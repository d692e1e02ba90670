/**
 * Issue 28, part 5: real sizes. The initial log is laid out by rule (core/domain/batch.ts
 * BatchRun, core/sim/loop/setup.ts initialRuns): the same batches, index and stored objects as
 * the batches listed one by one, without holding them; the 1 TiB what-if
 * (bench/whatif-1tib.yaml) loads and runs with bounded memory; followersInSync. Nothing here
 * depends on wall-clock speed (bench/run.ts --only whatif-1tib times it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { describe, expect, test } from 'vitest';
import { type RecordBatch, batchesOfRuns } from '../core/domain/batch.js';
import { type EpochEntry, epochForOffset } from '../core/domain/leader-epoch-cache.js';
import { batchIndexEntry, batchIndexLength, batchIndexOf, firstBatchIndexEntryAt, formatOffsetIndex } from '../core/domain/remote-metadata.js';
import { parseScenarioText, validateScenario } from '../core/scenario/parse.js';
import { toScenarioFile } from '../core/scenario/serialize.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { initialRuns } from '../core/sim/loop/setup.js';
import { scenarioForMode } from '../core/study/compare.js';
import { SIZES, runMode, whatIfScenario, whatIfYaml } from '../bench/whatif-1tib.js';
import { ROOT } from './support/run.js';

/** The initial layout as setup.ts made it before runs: batch by batch. */
function listedBatches(base: number, end: number, epochs: EpochEntry[], perBatch: number, recordBytes: number, firstSequence: number): RecordBatch[] {
  const out: RecordBatch[] = [];
  let sequence = firstSequence;
  for (let offset = base; offset <= end; ) {
    const epoch = epochForOffset(epochs, offset);
    const next = epochs.find(([, start]) => start > offset);
    const last = Math.min(end, offset + perBatch - 1, next === undefined ? Number.MAX_SAFE_INTEGER : next[1] - 1);
    const count = last - offset + 1;
    out.push({ baseOffset: offset, lastOffset: last, leaderEpoch: epoch, producerId: 1, baseSequence: sequence, bytes: count * recordBytes, appendedMs: 0 });
    sequence += count;
    offset = last + 1;
  }
  return out;
}

describe('the initial log laid out by rule', () => {
  const epochs: EpochEntry[] = [[0, 0], [1, 50], [2, 120], [5, 121]];
  test.each([
    ['one epoch, batches of 16', 0, 99, [[0, 0]] as EpochEntry[], 16],
    ['epochs cut batches', 0, 199, epochs, 16],
    ['a segment starting inside an epoch', 100, 149, epochs, 7],
    ['one record a batch', 40, 130, epochs, 1],
    ['batches larger than the segment', 150, 199, epochs, 1000],
  ])('%s: the same batches, offset index and positions as listed one by one', (_t, base, end, eps, perBatch) => {
    const runs = initialRuns(base, end, eps, perBatch, 1024, 1, base);
    const listed = listedBatches(base, end, eps, perBatch, 1024, base);
    expect(batchesOfRuns(runs)).toEqual(listed);
    const meta = { batchIndex: [], batchRuns: runs };
    const index = batchIndexOf(listed);
    expect(batchIndexLength(meta)).toBe(index.length);
    expect(Array.from({ length: index.length }, (_, i) => batchIndexEntry(meta, i))).toEqual(index);
    for (const offset of [base - 1, base, base + 1, Math.floor((base + end) / 2), end, end + 1]) {
      expect(firstBatchIndexEntryAt(meta, offset), `offset ${offset}`).toBe(Math.max(0, index.findIndex(([, last]) => last >= offset)) + (offset > end ? index.length : 0));
    }
  });

  test('an initial remote segment\'s stored objects read as the listed batches and their offset index', () => {
    const r = parseScenarioText(readFileSync(join(ROOT, 'scenarios', 'kip1023-leader-epochs.yaml'), 'utf8'), 'x.yaml');
    if (!r.ok) throw new Error('invalid');
    const k = new Kernel(r.scenario);
    const meta = k.state.partitions['orders-0'].remoteMetadata[0];
    expect(meta.batchIndex).toEqual([]);
    expect(meta.batchRuns).toBeDefined();
    const listed = listedBatches(0, 99, [[0, 0], [1, 50], [2, 120]], 16, 1024, 0);
    const log = k.store.execute({ op: 'get', store: 'tiered', key: meta.objectKeys.log });
    expect(log.object?.bytes).toBe(100 * 1024);
    expect(log.object?.body.kind === 'segment' && log.object.body.batches).toEqual(listed);
    const index = k.store.execute({ op: 'get', store: 'tiered', key: meta.objectKeys.offsetIndex });
    expect(index.object?.bytes).toBe(listed.length * 8);
    expect(index.object?.body.kind === 'text' && index.object.body.text).toBe(formatOffsetIndex(batchIndexOf(listed).map(([b, , p]) => [b, p] as const)));
  });
});

describe('followersInSync', () => {
  const raw = () => ({
    name: 'in sync',
    brokers: 3,
    topics: [
      {
        name: 'orders',
        partitions: 1,
        replicas: [[0, 1, 2]],
        config: { 'remote.storage.enable': true },
        initial: [{ partition: 0, followersInSync: true, segments: [{ baseOffset: 0, endOffset: 99, tier: 'remote' }, { baseOffset: 100, endOffset: 199, tier: 'both' }, { baseOffset: 200, endOffset: 249, tier: 'local' }] }],
      },
    ],
    until: 5000,
  });

  test('the other replicas start with the leader\'s local log, in the ISR, and stay there', () => {
    const r = validateScenario(raw());
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.scenario.topics[0].initial[0].followersInSync).toBe(true);
    expect((toScenarioFile(r.scenario) as { topics: Array<{ initial: Array<{ followersInSync?: boolean }> }> }).topics[0].initial[0].followersInSync).toBe(true);
    const k = new Kernel(r.scenario);
    const part = k.state.partitions['orders-0'];
    expect(part.isr).toEqual([0, 1, 2]);
    for (const b of [1, 2]) {
      const log = k.replica('orders-0', b).log;
      expect({ lso: log.logStartOffset, llso: log.localLogStartOffset, leo: log.segments.at(-1)!.endOffset + 1, hw: log.highWatermark }).toEqual({ lso: 0, llso: 100, leo: 250, hw: 250 });
      // The leader's batches, not copies; its own lists.
      expect(log.segments[0].batches[0]).toBe(k.replica('orders-0', 0).log.segments[0].batches[0]);
      expect(log.segments.at(-1)!.batches).not.toBe(k.replica('orders-0', 0).log.segments.at(-1)!.batches);
    }
    k.runToEnd();
    expect(k.state.violations).toEqual([]);
    expect(part.isr).toEqual([0, 1, 2]);
    expect(k.state.metrics.bytesFetchedByFollowers).toBe(0);
  });

  test('without it the followers start empty, as before', () => {
    const doc = raw();
    delete (doc.topics[0].initial[0] as { followersInSync?: boolean }).followersInSync;
    const r = validateScenario(doc);
    if (!r.ok) throw new Error('invalid');
    const k = new Kernel(r.scenario);
    expect(k.state.partitions['orders-0'].isr).toEqual([0]);
    expect(k.replica('orders-0', 1).log.segments.at(-1)!.endOffset).toBe(-1);
  });

  test('a value other than a boolean is refused', () => {
    const doc = raw() as { topics: Array<{ initial: Array<Record<string, unknown>> }> };
    doc.topics[0].initial[0].followersInSync = 'yes';
    const r = validateScenario(doc);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.map((p) => p.path)).toEqual(['topics[0].initial[0].followersInSync']);
  });
});

describe('the 1 TiB what-if (bench/whatif-1tib.yaml)', () => {
  test('the file is what its generator writes', () => {
    expect(readFileSync(join(ROOT, 'bench', 'whatif-1tib.yaml'), 'utf8')).toBe(whatIfYaml(SIZES.full));
  });

  test('loads and runs a while with bounded memory: the terabyte holds no batch', () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const before = getHeapStatistics().used_heap_size;
    const base = whatIfScenario();
    const k = new Kernel(scenarioForMode(base, 'classic'), { keepTrace: false });
    const part = k.state.partitions['events-0'];
    // 1,024 remote-only segments and 49 uploaded and still local: 1,073 remote segments of 1 GiB.
    expect(part.remoteMetadata).toHaveLength(1073);
    expect(part.remoteMetadata.every((m) => m.batchIndex.length === 0 && m.sizeBytes === 1024 ** 3)).toBe(true);
    const leader = k.replica('events-0', 0).log;
    expect(leader.segments).toHaveLength(50);
    // 50 GiB in 1 MiB batches.
    expect(leader.segments.reduce((n, g) => n + g.batches.length, 0)).toBe(51_200);
    expect(leader.localLogStartOffset).toBe(1024 * 1024 ** 2);
    expect(part.isr).toEqual([0, 1, 2]);
    for (let i = 0; i < 20_000 && k.step(); i++) {
      /* a while: the new replica's bootstrap and some 10,000 Fetch rounds */
    }
    expect(k.state.violations).toEqual([]);
    expect(k.state.brokers).toHaveLength(4);
    const added = k.replica('events-0', 3).log;
    // Classic: the new replica starts at the leader's local log start and copies from there.
    expect(added.localLogStartOffset).toBe(1024 * 1024 ** 2);
    expect(added.segments.at(-1)!.endOffset).toBeGreaterThan(added.localLogStartOffset + 5 * 1024 ** 2);
    const held = getHeapStatistics().used_heap_size - before;
    // Listed one by one, the terabyte's batches alone would be 67 million objects (gigabytes).
    expect(held).toBeLessThan(400e6);
  }, 120_000);

  test('at the smoke size, both modes reach the ISR join: KIP-1023 copies the active segment, classic the local log', () => {
    const base = whatIfScenario(SIZES.smoke);
    const kip = runMode(base, 'kip1023');
    // The active segment: 1,048,576 records of 1 KiB.
    expect(kip.joinedAtMs).not.toBeNull();
    expect(kip.bytesFetchedByFollowers).toBe(1024 ** 3);
    expect(kip.violations).toBe(0);
    const classic = runMode(base, 'classic');
    // 5 GiB from the local log start, 1 MiB a Fetch.
    expect(classic.joinedAtMs).not.toBeNull();
    expect(classic.bytesFetchedByFollowers).toBe(5 * 1024 ** 3);
    expect(classic.fetchRounds).toBeGreaterThanOrEqual(5 * 1024);
    expect(classic.violations).toBe(0);
    expect(classic.joinedAtMs!).toBeGreaterThan(kip.joinedAtMs!);
  }, 120_000);

  test('16 KiB batches (Kafka\'s default batch.size) give the same rounds, bytes and join time at the smoke size', () => {
    const text = whatIfYaml(SIZES.smoke).replace('  producerBatchBytes: 1048576\n', '  producerBatchBytes: 16384\n');
    const r = parseScenarioText(text, 'x.yaml');
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const small = runMode(r.scenario, 'classic');
    const large = runMode(whatIfScenario(SIZES.smoke), 'classic');
    expect({ joined: small.joinedAtMs, bytes: small.bytesFetchedByFollowers, rounds: small.fetchRounds }).toEqual({ joined: large.joinedAtMs, bytes: large.bytesFetchedByFollowers, rounds: large.fetchRounds });
  }, 120_000);
});
