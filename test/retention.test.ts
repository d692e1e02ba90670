/**
 * The remote log manager's decisions (docs/protocol.md §5): table-driven tests of the pure
 * functions of core/domain/retention.ts (copy candidates, local retention, the roll of a
 * breaching active segment, remote retention), then kernel runs of the remote log manager
 * (upload, a failed copy, remote retention) checked on the final state and the trace.
 * Expected values: docs/protocol.md §5 and §9 examples 9 and 10, and what Apache
 * Kafka's RemoteLogManager (RLMCopyTask, RLMExpirationTask) and UnifiedLog do.
 */
import { describe, expect, test } from 'vitest';
import type { Segment } from '../core/domain/partition-log.js';
import type { RemoteSegmentMetadata, RemoteSegmentState } from '../core/domain/remote-metadata.js';
import {
  type LocalRetentionInput,
  type LocalRetentionStop,
  type RemoteExpiryRule,
  type RemoteRetentionInput,
  type RlmTask,
  copyCandidates,
  localRetentionDeletable,
  nextRetentionRunMs,
  remoteRetentionExpired,
  rlmTaskName,
} from '../core/domain/retention.js';
import { validateScenario } from '../core/scenario/parse.js';
import type { Scenario } from '../core/scenario/types.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { type RunJson, buildRunJson } from '../core/sim/loop/output.js';
import { type Loose, replicaOf, runBundled } from './support/run.js';

// ---------------------------------------------------------------------------------------
// Builders

type Seg = Pick<Segment, 'baseOffset' | 'endOffset' | 'bytes' | 'maxTimestampMs'>;

/** A local segment [base, end]; by default 100 bytes per offset and a max timestamp of 0. */
function seg(baseOffset: number, endOffset: number, o: Partial<Seg> = {}): Seg {
  return { baseOffset, endOffset, bytes: Math.max(0, endOffset - baseOffset + 1) * 100, maxTimestampMs: 0, ...o };
}

/** Contiguous segments starting at the given bases; the last (active) one ends at `activeEnd`. */
function segsAt(bases: number[], activeEnd: number): Seg[] {
  return bases.map((b, i) => seg(b, i + 1 < bases.length ? bases[i + 1] - 1 : activeEnd));
}

/** [baseOffset, endOffset] of each range, for short expectations. */
function ranges(rs: readonly { baseOffset: number; endOffset: number }[]): Array<[number, number]> {
  return rs.map((r) => [r.baseOffset, r.endOffset]);
}

/** A remote segment's metadata; by default finished, 1000 bytes, max timestamp 0. */
function meta(baseOffset: number, endOffset: number, o: Partial<RemoteSegmentMetadata> = {}): RemoteSegmentMetadata {
  const segmentId = `r-${baseOffset}`;
  return {
    segmentId,
    batchIndex: [],
    topic: 't',
    partition: 0,
    baseOffset,
    endOffset,
    state: 'COPY_SEGMENT_FINISHED',
    brokerId: 0,
    segmentLeaderEpochs: [[0, baseOffset]],
    sizeBytes: 1000,
    maxTimestampMs: 0,
    objectKeys: { log: `${segmentId}.log`, offsetIndex: `${segmentId}.index`, leaderEpochCheckpoint: `${segmentId}.cp`, producerSnapshot: `${segmentId}.snap` },
    ...o,
  };
}

// ---------------------------------------------------------------------------------------
// Copy candidates

describe('copyCandidates (docs/protocol.md §5 step 2, example 9)', () => {
  // Bases 5, 10, 15, 20; the active segment is 20-24.
  const FOUR = segsAt([5, 10, 15, 20], 24);

  test.each<[string, Seg[], number, number, number, Array<[number, number]>]>([
    // name, segments, Ry, LSO, last stable offset, expected
    ['example 9: bases 5, 10, 15 (active), last stable 20 -> 5 and 10', segsAt([5, 10, 15], 19), -1, 0, 20, [[5, 9], [10, 14]]],
    ['example 9: bases 5, 10, 15, 20 (active), last stable 15 -> 5 and 10 only', FOUR, -1, 0, 15, [[5, 9], [10, 14]]],
    ['next base == last stable offset -> a candidate', FOUR, -1, 0, 20, [[5, 9], [10, 14], [15, 19]]],
    ['next base > last stable offset -> stop there', FOUR, -1, 0, 19, [[5, 9], [10, 14]]],
    ['last stable offset far ahead: never the active segment', FOUR, -1, 0, 1000, [[5, 9], [10, 14], [15, 19]]],
    ['only the active segment -> nothing', segsAt([5], 24), -1, 0, 1000, []],
    ['Ry lower bound: Ry 9 -> from 10', FOUR, 9, 0, 1000, [[10, 14], [15, 19]]],
    ['Ry lower bound: Ry 14 -> from 15', FOUR, 14, 0, 1000, [[15, 19]]],
    ['Ry lower bound: everything rolled is uploaded -> nothing', FOUR, 19, 0, 1000, []],
    ['Ry lower bound: Ry 4 (below the first segment) -> all rolled', FOUR, 4, 0, 1000, [[5, 9], [10, 14], [15, 19]]],
    ['LSO lower bound: LSO 10, Ry unknown -> from 10', FOUR, -1, 10, 1000, [[10, 14], [15, 19]]],
    ['LSO lower bound: LSO 15 -> from 15', FOUR, -1, 15, 1000, [[15, 19]]],
    ['max(Ry + 1, LSO): Ry 9, LSO 15 -> from 15', FOUR, 9, 15, 1000, [[15, 19]]],
    ['max(Ry + 1, LSO): stale Ry 4 below LSO 10 -> from 10', FOUR, 4, 10, 1000, [[10, 14], [15, 19]]],
    ['max(Ry + 1, LSO): Ry 14, LSO 10 -> from 15', FOUR, 14, 10, 1000, [[15, 19]]],
  ])('%s', (_name, segments, ry, lso, lastStable, expected) => {
    // Goal: rolled segments from max(Ry + 1, LSO) whose next segment's base <= the last stable offset.
    // Method: the pure function on the given local segments.
    expect(ranges(copyCandidates(segments, ry, lso, lastStable))).toEqual(expected);
  });

  test('candidates carry their bytes, in offset order', () => {
    const segments = [seg(0, 49, { bytes: 51200 }), seg(50, 99, { bytes: 40000 }), seg(100, 149)];
    expect(copyCandidates(segments, -1, 0, 150)).toEqual([
      { baseOffset: 0, endOffset: 49, bytes: 51200 },
      { baseOffset: 50, endOffset: 99, bytes: 40000 },
    ]);
  });

  // Was a bug, fixed (core/domain/retention.ts, copyCandidates): the model skipped a segment whose base is below
  // max(Ry + 1, LSO) even when it contains that offset. Kafka's RLMCopyTask.candidateLogSegments
  // iterates log.logSegments(fromOffset, Long.MAX_VALUE), which starts at the segment that
  // *contains* fromOffset (floor), so that segment is copied whole. This happens when Ry comes from
  // another leader's segments (a new leader rolled at other offsets) or LSO moved into a segment:
  // the offsets from `from` to the segment end are never uploaded, and once a later copy raises
  // Ry past that segment, local retention deletes it (endOffset <= Ry), losing them from both tiers.
  test.each<[string, number, number, Array<[number, number]>]>([
    ['Ry 7, inside segment 5-9 -> 5-9 is still a candidate', 7, 0, [[5, 9], [10, 14], [15, 19]]],
    ['LSO 7, inside segment 5-9 -> 5-9 is still a candidate', -1, 7, [[5, 9], [10, 14], [15, 19]]],
  ])('from inside a segment (Kafka logSegments(from) starts at its floor segment): %s', (_name, ry, lso, expected) => {
    // Goal: Kafka's candidateLogSegments. Method: from offset 8 (Ry 7) or 7 (LSO 7) inside segment 5-9.
    expect(ranges(copyCandidates(FOUR, ry, lso, 1000))).toEqual(expected);
  });
});

