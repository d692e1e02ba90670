/**
 * Reference workloads of the benchmark (issue 9), generated in code as ordinary scenarios
 * (they go through the scenario parser, so they are exactly what a scenario file would give).
 *
 * The reference hour: 3 brokers in 3 zones, one topic of 50 tiered partitions with
 * replication factor 3 (leaders spread evenly, replicas in the other two zones, as rack
 * awareness places them), producing 5 MB/s in total (5,000,000 bytes a second: 100 records
 * of 1000 bytes a second on each partition) with acks=all and min.insync.replicas 2, for
 * 3,600,000 simulated ms.
 *
 * The producer: one batch per partition per second. A throughput-tuned producer
 * (batch.size 128 KiB, linger.ms 1000) fills a partition's batch for one second at
 * 100 KB/s and sends it when linger expires, so each produce is one 100 KB batch. The
 * partitions' linger clocks are staggered (partition i sends at i x 20 ms past each
 * second, from t = 10 ms, once the followers are in the ISR), so the cluster sees a
 * produce every 20 ms, as a steady stream rather than a burst each second. The produce rate sets the number of simulated events (each produce
 * wakes the followers' long-polled Fetches, which answer, append and fetch again);
 * linger.ms 100 would be the same 5 MB/s with ten times the events.
 *
 * Segments: segment.bytes 10 MB, so each partition rolls a segment every 100 s (36 in
 * the hour, 1,800 in all); the remote log manager (task every 30 s, Kafka's default)
 * copies each rolled segment (four PUTs) and local retention (local.retention.bytes
 * 50 MB) deletes uploaded segments on every replica. Remote retention is Kafka's default
 * 7 days, so the tiered store keeps the whole hour. Kafka's own defaults elsewhere
 * (replica.fetch.wait.max.ms 500, replica.fetch.max.bytes 1 MiB).
 */
import { INTERNAL_SEGMENT_BYTES, SEGMENT_BYTES_MIN } from '../core/domain/config.js';
import { producePlan, rackAwareReplicas, zoneNames } from '../core/scenario/generate.js';
import { parseScenarioText } from '../core/scenario/parse.js';
import type { Scenario } from '../core/scenario/types.js';

export interface WorkloadOptions {
  /** Tiered partitions of the topic. */
  partitions?: number;
  /** Simulated duration, ms. */
  durationMs?: number;
  /** Bytes produced per second over all partitions. */
  bytesPerSecond?: number;
  /** Bytes of one record. */
  recordBytes?: number;
  /** A produce per partition every this many ms (the producer's linger.ms). */
  producePeriodMs?: number;
  /** Records per produce multiplied by this (batch.size, segment.bytes and local retention bytes follow, so segment and batch counts stay the same). */
  recordScale?: number;
  /** Segments multiplied by this (segment.bytes and local retention bytes divided by it; a segment size below Kafka's 1 MiB minimum goes in internal.segment.bytes). */
  segmentScale?: number;
}

export const REFERENCE: Required<WorkloadOptions> = {
  partitions: 50,
  durationMs: 3_600_000,
  bytesPerSecond: 5_000_000,
  recordBytes: 1000,
  producePeriodMs: 1000,
  recordScale: 1,
  segmentScale: 1,
};

/** The scenario object (before validation). */
export function workloadDocument(options: WorkloadOptions = {}) {
  const o = { ...REFERENCE, ...options };
  const brokers = 3;
  // One batch per partition each linger.ms (core/scenario/generate.ts, producePlan).
  const plan = producePlan(o.bytesPerSecond, o.partitions, o.recordBytes, o.producePeriodMs);
  if (plan === null || plan.recordAtATime) throw new RangeError('a workload produces at least one record per partition per period');
  const recordsPerProduce = plan.records * o.recordScale;
  const batchBytes = 131072 * o.recordScale;
  const segmentBytes = Math.floor((10_000_000 * o.recordScale) / o.segmentScale);
  const localRetentionBytes = Math.floor((50_000_000 * o.recordScale) / o.segmentScale);
  const stagger = Math.max(1, Math.floor(o.producePeriodMs / o.partitions));
  return {
    name: `reference workload: ${o.partitions} tiered partitions, ${(o.bytesPerSecond * o.recordScale) / 1e6} MB/s, ${o.durationMs / 1000} s`,
    description: `Benchmark workload (bench/workloads.ts): 3 brokers, ${o.partitions} partitions with RF 3, ${recordsPerProduce} records of ${o.recordBytes} B per partition every ${o.producePeriodMs} ms, acks=all.`,
    seed: 1,
    brokers,
    zones: zoneNames(3),
    config: {},
    model: { recordBytes: o.recordBytes, producerBatchBytes: batchBytes },
    topics: [
      {
        name: 'events',
        partitions: o.partitions,
        // Leaders round robin, the replicas of each partition in the other two zones.
        replicas: rackAwareReplicas(brokers, 3, o.partitions, 3),
        config: {
          'remote.storage.enable': true,
          // Below Kafka's 1 MiB minimum (segmentScale 10 gives 1,000,000 bytes), Kafka's internal test override.
          [segmentBytes >= SEGMENT_BYTES_MIN ? 'segment.bytes' : INTERNAL_SEGMENT_BYTES]: segmentBytes,
          'local.retention.bytes': localRetentionBytes,
          'min.insync.replicas': 2,
        },
      },
    ],
    timeline: Array.from({ length: o.partitions }, (_, p) => ({
      // From 10 ms on: the followers have joined the ISR (min.insync.replicas 2).
      at: 10 + p * stagger,
      produce: { topic: 'events', partition: p, records: recordsPerProduce, acks: 'all', everyMs: o.producePeriodMs },
    })),
    until: o.durationMs,
  };
}

export function workload(options: WorkloadOptions = {}): Scenario {
  // The reference hour is within the default work budget (a run that streams its trace; the
  // page, compare and report keep theirs and refuse it, test/scenario-limits.test.ts), but the
  // scaling variants (10x records, 10x segments) are larger on purpose: the benchmark runs
  // them headless, so the budget is not applied.
  const r = parseScenarioText(JSON.stringify(workloadDocument(options)), 'workload.json', { checkWork: false });
  if (!r.ok) throw new Error(`workload invalid: ${r.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
  return r.scenario;
}
