/**
 * The full life of a tiered partition (issue 3's bundled scenarios): upload and local
 * deletion, promotion of a KIP-1023 follower, failover, a new leader that has not learned
 * Ry, an offline follower, remote retention, and tiering turned off and on again.
 */
import { describe, expect, test } from 'vitest';
import { initialTransition, transition } from 'xstate';
import { leaderPartitionMachine } from '../core/machines/leader-partition.js';
import { type Loose, collapse, replicaOf, requestsFrom, runBundled } from './support/run.js';

const byType = (trace: Loose[], type: string, action?: string) => trace.filter((e) => e.type === type && (action === undefined || e.action === action));

describe('life of a tiered partition', () => {
  test('steady state: every rolled segment below the last stable offset is uploaded in order, and deleted locally only after', () => {
    // Goal: docs/protocol.md §5's copy order and local retention rule over 20 s of produce traffic.
    // Method: run steady-state-upload; check the remote segments are contiguous from 0 to Ry
    // and every local delete on the leader happened after that segment's COPY_SEGMENT_FINISHED.
    const { json } = runBundled('steady-state-upload');
    expect(json.violations).toEqual([]);
    const p = json.partitions[0];
    const leader = replicaOf(json, 0);
    const finished = p.remoteSegments.filter((s) => s.state === 'COPY_SEGMENT_FINISHED').sort((a, b) => a.baseOffset - b.baseOffset);
    expect(finished.length).toBeGreaterThan(20);
    expect(finished[0].baseOffset).toBe(0);
    for (let i = 1; i < finished.length; i++) expect(finished[i].baseOffset).toBe(finished[i - 1].endOffset + 1);
    expect(leader.highestOffsetInRemoteStorage).toBe(finished[finished.length - 1].endOffset);
    expect(leader.logStartOffset).toBe(0);
    expect(leader.localLogStartOffset).toBeGreaterThan(0);
    expect(leader.localLogStartOffset).toBeLessThanOrEqual(leader.highestOffsetInRemoteStorage + 1);
    const finishedAt = new Map<number, number>();
    for (const e of byType(json.trace as Loose[], 'remoteMetadata', 'stateChanged')) if (e.to === 'COPY_SEGMENT_FINISHED') finishedAt.set(e.baseOffset, e.atMs);
    for (const d of byType(json.trace as Loose[], 'log', 'localSegmentDeleted')) {
      expect(finishedAt.get(d.baseOffset)).toBeLessThanOrEqual(d.atMs);
    }
    // Followers delete uploaded segments too, once their own task learned Ry.
    for (const b of [1, 2]) expect(replicaOf(json, b).localLogStartOffset).toBeGreaterThan(0);
    expect(p.isr).toEqual([0, 1, 2]);
    const acksAll = (json.metrics.produce as Loose).acksAll;
    const appended = byType(json.trace as Loose[], 'produce', 'appended').length;
    // 41: the acks=all produce at t = 0 is accepted, the new topic's ISR being every replica.
    expect(appended).toBe(41);
    // Every produce is acknowledged but possibly the last, appended just before the run ends.
    expect(acksAll.count).toBeGreaterThanOrEqual(appended - 1);
    expect(acksAll.latencyMsP50).toBeGreaterThan(0);
  });

  test('a KIP-1023 follower promoted to leader reads [its LLSO, old LLSO) from remote storage; a classic one does not', () => {
    // Goal: the trade-off KIP-1023 names, measured on the same workload with the flag on and off.
    const on = runBundled('kip1023-promoted-follower-remote-reads').json;
    const off = runBundled('classic-promoted-follower-local-reads').json;
    for (const json of [on, off]) {
      expect(json.violations).toEqual([]);
      expect(json.partitions[0].leader).toBe(1);
    }
    const consumeOn = byType(on.trace as Loose[], 'consume')[0];
    const consumeOff = byType(off.trace as Loose[], 'consume')[0];
    expect([consumeOn.recordsRemote, consumeOn.recordsLocal]).toEqual([50, 50]);
    expect([consumeOff.recordsRemote, consumeOff.recordsLocal]).toEqual([0, 100]);
    expect(on.metrics.remoteReads).toEqual({ '1': { count: 1, bytes: 50 * 1024 } });
    expect(off.metrics.remoteReads).toEqual({});
    expect(replicaOf(on, 1).localLogStartOffset).toBe(150);
    expect(replicaOf(off, 1).localLogStartOffset).toBe(100);
    const remoteResponse = (on.trace as Loose[]).find((e) => e.type === 'response' && e.servedFrom === 'remote');
    expect(remoteResponse).toMatchObject({ source: 1, target: 'consumer', fetchOffset: 100 });
  });

  test('leader failover while a follower bootstraps: clean election, the build finishes, committed records survive', () => {
    const { json } = runBundled('failover-during-bootstrap');
    expect(json.violations).toEqual([]);
    const p = json.partitions[0];
    expect([p.leader, p.leaderEpoch]).toEqual([1, 1]);
    const leaderEvents = byType(json.trace as Loose[], 'leader');
    expect(leaderEvents.map((e) => [e.broker, e.rule])).toEqual([[0, 'initialLeader'], [1, 'leaderCrashed']]);
    const b2 = replicaOf(json, 2);
    expect([b2.localLogStartOffset, b2.logEndOffset, b2.inIsr]).toEqual([150, 300, true]);
    expect(b2.leaderEpochs).toEqual([[0, 10], [1, 250]]);
    // The new leader learned Ry at its first task run, at once.
    const learned = byType(json.trace as Loose[], 'rlm', 'highestOffsetInRemoteStorageUpdated').find((e) => e.broker === 1 && e.atMs >= 1015);
    expect(learned?.atMs).toBe(1015);
    const acks = byType(json.trace as Loose[], 'produce', 'acknowledged');
    expect(acks.map((a) => a.lastOffset)).toEqual([249, 299]);
  });

  test('a new leader that has not learned Ry: the KIP-1023 follower retries until it has', () => {
    const { json } = runBundled('new-leader-unknown-ry');
    expect(json.violations).toEqual([]);
    const answers = (json.trace as Loose[]).filter((e) => e.type === 'response' && e.timestamp === -6 && e.target === 2);
    expect(answers.length).toBeGreaterThan(2);
    expect(answers.slice(0, -1).every((a) => a.offset === -1)).toBe(true);
    expect(answers[answers.length - 1].offset).toBe(150);
    const learned = byType(json.trace as Loose[], 'rlm', 'highestOffsetInRemoteStorageUpdated').find((e) => e.broker === 1 && e.atMs > 5000);
    expect(learned!.atMs).toBeGreaterThanOrEqual(10500);
    expect(answers[answers.length - 1].atMs).toBeGreaterThan(learned!.atMs);
    const b2 = replicaOf(json, 2);
    expect([b2.localLogStartOffset, b2.logEndOffset]).toEqual([150, 200]);
  });

  test('a follower offline past local retention comes back the classic way even with KIP-1023 on', () => {
    const { json } = runBundled('offline-follower-returns');
    expect(json.violations).toEqual([]);
    const shrink = byType(json.trace as Loose[], 'isr').find((e) => e.removed?.includes(1));
    expect(shrink).toMatchObject({ atMs: 3000, rule: 'brokerDown' });
    const afterRestart = (json.trace as Loose[]).filter((e) => e.atMs >= 15000);
    const reqs = collapse(requestsFrom(afterRestart as never, 1));
    expect(reqs[1]).toBe('ListOffsets-4');
    expect(reqs).not.toContain('ListOffsets-6');
    const explained = afterRestart.find((e) => e.type === 'fetcher' && e.broker === 1 && e.action === 'explain');
    expect(explained?.rule).toBe('classicTieredOffsetNotEmpty');
    const rejoin = byType(json.trace as Loose[], 'isr').find((e) => e.added?.includes(1) && e.atMs >= 15000);
    expect(rejoin).toBeDefined();
    const b1 = replicaOf(json, 1);
    const b0 = replicaOf(json, 0);
    expect(b1.logEndOffset).toBe(b0.logEndOffset);
  });

  test('remote retention raises Log-Start-Offset before deleting, under a bootstrapping follower', () => {
    const { json } = runBundled('remote-retention-under-bootstrap');
    expect(json.violations).toEqual([]);
    const p = json.partitions[0];
    const states = Object.fromEntries(p.remoteSegments.map((s) => [s.baseOffset, s.state]));
    expect(states).toEqual({ 0: 'DELETE_SEGMENT_FINISHED', 100: 'DELETE_SEGMENT_FINISHED', 200: 'DELETE_SEGMENT_FINISHED', 300: 'COPY_SEGMENT_FINISHED' });
    const raised = byType(json.trace as Loose[], 'log', 'logStartOffsetRaised').filter((e) => e.broker === 0);
    // One pass expires all three: LSO is raised once, to 300, before the first DELETE_SEGMENT_STARTED
    // (RLMExpirationTask.handleLogStartOffsetUpdate).
    expect(raised.map((e) => e.logStartOffset)).toEqual([300]);
    const started = byType(json.trace as Loose[], 'remoteMetadata', 'stateChanged').filter((e) => e.to === 'DELETE_SEGMENT_STARTED');
    expect(json.trace.indexOf(raised[0] as never)).toBeLessThan(json.trace.indexOf(started[0] as never));
    expect(replicaOf(json, 0).logStartOffset).toBe(300);
    expect(replicaOf(json, 1).logStartOffset).toBe(300);
    expect(replicaOf(json, 1).logEndOffset).toBe(400);
  });

  test('tiering disabled and enabled again: a stale Ry below Log-Start-Offset, and the follower starts at LSO', () => {
    const { json } = runBundled('tiering-disabled-and-reenabled');
    expect(json.violations).toEqual([]);
    const disabled = byType(json.trace as Loose[], 'log', 'logStartOffsetRaised').find((e) => e.rule === 'remoteDeletedOnDisable');
    expect(disabled).toMatchObject({ atMs: 1000, logStartOffset: 100 });
    const epuo = (json.trace as Loose[]).find((e) => e.type === 'response' && e.timestamp === -6);
    const lsoAt = (json.trace as Loose[]).find((e) => e.type === 'response' && e.timestamp === -2);
    expect(epuo!.offset).toBe(lsoAt!.offset);
    expect(epuo!.offset).toBeGreaterThan(100);
    const trunc = byType(json.trace as Loose[], 'log', 'truncateFullyAndStartAt').find((e) => e.broker === 1);
    expect(trunc).toMatchObject({ offset: epuo!.offset, rule: 'kip1023StartAtLogStart' });
    expect(replicaOf(json, 1).logEndOffset).toBe(replicaOf(json, 0).logEndOffset);
  });
});