// ---------------------------------------------------------------------------------------
// Local retention

describe('localRetentionDeletable (docs/protocol.md §5, example 10)', () => {
  test('example 10: segments rolled after 10, 20, 30, 40, local retention 1 byte, Ry 30 -> 2 segments left, LLSO 31', () => {
    // Goal: docs/protocol.md §9 example 10 exactly. Method: [0..10], [11..20], [21..30], [31..40] and an active
    // segment from 41 (41-50, HW 51); local.retention.bytes 1; every rolled segment is below HW.
    const segments = [seg(0, 10), seg(11, 20), seg(21, 30), seg(31, 40), seg(41, 50)];
    const r = localRetentionDeletable({
      segments, highWatermark: 51, logStartOffset: 0, highestOffsetInRemoteStorage: 30, retentionBytes: 1, retentionMs: -1, nowMs: 0,
    });
    expect(ranges(r.deletable)).toEqual([[0, 10], [11, 20], [21, 30]]);
    expect(r.stoppedBy).toBe('notUploaded');
    expect(r.stoppedAt).toBe(31);
    const left = segments.slice(r.deletable.length);
    expect(left).toHaveLength(2);
    // Local-Log-Start-Offset becomes the first segment left; the function never moves LSO (0).
    expect(left[0].baseOffset).toBe(31);
  });

  // Four rolled segments of 1000 bytes, [0..9] .. [30..39], with max timestamps 1000 .. 4000, and an
  // active segment [40..44] of 500 bytes at 5000; HW 45, LSO 0, all uploaded (Ry 39), now 10000.
  const SEGMENTS: Seg[] = [
    seg(0, 9, { bytes: 1000, maxTimestampMs: 1000 }),
    seg(10, 19, { bytes: 1000, maxTimestampMs: 2000 }),
    seg(20, 29, { bytes: 1000, maxTimestampMs: 3000 }),
    seg(30, 39, { bytes: 1000, maxTimestampMs: 4000 }),
    seg(40, 44, { bytes: 500, maxTimestampMs: 5000 }),
  ];
  const BASE: LocalRetentionInput = {
    segments: SEGMENTS, highWatermark: 45, logStartOffset: 0, highestOffsetInRemoteStorage: 39, retentionBytes: -1, retentionMs: -1, nowMs: 10000,
  };

  test.each<[string, Partial<LocalRetentionInput>, number[], LocalRetentionStop, number | null]>([
    // name, overrides, deletable bases, stoppedBy, stoppedAt
    ['retention -1 (bytes and ms) = no limit -> nothing', {}, [], 'withinRetention', 0],
    ['1 byte, all uploaded -> every rolled segment; stops at the active one', { retentionBytes: 1 }, [0, 10, 20, 30], 'active', 40],
    ['bytes: total 4500 == limit -> nothing', { retentionBytes: 4500 }, [], 'withinRetention', 0],
    ['bytes: delete while the excess covers a whole segment (limit 2500: excess 2000 -> 2)', { retentionBytes: 2500 }, [0, 10], 'withinRetention', 20],
    ['bytes: an excess of 1999 covers only one segment', { retentionBytes: 2501 }, [0], 'withinRetention', 10],
    ['time: older than retention.ms -> deletable (10000 - 3000 > 6999)', { retentionMs: 6999 }, [0, 10, 20], 'withinRetention', 30],
    ['time: strictly greater (10000 - 3000 == 7000 is kept)', { retentionMs: 7000 }, [0, 10], 'withinRetention', 20],
    ['time: retention.ms 0 -> every rolled segment', { retentionMs: 0 }, [0, 10, 20, 30], 'active', 40],
    ['either limit: bytes within, time breached', { retentionBytes: 100000, retentionMs: 7500 }, [0, 10], 'withinRetention', 20],
    ['either limit: time within, bytes breached', { retentionBytes: 1, retentionMs: 100000 }, [0, 10, 20, 30], 'active', 40],
    ['notBelowHighWatermark: HW inside segment 20-29', { retentionBytes: 1, highWatermark: 25 }, [0, 10], 'notBelowHighWatermark', 20],
    ['notBelowHighWatermark: HW == end offset is not below', { retentionBytes: 1, highWatermark: 29 }, [0, 10], 'notBelowHighWatermark', 20],
    ['notBelowHighWatermark: HW == end + 1 is below', { retentionBytes: 1, highWatermark: 30 }, [0, 10, 20], 'notBelowHighWatermark', 30],
    ['notUploaded: Ry 19', { retentionBytes: 1, highestOffsetInRemoteStorage: 19 }, [0, 10], 'notUploaded', 20],
    ['notUploaded: Ry inside a segment (25) does not cover it', { retentionBytes: 1, highestOffsetInRemoteStorage: 25 }, [0, 10], 'notUploaded', 20],
    ['notUploaded: nothing uploaded (Ry -1)', { retentionBytes: 1, highestOffsetInRemoteStorage: -1 }, [], 'notUploaded', 0],
    ['notUploaded by time too', { retentionMs: 0, highestOffsetInRemoteStorage: 9 }, [0], 'notUploaded', 10],
    ['below LSO: always deletable, no limit, nothing uploaded', { logStartOffset: 20, highestOffsetInRemoteStorage: -1 }, [0, 10], 'withinRetention', 20],
    ['below LSO: even above the high watermark', { logStartOffset: 20, highWatermark: 0, highestOffsetInRemoteStorage: -1 }, [0, 10], 'withinRetention', 20],
    ['below LSO: a segment LSO falls inside is not below it', { logStartOffset: 25, highestOffsetInRemoteStorage: -1 }, [0, 10], 'withinRetention', 20],
    ['below LSO: never the active segment', { logStartOffset: 45, highestOffsetInRemoteStorage: -1 }, [0, 10, 20, 30], 'active', 40],
    ['below LSO, then breaching but not uploaded', { logStartOffset: 10, retentionBytes: 1, highestOffsetInRemoteStorage: -1 }, [0], 'notUploaded', 10],
    ['only the active segment -> stops at it', { segments: [seg(40, 44)], retentionBytes: 1 }, [], 'active', 40],
  ])('%s', (_name, o, bases, stoppedBy, stoppedAt) => {
    // Goal: oldest first, stopping at the first segment that may not go: a segment goes when it is below
    // LSO, or breaches a limit, is entirely below HW and is uploaded (end <= Ry); never the active segment.
    // Method: the pure function on the five segments above.
    const r = localRetentionDeletable({ ...BASE, ...o });
    expect(r.deletable.map((s) => s.baseOffset)).toEqual(bases);
    expect(r.stoppedBy).toBe(stoppedBy);
    expect(r.stoppedAt).toBe(stoppedAt);
  });

  test('the stop checks go in order: limit, then high watermark, then upload', () => {
    // Goal: the reason names the first rule that keeps the segment.
    // Method: segment 0-9 is within retention, above HW and not uploaded at once -> withinRetention;
    // then breaching, above HW and not uploaded -> notBelowHighWatermark.
    const none = { highWatermark: 5, highestOffsetInRemoteStorage: -1 };
    expect(localRetentionDeletable({ ...BASE, ...none }).stoppedBy).toBe('withinRetention');
    expect(localRetentionDeletable({ ...BASE, ...none, retentionBytes: 1 }).stoppedBy).toBe('notBelowHighWatermark');
  });

  test('deletable ranges carry their bytes', () => {
    const r = localRetentionDeletable({ ...BASE, retentionBytes: 2500 });
    expect(r.deletable).toEqual([
      { baseOffset: 0, endOffset: 9, bytes: 1000 },
      { baseOffset: 10, endOffset: 19, bytes: 1000 },
    ]);
  });
});

