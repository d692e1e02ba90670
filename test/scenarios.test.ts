/**
 * One story per bundled scenario, asserting the outcome docs/protocol.md §9 gives and
 * the request sequence in the trace.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import { type Loose, ROOT, collapse, fetchErrorsTo, loadBundled, replicaOf, requestsFrom, runBundled } from './support/run.js';

describe('bundled scenarios (docs/protocol.md §9)', () => {
  test('example 1: flag off, leader 0/100/200: OFFSET_MOVED_TO_TIERED_STORAGE, then LLSO 100 in one round', () => {
    // Goal: the classic KIP-405 path for a follower below the leader's local log start.
    // Method: run classic-one-round; check the follower's requests and its final offsets.
    const { json } = runBundled('classic-one-round');
    const trace = json.trace;
    expect(fetchErrorsTo(trace, 1)).toEqual(['OFFSET_MOVED_TO_TIERED_STORAGE']);
    expect(collapse(requestsFrom(trace, 1))).toEqual(['Fetch@0', 'ListOffsets-4', 'ListOffsets-1', 'Fetch@100', 'Fetch@150', 'Fetch@200']);
    const f = replicaOf(json, 1);
    expect([f.logStartOffset, f.localLogStartOffset, f.logEndOffset]).toEqual([0, 100, 200]);
    expect(f.inIsr).toBe(true);
    expect(f.fetcher).toMatchObject({ state: 'fetching', fetchOffset: 200, delayed: false, failed: false });
    expect(json.violations).toEqual([]);
  });

  test('example 2: flag off, leader 10/100/200: two rounds, OOR to 10 then OMTTS to 100', () => {
    // Goal: since Kafka 3.5 the OOR path asks EARLIEST (-2), so a tiered follower needs two rounds.
    // Method: run classic-two-rounds; the follower's requests show both rounds.
    const { json } = runBundled('classic-two-rounds');
    expect(fetchErrorsTo(json.trace, 1)).toEqual(['OFFSET_OUT_OF_RANGE', 'OFFSET_MOVED_TO_TIERED_STORAGE']);
    expect(collapse(requestsFrom(json.trace, 1))).toEqual([
      'Fetch@0', 'ListOffsets-1', 'ListOffsets-2', 'Fetch@10', 'ListOffsets-4', 'ListOffsets-1', 'Fetch@100', 'Fetch@150', 'Fetch@200',
    ]);
    const f = replicaOf(json, 1);
    expect([f.logStartOffset, f.localLogStartOffset, f.logEndOffset]).toEqual([10, 100, 200]);
    const truncations = json.trace.filter((e) => e.type === 'log' && (e as Loose).action === 'truncateFullyAndStartAt');
    expect(truncations.map((e) => (e as Loose).offset)).toEqual([10, 100]);
    expect(json.violations).toEqual([]);
  });

  test('KIP-1023: an empty follower starts at the earliest pending upload offset', () => {
    // Goal: one round, no intermediate move to the log start offset.
    // Method: leader 10/100/200 with Ry 149; the follower asks -2, -6, -4 and fetches at 150.
    const { json } = runBundled('kip1023-bootstrap');
    expect(fetchErrorsTo(json.trace, 1)).toEqual(['OFFSET_OUT_OF_RANGE']);
    expect(collapse(requestsFrom(json.trace, 1))).toEqual(['Fetch@0', 'ListOffsets-2', 'ListOffsets-6', 'ListOffsets-4', 'ListOffsets-1', 'Fetch@150', 'Fetch@200']);
    const epuo = json.trace.find((e) => e.type === 'response' && (e as Loose).timestamp === -6) as Loose;
    expect(epuo.offset).toBe(150);
    const f = replicaOf(json, 1);
    expect([f.logStartOffset, f.localLogStartOffset, f.logEndOffset, f.highWatermark]).toEqual([10, 150, 200, 200]);
    // Only the 50 records not yet uploaded cross from the leader.
    expect(json.metrics.bytesFetchedByFollowers).toBe(50 * 1024);
    expect(json.violations).toEqual([]);
  });

  test('example 3: flag on, leader 0/0/200, Ry unknown: the first Fetch succeeds, no jump', () => {
    const { json } = runBundled('kip1023-no-jump');
    expect(fetchErrorsTo(json.trace, 1)).toEqual([]);
    const reqs = requestsFrom(json.trace, 1);
    expect(reqs[0]).toBe('Fetch@0');
    expect(reqs.some((r) => r.startsWith('ListOffsets'))).toBe(false);
    const f = replicaOf(json, 1);
    expect([f.logStartOffset, f.localLogStartOffset, f.logEndOffset]).toEqual([0, 0, 200]);
  });

  test('example 4: flag on, leader 0/10/200, EPUO unknown: delayed at fetchOffset 0, retried after the backoff', () => {
    // Goal: while the leader has not learned Ry, the follower backs off and keeps fetchOffset 0.
    // Method: step to t=500 and look at the fetcher; then run on until the leader learns Ry.
    const kernel = new Kernel(loadBundled('kip1023-unknown-epuo-retry'));
    kernel.runUntil(500);
    const early = buildRunJson(kernel);
    expect(replicaOf(early, 1).fetcher).toMatchObject({ fetchOffset: 0, delayed: true, failed: false });
    expect(replicaOf(early, 1).logEndOffset).toBe(0);
    const delays = early.trace.filter((e) => e.type === 'fetcher' && (e as Loose).action === 'delayed');
    expect(delays).toHaveLength(1);
    expect((delays[0] as Loose).retryAtMs - delays[0].atMs).toBe(1000);

    kernel.runToEnd();
    const json = buildRunJson(kernel);
    const learned = json.trace.find((e) => e.type === 'rlm' && (e as Loose).broker === 0 && (e as Loose).action === 'highestOffsetInRemoteStorageUpdated');
    expect(learned?.atMs).toBe(6000);
    const epuoAnswers = json.trace.filter((e) => e.type === 'response' && (e as Loose).timestamp === -6).map((e) => (e as Loose).offset);
    expect(epuoAnswers.slice(0, 3)).toEqual([-1, -1, -1]);
    expect(epuoAnswers[epuoAnswers.length - 1]).toBe(150);
    const f = replicaOf(json, 1);
    expect([f.localLogStartOffset, f.logEndOffset]).toEqual([150, 200]);
    expect(json.violations).toEqual([]);
  });

  test('example 5: flag on, leader 0/10/200/EPUO 150: start 150 in one round, LLSO 150', () => {
    const { json } = runBundled('kip1023-epuo-above-local-start');
    expect(fetchErrorsTo(json.trace, 1)).toEqual(['OFFSET_MOVED_TO_TIERED_STORAGE']);
    expect(collapse(requestsFrom(json.trace, 1))).toEqual(['Fetch@0', 'ListOffsets-2', 'ListOffsets-6', 'ListOffsets-4', 'ListOffsets-1', 'Fetch@150', 'Fetch@200']);
    const f = replicaOf(json, 1);
    expect([f.logStartOffset, f.localLogStartOffset, f.logEndOffset]).toEqual([0, 150, 200]);
  });

  test('example 6: flag on, leader 10/100/200 with stale Ry 5: leader answers 10, follower starts at 100', () => {
    const { json } = runBundled('kip1023-stale-epuo');
    const epuo = json.trace.find((e) => e.type === 'response' && (e as Loose).timestamp === -6) as Loose;
    expect(epuo.offset).toBe(10);
    const f = replicaOf(json, 1);
    expect([f.logStartOffset, f.localLogStartOffset, f.logEndOffset]).toEqual([10, 100, 200]);
    expect(collapse(requestsFrom(json.trace, 1))).toContain('Fetch@100');
  });

  test('kip1023-epuo-below-log-start: EPUO below Log-Start-Offset after tiering was re-enabled: truncate and replicate from LSO', () => {
    const { json } = runBundled('kip1023-epuo-below-log-start');
    const epuo = json.trace.find((e) => e.type === 'response' && (e as Loose).timestamp === -6) as Loose;
    expect(epuo.offset).toBe(100);
    // No remote auxiliary state was read by the follower.
    expect(json.trace.some((e) => e.type === 'objectStore' && (e as Loose).broker === 1)).toBe(false);
    const truncations = json.trace.filter((e) => e.type === 'log' && (e as Loose).action === 'truncateFullyAndStartAt');
    expect(truncations.map((e) => (e as Loose).rule)).toEqual(['kip1023StartAtLogStart']);
    const f = replicaOf(json, 1);
    expect([f.logStartOffset, f.localLogStartOffset, f.logEndOffset]).toEqual([100, 100, 200]);
    expect(json.metrics.bytesFetchedByFollowers).toBe(100 * 1024);
  });

  test('example 7: a retriable remote storage error while building aux state: delayed at fetchOffset 0, not failed', () => {
    const kernel = new Kernel(loadBundled('kip1023-remote-storage-error'));
    kernel.runUntil(1000);
    const early = buildRunJson(kernel);
    expect(replicaOf(early, 1).fetcher).toMatchObject({ fetchOffset: 0, delayed: true, failed: false });
    const failedGet = early.trace.find((e) => e.type === 'objectStore' && !(e as Loose).ok);
    expect(failedGet).toMatchObject({ op: 'get', purpose: 'leaderEpochCheckpoint', error: 'ServiceUnavailable' });
    kernel.runToEnd();
    const json = buildRunJson(kernel);
    const f = replicaOf(json, 1);
    expect(f.logEndOffset).toBe(200);
    expect(f.fetcher?.failed).toBe(false);
    expect(json.violations).toEqual([]);
  });

  test('leader epochs: OffsetsForLeaderEpoch(E-1) picks the epoch, and the restored cache is the leader history', () => {
    const { json } = runBundled('kip1023-leader-epochs');
    for (const b of [1, 2]) {
      const reqs = collapse(requestsFrom(json.trace, b));
      expect(reqs.slice(0, 7)).toEqual(['Fetch@0', 'ListOffsets-2', 'ListOffsets-6', 'ListOffsets-4', 'OffsetsForLeaderEpoch(1)', 'ListOffsets-1', 'Fetch@150']);
      const r = replicaOf(json, b);
      expect(r.leaderEpochs).toEqual([[0, 0], [1, 50], [2, 120]]);
      expect([r.localLogStartOffset, r.logEndOffset]).toEqual([150, 700]);
    }
    const consume = json.trace.find((e) => e.type === 'consume') as Loose;
    // Local retention (1 byte) deleted the uploaded 100-149 at the log retention task's first run (t = 0 here): 150 records come from remote storage.
    expect(consume.recordsRemote).toBe(150);
    expect(consume.recordsLocal).toBe(150);
    const remoteRead = json.trace.find((e) => e.type === 'response' && (e as Loose).servedFrom === 'remote');
    expect(remoteRead).toBeDefined();
    expect(json.metrics.remoteReads).toEqual({ '0': { count: 2, bytes: 150 * 1024 } });
    const acked = json.trace.find((e) => e.type === 'produce' && (e as Loose).action === 'acknowledged');
    expect(acked).toMatchObject({ acks: 'all', lastOffset: 699 });
    expect(json.violations).toEqual([]);
  });

  test('every bundled scenario runs with no violation', () => {
    const files = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(9);
    for (const f of files) {
      const { json } = runBundled(f.replace(/\.yaml$/, ''));
      expect({ f, violations: json.violations }).toEqual({ f, violations: [] });
      expect(json.scenario.length).toBeGreaterThan(0);
    }
  });
});