describe('ISR', () => {
  test('a follower not caught up within replica.lag.time.max.ms leaves the ISR, and the HW moves on without it', () => {
    // Goal: Kafka's maybeShrinkIsr, at the machine level.
    // Method: leader with ISR [0, 1]; broker 1 fetched last at t=0 with LEO 100; isr.check at t=40000.
    const facts = (nowMs: number, leo: number, hw: number) => ({
      view: { tiered: true, logStartOffset: 0, localLogStartOffset: 0, logEndOffset: leo, highWatermark: hw, highestOffsetInRemoteStorage: -1, leaderEpoch: 0 },
      leaderEpochStartOffset: 0,
      nowMs,
      minIsr: 1,
      lagTimeMaxMs: 30000,
      isrEligible: [0, 1],
    });
    let [snap] = initialTransition(leaderPartitionMachine, { broker: 0, topic: 't', partition: 0 });
    [snap] = transition(leaderPartitionMachine, snap, { type: 'leadership.assumed', leaderEpoch: 0, isr: [0, 1], replicas: [0, 1], nowMs: 0, logEndOffset: 100, minIsr: 1 });
    let actions;
    [snap, actions] = transition(leaderPartitionMachine, snap, { type: 'isr.check', timerId: 1, ...facts(40000, 150, 100) });
    const effects = actions.filter((a) => !a.type.startsWith('xstate.')).map((a) => [a.type, (a as Loose).params]);
    expect(effects).toContainEqual(['isrChanged', { isr: [0], added: [], removed: [1], rule: 'followerLagging' }]);
    expect(effects).toContainEqual(['advanceHighWatermark', { highWatermark: 150 }]);
    expect(snap.context.isr).toEqual([0]);
  });
});