describe('localRetentionDeletable: the active segment (Kafka UnifiedLog.deletableSegments)', () => {
  // The five segments of the table above: every rolled one older than 6000 ms at 10000 and uploaded
  // (Ry 39); the active segment 40-44 (500 bytes) has max timestamp 5000; HW 45 = the log end.
  const SEGMENTS: Seg[] = [
    seg(0, 9, { bytes: 1000, maxTimestampMs: 1000 }),
    seg(10, 19, { bytes: 1000, maxTimestampMs: 2000 }),
    seg(20, 29, { bytes: 1000, maxTimestampMs: 3000 }),
    seg(30, 39, { bytes: 1000, maxTimestampMs: 4000 }),
    seg(40, 44, { bytes: 500, maxTimestampMs: 5000 }),
  ];
  const BASE: LocalRetentionInput = {
    segments: SEGMENTS, highWatermark: 45, logStartOffset: 0, highestOffsetInRemoteStorage: 39, retentionBytes: -1, retentionMs: 4000, nowMs: 10000,
  };
  test.each<[string, Partial<LocalRetentionInput>, boolean, LocalRetentionStop, number]>([
    // name, overrides, rollActive, stoppedBy, deletable count
    ['time breached, HW at the log end, every older segment deletable -> roll', {}, true, 'active', 4],
    ['exactly retention.ms old -> not yet (strictly greater)', { retentionMs: 5000 }, false, 'active', 4],
    ['HW behind the log end -> not considered', { highWatermark: 44 }, false, 'notBelowHighWatermark', 4],
    ['an older segment not uploaded -> the active one is never reached', { highestOffsetInRemoteStorage: 29 }, false, 'notUploaded', 3],
    ['an older segment within retention -> never reached', { retentionMs: 9500 }, false, 'withinRetention', 0],
    ['no upload required (Ry +infinity): rolled the same, deleted at the next decision', { highestOffsetInRemoteStorage: Number.MAX_SAFE_INTEGER }, true, 'active', 4],
    ['by size: retention.bytes 0 takes the active segment too', { retentionMs: -1, retentionBytes: 0 }, true, 'active', 4],
    ['by size: retention.bytes 1 leaves it (the excess is below its size)', { retentionMs: -1, retentionBytes: 1 }, false, 'active', 4],
    ['empty active segment never, however old', { segments: [...SEGMENTS.slice(0, 4), seg(40, 39, { bytes: 0, maxTimestampMs: 0 })], highWatermark: 40 }, false, 'active', 4],
    ['retention -1 (no limit) -> never', { retentionMs: -1 }, false, 'withinRetention', 0],
  ])('%s', (_name, o, roll, stoppedBy, count) => {
    // Goal: Kafka considers the active segment only when the high watermark has reached the log
    // end (its upper bound) and every older segment was deletable; then it rolls it, and where no
    // upload is needed deletes it (UnifiedLog.deletableSegments, deleteSegments).
    // Method: the pure function on the five segments above.
    const r = localRetentionDeletable({ ...BASE, ...o });
    expect(r.rollActive).toBe(roll);
    expect(r.stoppedBy).toBe(stoppedBy);
    expect(r.deletable).toHaveLength(count);
  });
});

