/**
 * Produce with acks 0, 1 and all; min.insync.replicas; remote.log.copy.disable at run time.
 */
import { expect, test } from 'vitest';
import { validateScenario } from '../core/scenario/parse.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import type { Loose } from './support/run.js';

function run(raw: unknown) {
  const parsed = validateScenario(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const k = new Kernel(parsed.scenario);
  k.runToEnd();
  return buildRunJson(k);
}

const topic = (config: Record<string, unknown>, replicas = [[0, 1]]) => [{ name: 't', partitions: 1, replicas, config }];

test('acks 0, 1 and all are counted; acks=all waits for the ISR', () => {
  const json = run({
    name: 'acks',
    brokers: 2,
    topics: topic({}),
    timeline: [
      { at: 0, produce: { topic: 't', partition: 0, records: 10, acks: 0 } },
      { at: 100, produce: { topic: 't', partition: 0, records: 10, acks: 1 } },
      { at: 200, produce: { topic: 't', partition: 0, records: 10, acks: 'all' } },
    ],
    until: 2000,
  });
  const m = json.metrics.produce as Loose;
  expect(m.acks0.count).toBe(1);
  expect(m.acks1).toMatchObject({ count: 1, latencyMsP50: 2 });
  expect(m.acksAll.count).toBe(1);
  // The follower is in the ISR by then: acks=all waits for its next Fetch (one round trip at least).
  expect(m.acksAll.latencyMsP50).toBeGreaterThanOrEqual(4);
  expect(json.violations).toEqual([]);
});

test('acks=all is refused with NOT_ENOUGH_REPLICAS when the ISR is below min.insync.replicas', () => {
  const json = run({
    name: 'min isr',
    brokers: 2,
    topics: topic({ 'min.insync.replicas': 2 }),
    timeline: [
      // At t=0 the new topic's ISR is every assigned live replica (ReplicationControlManager.createTopic): accepted.
      { at: 0, produce: { topic: 't', partition: 0, records: 10, acks: 'all' } },
      { at: 100, produce: { topic: 't', partition: 0, records: 10, acks: 'all' } },
      { at: 500, crash: { broker: 1 } },
      { at: 600, produce: { topic: 't', partition: 0, records: 10, acks: 'all' } },
      { at: 700, produce: { topic: 't', partition: 0, records: 10, acks: 1 } },
    ],
    until: 2000,
  });
  const rejected = (json.trace as Loose[]).filter((e) => e.type === 'produce' && e.action === 'rejected');
  expect(rejected.map((e) => [e.atMs, e.error])).toEqual([[600, 'NOT_ENOUGH_REPLICAS']]);
  expect(json.partitions[0].replicas[0].logEndOffset).toBe(30);
  expect(json.violations).toEqual([]);
});

test('remote.log.copy.disable stops uploads at once; local retention then falls back to retention.bytes (no upload needed)', () => {
  // Goal: with copy disabled Kafka's leader has no copy task (RemoteLogManager.doHandleLeaderPartition),
  // and UnifiedLog.remoteLogEnabledAndRemoteCopyEnabled is false, so local retention uses
  // retention.bytes (here unlimited) instead of local.retention.bytes (docs/protocol.md §5).
  // Method: upload with local.retention.bytes 1, disable copy at 500 (with local.retention.bytes
  // back to -2: Kafka refuses copy disabled with a local retention of its own), produce again.
  const json = run({
    name: 'copy disable',
    brokers: 1,
    config: { 'remote.log.manager.task.interval.ms': 1000 },
    topics: topic({ 'remote.storage.enable': true, 'internal.segment.bytes': 51200, 'local.retention.bytes': 1 }, [[0]]),
    timeline: [
      { at: 0, produce: { topic: 't', partition: 0, records: 100, acks: 1 } },
      { at: 500, setConfig: { topic: 't', 'remote.log.copy.disable': true, 'local.retention.bytes': -2 } },
      { at: 600, produce: { topic: 't', partition: 0, records: 100, acks: 1 } },
    ],
    until: 5000,
  });
  const copies = (json.trace as Loose[]).filter((e) => e.type === 'remoteMetadata' && e.to === 'COPY_SEGMENT_STARTED');
  expect(copies.length).toBeGreaterThan(0);
  expect(copies.every((c) => c.atMs < 500)).toBe(true);
  const deletedAfter = (json.trace as Loose[]).filter((e) => e.type === 'log' && e.action === 'localSegmentDeleted' && (e.atMs as number) > 500);
  expect(deletedAfter).toEqual([]);
  const leader = json.partitions[0].replicas[0];
  expect(leader.highestOffsetInRemoteStorage).toBe(copies[copies.length - 1].endOffset);
  expect(leader.localLogStartOffset).toBeLessThanOrEqual(leader.highestOffsetInRemoteStorage + 1);
  expect(json.violations).toEqual([]);
});
