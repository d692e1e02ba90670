/**
 * Pieces for scenarios generated in code (the benchmark's workloads, bench/workloads.ts; the
 * 1 TiB what-if, bench/whatif-1tib.ts; `whatif`, core/scenario/whatif.ts): an initial log
 * laid out from sizes, a producer's rate turned into produce entries, replicas spread over
 * zones. Each gives plain values of the scenario file's schema (docs/scenario-format.md);
 * the scenario parser checks what is built from them, as it checks a file. Pure.
 */
import type { InitialSegment, Tier } from './types.js';

// ---------------------------------------------------------------- the initial log

export interface LayoutSizes {
  /** Bytes in remote storage only (below the leader's local log start). */
  remoteBytes: number;
  /** Bytes on the leader's local disk, the active segment included. */
  localBytes: number;
  /**
   * Bytes of the active segment (part of `localBytes`), at most a segment. Default: what
   * `localBytes` leaves past whole segments (an empty active segment when it is a whole number of them).
   */
  activeBytes?: number;
  /** The topic's segment.bytes: a rolled segment holds as many whole records as fit. */
  segmentBytes: number;
  /** Bytes of one record (model.recordBytes). */
  recordBytes: number;
  /**
   * A segment in remote storage only holds the records of this many segments (default 1): a
   * what-if with more such segments than a scenario file holds lays them out larger (whatif.ts says so).
   */
  remoteSegmentScale?: number;
}

export interface Layout {
  segments: InitialSegment[];
  /** Records a full segment holds: floor(segmentBytes / recordBytes). */
  recordsPerSegment: number;
  /** Records a full segment in remote storage only holds (recordsPerSegment x remoteSegmentScale). */
  recordsPerRemoteSegment: number;
  /** Segments in remote storage only, uploaded and still local (`both`), and local only (the active one). */
  remoteSegments: number;
  bothSegments: number;
  /** Bytes each part holds as laid out (whole records: a size that is not a multiple of recordBytes is rounded down). */
  remoteBytes: number;
  localBytes: number;
  /** Bytes of the active segment (local only, never uploaded). */
  activeBytes: number;
  /** The offset of the leader's local log start (the first local segment's base). */
  localLogStartOffset: number;
  /** The log end offset (the next offset a produce gets). */
  logEndOffset: number;
}

/**
 * A partition's log in steady state: `remoteBytes` in remote storage only, in full segments
 * (the oldest holds what is left over), then `localBytes` on local disk: the active segment,
 * never uploaded, last, holding `activeBytes` (by default what is left past whole segments,
 * so never a full segment, which the next append would roll), and before it the rolled
 * segments, every one uploaded (`both`: the remote log manager copies each segment once it
 * is rolled, RemoteLogManager.copyLogSegmentsToRemote), full but the oldest. Offsets from 0,
 * contiguous, oldest first, as docs/scenario-format.md's Rules require.
 */
export function layoutSegments(sizes: LayoutSizes): Layout {
  const perSegment = Math.floor(sizes.segmentBytes / sizes.recordBytes);
  if (!(perSegment >= 1)) throw new RangeError(`a segment of ${sizes.segmentBytes} bytes holds no record of ${sizes.recordBytes} bytes`);
  const remoteRecords = Math.floor(sizes.remoteBytes / sizes.recordBytes);
  const localRecords = Math.floor(sizes.localBytes / sizes.recordBytes);
  const segments: InitialSegment[] = [];
  let base = 0;
  const push = (records: number, tier: Tier): void => {
    segments.push({ baseOffset: base, endOffset: base + records - 1, tier });
    base += records;
  };
  const perRemote = perSegment * (sizes.remoteSegmentScale ?? 1);
  const remoteCount = Math.ceil(remoteRecords / perRemote);
  for (let i = 0; i < remoteCount; i++) push(i === 0 ? remoteRecords - (remoteCount - 1) * perRemote : perRemote, 'remote');
  const localLogStartOffset = base;
  const activeRecords = sizes.activeBytes === undefined ? localRecords % perSegment : Math.min(localRecords, Math.floor(sizes.activeBytes / sizes.recordBytes));
  if (activeRecords > perSegment) throw new RangeError(`an active segment of ${activeRecords} records is more than a segment of ${perSegment}`);
  const rolledRecords = localRecords - activeRecords;
  const bothCount = Math.ceil(rolledRecords / perSegment);
  for (let i = 0; i < bothCount; i++) push(i === 0 ? rolledRecords - (bothCount - 1) * perSegment : perSegment, 'both');
  push(activeRecords, 'local');
  const localCount = bothCount + 1;
  return {
    segments,
    recordsPerSegment: perSegment,
    recordsPerRemoteSegment: perRemote,
    remoteSegments: remoteCount,
    bothSegments: localCount - 1,
    remoteBytes: remoteRecords * sizes.recordBytes,
    localBytes: localRecords * sizes.recordBytes,
    activeBytes: activeRecords * sizes.recordBytes,
    localLogStartOffset,
    logEndOffset: base,
  };
}