// ---------------------------------------------------------------------------------------
// Remote retention

describe('remoteRetentionExpired (docs/protocol.md §5, remote retention)', () => {
  // Three finished remote segments of 1000 bytes, [0..49] [50..99] [100..149], max timestamps
  // 1000, 2000, 3000; 500 bytes only local; LSO 0; no limits; now 10000.
  const REMOTE = [meta(0, 49, { maxTimestampMs: 1000 }), meta(50, 99, { maxTimestampMs: 2000 }), meta(100, 149, { maxTimestampMs: 3000 })];
  const BASE: RemoteRetentionInput = { remote: REMOTE, logStartOffset: 0, localOnlyBytes: 500, retentionBytes: -1, retentionMs: -1, nowMs: 10000 };

  test.each<[string, Partial<RemoteRetentionInput>, Array<[string, number, RemoteExpiryRule]>]>([
    // name, overrides, expected [segmentId, endOffset, rule]
    ['no limits, LSO 0 -> nothing', {}, []],
    ['belowLogStartOffset: LSO 50 -> 0-49', { logStartOffset: 50 }, [['r-0', 49, 'belowLogStartOffset']]],
    ['belowLogStartOffset: LSO 100 -> 0-49 and 50-99', { logStartOffset: 100 }, [['r-0', 49, 'belowLogStartOffset'], ['r-50', 99, 'belowLogStartOffset']]],
    ['belowLogStartOffset: LSO 75, inside 50-99 -> only 0-49', { logStartOffset: 75 }, [['r-0', 49, 'belowLogStartOffset']]],
    // Inclusive: maxTimestampMs <= now - retention.ms (RemoteLogRetentionHandler.isSegmentBreachedByRetentionTime).
    ['retentionMs: 10000 - 1000 > 8000 -> 0-49; 10000 - 2000 == 8000 goes too (inclusive)', { retentionMs: 8000 }, [['r-0', 49, 'retentionMs'], ['r-50', 99, 'retentionMs']]],
    ['retentionMs: 8001 -> 0-49 only', { retentionMs: 8001 }, [['r-0', 49, 'retentionMs']]],
    ['retentionMs: 7999 -> 0-49 and 50-99', { retentionMs: 7999 }, [['r-0', 49, 'retentionMs'], ['r-50', 99, 'retentionMs']]],
    ['retentionBytes: total 3500, limit 1500 -> delete while total - size >= limit (2500, then 1500)', { retentionBytes: 1500 }, [['r-0', 49, 'retentionBytes'], ['r-50', 99, 'retentionBytes']]],
    ['retentionBytes: limit 1501 -> only 0-49', { retentionBytes: 1501 }, [['r-0', 49, 'retentionBytes']]],
    ['retentionBytes: limit == total 3500 -> nothing', { retentionBytes: 3500 }, []],
    ['retentionBytes: limit 2500 -> 0-49 (3500 - 1000 == 2500)', { retentionBytes: 2500 }, [['r-0', 49, 'retentionBytes']]],
    ['retentionBytes: the local-only bytes count (0 local -> total 3000, limit 1500 -> one)', { retentionBytes: 1500, localOnlyBytes: 0 }, [['r-0', 49, 'retentionBytes']]],
    ['retentionBytes: limit 0 -> every remote segment', { retentionBytes: 0 }, [['r-0', 49, 'retentionBytes'], ['r-50', 99, 'retentionBytes'], ['r-100', 149, 'retentionBytes']]],
    ['rules in order: below LSO, then time, then bytes', { logStartOffset: 50, retentionMs: 7999, retentionBytes: 500 }, [['r-0', 49, 'belowLogStartOffset'], ['r-50', 99, 'retentionMs'], ['r-100', 149, 'retentionBytes']]],
    ['a deleted segment no longer counts toward the size', { logStartOffset: 50, retentionBytes: 1500 }, [['r-0', 49, 'belowLogStartOffset'], ['r-50', 99, 'retentionBytes']]],
    ['stops at the first that stays: 0-49 recent, 50-99 old -> nothing', {
      remote: [meta(0, 49, { maxTimestampMs: 9000 }), meta(50, 99, { maxTimestampMs: 0 })], retentionMs: 5000,
    }, []],
    ['oldest first whatever the input order', { remote: [REMOTE[2], REMOTE[0], REMOTE[1]], logStartOffset: 100 }, [['r-0', 49, 'belowLogStartOffset'], ['r-50', 99, 'belowLogStartOffset']]],
  ])('%s', (_name, o, expected) => {
    // Goal: Kafka's RLMExpirationTask: oldest first, a finished segment expires below LSO, older than
    // retention.ms, or while the total across both tiers minus its size stays >= retention.bytes.
    // Method: the pure function on the three segments above.
    const r = remoteRetentionExpired({ ...BASE, ...o });
    expect(r.map((x) => [x.segmentId, x.endOffset, x.rule])).toEqual(expected);
  });

  test.each<[RemoteSegmentState]>([['COPY_SEGMENT_STARTED'], ['DELETE_SEGMENT_STARTED'], ['DELETE_SEGMENT_FINISHED']])(
    'only COPY_SEGMENT_FINISHED expires or counts toward the size; a %s segment at most is a delete to retry',
    (state) => {
      // Goal: only finished segments hold data for retention. Method: 0-49 in another state, below LSO and
      // breaching by time; limit 1500 bytes over 50-99 and 100-149 (2000) plus 500 local -> total 2500.
      const remote = [meta(0, 49, { state, maxTimestampMs: 0 }), REMOTE[1], REMOTE[2]];
      // A DELETE_SEGMENT_STARTED segment is a delete to retry (Kafka's expiration task retries them).
      const retry: Array<[string, string]> = state === 'DELETE_SEGMENT_STARTED' ? [['r-0', 'retryDelete']] : [];
      expect(remoteRetentionExpired({ ...BASE, remote, logStartOffset: 50 }).map((x) => [x.segmentId, x.rule])).toEqual(retry);
      expect(remoteRetentionExpired({ ...BASE, remote, retentionMs: 8500 }).map((x) => [x.segmentId, x.rule])).toEqual(retry);
      // Counted, 0-49 would make the total 3500 and both 0-49 and 50-99 would go.
      expect(remoteRetentionExpired({ ...BASE, remote, retentionBytes: 1500 }).map((x) => [x.segmentId, x.rule])).toEqual([...retry, ['r-50', 'retentionBytes']]);
    },
  );
});

