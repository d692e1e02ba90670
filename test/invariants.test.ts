/**
 * Each invariant can fail: corrupt one fact of a healthy run and the check names it.
 */
import { describe, expect, test } from 'vitest';
import { checkFollowerAppend, checkInvariants, INVARIANTS } from '../core/sim/checks/invariants.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { partitionKey } from '../core/sim/state/state.js';
import { loadBundled } from './support/run.js';

function settled(name = 'kip1023-bootstrap'): Kernel {
  const k = new Kernel(loadBundled(name));
  k.runToEnd();
  expect(checkInvariants(k.state)).toEqual([]);
  return k;
}

const key = partitionKey('orders', 0);

describe('invariants catch what they guard', () => {
  test('every invariant has an id, a title and an explanation starting Safety: or Liveness:', () => {
    for (const i of INVARIANTS) expect(i.explanation).toMatch(/^(Safety|Liveness): /);
  });

  test('offsetsOrdered: a follower HW above its LEO', () => {
    const k = settled();
    k.replica(key, 1).log.highWatermark = 500;
    expect(checkInvariants(k.state).map((v) => v.invariant)).toContain('offsetsOrdered');
  });

  test('offsetsOrdered: a leader Ry at or above its HW', () => {
    const k = settled();
    k.replica(key, 0).highestOffsetInRemoteStorage = 200;
    expect(checkInvariants(k.state).map((v) => v.invariant)).toContain('offsetsOrdered');
  });

  test('highWatermarkWithinIsr: leader HW above an in-sync follower LEO', () => {
    const k = settled();
    const f = k.replica(key, 1).log;
    f.segments[f.segments.length - 1].endOffset -= 10;
    f.highWatermark = Math.min(f.highWatermark, 190);
    expect(checkInvariants(k.state).map((v) => v.invariant)).toContain('highWatermarkWithinIsr');
  });

  test('everyOffsetRetained: a tiered-only range with no finished remote segment', () => {
    const k = settled();
    k.state.partitions[key].remoteMetadata[0].state = 'DELETE_SEGMENT_FINISHED';
    expect(checkInvariants(k.state).map((v) => v.invariant)).toContain('everyOffsetRetained');
  });

  test('followerLogIsPrefixOfLeader: a follower batch that differs from the leader at that offset', () => {
    const k = settled();
    const leaderLog = k.replica(key, 0).log;
    const b = leaderLog.segments[leaderLog.segments.length - 1].batches[0];
    expect(checkFollowerAppend(0, key, 1, b, leaderLog)).toEqual([]);
    const v = checkFollowerAppend(0, key, 1, { ...b, leaderEpoch: b.leaderEpoch + 1 }, leaderLog);
    expect(v.map((x) => x.invariant)).toEqual(['followerLogIsPrefixOfLeader']);
  });

  test('remoteStateForwardOnly: a backward state change is reported once in violations', () => {
    const k = settled();
    const id = k.state.partitions[key].remoteMetadata[0].segmentId;
    k.setRemoteSegmentState(key, id, 'DELETE_SEGMENT_STARTED');
    expect(k.state.violations).toEqual([]);
    k.setRemoteSegmentState(key, id, 'COPY_SEGMENT_FINISHED');
    expect(k.state.violations.map((v) => v.invariant)).toEqual(['remoteStateForwardOnly']);
  });
});