/** One segment as a line of a YAML flow sequence, as bench/whatif-1tib.yaml writes them. */
export function segmentYaml(s: InitialSegment): string {
  return `{baseOffset: ${s.baseOffset}, endOffset: ${s.endOffset}, tier: ${s.tier}}`;
}

// ---------------------------------------------------------------- the producer

export interface ProducePlan {
  /** Records of each produce of one partition. */
  records: number;
  /** Milliseconds between two produces of one partition. */
  everyMs: number;
  /** The rate that gives, over all partitions, bytes a second (the asked rate, up to rounding). */
  bytesPerSec: number;
  /** True when the producer sends a record at a time because linger.ms fills no more (records per second below 1000 / linger.ms). */
  recordAtATime: boolean;
}

/**
 * A producer at `bytesPerSec` over `partitions` partitions, with linger.ms `lingerMs`: it
 * sends one batch per partition each time linger.ms expires (RecordAccumulator.ready: a
 * batch is sendable once it has waited linger.ms), so each partition gets a produce of the
 * records that arrived in that time every `lingerMs` (at least 1 ms, the model's clock).
 * When fewer than one record arrives in linger.ms, each record goes alone as it arrives, at
 * the records' own period. bench/workloads.ts uses the same rule (linger.ms 1000).
 */
export function producePlan(bytesPerSec: number, partitions: number, recordBytes: number, lingerMs: number): ProducePlan | null {
  if (bytesPerSec <= 0) return null;
  const period = Math.max(1, lingerMs);
  const perSecond = bytesPerSec / partitions / recordBytes;
  // Records that arrive in one linger.ms: below one, each record goes alone once linger.ms
  // has passed (at the rate records arrive); otherwise the nearest whole number of records a
  // produce, every linger.ms while that is within 5% of the asked rate, else at the period
  // that keeps the rate (rounding the count alone made 0.5 records per linger one record,
  // twice the rate, and 1.5 two).
  const perLingerExact = (perSecond * period) / 1000;
  if (perLingerExact >= 1) {
    const records = Math.round(perLingerExact);
    const every = Math.abs(records - perLingerExact) <= 0.05 * perLingerExact ? period : Math.max(1, Math.round((records * 1000) / perSecond));
    return { records, everyMs: every, bytesPerSec: (records * recordBytes * partitions * 1000) / every, recordAtATime: false };
  }
  const everyMs = Math.max(period, Math.round(1000 / perSecond));
  return { records: 1, everyMs, bytesPerSec: (recordBytes * partitions * 1000) / everyMs, recordAtATime: true };
}

// ---------------------------------------------------------------- placement

/**
 * Zone names for `count` zones: a, b, c, ... (z1, z2, ... past 26). The scenario puts
 * broker i in zones[i % count] (docs/scenario-format.md), racks round robin.
 */
export function zoneNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i < 26 ? String.fromCharCode(97 + i) : `z${i - 25}`));
}

/**
 * Replicas of each partition, leader first, spread over zones as Kafka's rack-aware placement
 * spreads them (KRaft's StripedReplicaPlacer; AdminUtils.assignReplicasToBrokersRackAware
 * before it): leaders round robin over the brokers, and each further replica on the next
 * broker (in id order after the leader) in a zone that holds no replica of the partition yet,
 * while there is one; then on the next broker holding none. Broker i is in zone i % zones.
 * Deterministic (Kafka starts at a random broker; a scenario must be one run).
 */
export function rackAwareReplicas(brokers: number, zones: number, partitions: number, replicationFactor: number): number[][] {
  const zoneOf = (b: number): number => b % zones;
  const out: number[][] = [];
  for (let p = 0; p < partitions; p++) {
    const leader = p % brokers;
    const chosen = [leader];
    const used = new Set([zoneOf(leader)]);
    while (chosen.length < replicationFactor) {
      let pick = -1;
      for (let j = 1; j < brokers && pick < 0; j++) {
        const b = (leader + j) % brokers;
        if (!chosen.includes(b) && !used.has(zoneOf(b))) pick = b;
      }
      for (let j = 1; j < brokers && pick < 0; j++) {
        const b = (leader + j) % brokers;
        if (!chosen.includes(b)) pick = b;
      }
      chosen.push(pick);
      used.add(zoneOf(pick));
    }
    out.push(chosen);
  }
  return out;
}