// ---------------------------------------------------------------------------------------
// The tasks' schedules

describe("nextRetentionRunMs (the broker's log retention task: LogManager's kafka-log-retention)", () => {
  // Kafka's defaults: log.initial.task.delay.ms 30000, log.retention.check.interval.ms 300000.
  test.each<[string, number, number, number, number, boolean, number]>([
    // name, startedAtMs, initialDelayMs, intervalMs, afterMs, orAt, expected (computed by hand)
    ['started at 0, the first run: 0 + 30000', 0, 30000, 300000, 0, true, 30000],
    ['started at 0, after 0 (not at): still the first run', 0, 30000, 300000, 0, false, 30000],
    ['before the first run: the first run', 0, 30000, 300000, 29999, false, 30000],
    ['at the first run with orAt: that run', 0, 30000, 300000, 30000, true, 30000],
    ['at the first run without orAt: the next, 30000 + 300000', 0, 30000, 300000, 30000, false, 330000],
    ['1 ms after the first run: 330000', 0, 30000, 300000, 30001, false, 330000],
    ['1 ms after the first run, orAt changes nothing off the grid', 0, 30000, 300000, 30001, true, 330000],
    ['just before the second run', 0, 30000, 300000, 329999, false, 330000],
    ['at the second run with orAt', 0, 30000, 300000, 330000, true, 330000],
    ['at the second run without orAt: the third, 630000', 0, 30000, 300000, 330000, false, 630000],
    ['a broker started at 1115: its first run at 1115 + 30000', 1115, 30000, 300000, 1115, true, 31115],
    ['a broker started at 1115, now 0 (before it started)', 1115, 30000, 300000, 0, false, 31115],
    ['a broker started at 1115, at its first run without orAt: 331115', 1115, 30000, 300000, 31115, false, 331115],
    ['a broker started at 1115, at 40000: 331115 (its own grid, not 330000)', 1115, 30000, 300000, 40000, false, 331115],
    ['a broker started at 1115, at 331115 with orAt', 1115, 30000, 300000, 331115, true, 331115],
    ['no initial delay, interval 1000: at the start with orAt, at once', 0, 0, 1000, 0, true, 0],
    ['no initial delay, interval 1000: after 0 -> 1000', 0, 0, 1000, 0, false, 1000],
    ['no initial delay, interval 1000: after 2500 -> 3000 (orAt or not)', 0, 0, 1000, 2500, false, 3000],
    ['no initial delay, interval 1000: at 2500 with orAt -> 3000', 0, 0, 1000, 2500, true, 3000],
    ['restarted at 5000 (delay 30000): 35000, the old grid forgotten', 5000, 30000, 300000, 5000, true, 35000],
  ])('%s', (_name, startedAtMs, initialDelayMs, intervalMs, afterMs, orAt, expected) => {
    // Goal: KafkaScheduler.schedule -> scheduleAtFixedRate: the runs are the broker's start plus
    // log.initial.task.delay.ms plus whole intervals; the task's first run may be at now ('start', orAt),
    // every later run strictly after now ('next'). Method: the pure function on hand-computed cases.
    expect(nextRetentionRunMs(startedAtMs, initialDelayMs, intervalMs, afterMs, orAt)).toBe(expected);
  });

  test('the next run is always on the grid and after (or at, with orAt) the given time', () => {
    // Goal: a property over many times: never before afterMs, never a whole interval late, always on the grid.
    // Method: every afterMs from 0 to 3000 for a broker started at 7, delay 100, interval 250.
    for (let afterMs = 0; afterMs <= 3000; afterMs++) {
      for (const orAt of [false, true]) {
        const at = nextRetentionRunMs(7, 100, 250, afterMs, orAt);
        expect((at - 107) % 250, `${afterMs} ${orAt}`).toBe(0);
        expect(at >= 107).toBe(true);
        if (orAt) expect(at >= afterMs && (at === 107 || at - afterMs < 250), `${afterMs} orAt`).toBe(true);
        else expect(at > afterMs && (at === 107 || at - afterMs <= 250), `${afterMs}`).toBe(true);
      }
    }
  });
});

describe("rlmTaskName (Kafka's name for the task that acted)", () => {
  test.each<[RlmTask, 'leader' | 'follower', string]>([
    ['copy', 'leader', 'RLMCopyTask'],
    ['copy', 'follower', 'RLMFollowerTask'],
    ['expiration', 'leader', 'RLMExpirationTask'],
    ['expiration', 'follower', 'RLMExpirationTask'],
    ['retention', 'leader', 'log retention task'],
    ['retention', 'follower', 'log retention task'],
  ])('%s on a %s -> %s', (task, role, name) => {
    // Goal: the narration names the task as Kafka does. Method: every task and role.
    expect(rlmTaskName(task, role)).toBe(name);
  });
});

// ---------------------------------------------------------------------------------------
// Kernel runs

type Meta = { segmentId: string; from: string | null; to: string; baseOffset: number; endOffset: number; atMs: number; i: number };

/** The remote metadata state changes in the trace, with their trace index. */
function metadataChanges(json: RunJson): Meta[] {
  const out: Meta[] = [];
  json.trace.forEach((e, i) => {
    if (e.type === 'remoteMetadata' && (e as Loose).action === 'stateChanged') out.push({ ...(e as Loose), i } as Meta);
  });
  return out;
}

/** The states a remote segment went through, from the first. */
function statesOf(json: RunJson, segmentId: string): Array<string | null> {
  const changes = metadataChanges(json).filter((m) => m.segmentId === segmentId);
  return changes.length === 0 ? [] : [changes[0].from, ...changes.map((m) => m.to)];
}

function entries(json: RunJson, type: string, action?: string): Array<Loose & { i: number }> {
  const out: Array<Loose & { i: number }> = [];
  json.trace.forEach((e, i) => {
    if (e.type === type && (action === undefined || (e as Loose).action === action)) out.push({ ...(e as Loose), i });
  });
  return out;
}

function run(raw: unknown): { kernel: Kernel; json: RunJson } {
  const r = validateScenario(raw);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const kernel = new Kernel(r.scenario as Scenario, {});
  kernel.runToEnd();
  return { kernel, json: buildRunJson(kernel) };
}

const ORDERS_SEGMENTS = [
  { baseOffset: 0, endOffset: 49, tier: 'local' },
  { baseOffset: 50, endOffset: 99, tier: 'local' },
  { baseOffset: 100, endOffset: 149, tier: 'local' },
];

/**
 * The topic of rlm-upload-and-local-retention with a tiered-store outage from 0 to 1500; the remote log
 * manager's tasks every 1000 ms, and the log retention task at 0 and then every 1000 ms on its own
 * schedule (as the conformance cases set it).
 */
function failedCopyScenario(backAtMs = 1500): unknown {
  return {
    name: 'failed copy',
    brokers: 1,
    config: { 'remote.log.manager.task.interval.ms': 1000, 'log.initial.task.delay.ms': 0, 'log.retention.check.interval.ms': 1000 },
    topics: [{
      name: 'orders',
      partitions: 1,
      replicas: [[0]],
      config: { 'remote.storage.enable': true, 'internal.segment.bytes': 51200, 'local.retention.bytes': 1 },
      initial: [{ partition: 0, segments: ORDERS_SEGMENTS }],
    }],
    timeline: [
      { at: 0, objectStore: { available: false, store: 'tiered' } },
      { at: backAtMs, objectStore: { available: true, store: 'tiered' } },
    ],
    until: 5000,
  };
}

/** Every local delete comes after a COPY_SEGMENT_FINISHED of a remote segment holding its end offset. */
function expectLocalDeletesAfterUpload(json: RunJson): void {
  const finished = metadataChanges(json).filter((m) => m.to === 'COPY_SEGMENT_FINISHED');
  for (const d of entries(json, 'log', 'localSegmentDeleted')) {
    const upload = finished.find((m) => m.baseOffset <= d.baseOffset && m.endOffset >= d.endOffset);
    expect(upload, `an upload of ${d.baseOffset}-${d.endOffset}`).toBeDefined();
    expect(upload!.i, `${d.baseOffset}-${d.endOffset} deleted locally after its upload`).toBeLessThan(d.i);
  }
}

describe('kernel: rlm-upload-and-local-retention (docs/protocol.md §5, examples 9 and 10 on one broker)', () => {
  const { json } = runBundled('rlm-upload-and-local-retention');

  test('final state: [0,49] and [50,99] finished remotely, Ry 99, LLSO 100, LSO 0', () => {
    // Goal: the rolled segments are uploaded and deleted locally; LSO stays (a tiered topic keeps it).
    // Method: run the bundled scenario; read the run JSON.
    expect(json.partitions[0].remoteSegments.map((m) => [m.baseOffset, m.endOffset, m.state])).toEqual([
      [0, 49, 'COPY_SEGMENT_FINISHED'],
      [50, 99, 'COPY_SEGMENT_FINISHED'],
    ]);
    const leader = replicaOf(json, 0);
    expect(leader.role).toBe('leader');
    expect(leader.highestOffsetInRemoteStorage).toBe(99);
    expect(leader.localLogStartOffset).toBe(100);
    expect(leader.logStartOffset).toBe(0);
    expect(leader.logEndOffset).toBe(150);
  });

  test('each copy: COPY_SEGMENT_STARTED, then its 4 PUTs, then COPY_SEGMENT_FINISHED', () => {
    // Goal: docs/protocol.md §5 step 3: metadata first, one copy carrying the segment, its offset index, the
    // leader-epoch checkpoint and the producer snapshot, then the metadata update.
    // Method: for each copied segment, the trace positions of its metadata changes and PUTs.
    const started = metadataChanges(json).filter((m) => m.to === 'COPY_SEGMENT_STARTED');
    expect(started.map((m) => [m.from, m.baseOffset, m.endOffset])).toEqual([[null, 0, 49], [null, 50, 99]]);
    for (const s of started) {
      const puts = entries(json, 'objectStore').filter((e) => e.op === 'put' && String(e.key).includes(s.segmentId));
      expect(puts.map((p) => p.purpose)).toEqual(['copy:log', 'copy:offsetIndex', 'copy:leaderEpochCheckpoint', 'copy:producerSnapshot']);
      expect(puts.every((p) => p.ok === true && p.store === 'tiered')).toBe(true);
      const finished = metadataChanges(json).find((m) => m.segmentId === s.segmentId && m.to === 'COPY_SEGMENT_FINISHED');
      expect(finished).toBeDefined();
      for (const p of puts) {
        expect(s.i).toBeLessThan(p.i);
        expect(p.i).toBeLessThan(finished!.i);
      }
      expect(statesOf(json, s.segmentId)).toEqual([null, 'COPY_SEGMENT_STARTED', 'COPY_SEGMENT_FINISHED']);
    }
    // Ry follows each finished copy.
    expect(entries(json, 'rlm', 'highestOffsetInRemoteStorageUpdated').map((e) => [e.from, e.highestOffsetInRemoteStorage, e.rule])).toEqual([
      [-1, 49, 'copyFinished'],
      [49, 99, 'copyFinished'],
    ]);
  });

  test('the active segment is never copied', () => {
    // Goal: never the active segment (example 9). Method: no metadata and no PUT at or above offset 100.
    expect(metadataChanges(json).filter((m) => m.endOffset >= 100)).toEqual([]);
    expect(entries(json, 'objectStore').filter((e) => e.op === 'put' && String(e.key).includes('00000000000000000100'))).toEqual([]);
  });

  test('local deletes only after the copies: 0-49 and 50-99, never the active segment', () => {
    // Goal: local retention deletes a segment only once it is fully uploaded (example 10's rule).
    // Method: each localSegmentDeleted comes after the COPY_SEGMENT_FINISHED holding it.
    const deletes = entries(json, 'log', 'localSegmentDeleted');
    expect(deletes.map((d) => [d.baseOffset, d.endOffset, d.rule])).toEqual([[0, 49, 'localRetention'], [50, 99, 'localRetention']]);
    expectLocalDeletesAfterUpload(json);
  });

  test('no violations', () => {
    expect(json.violations).toEqual([]);
    expect(json.trace.filter((e) => e.type === 'violation')).toEqual([]);
  });
});

describe('kernel: a failed copy (tiered store down from 0 to 1500, remote log manager tasks and log retention every 1000 ms)', () => {
  const { json } = run(failedCopyScenario());
  const started = () => metadataChanges(json).filter((m) => m.to === 'COPY_SEGMENT_STARTED');

  test('the first copy fails: its PUTs fail, copyFailed, DELETE_SEGMENT_STARTED and the cleanup DELETEs', () => {
    // Goal: docs/protocol.md §5: a failed copy is cleaned up (DELETE_SEGMENT_STARTED -> delete the partial objects).
    // Method: the first COPY_SEGMENT_STARTED (0-49 at 0 ms) and what follows for its segment id.
    const first = started()[0];
    expect([first.baseOffset, first.endOffset, first.atMs]).toEqual([0, 49, 0]);
    const ops = entries(json, 'objectStore').filter((e) => String(e.key).includes(first.segmentId));
    expect(ops.filter((e) => e.op === 'put').map((e) => [e.purpose, e.ok, e.error])).toEqual([
      ['copy:log', false, 'ServiceUnavailable'],
      ['copy:offsetIndex', false, 'ServiceUnavailable'],
      ['copy:leaderEpochCheckpoint', false, 'ServiceUnavailable'],
      ['copy:producerSnapshot', false, 'ServiceUnavailable'],
    ]);
    expect(entries(json, 'rlm', 'copyFailed').filter((e) => e.segmentId === first.segmentId).map((e) => e.error)).toEqual(['ServiceUnavailable']);
    const deleteStarted = entries(json, 'rlm', 'deleteStarted').filter((e) => e.segmentId === first.segmentId);
    // The copy task's cleanup (100 ms), then the expiration task's retries on its own schedule: at
    // 1000 ms (its second run; the store still down) and at 2050 ms (its third run, the store back).
    expect(deleteStarted.map((e) => [e.atMs, e.rule])).toEqual([[100, 'copyFailed'], [1000, 'retryDelete'], [2050, 'retryDelete']]);
    // The DELETEs of the four objects fail twice (cleanup and first retry: the store is down), then succeed.
    const deletes = ops.filter((e) => e.op === 'delete');
    expect(deletes.slice(0, 8).map((e) => [e.ok, e.error])).toEqual(Array(8).fill([false, 'ServiceUnavailable']));
    expect(deletes.slice(8).map((e) => e.ok)).toEqual(Array(4).fill(true));
  });

  test('a failed cleanup: the machine goes idle for the next run, and the delete is retried once the store is back', () => {
    // Goal: what the model does when the cleanup fails: cleaningUpFailedCopy -> idle on rlm.deleteCompleted,
    // no DELETE_SEGMENT_FINISHED, the next run is scheduled (one interval later).
    // Method: the rlmState transitions and the first segment's metadata states.
    const first = started()[0];
    expect(statesOf(json, first.segmentId)).toEqual([null, 'COPY_SEGMENT_STARTED', 'DELETE_SEGMENT_STARTED', 'DELETE_SEGMENT_FINISHED']);
    const rlmStates = json.trace.filter((e) => e.type === 'rlmState').map((e) => [(e as Loose).atMs, (e as Loose).from, (e as Loose).to, (e as Loose).event]);
    expect(rlmStates.slice(0, 6)).toEqual([
      [0, 'inactive', 'idle', 'rlm.started'],
      [0, 'idle', 'running', 'rlm.taskDue'],
      [0, 'running', 'copying', 'rlm.step'],
      [100, 'copying', 'cleaningUpFailedCopy', 'rlm.copyCompleted'],
      [150, 'cleaningUpFailedCopy', 'idle', 'rlm.deleteCompleted'],
      [1150, 'idle', 'running', 'rlm.taskDue'],
    ]);
  });

  // Was a bug, fixed (core: remote retention / the RLM machine, remote-log-manager.ts cleaningUpFailedCopy and
  // retention.ts remoteRetentionExpired): a failed cleanup is never retried. The metadata of a failed
  // copy whose DELETEs failed stays DELETE_SEGMENT_STARTED for good (and the partial objects, if any,
  // stay in the store). Kafka retries it: RLMExpirationTask.cleanupExpiredRemoteLogSegments adds every
  // DELETE_SEGMENT_STARTED segment to the segments to delete ("retry mechanism for dangling remote
  // segments that failed the deletion in previous attempts"). docs/protocol.md §5 expects a failed copy to end
  // DELETE_SEGMENT_FINISHED. Here both failed attempts (at 0 and 1150 ms) stay DELETE_SEGMENT_STARTED
  // although the store is back from 1500 ms and the task runs at 2300, 3300 and 4300 ms.
  test('a failed copy\'s metadata reaches DELETE_SEGMENT_FINISHED once the store is back', () => {
    // Goal: COPY_SEGMENT_STARTED -> DELETE_SEGMENT_STARTED -> DELETE_SEGMENT_FINISHED for every failed copy.
    const failed = started().filter((m) => m.atMs < 1500);
    expect(failed.length).toBeGreaterThan(0);
    for (const m of failed) {
      expect(statesOf(json, m.segmentId)).toEqual([null, 'COPY_SEGMENT_STARTED', 'DELETE_SEGMENT_STARTED', 'DELETE_SEGMENT_FINISHED']);
    }
  });

  test('retried on later runs: copies before the store is back fail, the first run after it finishes 0-49 then 50-99', () => {
    // Goal: a failed copy is retried on the next run, under a new segment id (docs/protocol.md §5 step 3).
    // Method: every COPY_SEGMENT_STARTED, its time and final state.
    const s = started();
    const before = s.filter((m) => m.atMs < 1500);
    const after = s.filter((m) => m.atMs >= 1500);
    expect(before.map((m) => [m.atMs, m.baseOffset])).toEqual([[0, 0], [1150, 0]]);
    for (const m of before) expect(statesOf(json, m.segmentId)).toContain('DELETE_SEGMENT_STARTED');
    expect(after.map((m) => [m.atMs, m.baseOffset, m.endOffset])).toEqual([[2300, 0, 49], [2400, 50, 99]]);
    for (const m of after) expect(statesOf(json, m.segmentId)).toEqual([null, 'COPY_SEGMENT_STARTED', 'COPY_SEGMENT_FINISHED']);
    expect(new Set(s.map((m) => m.segmentId)).size).toBe(s.length);
    const leader = replicaOf(json, 0);
    expect([leader.logStartOffset, leader.localLogStartOffset, leader.highestOffsetInRemoteStorage]).toEqual([0, 100, 99]);
  });

  test('no local segment is deleted before its upload, and no violations', () => {
    // Goal: the outage never lets local retention (1 byte) delete data that is not in remote storage.
    // The log retention task runs at 0, 1000, 2000 (nothing uploaded: notUploaded) and 3000, after both
    // copies finished (2400, 2500): it deletes both in that run.
    const deletes = entries(json, 'log', 'localSegmentDeleted');
    expect(deletes.map((d) => [d.baseOffset, d.atMs])).toEqual([[0, 3000], [50, 3000]]);
    expectLocalDeletesAfterUpload(json);
    expect(json.violations).toEqual([]);
  });

  test('store back before the cleanup: COPY_SEGMENT_STARTED -> DELETE_SEGMENT_STARTED -> DELETE_SEGMENT_FINISHED, retried next run', () => {
    // Goal: the cleanup path when its DELETEs succeed: DELETE_SEGMENT_FINISHED, LSO kept, the copy retried
    // on the next run, not in this one. Method: the store is back at 50 ms, after the PUTs failed (0 ms)
    // and before the cleanup (100 ms).
    const r = run(failedCopyScenario(50)).json;
    const s = metadataChanges(r).filter((m) => m.to === 'COPY_SEGMENT_STARTED');
    expect(statesOf(r, s[0].segmentId)).toEqual([null, 'COPY_SEGMENT_STARTED', 'DELETE_SEGMENT_STARTED', 'DELETE_SEGMENT_FINISHED']);
    expect(entries(r, 'log', 'logStartOffsetRaised')).toEqual([]);
    expect(s.map((m) => [m.atMs, m.baseOffset])).toEqual([[0, 0], [1150, 0], [1250, 50]]);
    for (const m of s.slice(1)) expect(statesOf(r, m.segmentId)).toEqual([null, 'COPY_SEGMENT_STARTED', 'COPY_SEGMENT_FINISHED']);
    expectLocalDeletesAfterUpload(r);
    expect(r.violations).toEqual([]);
  });
});

describe('kernel: remote retention (retention.bytes across both tiers)', () => {
  // 0-49 and 50-99 remote only, 100-149 in both tiers, 150-199 local (active); 51200 bytes each.
  // Total = 51200 local only + 3 x 51200 remote = 204800; retention.bytes 100000: 0-49 goes
  // (153600 >= 100000), 50-99 goes (102400 >= 100000), 100-149 stays (51200 < 100000).
  const { json } = run({
    name: 'remote retention',
    brokers: 1,
    topics: [{
      name: 'orders',
      partitions: 1,
      replicas: [[0]],
      config: { 'remote.storage.enable': true, 'internal.segment.bytes': 51200, 'retention.bytes': 100000 },
      initial: [{
        partition: 0,
        segments: [
          { baseOffset: 0, endOffset: 49, tier: 'remote' },
          { baseOffset: 50, endOffset: 99, tier: 'remote' },
          { baseOffset: 100, endOffset: 149, tier: 'both' },
          { baseOffset: 150, endOffset: 199, tier: 'local' },
        ],
      }],
    }],
    until: 5000,
  });

  test('the two oldest: DELETE_SEGMENT_STARTED -> DELETE_SEGMENT_FINISHED, one at a time; 100-149 stays', () => {
    // Goal: remote retention deletes expired segments oldest first (docs/protocol.md §5). Method: the metadata
    // changes and the rlm deleteStarted entries.
    const changes = metadataChanges(json).map((m) => [m.baseOffset, m.from, m.to]);
    expect(changes).toEqual([
      [0, 'COPY_SEGMENT_FINISHED', 'DELETE_SEGMENT_STARTED'],
      [0, 'DELETE_SEGMENT_STARTED', 'DELETE_SEGMENT_FINISHED'],
      [50, 'COPY_SEGMENT_FINISHED', 'DELETE_SEGMENT_STARTED'],
      [50, 'DELETE_SEGMENT_STARTED', 'DELETE_SEGMENT_FINISHED'],
    ]);
    expect(entries(json, 'rlm', 'deleteStarted').map((e) => [e.baseOffset, e.endOffset, e.rule])).toEqual([
      [0, 49, 'retentionBytes'],
      [50, 99, 'retentionBytes'],
    ]);
    expect(entries(json, 'objectStore').filter((e) => e.op === 'delete' && e.ok === true)).toHaveLength(8);
    expect(json.partitions[0].remoteSegments.map((m) => [m.baseOffset, m.state])).toEqual([
      [0, 'DELETE_SEGMENT_FINISHED'],
      [50, 'DELETE_SEGMENT_FINISHED'],
      [100, 'COPY_SEGMENT_FINISHED'],
    ]);
  });

  test("the leader's Log-Start-Offset moves to 100 at once (logStartOffsetRaised); LLSO and the local log stay", () => {
    // Goal: remote retention raises LSO once, to the end + 1 of the last expiring segment, before
    // it deletes (RLMExpirationTask.handleLogStartOffsetUpdate; docs/protocol.md §5).
    expect(entries(json, 'log', 'logStartOffsetRaised').map((e) => [e.broker, e.from, e.logStartOffset, e.rule])).toEqual([
      [0, 0, 100, 'remoteRetention'],
    ]);
    const leader = replicaOf(json, 0);
    expect([leader.logStartOffset, leader.localLogStartOffset, leader.logEndOffset, leader.highestOffsetInRemoteStorage]).toEqual([100, 100, 200, 149]);
    expect(entries(json, 'log', 'localSegmentDeleted')).toEqual([]);
  });

  test('LSO is raised once, before the first DELETE_SEGMENT_STARTED, past every segment deleted; no violations', () => {
    // Goal: Kafka's RLMExpirationTask raises the log start offset before it deletes anything, so no offset
    // at or above LSO is ever in a segment being deleted (invariant everyOffsetRetained).
    const raised = entries(json, 'log', 'logStartOffsetRaised');
    const deleting = metadataChanges(json).filter((m) => m.to === 'DELETE_SEGMENT_STARTED');
    expect(raised).toHaveLength(1);
    expect(raised[0].i).toBeLessThan(deleting[0].i);
    for (const d of deleting) expect(d.endOffset).toBeLessThan(raised[0].logStartOffset);
    expect(json.violations).toEqual([]);
  });
});
