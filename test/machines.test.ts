/**
 * transition()-level tests of the machines in core/machines.
 * The machines are pure: each event gives a next snapshot and the effects to run, as
 * action objects `{ type, params }`. These tests feed events the way core/sim/loop/kernel.ts
 * builds them (`replicaFacts`, `leaderFacts`, `onResponse`) and check the effects asked
 * for, never executing them. Expected behaviour: docs/protocol.md §3, §4, §5 and §9.
 */
import { describe, expect, test } from 'vitest';
import { type AnyMachineSnapshot, type AnyStateMachine, initialTransition, transition } from 'xstate';
import type { EpochEntry } from '../core/domain/leader-epoch-cache.js';
import type { LeaderView } from '../core/domain/leader-rules.js';
import type { RecordBatch } from '../core/domain/partition-log.js';
import type { ProducerEntry } from '../core/domain/producer-state.js';
import type { KafkaError, ListOffsetsTimestamp } from '../core/domain/protocol.js';
import type { LocalRetentionStop, SegmentRange } from '../core/domain/retention.js';
import { type FollowerFetcherEvent, type ReplicaFacts, followerFetcherMachine } from '../core/machines/follower-fetcher.js';
import { type LeaderPartitionEvent, leaderPartitionMachine } from '../core/machines/leader-partition.js';
import { type LogRetentionEvent, type LogRetentionFacts, logRetentionMachine } from '../core/machines/log-retention.js';
import { type RemoteLogManagerEvent, type RlmFacts, remoteLogManagerMachine } from '../core/machines/remote-log-manager.js';
import { type RlmExpirationEvent, rlmExpirationMachine } from '../core/machines/rlm-expiration.js';
import type { Acks } from '../core/scenario/types.js';

// ---------------------------------------------------------------------------------------
// Harness

/** An effect a machine asks the kernel for. */
interface Effect {
  type: string;
  params: Record<string, unknown>;
}

/** An event, or a function building one from the snapshot and the effects so far (to answer the last request). */
type Step<E> = E | ((snapshot: AnyMachineSnapshot, effects: Effect[]) => E);

interface Fed {
  snapshot: AnyMachineSnapshot;
  /** Every effect, in order, from the initial transition on. */
  effects: Effect[];
  /** The effects of the last event only. */
  lastEffects: Effect[];
}

function effectsOf(actions: readonly unknown[]): Effect[] {
  return (actions as { type: string; params?: Record<string, unknown> }[])
    .filter((a) => !a.type.startsWith('xstate.'))
    .map((a) => ({ type: a.type, params: a.params ?? {} }));
}

/** Feeds `events` to a fresh machine (or on from `from`) and returns the final snapshot and the effects. */
function feed<E>(machine: AnyStateMachine, input: unknown, events: Step<E>[], from?: Fed): Fed {
  let snapshot: AnyMachineSnapshot;
  let effects: Effect[];
  let lastEffects: Effect[] = [];
  if (from === undefined) {
    const [s, a] = initialTransition(machine, input as never);
    snapshot = s as AnyMachineSnapshot;
    effects = effectsOf(a);
  } else {
    snapshot = from.snapshot;
    effects = [...from.effects];
  }
  for (const step of events) {
    const event = typeof step === 'function' ? (step as (s: AnyMachineSnapshot, fx: Effect[]) => E)(snapshot, effects) : step;
    const [s, a] = transition(machine, snapshot as never, event as never);
    snapshot = s as AnyMachineSnapshot;
    lastEffects = effectsOf(a);
    effects.push(...lastEffects);
  }
  return { snapshot, effects, lastEffects };
}

/** The id of the last request or timer the machine asked for (what the kernel echoes back). */
function lastId(effects: Effect[]): number {
  for (let i = effects.length - 1; i >= 0; i--) {
    const p = effects[i].params;
    if (typeof p.requestId === 'number') return p.requestId;
    if (typeof p.timerId === 'number') return p.timerId;
  }
  throw new Error('no request or timer asked for yet');
}

function types(effects: Effect[]): string[] {
  return effects.map((e) => e.type);
}

function ofType(effects: Effect[], type: string): Effect[] {
  return effects.filter((e) => e.type === type);
}

function last(effects: Effect[], type: string): Effect {
  const all = ofType(effects, type);
  expect(all.length, `an effect ${type}`).toBeGreaterThan(0);
  return all[all.length - 1];
}

function stateOf(s: AnyMachineSnapshot): string {
  const walk = (v: unknown): string => (typeof v === 'string' ? v : Object.entries(v as Record<string, unknown>).map(([k, c]) => `${k}.${walk(c)}`).join(','));
  return walk(s.value);
}

// ---------------------------------------------------------------------------------------
// Follower fetcher: events as core/sim/loop/kernel.ts builds them

type FEv = FollowerFetcherEvent;

const FOLLOWER = { broker: 1, topic: 't', partition: 0 };

/** kernel.replicaFacts: the follower's LEO and configs; defaults: tiered, flag off, not compacted. */
function facts(logEndOffset: number, o: Partial<ReplicaFacts> = {}): ReplicaFacts {
  return { logEndOffset, lastTieredOffsetEnabled: false, tiered: true, compacted: false, leaderEpochs: [], ...o };
}

const FLAG_ON = { lastTieredOffsetEnabled: true };

function started(replica: ReplicaFacts, leaderEpoch = 0, lastFetchedEpoch = -1): FEv {
  return { type: 'fetcher.started', leader: 0, leaderEpoch, replica, lastFetchedEpoch };
}

function batch(baseOffset: number, lastOffset: number, leaderEpoch = 0): RecordBatch {
  return { baseOffset, lastOffset, leaderEpoch, producerId: 3, baseSequence: baseOffset, bytes: (lastOffset - baseOffset + 1) * 100, appendedMs: 0 };
}

interface FetchAnswer {
  error?: KafkaError | null;
  batches?: RecordBatch[];
  highWatermark?: number;
  logStartOffset?: number;
  divergingEpoch?: { epoch: number; endOffset: number } | null;
  replica: ReplicaFacts;
  requestId?: number;
}

/** kernel.respondFetch + onResponse: an answer to the last Fetch (the leader's HW and LSO ride along, errors too). */
function fetched(a: FetchAnswer): Step<FEv> {
  return (_s, fx) => ({
    type: 'fetch.responded',
    requestId: a.requestId ?? lastId(fx),
    error: a.error ?? null,
    batches: a.batches ?? [],
    highWatermark: a.highWatermark ?? 200,
    logStartOffset: a.logStartOffset ?? 0,
    divergingEpoch: a.divergingEpoch ?? null,
    replica: a.replica,
  });
}

/** An answer to the last ListOffsets; the timestamp is the one the machine asked for. */
function listed(offset: number, leaderEpoch: number, replica: ReplicaFacts, error: KafkaError | null = null): Step<FEv> {
  return (_s, fx) => ({
    type: 'listOffsets.responded',
    requestId: lastId(fx),
    timestamp: last(fx, 'sendListOffsets').params.timestamp as ListOffsetsTimestamp,
    error,
    offset: error ? -1 : offset,
    leaderEpoch: error ? -1 : leaderEpoch,
    replica,
  });
}

function epochEnd(leaderEpoch: number, endOffset: number, error: KafkaError | null = null): Step<FEv> {
  return (_s, fx) => ({ type: 'offsetsForLeaderEpoch.responded', requestId: lastId(fx), error, leaderEpoch, endOffset });
}

const KEYS = { leaderEpochCheckpoint: 'seg.leader_epoch_checkpoint', producerSnapshot: 'seg.snapshot' };

function lookedUp(found: { baseOffset: number; endOffset: number } | null, reason: string | null = null): Step<FEv> {
  return (_s, fx) => ({
    type: 'remoteSegment.lookedUp',
    requestId: lastId(fx),
    found: found === null ? null : { segmentId: 'seg', ...found, keys: KEYS },
    reason,
  });
}

function got(ok: boolean, body: { leaderEpochs?: EpochEntry[]; producers?: ProducerEntry[] } = {}): Step<FEv> {
  return (_s, fx) => ({ type: 'objectStore.getCompleted', requestId: lastId(fx), ok, error: ok ? null : 'SlowDown', ...body });
}

function backoffExpired(): Step<FEv> {
  return (_s, fx) => ({ type: 'backoff.expired', timerId: lastId(fx) });
}

const CHECKPOINT: EpochEntry[] = [[0, 0]];
const PRODUCERS: ProducerEntry[] = [{ producerId: 3, producerEpoch: 0, lastSequence: 99, lastOffset: 99, offsetDelta: 15, timestamp: 0, coordinatorEpoch: -1, currentTxnFirstOffset: -1 }];

function follow(events: Step<FEv>[], from?: Fed): Fed {
  return feed(followerFetcherMachine, FOLLOWER, events, from);
}

/** The remote aux-state build once the segment is known: the two GETs succeed. */
/** Both GETs of the aux state succeed, then the leader answers ListOffsets -1 (LEO 200), as TierStateMachine.start asks. */
function auxStateSucceeds(): Step<FEv>[] {
  return [got(true, { leaderEpochs: CHECKPOINT }), got(true, { producers: PRODUCERS }), listed(200, 0, facts(0))];
}

function fetchOffsets(effects: Effect[]): number[] {
  return ofType(effects, 'sendFetch').map((e) => e.params.fetchOffset as number);
}

function listOffsetsTimestamps(effects: Effect[]): number[] {
  return ofType(effects, 'sendListOffsets').map((e) => e.params.timestamp as number);
}

describe('followerFetcherMachine', () => {
  test('starts idle and asks for nothing', () => {
    // Goal: no effect before the kernel starts the fetcher. Method: the initial transition alone.
    const r = follow([]);
    expect(stateOf(r.snapshot)).toBe('idle');
    expect(r.effects).toEqual([]);
  });

  test('fetcher.started sends Fetch at the replica log end offset', () => {
    // Goal: a fetcher starts at its own LEO with the current leader epoch and its latest epoch.
    // Method: replica with LEO 42, leader epoch 3, latest local epoch 2.
    const r = follow([started(facts(42), 3, 2)]);
    expect(stateOf(r.snapshot)).toBe('fetching');
    expect(r.effects).toEqual([{ type: 'sendFetch', params: { requestId: 1, fetchOffset: 42, currentLeaderEpoch: 3, lastFetchedEpoch: 2 } }]);
  });

  test('records: appendRecords, then Fetch at lastOffset + 1 with the last batch epoch', () => {
    // Goal: docs/protocol.md §4.1 "Records": append, fetchOffset = lastOffset + 1.
    // Method: an empty follower gets two batches [0, 9] and [10, 19] in epoch 2.
    const batches = [batch(0, 9, 2), batch(10, 19, 2)];
    const r = follow([started(facts(0), 2), fetched({ batches, highWatermark: 15, logStartOffset: 0, replica: facts(0) })]);
    expect(stateOf(r.snapshot)).toBe('fetching');
    expect(r.lastEffects).toEqual([
      { type: 'appendRecords', params: { batches, highWatermark: 15, logStartOffset: 0 } },
      { type: 'sendFetch', params: { requestId: 2, fetchOffset: 20, currentLeaderEpoch: 2, lastFetchedEpoch: 2 } },
    ]);
  });

  test('an empty answer (long poll expired) fetches again at the same offset', () => {
    // Goal: no records, no move. Method: a follower at 20 gets an empty answer.
    const r = follow([started(facts(20), 1, 1), fetched({ highWatermark: 20, replica: facts(20) })]);
    expect(types(r.lastEffects)).toEqual(['appendRecords', 'sendFetch']);
    expect(r.lastEffects[1].params).toMatchObject({ requestId: 2, fetchOffset: 20, lastFetchedEpoch: 1 });
  });

  describe('classic OFFSET_OUT_OF_RANGE (flag off)', () => {
    test('leader LSO above own LEO: ListOffsets -1, then -2, then truncateFullyAndStartAt(leader LSO)', () => {
      // Goal: docs/protocol.md §4.1 and example 2's first round (leader 10 / 100 / 200).
      // Method: empty follower; Fetch(0) -> OOR; LATEST 200; EARLIEST 10.
      const r = follow([
        started(facts(0)),
        fetched({ error: 'OFFSET_OUT_OF_RANGE', logStartOffset: 10, replica: facts(0) }),
        listed(200, 0, facts(0)),
        listed(10, 0, facts(0)),
      ]);
      expect(listOffsetsTimestamps(r.effects)).toEqual([-1, -2]);
      expect(r.lastEffects).toEqual([
        { type: 'truncateFullyAndStartAt', params: { offset: 10, logStartOffset: 10, rule: 'leaderStartAboveFollowerEnd' } },
        { type: 'sendFetch', params: { requestId: 4, fetchOffset: 10, currentLeaderEpoch: 0, lastFetchedEpoch: -1 } },
      ]);
      expect(stateOf(r.snapshot)).toBe('fetching');
    });

    test('unclean election: leader LEO below own LEO -> truncateTo(leader LEO), no ListOffsets -2', () => {
      // Goal: docs/protocol.md §4.1, leaderEndBelowFollowerEnd: a leader LEO below the follower's (unclean election) truncates to it.
      // Method: follower LEO 120 fetches at 120; the leader's LEO is 100.
      const own = facts(120, { leaderEpochs: [[3, 0]] });
      const r = follow([
        started(own, 4, 3),
        fetched({ error: 'OFFSET_OUT_OF_RANGE', logStartOffset: 0, replica: own }),
        listed(100, 4, own),
      ]);
      expect(listOffsetsTimestamps(r.effects)).toEqual([-1]);
      expect(r.lastEffects).toEqual([
        { type: 'truncateTo', params: { offset: 100, rule: 'leaderEndBelowFollowerEnd' } },
        { type: 'sendFetch', params: { requestId: 3, fetchOffset: 100, currentLeaderEpoch: 4, lastFetchedEpoch: 3 } },
      ]);
    });

    test('leader LSO at or below own LEO: fetch from max(leader LSO, own LEO), nothing truncated', () => {
      // Goal: the third branch of fetchOffsetAndTruncate. Method: follower LEO 50, leader 10 / 10 / 200.
      const r = follow([
        started(facts(50)),
        fetched({ error: 'OFFSET_OUT_OF_RANGE', logStartOffset: 10, replica: facts(50) }),
        listed(200, 0, facts(50)),
        listed(10, 0, facts(50)),
      ]);
      expect(ofType(r.effects, 'truncateTo')).toEqual([]);
      expect(ofType(r.effects, 'truncateFullyAndStartAt')).toEqual([]);
      expect(fetchOffsets(r.effects)).toEqual([50, 50]);
    });

    test('example 2 (leader 10 / 100 / 200): two rounds, OOR then OFFSET_MOVED_TO_TIERED_STORAGE, ends at LLSO 100', () => {
      // Goal: since Kafka 3.5 OOR uses EARLIEST (-2), so a follower below a tiered LSO needs two rounds.
      // Method: run both rounds to the Fetch at 100.
      const r = follow([
        started(facts(0)),
        fetched({ error: 'OFFSET_OUT_OF_RANGE', logStartOffset: 10, replica: facts(0) }),
        listed(200, 0, facts(0)),
        listed(10, 0, facts(0)),
        fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', logStartOffset: 10, replica: facts(10) }),
        listed(100, 0, facts(10)),
        lookedUp({ baseOffset: 50, endOffset: 99 }),
        ...auxStateSucceeds(),
      ]);
      expect(listOffsetsTimestamps(r.effects)).toEqual([-1, -2, -4, -1]);
      expect(fetchOffsets(r.effects)).toEqual([0, 10, 100]);
      expect(ofType(r.effects, 'truncateFullyAndStartAt').map((e) => e.params)).toEqual([
        { offset: 10, logStartOffset: 10, rule: 'leaderStartAboveFollowerEnd' },
        { offset: 100, logStartOffset: 10, rule: 'auxStateClassic' },
      ]);
      expect(stateOf(r.snapshot)).toBe('fetching');
    });
  });

  describe('classic OFFSET_MOVED_TO_TIERED_STORAGE and the remote aux state (docs/protocol.md §4.3)', () => {
    test('example 1 (flag off, leader 0 / 100 / 200): ListOffsets -4, aux state, Fetch from segment end + 1', () => {
      // Goal: the whole success path: one lookup, truncateFullyAndStartAt, both GETs, restores, Fetch.
      // Method: target epoch 0, so no OffsetsForLeaderEpoch; the remote segment [50, 99] covers (0, 99).
      const r = follow([
        started(facts(0)),
        fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', logStartOffset: 0, replica: facts(0) }),
        listed(100, 0, facts(0)),
        lookedUp({ baseOffset: 50, endOffset: 99 }),
        ...auxStateSucceeds(),
      ]);
      expect(types(r.effects)).toEqual([
        'sendFetch',
        'explain',
        'sendListOffsets',
        'lookupRemoteSegment',
        'truncateFullyAndStartAt',
        'getRemoteObject',
        'restoreLeaderEpochs',
        'getRemoteObject',
        'restoreProducerState',
        'sendListOffsets',
        'explain',
        'sendFetch',
      ]);
      expect(listOffsetsTimestamps(r.effects)).toEqual([-4, -1]);
      expect(last(r.effects, 'explain').params).toEqual({ rule: 'auxStateBuilt', detail: { offset: 100, leaderEndOffset: 200, initialLag: 100 } });
      expect(last(r.effects, 'lookupRemoteSegment').params).toMatchObject({ epoch: 0, offset: 99 });
      expect(last(r.effects, 'truncateFullyAndStartAt').params).toEqual({ offset: 100, logStartOffset: 0, rule: 'auxStateClassic' });
      expect(ofType(r.effects, 'getRemoteObject').map((e) => [e.params.key, e.params.purpose])).toEqual([
        [KEYS.leaderEpochCheckpoint, 'leaderEpochCheckpoint'],
        [KEYS.producerSnapshot, 'producerSnapshot'],
      ]);
      expect(last(r.effects, 'restoreLeaderEpochs').params).toEqual({ entries: CHECKPOINT });
      expect(last(r.effects, 'restoreProducerState').params).toEqual({ entries: PRODUCERS });
      expect(last(r.effects, 'sendFetch').params).toMatchObject({ fetchOffset: 100 });
      expect(r.snapshot.context).toMatchObject({ fetchOffset: 100, path: 'classic' });
    });

    test('OFFSET_MOVED_TO_TIERED_STORAGE enters buildingAuxState after the EARLIEST_LOCAL answer', () => {
      // Goal: -4 first, then the aux-state build. Method: stop after the ListOffsets answer.
      const r = follow([
        started(facts(0)),
        fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: facts(0) }),
      ]);
      expect(stateOf(r.snapshot)).toBe('tieredOffset.awaitingEarliestLocalOffset');
      expect(last(r.effects, 'sendListOffsets').params).toEqual({ requestId: 2, timestamp: -4, currentLeaderEpoch: 0 });
      const s = follow([listed(100, 2, facts(0))], r);
      expect(stateOf(s.snapshot)).toBe('buildingAuxState.awaitingEpochEndOffset');
    });

    test.each<[string, number, number, [number, number] | null, number]>([
      // name, L (LLSO), E (epoch of L), OffsetsForLeaderEpoch(E - 1) answer, epoch looked up
      ['target epoch 0: no OffsetsForLeaderEpoch, epoch 0', 100, 0, null, 0],
      ["Kafka's gap example: L 90 in epoch 3, OffsetsForLeaderEpoch(2) = (1, 90) -> epoch 1", 90, 3, [1, 90], 1],
      ['L 90 in epoch 3, OffsetsForLeaderEpoch(2) = (2, 90): endOffset > L - 1 -> epoch 2', 90, 3, [2, 90], 2],
      ['L 95 inside epoch 3, OffsetsForLeaderEpoch(2) = (2, 90): endOffset <= L - 1 -> epoch 3', 95, 3, [2, 90], 3],
      ['L 95 in epoch 1, OffsetsForLeaderEpoch(0) = (0, 95): endOffset == L -> epoch 0', 95, 1, [0, 95], 0],
      ['L 95 in epoch 1, OffsetsForLeaderEpoch(0) = (0, 94): endOffset == L - 1 -> epoch 1', 95, 1, [0, 94], 1],
    ])('previous epoch: %s', (_name, l, e, answer, lookupEpoch) => {
      // Goal: TierStateMachine.buildRemoteLogAuxState step 1, the epoch of L - 1.
      // Method: OMTTS, ListOffsets -4 answers (L, E), then the OffsetsForLeaderEpoch answer if asked.
      const steps: Step<FEv>[] = [
        started(facts(0), 4),
        fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: facts(0) }),
        listed(l, e, facts(0)),
      ];
      if (answer !== null) steps.push(epochEnd(answer[0], answer[1]));
      const r = follow(steps);
      const asked = ofType(r.effects, 'sendOffsetsForLeaderEpoch');
      if (answer === null) expect(asked).toEqual([]);
      else expect(asked.map((x) => x.params)).toEqual([{ requestId: 3, leaderEpoch: e - 1, currentLeaderEpoch: 4 }]);
      expect(last(r.effects, 'lookupRemoteSegment').params).toMatchObject({ epoch: lookupEpoch, offset: l - 1 });
      expect(stateOf(r.snapshot)).toBe('buildingAuxState.lookingUpRemoteSegment');
    });

    test('remote segment not found -> delayed with startBackoff; backoff.expired -> Fetch again at the same fetchOffset', () => {
      // Goal: docs/protocol.md §4.3 step 2: "previous remote log segment metadata was not found" -> delay and retry.
      // Method: the lookup finds nothing (metadata still loading); then the timer fires.
      const r = follow([
        started(facts(0)),
        fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: facts(0) }),
        listed(100, 0, facts(0)),
        lookedUp(null, 'remote log metadata is still loading'),
      ]);
      expect(stateOf(r.snapshot)).toBe('delayed');
      expect(r.lastEffects).toEqual([
        {
          type: 'explain',
          params: { rule: 'remoteSegmentNotFound', detail: { epoch: 0, offset: 99, reason: 'remote log metadata is still loading' } },
        },
        { type: 'startBackoff', params: { timerId: 4, reason: 'previous remote log segment metadata was not found' } },
      ]);
      expect(ofType(r.effects, 'truncateFullyAndStartAt')).toEqual([]);
      const s = follow([backoffExpired()], r);
      expect(stateOf(s.snapshot)).toBe('fetching');
      expect(s.lastEffects).toEqual([{ type: 'sendFetch', params: { requestId: 5, fetchOffset: 0, currentLeaderEpoch: 0, lastFetchedEpoch: -1 } }]);
      expect(s.snapshot.context.retries).toBe(1);
    });

    test.each<[string, Step<FEv>[]]>([
      ['the leader-epoch checkpoint GET fails', [got(false)]],
      ['the producer snapshot GET fails', [got(true, { leaderEpochs: CHECKPOINT }), got(false)]],
    ])('getRemoteObject failure -> delayed, fetchOffset unchanged: %s', (_name, gets) => {
      // Goal: a retriable remote storage error delays the partition (docs/protocol.md §4.1 "Any failure").
      // Method: the segment is found, then a GET fails; then the backoff expires.
      const r = follow([
        started(facts(0)),
        fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: facts(0) }),
        listed(100, 0, facts(0)),
        lookedUp({ baseOffset: 50, endOffset: 99 }),
        ...gets,
      ]);
      expect(stateOf(r.snapshot)).toBe('delayed');
      expect(last(r.effects, 'startBackoff').params.reason).toBe('remote storage error: SlowDown');
      expect(ofType(r.effects, 'restoreProducerState')).toEqual([]);
      expect(r.snapshot.context.fetchOffset).toBe(0);
      const s = follow([backoffExpired()], r);
      expect(s.lastEffects).toEqual([expect.objectContaining({ type: 'sendFetch', params: expect.objectContaining({ fetchOffset: 0 }) })]);
    });

    test.each<[string, 'listOffsets' | 'offsetsForLeaderEpoch']>([
      ['ListOffsets -4 answers NOT_LEADER_OR_FOLLOWER', 'listOffsets'],
      ['OffsetsForLeaderEpoch answers UNKNOWN_LEADER_EPOCH', 'offsetsForLeaderEpoch'],
    ])('an error answer while building -> delayed: %s', (_name, which) => {
      // Goal: every request of the build can fail and is retried after the backoff.
      // Method: fail the named request.
      const steps: Step<FEv>[] = [started(facts(0)), fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: facts(0) })];
      if (which === 'listOffsets') steps.push(listed(0, 0, facts(0), 'NOT_LEADER_OR_FOLLOWER'));
      else steps.push(listed(90, 3, facts(0)), epochEnd(-1, -1, 'UNKNOWN_LEADER_EPOCH'));
      const r = follow(steps);
      expect(stateOf(r.snapshot)).toBe('delayed');
      expect(types(r.lastEffects)).toEqual(['startBackoff']);
      expect(r.snapshot.context.fetchOffset).toBe(0);
    });
  });

  describe('KIP-1023 path (docs/protocol.md §4.2)', () => {
    test('ListOffsets -2, -6, -4 in that order, no -1', () => {
      // Goal: one round of three ListOffsets, no intermediate move to the log start offset.
      // Method: flag on, empty follower, leader 0 / 10 / 200 with EPUO 150.
      const r = follow([
        started(facts(0, FLAG_ON)),
        fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: facts(0, FLAG_ON) }),
        listed(0, 0, facts(0, FLAG_ON)),
        listed(150, 0, facts(0, FLAG_ON)),
        listed(10, 0, facts(0, FLAG_ON)),
      ]);
      expect(listOffsetsTimestamps(r.effects)).toEqual([-2, -6, -4]);
      expect(ofType(r.effects, 'explain')[0].params).toEqual({ rule: 'kip1023Eligible', detail: { error: 'OFFSET_MOVED_TO_TIERED_STORAGE' } });
    });

    test.each<[string, KafkaError, [number, number, number], [number, number, number], number, [number, number], number]>([
      // name, error of Fetch(0), leader LSO / LLSO / LEO, EPUO / its epoch / LLSO epoch, start, remote segment, LSO kept
      ['example 5: leader 0 / 10 / 200, EPUO 150 -> start 150', 'OFFSET_MOVED_TO_TIERED_STORAGE', [0, 10, 200], [150, 0, 0], 150, [100, 149], 0],
      ['example 6: leader 10 / 100 / 200, stale EPUO clamped to 10 -> start max(10, 100) = 100', 'OFFSET_OUT_OF_RANGE', [10, 100, 200], [10, 0, 0], 100, [50, 99], 10],
      ['EPUO below LLSO -> start LLSO', 'OFFSET_MOVED_TO_TIERED_STORAGE', [0, 100, 200], [60, 0, 0], 100, [60, 99], 0],
    ])('%s', (_name, error, [lso, llso], [epuo, epuoEpoch, llsoEpoch], start, [segBase, segEnd], keptLso) => {
      // Goal: start = max(EPUO, LLSO); aux state up to start; Fetch from start in one round.
      // Method: follow the three ListOffsets answers, the lookup and both GETs.
      const f = facts(0, FLAG_ON);
      const r = follow([
        started(f),
        fetched({ error, logStartOffset: lso, replica: f }),
        listed(lso, 0, f),
        listed(epuo, epuoEpoch, f),
        listed(llso, llsoEpoch, f),
        lookedUp({ baseOffset: segBase, endOffset: segEnd }),
        ...auxStateSucceeds(),
      ]);
      expect(listOffsetsTimestamps(r.effects)).toEqual([-2, -6, -4, -1]);
      expect(ofType(r.effects, 'sendOffsetsForLeaderEpoch')).toEqual([]);
      expect(last(r.effects, 'lookupRemoteSegment').params).toMatchObject({ epoch: 0, offset: start - 1 });
      expect(last(r.effects, 'truncateFullyAndStartAt').params).toEqual({ offset: start, logStartOffset: keptLso, rule: 'auxStateKip1023' });
      expect(fetchOffsets(r.effects)).toEqual([0, start]);
      expect(r.snapshot.context.path).toBe('kip1023');
    });

    test.each<[string, number, number, number, number]>([
      // name, EPUO, EPUO epoch, LLSO epoch, epoch asked for with OffsetsForLeaderEpoch (target epoch - 1)
      ['start at EPUO uses the EPUO answer epoch', 150, 2, 0, 1],
      ['start at LLSO uses the LLSO answer epoch', 5, 0, 3, 2],
    ])('aux target epoch: %s', (_name, epuo, epuoEpoch, llsoEpoch, asked) => {
      // Goal: the aux state is built for the epoch of the chosen start.
      // Method: leader 0 / 10 / 200; the ListOffsets answers carry epochs.
      const f = facts(0, FLAG_ON);
      const r = follow([
        started(f, 4),
        fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: f }),
        listed(0, 0, f),
        listed(epuo, epuoEpoch, f),
        listed(10, llsoEpoch, f),
      ]);
      expect(last(r.effects, 'sendOffsetsForLeaderEpoch').params).toMatchObject({ leaderEpoch: asked, currentLeaderEpoch: 4 });
    });

    test('example 4: EPUO -1 with LLSO != LSO -> delayed, fetchOffset stays 0; retried after the backoff', () => {
      // Goal: the leader does not yet know what it uploaded; the follower waits rather than guess.
      // Method: leader 0 / 10 / 200, EPUO -1; then the timer fires and the follower fetches 0 again.
      const f = facts(0, FLAG_ON);
      const r = follow([started(f), fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: f }), listed(0, 0, f), listed(-1, -1, f), listed(10, 0, f)]);
      expect(stateOf(r.snapshot)).toBe('delayed');
      expect(r.lastEffects).toEqual([
        { type: 'explain', params: { rule: 'kip1023PendingUploadUnknown', detail: { logStartOffset: 0, localLogStartOffset: 10 } } },
        { type: 'startBackoff', params: { timerId: 5, reason: 'earliest pending upload offset unknown' } },
      ]);
      expect(r.snapshot.context.fetchOffset).toBe(0);
      expect(ofType(r.effects, 'truncateFullyAndStartAt')).toEqual([]);
      const s = follow([backoffExpired()], r);
      expect(s.lastEffects).toEqual([{ type: 'sendFetch', params: { requestId: 6, fetchOffset: 0, currentLeaderEpoch: 0, lastFetchedEpoch: -1 } }]);
    });

    test.each<[string, number]>([
      ['EPUO -1 with LLSO == LSO -> start LSO', -1],
      ['EPUO == LSO == LLSO -> start LSO', 50],
    ])('%s: truncateFullyAndStartAt(LSO) without building aux state', (_name, epuo) => {
      // Goal: nothing is tiered-only below the start, so there is nothing to rebuild from remote.
      // Method: leader 50 / 50 / 200 (retention moved both starts); Fetch(0) -> OOR.
      const f = facts(0, FLAG_ON);
      const r = follow([
        started(f),
        fetched({ error: 'OFFSET_OUT_OF_RANGE', logStartOffset: 50, replica: f }),
        listed(50, 0, f),
        listed(epuo, epuo < 0 ? -1 : 0, f),
        listed(50, 0, f),
      ]);
      expect(r.lastEffects).toEqual([
        { type: 'truncateFullyAndStartAt', params: { offset: 50, logStartOffset: 50, rule: 'kip1023StartAtLogStart' } },
        { type: 'sendFetch', params: { requestId: 5, fetchOffset: 50, currentLeaderEpoch: 0, lastFetchedEpoch: -1 } },
      ]);
      for (const t of ['sendOffsetsForLeaderEpoch', 'lookupRemoteSegment', 'getRemoteObject']) expect(ofType(r.effects, t)).toEqual([]);
      expect(stateOf(r.snapshot)).toBe('fetching');
    });

    test('example 3: the first Fetch succeeds (leader LLSO == LSO), KIP-1023 does nothing', () => {
      // Goal: no jump when the leader holds everything locally. Method: flag on, records from 0.
      const f = facts(0, FLAG_ON);
      const r = follow([started(f), fetched({ batches: [batch(0, 9)], replica: f })]);
      expect(listOffsetsTimestamps(r.effects)).toEqual([]);
      expect(fetchOffsets(r.effects)).toEqual([0, 10]);
    });

    test('example 7: the aux-state build fails -> not failed, delayed at fetchOffset 0', () => {
      // Goal: a retriable remote storage error on the KIP-1023 path is a delay, never `failed`.
      // Method: leader 0 / 10 / 200, EPUO 150; the checkpoint GET fails.
      const f = facts(0, FLAG_ON);
      const r = follow([
        started(f),
        fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: f }),
        listed(0, 0, f),
        listed(150, 0, f),
        listed(10, 0, f),
        lookedUp({ baseOffset: 100, endOffset: 149 }),
        got(false),
      ]);
      expect(stateOf(r.snapshot)).toBe('delayed');
      expect(r.snapshot.context.fetchOffset).toBe(0);
      const s = follow([backoffExpired()], r);
      expect(last(s.effects, 'sendFetch').params.fetchOffset).toBe(0);
    });

    test.each<[string, number, number, number]>([
      ['EARLIEST', 0, 0, 0],
      ['EARLIEST_PENDING_UPLOAD', 1, 0, 0],
      ['EARLIEST_LOCAL', 2, 0, 0],
    ])('a ListOffsets error (%s) -> delayed', (_name, failAt) => {
      // Goal: any of the three requests can fail; the partition is retried after the backoff.
      // Method: fail the n-th ListOffsets with NOT_LEADER_OR_FOLLOWER.
      const f = facts(0, FLAG_ON);
      const answers = [listed(0, 0, f), listed(150, 0, f), listed(10, 0, f)];
      answers[failAt] = listed(-1, -1, f, 'NOT_LEADER_OR_FOLLOWER');
      const r = follow([started(f), fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: f }), ...answers.slice(0, failAt + 1)]);
      expect(stateOf(r.snapshot)).toBe('delayed');
      expect(last(r.effects, 'startBackoff').params.reason).toBe('NOT_LEADER_OR_FOLLOWER');
    });

    test.each<[string, ReplicaFacts, KafkaError, number, string]>([
      // name, follower facts, error, first ListOffsets timestamp, explain rule
      ['follower not empty, OMTTS', facts(5, FLAG_ON), 'OFFSET_MOVED_TO_TIERED_STORAGE', -4, 'classicTieredOffsetNotEmpty'],
      ['follower not empty, OOR', facts(5, FLAG_ON), 'OFFSET_OUT_OF_RANGE', -1, 'classicOutOfRangeNotEmpty'],
      ['topic compacted, OMTTS', facts(0, { ...FLAG_ON, compacted: true }), 'OFFSET_MOVED_TO_TIERED_STORAGE', -4, 'classicTieredOffset'],
      ['topic compacted, OOR', facts(0, { ...FLAG_ON, compacted: true }), 'OFFSET_OUT_OF_RANGE', -1, 'classicOutOfRange'],
      ['topic not tiered, OOR', facts(0, { ...FLAG_ON, tiered: false }), 'OFFSET_OUT_OF_RANGE', -1, 'classicOutOfRange'],
      ['flag off, OMTTS', facts(0), 'OFFSET_MOVED_TO_TIERED_STORAGE', -4, 'classicTieredOffset'],
    ])('KIP-1023 not taken: %s -> classic path', (_name, f, error, timestamp, rule) => {
      // Goal: KIP-1023 applies only to an empty follower of a tiered, non-compacted topic with the flag on.
      // Method: one error answer; the next request must be the classic one.
      const r = follow([started(f), fetched({ error, logStartOffset: 10, replica: f })]);
      expect(r.lastEffects).toEqual([
        { type: 'explain', params: { rule } },
        { type: 'sendListOffsets', params: { requestId: 2, timestamp, currentLeaderEpoch: 0 } },
      ]);
      expect(r.snapshot.context.path).toBe('classic');
    });
  });

  describe('errors, fencing and stale answers', () => {
    test('FENCED_LEADER_EPOCH -> failed; a later fetcher.started leaves failed', () => {
      // Goal: docs/protocol.md §4.1: the only failure that is not a delay; it lasts until the next leader change.
      // Method: fenced answer; then a late timer and response change nothing; then the new leader epoch arrives.
      const r = follow([started(facts(30), 2), fetched({ error: 'FENCED_LEADER_EPOCH', replica: facts(30) })]);
      expect(stateOf(r.snapshot)).toBe('failed');
      expect(r.lastEffects).toEqual([{ type: 'explain', params: { rule: 'fencedLeaderEpoch' } }]);
      expect(r.snapshot.context.lastError).toBe('FENCED_LEADER_EPOCH');
      const idle = follow([fetched({ batches: [batch(30, 39)], replica: facts(30) }), backoffExpired()], r);
      expect(stateOf(idle.snapshot)).toBe('failed');
      expect(idle.effects.slice(r.effects.length)).toEqual([]);
      const s = follow([started(facts(30), 3, 2)], r);
      expect(stateOf(s.snapshot)).toBe('fetching');
      expect(s.lastEffects).toEqual([{ type: 'sendFetch', params: { requestId: 2, fetchOffset: 30, currentLeaderEpoch: 3, lastFetchedEpoch: 2 } }]);
    });

    test.each<KafkaError>(['NOT_LEADER_OR_FOLLOWER', 'UNKNOWN_LEADER_EPOCH', 'NETWORK_EXCEPTION'])('%s -> delayed, then Fetch again at the same offset', (error) => {
      // Goal: docs/protocol.md §4.1 "Any failure": backoff with fetchOffset and state unchanged.
      // Method: follower at 30 gets the error, then its backoff timer fires.
      const r = follow([started(facts(30), 2, 1), fetched({ error, replica: facts(30) })]);
      expect(stateOf(r.snapshot)).toBe('delayed');
      expect(r.lastEffects).toEqual([{ type: 'startBackoff', params: { timerId: 2, reason: error } }]);
      const s = follow([backoffExpired()], r);
      expect(s.lastEffects).toEqual([{ type: 'sendFetch', params: { requestId: 3, fetchOffset: 30, currentLeaderEpoch: 2, lastFetchedEpoch: 1 } }]);
    });

    /** Builds a machine in the named state; returns it with a stale event for that state. */
    const STALE: [string, Step<FEv>[], string, FEv][] = [
      [
        'fetching: fetch.responded',
        [started(facts(0))],
        'fetching',
        { type: 'fetch.responded', requestId: 99, error: null, batches: [batch(0, 9)], highWatermark: 10, logStartOffset: 0, divergingEpoch: null, replica: facts(0) },
      ],
      [
        'outOfRange: listOffsets.responded',
        [started(facts(0)), fetched({ error: 'OFFSET_OUT_OF_RANGE', logStartOffset: 10, replica: facts(0) })],
        'outOfRange.awaitingLatestOffset',
        { type: 'listOffsets.responded', requestId: 1, timestamp: -1, error: null, offset: 0, leaderEpoch: 0, replica: facts(0) },
      ],
      [
        'kip1023: listOffsets.responded',
        [started(facts(0, FLAG_ON)), fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: facts(0, FLAG_ON) })],
        'kip1023.awaitingEarliestOffset',
        { type: 'listOffsets.responded', requestId: 7, timestamp: -2, error: null, offset: 0, leaderEpoch: 0, replica: facts(0, FLAG_ON) },
      ],
      [
        'awaitingEpochEndOffset: offsetsForLeaderEpoch.responded',
        [started(facts(0)), fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: facts(0) }), listed(90, 3, facts(0))],
        'buildingAuxState.awaitingEpochEndOffset',
        { type: 'offsetsForLeaderEpoch.responded', requestId: 2, error: null, leaderEpoch: 1, endOffset: 90 },
      ],
      [
        'lookingUpRemoteSegment: remoteSegment.lookedUp',
        [started(facts(0)), fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: facts(0) }), listed(100, 0, facts(0))],
        'buildingAuxState.lookingUpRemoteSegment',
        { type: 'remoteSegment.lookedUp', requestId: 2, found: null, reason: 'stale' },
      ],
      [
        'awaitingLeaderEpochCheckpoint: objectStore.getCompleted',
        [
          started(facts(0)),
          fetched({ error: 'OFFSET_MOVED_TO_TIERED_STORAGE', replica: facts(0) }),
          listed(100, 0, facts(0)),
          lookedUp({ baseOffset: 50, endOffset: 99 }),
        ],
        'buildingAuxState.awaitingLeaderEpochCheckpoint',
        { type: 'objectStore.getCompleted', requestId: 3, ok: false, error: 'stale' },
      ],
      [
        'delayed: backoff.expired',
        [started(facts(0)), fetched({ error: 'NOT_LEADER_OR_FOLLOWER', replica: facts(0) })],
        'delayed',
        { type: 'backoff.expired', timerId: 1 },
      ],
    ];

    test.each(STALE)('a stale answer (wrong requestId) is ignored in %s', (_name, setupSteps, state, stale) => {
      // Goal: only the awaited request or timer moves the machine; late answers of retried requests do nothing.
      // Method: reach the state, then deliver an event whose id is not the awaited one.
      const r = follow(setupSteps);
      expect(stateOf(r.snapshot)).toBe(state);
      const awaited = r.snapshot.context.awaiting;
      expect('requestId' in stale ? stale.requestId : (stale as { timerId: number }).timerId).not.toBe(awaited);
      const s = follow([stale], r);
      expect(s.lastEffects).toEqual([]);
      expect(stateOf(s.snapshot)).toBe(state);
      expect(s.snapshot.context).toEqual(r.snapshot.context);
    });

    test('fetcher.stopped -> idle; answers to its requests are then ignored', () => {
      // Goal: a replica that stops following asks for nothing more. Method: stop with a Fetch in flight.
      const r = follow([started(facts(10)), { type: 'fetcher.stopped' }]);
      expect(stateOf(r.snapshot)).toBe('idle');
      const s = follow([{ type: 'fetch.responded', requestId: 1, error: null, batches: [batch(10, 19)], highWatermark: 20, logStartOffset: 0, divergingEpoch: null, replica: facts(10) }], r);
      expect(s.lastEffects).toEqual([]);
      expect(stateOf(s.snapshot)).toBe('idle');
    });
  });

  describe('diverging epoch', () => {
    test('truncateTo(min(diverging end offset, own LEO)), then Fetch from there', () => {
      // Goal: docs/protocol.md §6: a divergent tail is truncated before fetching again.
      // Method: follower LEO 70 in epoch 1; the leader answers diverging epoch (1, 60).
      const own = facts(70, { leaderEpochs: [[1, 0]] });
      const r = follow([started(own, 2, 1), fetched({ divergingEpoch: { epoch: 1, endOffset: 60 }, replica: own })]);
      expect(r.lastEffects).toEqual([
        { type: 'truncateTo', params: { offset: 60, rule: 'divergingEpoch' } },
        { type: 'sendFetch', params: { requestId: 2, fetchOffset: 60, currentLeaderEpoch: 2, lastFetchedEpoch: 1 } },
      ]);
      expect(stateOf(r.snapshot)).toBe('fetching');
    });

    test('a diverging end offset above own LEO truncates nothing beyond the log end', () => {
      // Goal: the truncation point is capped by the follower's own LEO. Method: diverging (1, 90), LEO 70.
      const r = follow([started(facts(70), 2, 1), fetched({ divergingEpoch: { epoch: 1, endOffset: 90 }, replica: facts(70) })]);
      expect(r.lastEffects[0]).toEqual({ type: 'truncateTo', params: { offset: 70, rule: 'divergingEpoch' } });
      expect(last(r.effects, 'sendFetch').params.fetchOffset).toBe(70);
    });

    // Was a bug (fixed; kept as a regression test). The isDivergingEpoch transition: after truncating
    // on a diverging epoch the machine keeps its old lastFetchedEpoch, so the next Fetch carries an
    // epoch the leader does not have and is answered diverging again, forever. Kafka sets
    // lastFetchedEpoch = log.latestEpoch after truncation (with UnifiedLog.truncateTo trimming the
    // epoch cache even at LEO; see the partition-log bug in test/domain.test.ts).
    // Reproduced in the kernel with clean elections only: brokers 0 and 1, 50 records in epoch 0;
    // electLeader 1 (epoch 1, no records), then electLeader 0 (epoch 2, cache (0,0),(2,50)).
    // Broker 1 sends Fetch(50, lastFetchedEpoch 1); endOffsetFor(1) on the leader = (0, 50), so
    // the answer is diverging (0, 50); truncateTo(50) is a no-op; the same Fetch follows every 2 ms
    // (500 times in 1 s), the follower never appends again and the HW stays at 50.
    test('after a diverging-epoch truncation the next Fetch carries the epoch of the new log end', () => {
      // Goal: no livelock: the retried Fetch must not repeat the stale lastFetchedEpoch.
      // Method: the case above: follower LEO 50, lastFetchedEpoch 1; the leader answers diverging (0, 50).
      const cache: Array<[number, number]> = [[0, 0], [1, 50]];
      const r = follow([started(facts(50, { leaderEpochs: cache }), 2, 1), fetched({ divergingEpoch: { epoch: 0, endOffset: 50 }, replica: facts(50, { leaderEpochs: cache }) })]);
      expect(last(r.effects, 'sendFetch').params).toMatchObject({ fetchOffset: 50, lastFetchedEpoch: 0 });
    });
  });
});

// ---------------------------------------------------------------------------------------
// Leader partition: events as core/sim/loop/kernel.ts builds them (leaderFacts + the request body)

type LEv = LeaderPartitionEvent;

const LEADER = { broker: 0, topic: 't', partition: 0 };
const EPOCH = 5;

/** kernel.leaderView: tiered leader 10 / 100 / 200 (LSO / LLSO / LEO), HW 200, Ry 149. */
function lview(o: Partial<LeaderView> = {}): LeaderView {
  return {
    tiered: true,
    logStartOffset: 10,
    localLogStartOffset: 100,
    logEndOffset: 200,
    highWatermark: 200,
    highestOffsetInRemoteStorage: 149,
    leaderEpoch: EPOCH,
    ...o,
  };
}

function assumed(isr: number[], replicas = [0, 1, 2], logEndOffset = 200, minIsr = 1): LEv {
  return { type: 'leadership.assumed', leaderEpoch: EPOCH, isr, replicas, nowMs: 0, logEndOffset, minIsr };
}

/** The rest of the leader's facts: min ISR 1, lag time 30 s, every replica eligible. */
const MORE = { minIsr: 1, lagTimeMaxMs: 30000, isrEligible: [0, 1, 2] };

interface FetchReq {
  msgId?: number;
  from?: number;
  fetchOffset: number;
  currentLeaderEpoch?: number;
  lastFetchedEpoch?: number;
  lastFetchedEpochEnd?: { leaderEpoch: number; endOffset: number } | null;
  waitExpired?: boolean;
  view?: LeaderView;
  leaderEpochStartOffset?: number;
  nowMs?: number;
  minIsr?: number;
}

function fetchReceived(r: FetchReq): LEv {
  return {
    type: 'fetch.received',
    msgId: r.msgId ?? 77,
    from: r.from ?? 1,
    fetchOffset: r.fetchOffset,
    currentLeaderEpoch: r.currentLeaderEpoch ?? EPOCH,
    lastFetchedEpoch: r.lastFetchedEpoch ?? -1,
    lastFetchedEpochEnd: r.lastFetchedEpochEnd ?? null,
    waitExpired: r.waitExpired ?? false,
    view: r.view ?? lview(),
    leaderEpochStartOffset: r.leaderEpochStartOffset ?? 150,
    nowMs: r.nowMs ?? 1000,
    ...MORE,
    minIsr: r.minIsr ?? 1,
  };
}

function listOffsetsReceived(timestamp: ListOffsetsTimestamp, view = lview(), currentLeaderEpoch = EPOCH): LEv {
  return { type: 'listOffsets.received', msgId: 78, from: 1, timestamp, currentLeaderEpoch, view, leaderEpochStartOffset: 150, nowMs: 1000, ...MORE };
}

function produceReceived(records: number, acks: Acks, minIsr: number, view = lview()): LEv {
  return { type: 'produce.received', msgId: 79, records, acks, view, leaderEpochStartOffset: 150, nowMs: 1000, ...MORE, minIsr };
}

function lead(events: Step<LEv>[], from?: Fed): Fed {
  return feed(leaderPartitionMachine, LEADER, events, from);
}

describe('leaderPartitionMachine', () => {
  test.each<[string, number, boolean, Effect]>([
    ['offset 0 < LSO -> OFFSET_OUT_OF_RANGE', 0, false, { type: 'respondFetch', params: { msgId: 77, error: 'OFFSET_OUT_OF_RANGE', rule: 'belowLogStartOffset', fetchOffset: 0, divergingEpoch: null, highWatermark: 200 } }],
    ['LSO - 1 -> OFFSET_OUT_OF_RANGE', 9, false, { type: 'respondFetch', params: { msgId: 77, error: 'OFFSET_OUT_OF_RANGE', rule: 'belowLogStartOffset', fetchOffset: 9, divergingEpoch: null, highWatermark: 200 } }],
    ['LSO -> OFFSET_MOVED_TO_TIERED_STORAGE', 10, false, { type: 'respondFetch', params: { msgId: 77, error: 'OFFSET_MOVED_TO_TIERED_STORAGE', rule: 'tieredOnlyOffset', fetchOffset: 10, divergingEpoch: null, highWatermark: 200 } }],
    ['LLSO - 1 -> OFFSET_MOVED_TO_TIERED_STORAGE', 99, false, { type: 'respondFetch', params: { msgId: 77, error: 'OFFSET_MOVED_TO_TIERED_STORAGE', rule: 'tieredOnlyOffset', fetchOffset: 99, divergingEpoch: null, highWatermark: 200 } }],
    ['LLSO -> local records', 100, false, { type: 'respondFetch', params: { msgId: 77, error: null, rule: 'localRecords', fetchOffset: 100, divergingEpoch: null, highWatermark: 200 } }],
    ['LEO - 1 -> local records', 199, false, { type: 'respondFetch', params: { msgId: 77, error: null, rule: 'localRecords', fetchOffset: 199, divergingEpoch: null, highWatermark: 200 } }],
    ['LEO, long poll not expired -> parkFetch', 200, false, { type: 'parkFetch', params: { msgId: 77 } }],
    ['LEO, long poll expired -> empty local records', 200, true, { type: 'respondFetch', params: { msgId: 77, error: null, rule: 'localRecords', fetchOffset: 200, divergingEpoch: null, highWatermark: 200 } }],
    ['LEO + 1 -> OFFSET_OUT_OF_RANGE', 201, false, { type: 'respondFetch', params: { msgId: 77, error: 'OFFSET_OUT_OF_RANGE', rule: 'aboveLogEndOffset', fetchOffset: 201, divergingEpoch: null, highWatermark: 200 } }],
    ['LEO + 1, long poll expired -> OFFSET_OUT_OF_RANGE', 201, true, { type: 'respondFetch', params: { msgId: 77, error: 'OFFSET_OUT_OF_RANGE', rule: 'aboveLogEndOffset', fetchOffset: 201, divergingEpoch: null, highWatermark: 200 } }],
  ])('Fetch: %s', (_name, fetchOffset, waitExpired, expected) => {
    // Goal: docs/protocol.md §3, every row, at the machine level.
    // Method: leader 10 / 100 / 200 with the whole ISR; one Fetch from broker 1.
    const r = lead([assumed([0, 1, 2]), fetchReceived({ fetchOffset, waitExpired })]);
    expect(r.lastEffects).toEqual([expected]);
    // Only an answered (or parked) Fetch records the follower's progress.
    expect(r.snapshot.context.followers['1'].logEndOffset).toBe(expected.params.error ? 0 : fetchOffset);
  });

  test.each<[string, number, KafkaError]>([
    ['an older epoch -> FENCED_LEADER_EPOCH', EPOCH - 1, 'FENCED_LEADER_EPOCH'],
    ['a newer epoch -> UNKNOWN_LEADER_EPOCH', EPOCH + 1, 'UNKNOWN_LEADER_EPOCH'],
  ])('Fetch with %s', (_name, currentLeaderEpoch, error) => {
    // Goal: the epoch check comes before everything else, even at a tiered-only offset.
    // Method: Fetch(10) with the wrong current leader epoch.
    const r = lead([assumed([0, 1, 2]), fetchReceived({ fetchOffset: 10, currentLeaderEpoch })]);
    expect(r.lastEffects).toEqual([{ type: 'respondFetch', params: { msgId: 77, error, rule: 'leaderEpochCheck', fetchOffset: 10, divergingEpoch: null, highWatermark: 200 } }]);
  });

  test.each<[string, number, number, { leaderEpoch: number; endOffset: number } | null, { epoch: number; endOffset: number } | null]>([
    // name, lastFetchedEpoch, fetchOffset, endOffsetFor(lastFetchedEpoch) on the leader, diverging answer
    ['the leader does not have the epoch: (3, 150) for epoch 4', 4, 140, { leaderEpoch: 3, endOffset: 150 }, { epoch: 3, endOffset: 150 }],
    ['the epoch ended before fetchOffset: (4, 150) for Fetch(160)', 4, 160, { leaderEpoch: 4, endOffset: 150 }, { epoch: 4, endOffset: 150 }],
    ['the epoch ends exactly at fetchOffset: not diverging', 4, 150, { leaderEpoch: 4, endOffset: 150 }, null],
    ['no lastFetchedEpoch: not checked', -1, 150, null, null],
  ])('diverging epoch: %s', (_name, lastFetchedEpoch, fetchOffset, lastFetchedEpochEnd, diverging) => {
    // Goal: KIP-320 divergence check: endOffsetFor(lastFetchedEpoch) below the epoch or below fetchOffset.
    // Method: one Fetch per row with lastFetchedEpochEnd as kernel.onFollowerRequestAtLeader computes it.
    const r = lead([assumed([0, 1, 2]), fetchReceived({ fetchOffset, lastFetchedEpoch, lastFetchedEpochEnd })]);
    expect(r.lastEffects).toEqual([
      {
        type: 'respondFetch',
        params: { msgId: 77, error: null, rule: diverging ? 'divergingEpoch' : 'localRecords', fetchOffset, divergingEpoch: diverging, highWatermark: 200 },
      },
    ]);
  });

  test.each<[string, number[], number, number, number, boolean]>([
    // name, ISR, view HW, current epoch start, Fetch offset, joins
    ['below HW: stays out', [0], 180, 150, 170, false],
    ['reaches HW and the epoch start: joins', [0], 180, 150, 180, true],
    ['at the log end: joins', [0], 180, 150, 200, true],
    ['reaches HW but not the current epoch start: stays out', [0], 100, 190, 180, false],
    ['already in the ISR: no change', [0, 1], 180, 150, 190, false],
  ])('ISR expansion: %s', (_name, isr, hw, epochStart, fetchOffset, joins) => {
    // Goal: Kafka's isFollowerInSync: follower LEO >= HW and >= the current leader epoch's start offset.
    // Method: replicas [0, 1], leader LEO 200; one Fetch from broker 1.
    const r = lead([
      assumed(isr, [0, 1]),
      fetchReceived({ fetchOffset, view: lview({ highWatermark: hw }), leaderEpochStartOffset: epochStart, waitExpired: true }),
    ]);
    const changes = ofType(r.lastEffects, 'isrChanged');
    if (joins) {
      expect(changes).toEqual([{ type: 'isrChanged', params: { isr: [0, 1], added: [1], removed: [], rule: 'followerCaughtUp' } }]);
      expect(r.snapshot.context.isr).toEqual([0, 1]);
    } else {
      expect(changes).toEqual([]);
      expect(r.snapshot.context.isr).toEqual(isr);
    }
  });

  test('an ISR expansion is followed by the HW advance it allows', () => {
    // Goal: the joining follower counts for the HW at once. Method: ISR [0], HW 180; follower 1 fetches 200.
    // (HW 180 with the leader alone in the ISR is what the kernel shows when the HW was set by a larger ISR.)
    const r = lead([assumed([0], [0, 1]), fetchReceived({ fetchOffset: 200, view: lview({ highWatermark: 180 }) })]);
    expect(r.lastEffects).toEqual([
      { type: 'isrChanged', params: { isr: [0, 1], added: [1], removed: [], rule: 'followerCaughtUp' } },
      { type: 'advanceHighWatermark', params: { highWatermark: 200 } },
      { type: 'parkFetch', params: { msgId: 77 } },
    ]);
  });

  test('HW advances to the smallest LEO in the ISR', () => {
    // Goal: HW = min over the ISR (leader included) of the log end offsets; never asked to go down.
    // Method: ISR [0, 1, 2], leader LEO 200, HW 150; followers fetch 190 (1), 170 (2), 200 (1), 200 (2).
    const r = lead([
      assumed([0, 1, 2]),
      fetchReceived({ from: 1, fetchOffset: 190, view: lview({ highWatermark: 150 }) }),
      fetchReceived({ from: 2, fetchOffset: 170, view: lview({ highWatermark: 150 }) }),
    ]);
    // After the first Fetch follower 2 is still at 0: no advance. After the second: min(200, 190, 170).
    expect(ofType(r.effects, 'advanceHighWatermark')).toEqual([{ type: 'advanceHighWatermark', params: { highWatermark: 170 } }]);
    const s = lead([fetchReceived({ from: 1, fetchOffset: 200, view: lview({ highWatermark: 170 }) })], r);
    expect(s.lastEffects).toEqual([{ type: 'parkFetch', params: { msgId: 77 } }]);
    const t = lead([fetchReceived({ from: 2, fetchOffset: 200, view: lview({ highWatermark: 170 }) })], s);
    expect(t.lastEffects).toEqual([
      { type: 'advanceHighWatermark', params: { highWatermark: 200 } },
      { type: 'parkFetch', params: { msgId: 77 } },
    ]);
    expect(t.snapshot.context.followers['1']).toMatchObject({ logEndOffset: 200, lastCaughtUpMs: 1000 });
  });

  test.each<[string, ListOffsetsTimestamp, LeaderView, number, string]>([
    ['LATEST', -1, lview(), 200, 'latest'],
    ['EARLIEST', -2, lview(), 10, 'earliest'],
    ['EARLIEST_LOCAL', -4, lview(), 100, 'earliestLocal'],
    ['LATEST_TIERED', -5, lview(), 149, 'latestTiered'],
    ['EARLIEST_PENDING_UPLOAD, Ry 149 -> 150', -6, lview(), 150, 'earliestPendingUpload.afterHighestTiered'],
    ['EARLIEST_PENDING_UPLOAD, Ry unknown, tiered-only data -> -1', -6, lview({ highestOffsetInRemoteStorage: -1 }), -1, 'earliestPendingUpload.unknownTieredOnlyExists'],
    ['EARLIEST_PENDING_UPLOAD, Ry unknown, LLSO == LSO -> LSO', -6, lview({ highestOffsetInRemoteStorage: -1, localLogStartOffset: 10 }), 10, 'earliestPendingUpload.unknownNothingTieredOnly'],
    ['EARLIEST_PENDING_UPLOAD, stale Ry 5 below LSO 10 -> 10', -6, lview({ highestOffsetInRemoteStorage: 5 }), 10, 'earliestPendingUpload.afterHighestTiered'],
    ['EARLIEST_PENDING_UPLOAD, not tiered -> -1', -6, lview({ tiered: false, localLogStartOffset: 10, highestOffsetInRemoteStorage: -1 }), -1, 'earliestPendingUpload.notTiered'],
  ])('ListOffsets %s', (_name, timestamp, v, offset, rule) => {
    // Goal: docs/protocol.md §2's special timestamps, and §3's EPUO rule on the leader.
    // Method: one ListOffsets per row.
    const r = lead([assumed([0, 1, 2]), listOffsetsReceived(timestamp, v)]);
    expect(r.lastEffects).toEqual([{ type: 'respondListOffsets', params: { msgId: 78, error: null, timestamp, offset, rule } }]);
  });

  test.each<[number, KafkaError]>([
    [EPOCH - 1, 'FENCED_LEADER_EPOCH'],
    [EPOCH + 1, 'UNKNOWN_LEADER_EPOCH'],
  ])('ListOffsets with current epoch %i -> %s and offset -1', (currentLeaderEpoch, error) => {
    // Goal: a wrong epoch is answered with the error, not an offset. Method: ListOffsets -2.
    const r = lead([assumed([0, 1, 2]), listOffsetsReceived(-2, lview(), currentLeaderEpoch)]);
    expect(r.lastEffects).toEqual([{ type: 'respondListOffsets', params: { msgId: 78, error, timestamp: -2, offset: -1, rule: 'earliest' } }]);
  });

  test.each<[number, KafkaError | null]>([
    [EPOCH, null],
    [EPOCH - 1, 'FENCED_LEADER_EPOCH'],
  ])('OffsetsForLeaderEpoch with current epoch %i -> error %s', (currentLeaderEpoch, error) => {
    // Goal: the leader answers from its cache (the kernel computes endOffsetFor). Method: ask for epoch 2.
    const r = lead([
      assumed([0, 1, 2]),
      { type: 'offsetsForLeaderEpoch.received', msgId: 80, from: 1, leaderEpoch: 2, currentLeaderEpoch, view: lview(), leaderEpochStartOffset: 150, nowMs: 0, ...MORE },
    ]);
    expect(r.lastEffects).toEqual([{ type: 'respondOffsetsForLeaderEpoch', params: { msgId: 80, error, requestedEpoch: 2 } }]);
  });

  test.each<[string, Acks, number[], number, string[]]>([
    // name, acks, ISR, min.insync.replicas, effects
    ['acks=all, ISR 1 < min.insync.replicas 2 -> NOT_ENOUGH_REPLICAS', 'all', [0], 2, ['rejectProduce']],
    ['acks=all, ISR 2 == min.insync.replicas 2 -> appended', 'all', [0, 1], 2, ['appendAsLeader', 'advanceHighWatermark']],
    ['acks=all, ISR 1, min.insync.replicas 1 -> appended', 'all', [0], 1, ['appendAsLeader', 'advanceHighWatermark']],
    ['acks=1 ignores min.insync.replicas', 1, [0], 3, ['appendAsLeader', 'advanceHighWatermark']],
    ['acks=0 ignores min.insync.replicas', 0, [0], 3, ['appendAsLeader', 'advanceHighWatermark']],
  ])('produce: %s', (_name, acks, isr, minIsr, expected) => {
    // Goal: acks=all needs min.insync.replicas in the ISR (docs/protocol.md §6).
    // Method: produce 10 records to the leader at LEO 200.
    const r = lead([assumed(isr), produceReceived(10, acks, minIsr)]);
    expect(types(r.lastEffects)).toEqual(expected);
    if (expected[0] === 'rejectProduce') {
      expect(r.lastEffects[0].params).toEqual({ error: 'NOT_ENOUGH_REPLICAS', rule: 'minInsyncReplicas' });
    } else {
      expect(r.lastEffects[0].params).toEqual({ msgId: 79, records: 10, acks });
    }
  });

  test('produce with the leader alone in the ISR advances the HW to the new log end', () => {
    // Goal: with no follower in the ISR the HW is the leader's LEO. Method: 10 records at LEO 200.
    const r = lead([assumed([0]), produceReceived(10, 'all', 1)]);
    expect(last(r.effects, 'advanceHighWatermark').params).toEqual({ highWatermark: 210 });
  });

  test('a follower (not leader) asks for nothing; leadership.resigned returns to follower', () => {
    // Goal: requests at a non-leader are the kernel's NOT_LEADER_OR_FOLLOWER, not the machine's.
    // Method: a Fetch before leadership, then assume and resign.
    const r = lead([fetchReceived({ fetchOffset: 100 })]);
    expect(stateOf(r.snapshot)).toBe('follower');
    expect(r.effects).toEqual([]);
    const s = lead([assumed([0, 1]), { type: 'leadership.resigned' }, fetchReceived({ fetchOffset: 100 })], r);
    expect(stateOf(s.snapshot)).toBe('follower');
    // Becoming leader starts the ISR expiration timer; nothing else is asked for.
    expect(s.effects.map((e) => e.type)).toEqual(['startIsrCheckTimer']);
    expect(s.snapshot.context.isr).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------
// The remote log manager's three tasks, each its own machine on Kafka's own schedule:
// rlm (RLMCopyTask / RLMFollowerTask), rlmExpiration (RLMExpirationTask) and logRetention
// (LogManager's kafka-log-retention). Events as core/sim/loop/kernel.ts builds them
// (facts.ts rlmTaskEvent, rlmFacts, remoteExpiredNow, logRetentionFacts; tiering.ts onSegmentObjectDone).

const SEG0 = 't-0-0-1';
const SEG50 = 't-0-50-2';
const S0: SegmentRange = { baseOffset: 0, endOffset: 49, bytes: 51200 };
const S50: SegmentRange = { baseOffset: 50, endOffset: 99, bytes: 51200 };
const EXPIRED = [
  { segmentId: SEG0, endOffset: 49, rule: 'retentionBytes' as const },
  { segmentId: SEG50, endOffset: 99, rule: 'retentionBytes' as const },
];
const RLM = { broker: 0, topic: 't', partition: 0 };

/** An `explain` effect with the given rule. */
const isExplain = (rule: string) => (e: Effect) => e.type === 'explain' && (e.params as { rule?: string } | undefined)?.rule === rule;
/** The end-of-run explanations (rlmRunDone, logRetentionRunDone) are checked on their own; the other tests leave them out. */
const isRunDone = (e: Effect) => isExplain('rlmRunDone')(e) || isExplain('logRetentionRunDone')(e);

/** `feed` without the end-of-run explanations. */
function feedTask<E>(machine: AnyStateMachine, events: Step<E>[], from?: Fed): Fed {
  const r = feed(machine, RLM, events, from);
  return { ...r, effects: r.effects.filter((e) => !isRunDone(e)), lastEffects: r.lastEffects.filter((e) => !isRunDone(e)) };
}

/** The state names of a machine, `inactive` (where nothing is awaited) left out. */
function activeStates(machine: AnyStateMachine): string[] {
  return Object.keys(machine.root.states).filter((s) => s !== 'inactive').sort();
}

// ------------------------------------------- rlm: RLMCopyTask (leader) and RLMFollowerTask (follower)

type REv = RemoteLogManagerEvent;

/** facts.rlmTaskEvent; defaults: tiered, metadata ready, nothing uploaded. */
function taskDue(o: Partial<Extract<REv, { type: 'rlm.taskDue' }>> = {}): Step<REv> {
  return (_s, fx) => ({
    type: 'rlm.taskDue',
    timerId: lastId(fx),
    metadataReady: true,
    highestRemoteOffset: -1,
    highestOffsetInRemoteStorage: -1,
    remoteLogStartOffset: 0,
    tiered: true,
    copyDisabled: false,
    ...o,
  });
}

/** facts.rlmFacts; defaults: a tiered topic, metadata ready, nothing to copy; the candidate given is the last one listed unless said. */
function rfacts(o: Partial<RlmFacts> = {}): RlmFacts {
  return { tiered: true, copyDisabled: false, metadataReady: true, candidate: null, lastCandidateEnd: o.candidate ? o.candidate.endOffset : -1, ...o };
}

/** The `rlm.step` answering the last requestStep (kernel, rlmStep of task 'copy'). */
function rstep(o: Partial<RlmFacts> = {}): Step<REv> {
  return (_s, fx) => ({ type: 'rlm.step', requestId: lastId(fx), ...rfacts(o) });
}

/** tiering.onSegmentObjectDone for a copy group (all four PUTs done). */
function copied(ok: boolean, segmentId = SEG0, error: string | null = ok ? null : 'ServiceUnavailable'): Step<REv> {
  return (_s, fx) => ({ type: 'rlm.copyCompleted', requestId: lastId(fx), segmentId, ok, error });
}

/** tiering.onSegmentObjectDone for the cleanup of a failed copy (all four DELETEs done). */
function deleted(ok: boolean, segmentId = SEG0, error: string | null = ok ? null : 'ServiceUnavailable'): Step<REv> {
  return (_s, fx) => ({ type: 'rlm.deleteCompleted', requestId: lastId(fx), segmentId, ok, error });
}

function rlm(events: Step<REv>[], from?: Fed): Fed {
  return feedTask(remoteLogManagerMachine, events, from);
}

const START_LEADER: REv = { type: 'rlm.started', role: 'leader' };
const START_FOLLOWER: REv = { type: 'rlm.started', role: 'follower' };

/** A leader in its first run, awaiting `rlm.step` 2 (the next id is 3). */
function leaderRunning(): Fed {
  return rlm([START_LEADER, taskDue()]);
}

describe('remoteLogManagerMachine (RLMCopyTask on a leader, RLMFollowerTask on a follower)', () => {
  describe('task runs', () => {
    test.each<[string, REv]>([
      ['leader', START_LEADER],
      ['follower', START_FOLLOWER],
    ])('rlm.started (%s) -> idle, scheduleTask now', (role, started) => {
      // Goal: the first run is at once (docs/protocol.md §5; RemoteLogManager schedules the task with no initial delay).
      // Method: start a fresh machine.
      const r = rlm([started]);
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.effects).toEqual([{ type: 'scheduleTask', params: { timerId: 1, after: 'now' } }]);
      expect(r.snapshot.context.role).toBe(role);
      expect(r.snapshot.context.awaiting).toBe(1);
    });

    const RY_CASES: Array<[string, number, number, Effect[]]> = [
      ['learns a higher offset -> updateHighestOffsetInRemoteStorage', 149, -1, [{ type: 'updateHighestOffsetInRemoteStorage', params: { offset: 149 } }]],
      ['learns a higher offset over a known one', 199, 149, [{ type: 'updateHighestOffsetInRemoteStorage', params: { offset: 199 } }]],
      ['same offset -> nothing to update', 149, 149, []],
      ['lower offset (Ry never decreases) -> nothing to update', 100, 149, []],
      ['stale Ry below the metadata (-1 computed) -> nothing to update', -1, 30, []],
      ['nothing uploaded -> nothing to update', -1, -1, []],
    ];

    test.each(RY_CASES)('follower taskDue: %s, and the run is over (idle, scheduleTask interval; no step)', (_name, highestRemoteOffset, highestOffsetInRemoteStorage, updates) => {
      // Goal: RLMFollowerTask's whole run is learning Ry from the metadata (KIP-1023's change: even with
      // nothing to upload), never lowering it, so that an election does not reset it (docs/protocol.md §1
      // and §5 step 1); a follower copies nothing, so it asks for no step.
      // Method: a follower's first run, metadata ready.
      const f = rlm([START_FOLLOWER, taskDue({ highestRemoteOffset, highestOffsetInRemoteStorage })]);
      expect(stateOf(f.snapshot)).toBe('idle');
      expect(f.lastEffects).toEqual([...updates, { type: 'scheduleTask', params: { timerId: 2, after: 'interval' } }]);
      expect(f.snapshot.context).toMatchObject({ awaiting: 2, nextId: 3, runs: 1 });
      expect(ofType(f.effects, 'requestStep')).toEqual([]);
    });

    test.each(RY_CASES)('leader taskDue: %s, then running + requestStep', (_name, highestRemoteOffset, highestOffsetInRemoteStorage, updates) => {
      // Goal: RLMCopyTask refreshes Ry before deciding its copies (maybeUpdateCopiedOffset), and never lowers it.
      // Method: a leader's second run (the first one looks up the log start, tested below).
      const l = rlm([rstep(), taskDue({ highestRemoteOffset, highestOffsetInRemoteStorage })], leaderRunning());
      expect(stateOf(l.snapshot)).toBe('running');
      expect(l.lastEffects).toEqual([...updates, { type: 'requestStep', params: { requestId: 4 } }]);
      expect(l.snapshot.context.awaiting).toBe(4);
    });

    test.each<[string, number, number, Effect[]]>([
      ['and learns Ry', 149, -1, [{ type: 'updateHighestOffsetInRemoteStorage', params: { offset: 149 } }]],
      ['Ry already known', 149, 149, []],
    ])("a leader's first run raises a stale log start to the earliest remote segment still listed, %s", (_name, highestRemoteOffset, highestOffsetInRemoteStorage, updates) => {
      // Goal: Kafka's RLMCopyTask runs maybeUpdateLogStartOffsetOnBecomingLeader (findLogStartOffset)
      // once per leadership, before maybeUpdateCopiedOffset: a follower may not have heard of
      // the old leader's last Log-Start-Offset move.
      // Method: a leader's first and second runs; then a leadership that starts again.
      const first = rlm([START_LEADER, taskDue({ highestRemoteOffset, highestOffsetInRemoteStorage, remoteLogStartOffset: 200 })]);
      expect(first.lastEffects).toEqual([
        { type: 'updateLogStartOffsetOnBecomingLeader', params: { offset: 200 } },
        ...updates,
        { type: 'requestStep', params: { requestId: 2 } },
      ]);
      expect(first.snapshot.context.logStartOffsetUpdated).toBe(true);
      const second = rlm([rstep(), taskDue({ highestRemoteOffset, highestOffsetInRemoteStorage: 149, remoteLogStartOffset: 200 })], first);
      expect(ofType(second.lastEffects, 'updateLogStartOffsetOnBecomingLeader')).toEqual([]);
      const again = rlm([START_FOLLOWER, START_LEADER, taskDue({ highestOffsetInRemoteStorage: 149, remoteLogStartOffset: 300 })], second);
      expect(ofType(again.lastEffects, 'updateLogStartOffsetOnBecomingLeader').map((e) => e.params)).toEqual([{ offset: 300 }]);
    });

    test('a follower never looks up the log start', () => {
      // Goal: maybeUpdateLogStartOffsetOnBecomingLeader belongs to the copy task, which a follower does not run.
      // Method: a follower's run with a remote log start of 200 and nothing new to learn.
      const r = rlm([START_FOLLOWER, taskDue({ remoteLogStartOffset: 200 })]);
      expect(r.lastEffects).toEqual([{ type: 'scheduleTask', params: { timerId: 2, after: 'interval' } }]);
      expect(r.snapshot.context.logStartOffsetUpdated).toBe(false);
    });

    test('with remote.log.copy.disable a leader has no copy task: no log start look-up and no Ry refresh', () => {
      // Goal: RemoteLogManager.doHandleLeaderPartition creates no RLMCopyTask when copy is disabled, and only
      // the copy task (or a follower's RLMFollowerTask) refreshes Ry.
      // Method: a leader's first run with copyDisabled and a higher offset in the metadata.
      const r = rlm([START_LEADER, taskDue({ copyDisabled: true, highestRemoteOffset: 149, remoteLogStartOffset: 200 })]);
      expect(r.lastEffects).toEqual([{ type: 'requestStep', params: { requestId: 2 } }]);
      expect(r.snapshot.context.logStartOffsetUpdated).toBe(false);
    });

    test('a leader taskDue while the metadata is loading -> explain rlmMetadataLoading and requestStep; no log start, no Ry; both on the next run', () => {
      // Goal: the leader cannot learn Ry or the remote log start before the remote log metadata is loaded,
      // even if they would be higher; the copy task retries the log start look-up on a later run.
      // Method: the first run finds metadata not ready (and a computed highest remote offset of 149);
      // its step says so; the second run finds it loaded.
      const r = rlm([START_LEADER, taskDue({ metadataReady: false, highestRemoteOffset: 149, remoteLogStartOffset: 200 })]);
      expect(stateOf(r.snapshot)).toBe('running');
      expect(r.lastEffects).toEqual([
        { type: 'explain', params: { rule: 'rlmMetadataLoading' } },
        { type: 'requestStep', params: { requestId: 2 } },
      ]);
      expect(r.snapshot.context.logStartOffsetUpdated).toBe(false);
      const next = rlm([rstep({ metadataReady: false, candidate: S0 }), taskDue({ highestRemoteOffset: 149, remoteLogStartOffset: 200 })], r);
      expect(ofType(next.effects, 'startCopy')).toEqual([]);
      expect(next.lastEffects).toEqual([
        { type: 'updateLogStartOffsetOnBecomingLeader', params: { offset: 200 } },
        { type: 'updateHighestOffsetInRemoteStorage', params: { offset: 149 } },
        { type: 'requestStep', params: { requestId: 4 } },
      ]);
    });

    test('a follower taskDue while the metadata is loading -> explain rlmMetadataLoading (RLMFollowerTask) and the run is over', () => {
      // Goal: RLMFollowerTask can learn nothing before the metadata is loaded; its run ends at once.
      // Method: a follower's first run with the metadata not ready and a computed highest remote offset of 149.
      const r = rlm([START_FOLLOWER, taskDue({ metadataReady: false, highestRemoteOffset: 149 })]);
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.lastEffects).toEqual([
        { type: 'explain', params: { rule: 'rlmMetadataLoading', detail: { task: 'RLMFollowerTask' } } },
        { type: 'scheduleTask', params: { timerId: 2, after: 'interval' } },
      ]);
      expect(ofType(r.effects, 'updateHighestOffsetInRemoteStorage')).toEqual([]);
    });

    test.each<[string, REv, string, Effect[]]>([
      ['follower -> nothing to learn, the run is over', START_FOLLOWER, 'idle', [{ type: 'scheduleTask', params: { timerId: 2, after: 'interval' } }]],
      ['leader -> no log start look-up, requestStep', START_LEADER, 'running', [{ type: 'requestStep', params: { requestId: 2 } }]],
    ])('taskDue on a topic that is not tiered (the kernel computes -1): %s', (_name, started, state, expected) => {
      // Goal: nothing to learn without tiering (rlmTaskEvent computes no highest remote offset).
      // Method: one run with tiered false.
      const r = rlm([started, taskDue({ tiered: false })]);
      expect(stateOf(r.snapshot)).toBe(state);
      expect(r.lastEffects).toEqual(expected);
    });

    test('leader runs repeat: a run with nothing to copy goes idle and schedules the next with a fresh timer id', () => {
      // Goal: the copy task runs every interval after its previous run ended. Method: three runs, each with nothing to do.
      const r = rlm([START_LEADER, taskDue(), rstep(), taskDue(), rstep(), taskDue(), rstep()]);
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(ofType(r.effects, 'scheduleTask').map((e) => e.params)).toEqual([
        { timerId: 1, after: 'now' },
        { timerId: 3, after: 'interval' },
        { timerId: 5, after: 'interval' },
        { timerId: 7, after: 'interval' },
      ]);
      expect(ofType(r.effects, 'requestStep').map((e) => e.params)).toEqual([{ requestId: 2 }, { requestId: 4 }, { requestId: 6 }]);
      expect(r.snapshot.context.runs).toBe(3);
    });

    test('follower runs repeat: one timer per run, each with a fresh id', () => {
      // Goal: RLMFollowerTask runs every interval too, and each of its runs is a single transition.
      // Method: three follower runs.
      const r = rlm([START_FOLLOWER, taskDue(), taskDue({ highestRemoteOffset: 49 }), taskDue({ highestRemoteOffset: 49, highestOffsetInRemoteStorage: 49 })]);
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(types(r.effects)).toEqual(['scheduleTask', 'scheduleTask', 'updateHighestOffsetInRemoteStorage', 'scheduleTask', 'scheduleTask']);
      expect(ofType(r.effects, 'scheduleTask').map((e) => e.params.timerId)).toEqual([1, 2, 3, 4]);
      expect(r.snapshot.context.runs).toBe(3);
    });

    test.each<[string, Step<REv>[], number]>([
      ['a timer already fired', [START_LEADER, taskDue(), rstep()], 1],
      ["a follower's timer already fired", [START_FOLLOWER, taskDue()], 1],
      ['a timer from before a restart', [START_LEADER, { type: 'rlm.stopped' }, START_LEADER], 1],
      ['a timer from before a restart, during a run', [START_LEADER, taskDue(), rstep({ candidate: S0 }), START_LEADER], 1],
    ])('a stale timer is ignored: %s', (_name, steps, staleId) => {
      // Goal: only the awaited timer runs the task, so a restart never runs two task loops.
      // Method: deliver rlm.taskDue with an old timer id and a higher offset to learn.
      const r = rlm(steps);
      expect(stateOf(r.snapshot)).toBe('idle');
      const s = rlm([{ type: 'rlm.taskDue', timerId: staleId, metadataReady: true, highestRemoteOffset: 149, highestOffsetInRemoteStorage: -1, remoteLogStartOffset: 0, tiered: true, copyDisabled: false }], r);
      expect(s.lastEffects).toEqual([]);
      expect(stateOf(s.snapshot)).toBe('idle');
      expect(s.snapshot.context).toEqual(r.snapshot.context);
    });
  });

  describe('rlm.step decisions (docs/protocol.md §5 step 2)', () => {
    const NEXT_RUN: Effect = { type: 'scheduleTask', params: { timerId: 3, after: 'interval' } };
    const COPY_S0: Effect = { type: 'startCopy', params: { requestId: 3, baseOffset: 0, endOffset: 49 } };

    test.each<[string, Partial<RlmFacts>, string, Effect[]]>([
      ['a candidate -> copy it', { candidate: S0 }, 'copying', [COPY_S0]],
      ['copyDisabled -> no copy', { candidate: S0, copyDisabled: true }, 'idle', [NEXT_RUN]],
      ['not tiered -> no copy', { candidate: S0, tiered: false }, 'idle', [NEXT_RUN]],
      ['metadata loading -> no copy', { candidate: S0, metadataReady: false }, 'idle', [NEXT_RUN]],
      ['no candidate -> idle, scheduleTask interval', {}, 'idle', [NEXT_RUN]],
    ])('%s', (_name, o, state, expected) => {
      // Goal: a step copies the next candidate when the leader's topic is tiered, copy is enabled and the
      // metadata is loaded; otherwise the run ends and the next is scheduled (local retention and remote
      // expiration are other tasks now, so a step decides nothing else).
      // Method: a leader in its first run (awaiting step 2) gets the facts.
      const r = rlm([rstep(o)], leaderRunning());
      expect(stateOf(r.snapshot)).toBe(state);
      expect(r.lastEffects).toEqual(expected);
    });

    test.each<[string, Partial<RlmFacts>, string]>([
      ['no candidate', {}, 'noCandidate'],
      ['not tiered (before everything else)', { tiered: false, copyDisabled: true, metadataReady: false }, 'notTiered'],
      ['copy disabled (before the metadata)', { copyDisabled: true, metadataReady: false }, 'copyDisabled'],
      ['metadata loading', { metadataReady: false, candidate: S0 }, 'metadataLoading'],
    ])('a run that ends explains why nothing more was copied (rlmRunDone, RLMCopyTask): %s', (_name, o, copy) => {
      // Goal: the narration names the task and the reason its run ended.
      // Method: the unfiltered effects of the step that ends the run.
      const r = feed(remoteLogManagerMachine, RLM, [START_LEADER, taskDue(), rstep(o)]);
      expect(r.lastEffects.filter(isRunDone)).toEqual([{ type: 'explain', params: { rule: 'rlmRunDone', detail: { task: 'RLMCopyTask', copy } } }]);
    });

    test('copying remembers the candidate', () => {
      // Goal: the completion is matched to what was asked for. Method: start a copy of 50-99.
      const c = rlm([rstep({ candidate: S50 })], leaderRunning());
      expect(c.snapshot.context).toMatchObject({ awaiting: 3, nextId: 4, segmentBaseOffset: 50, segmentEndOffset: 99 });
    });
  });

  describe('copy', () => {
    test('copyCompleted ok -> finishCopy(segmentId, endOffset of the candidate) + requestStep', () => {
      // Goal: COPY_SEGMENT_FINISHED and Ry = endOffset after the upload, then the next decision (docs/protocol.md §5 step 2).
      // Method: copy 0-49 and complete it.
      const r = rlm([rstep({ candidate: S0 }), copied(true)], leaderRunning());
      expect(stateOf(r.snapshot)).toBe('running');
      expect(r.lastEffects).toEqual([
        { type: 'finishCopy', params: { segmentId: SEG0, endOffset: 49 } },
        { type: 'requestStep', params: { requestId: 4 } },
      ]);
      expect(r.snapshot.context.copyFailures).toBe(0);
    });

    test('a whole run: copy 0-49, copy 50-99, then wait for the next run (no local delete in the copy task)', () => {
      // Goal: candidates are copied one at a time in offset order within one run; local retention is the
      // log retention task's, so the copy task never deletes a local segment.
      // Method: the facts the kernel gives after each effect: at the run's start 0-49 and 50-99 are both
      // candidates (the last ends at 99); the second once 0-49 is uploaded.
      const r = rlm([rstep({ candidate: S0, lastCandidateEnd: 99 }), copied(true, SEG0), rstep({ candidate: S50 }), copied(true, SEG50), rstep()], leaderRunning());
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(types(r.effects)).toEqual([
        'scheduleTask', 'updateLogStartOffsetOnBecomingLeader', 'requestStep',
        'startCopy', 'finishCopy', 'requestStep',
        'startCopy', 'finishCopy', 'requestStep',
        'scheduleTask',
      ]);
      expect(ofType(r.effects, 'finishCopy').map((e) => e.params)).toEqual([
        { segmentId: SEG0, endOffset: 49 },
        { segmentId: SEG50, endOffset: 99 },
      ]);
      expect(last(r.effects, 'scheduleTask').params).toEqual({ timerId: 7, after: 'interval' });
      expect(r.snapshot.context.runs).toBe(1);
    });

    test('a segment that became a candidate during the run waits for the next run', () => {
      // Goal: RLMCopyTask.copyLogSegmentsToRemote lists its candidates once, at the start of its run
      // (candidateLogSegments); a segment rolled while it copies is not copied in this run (docs/protocol.md §5).
      // Method: at the start only 0-49 is a candidate; after its copy the kernel offers 50-99 (rolled
      // meanwhile): the run ends; the next run's first step offers 50-99 again and it is copied.
      const r = rlm([rstep({ candidate: S0 }), copied(true, SEG0), rstep({ candidate: S50 })], leaderRunning());
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(ofType(r.effects, 'startCopy').map((e) => e.params.baseOffset)).toEqual([0]);
      expect(r.snapshot.context.copyUpTo).toBe(null);
      const next = rlm([taskDue(), rstep({ candidate: S50 })], r);
      expect(stateOf(next.snapshot)).toBe('copying');
      expect(last(next.effects, 'startCopy').params).toMatchObject({ baseOffset: 50, endOffset: 99 });
    });

    test('copyCompleted failed -> cleaningUpFailedCopy + abortCopy; deleteCompleted -> finishRemoteDelete and the next run retries', () => {
      // Goal: a failed copy is cleaned up (DELETE_SEGMENT_STARTED -> delete -> DELETE_SEGMENT_FINISHED) and
      // retried on the next run, not in this one (docs/protocol.md §5 step 2).
      // Method: the copy of 0-49 fails; the cleanup succeeds; the next run offers 0-49 again.
      const failed = rlm([rstep({ candidate: S0 }), copied(false, SEG0, 'ServiceUnavailable')], leaderRunning());
      expect(stateOf(failed.snapshot)).toBe('cleaningUpFailedCopy');
      expect(failed.lastEffects).toEqual([{ type: 'abortCopy', params: { requestId: 4, segmentId: SEG0, error: 'ServiceUnavailable' } }]);
      expect(failed.snapshot.context).toMatchObject({ copyFailures: 1, segmentId: SEG0, awaiting: 4 });

      const cleaned = rlm([deleted(true, SEG0)], failed);
      expect(stateOf(cleaned.snapshot)).toBe('idle');
      expect(cleaned.lastEffects).toEqual([
        { type: 'finishRemoteDelete', params: { segmentId: SEG0 } },
        { type: 'scheduleTask', params: { timerId: 5, after: 'interval' } },
      ]);
      expect(cleaned.snapshot.context.segmentId).toBeNull();

      const retried = rlm([taskDue(), rstep({ candidate: S0 })], cleaned);
      expect(stateOf(retried.snapshot)).toBe('copying');
      expect(retried.lastEffects).toEqual([{ type: 'startCopy', params: { requestId: 7, baseOffset: 0, endOffset: 49 } }]);
      const done = rlm([copied(true, 't-0-0-2')], retried);
      expect(done.lastEffects[0]).toEqual({ type: 'finishCopy', params: { segmentId: 't-0-0-2', endOffset: 49 } });
      expect(done.snapshot.context.copyFailures).toBe(0);
    });

    test('a failed cleanup -> idle and the next run, without finishRemoteDelete (the metadata stays DELETE_SEGMENT_STARTED)', () => {
      // Goal: when the cleanup's DELETEs fail too (the store is down) the copy task gives up on this segment
      // id and waits for the next run, which copies the segment again under a new id (the expiration task
      // retries the delete: rlmExpirationMachine below).
      // Method: copy fails, cleanup fails, next run.
      const r = rlm([rstep({ candidate: S0 }), copied(false), deleted(false)], leaderRunning());
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.lastEffects).toEqual([{ type: 'scheduleTask', params: { timerId: 5, after: 'interval' } }]);
      expect(ofType(r.effects, 'finishRemoteDelete')).toEqual([]);
      expect(r.snapshot.context.copyFailures).toBe(1);
      const again = rlm([taskDue(), rstep({ candidate: S0 }), copied(false), deleted(false)], r);
      expect(ofType(again.effects, 'startCopy')).toHaveLength(2);
      expect(again.snapshot.context.copyFailures).toBe(2);
    });
  });

  describe('stale answers and rlm.stopped', () => {
    // Prefixes that leave the machine in each state, with the id it awaits.
    const IN: Record<string, Step<REv>[]> = {
      idle: [START_LEADER],
      running: [START_LEADER, taskDue()],
      copying: [START_LEADER, taskDue(), rstep({ candidate: S0 })],
      cleaningUpFailedCopy: [START_LEADER, taskDue(), rstep({ candidate: S0 }), copied(false)],
    };
    const stale = (e: REv): Step<REv> => (_s, fx) => ({ ...e, requestId: lastId(fx) - 1 }) as REv;
    const awaited = (e: REv): Step<REv> => (_s, fx) => ({ ...e, ...('timerId' in e ? { timerId: lastId(fx) } : { requestId: lastId(fx) }) }) as REv;
    const DUE = { type: 'rlm.taskDue', timerId: 0, metadataReady: true, highestRemoteOffset: 149, highestOffsetInRemoteStorage: -1, remoteLogStartOffset: 0, tiered: true, copyDisabled: false } as REv;
    const STEP = { type: 'rlm.step', requestId: 0, ...rfacts({ candidate: S0 }) } as REv;
    const COPIED = { type: 'rlm.copyCompleted', requestId: 0, segmentId: SEG0, ok: true, error: null } as REv;
    const DELETED = { type: 'rlm.deleteCompleted', requestId: 0, segmentId: SEG0, ok: true, error: null } as REv;

    test('the prefixes reach every state of the machine but inactive', () => {
      // Goal: the tables below cover every state. Method: compare with the machine's states.
      expect(Object.keys(IN).sort()).toEqual(activeStates(remoteLogManagerMachine));
      for (const [state, steps] of Object.entries(IN)) expect(stateOf(rlm(steps).snapshot)).toBe(state);
    });

    test.each<[string, string, Step<REv>]>([
      ['running: an old rlm.step', 'running', stale(STEP)],
      ['running: rlm.taskDue with the awaited id (a run is not started twice)', 'running', awaited(DUE)],
      ['copying: an old rlm.copyCompleted', 'copying', stale(COPIED)],
      ['copying: an old failed rlm.copyCompleted', 'copying', stale({ ...COPIED, ok: false, error: 'ServiceUnavailable' } as REv)],
      ['copying: rlm.step (not a copy completion)', 'copying', awaited(STEP)],
      ['copying: rlm.deleteCompleted with the awaited id', 'copying', awaited(DELETED)],
      ['cleaningUpFailedCopy: an old rlm.deleteCompleted', 'cleaningUpFailedCopy', stale(DELETED)],
      ['cleaningUpFailedCopy: the failed copy completion again', 'cleaningUpFailedCopy', stale({ ...COPIED, ok: false, error: 'ServiceUnavailable' } as REv)],
      ['idle: an rlm.step', 'idle', awaited(STEP)],
      ['idle: an rlm.copyCompleted', 'idle', awaited(COPIED)],
      ['idle: an rlm.deleteCompleted', 'idle', awaited(DELETED)],
    ])('ignored: %s', (_name, state, event) => {
      // Goal: only the awaited answer moves the machine, so a late answer from an earlier request
      // (or a restart) never acts twice. Method: reach the state, deliver the event.
      const r = rlm(IN[state]);
      expect(stateOf(r.snapshot)).toBe(state);
      const s = rlm([event], r);
      expect(stateOf(s.snapshot)).toBe(state);
      expect(s.lastEffects).toEqual([]);
      expect(s.snapshot.context).toEqual(r.snapshot.context);
    });

    test.each(Object.keys(IN).map((s) => [s]))('rlm.stopped from %s -> inactive; the late answer is ignored', (state) => {
      // Goal: a stopped task (broker offline, replica removed) asks for nothing, whatever it was doing.
      // Method: reach the state, stop, then deliver the answer it was awaiting.
      const r = rlm(IN[state]);
      const id = lastId(r.effects);
      const s = rlm([{ type: 'rlm.stopped' }], r);
      expect(stateOf(s.snapshot)).toBe('inactive');
      expect(s.lastEffects).toEqual([]);
      expect(s.snapshot.context).toMatchObject({ awaiting: -1, segmentId: null });
      const late = rlm([
        { ...DUE, timerId: id } as REv,
        { ...STEP, requestId: id } as REv,
        { ...COPIED, requestId: id } as REv,
        { ...DELETED, requestId: id } as REv,
      ], s);
      expect(stateOf(late.snapshot)).toBe('inactive');
      expect(late.effects.slice(s.effects.length)).toEqual([]);
    });

    test('rlm.started after rlm.stopped -> idle with a fresh timer (ids never reused)', () => {
      // Goal: a restarted task starts a new loop whose ids the old answers cannot match.
      // Method: start, copy, stop, start again as a follower.
      const r = rlm([START_LEADER, taskDue(), rstep({ candidate: S0 }), { type: 'rlm.stopped' }, START_FOLLOWER]);
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.lastEffects).toEqual([{ type: 'scheduleTask', params: { timerId: 4, after: 'now' } }]);
      expect(r.snapshot.context.role).toBe('follower');
    });

    test('rlm.started (leader -> follower) during a copy -> idle, the copy completion is ignored', () => {
      // Goal: a new role starts the new role's task at once; the old task's copy answers nothing.
      // Method: a leader copying 0-49 becomes follower; the copy completes late.
      const r = rlm([START_FOLLOWER], rlm(IN.copying));
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.lastEffects).toEqual([{ type: 'scheduleTask', params: { timerId: 4, after: 'now' } }]);
      const late = rlm([{ ...COPIED, requestId: 3 } as REv], r);
      expect(late.lastEffects).toEqual([]);
      expect(late.snapshot.context).toEqual(r.snapshot.context);
    });

    test('rlm.stopped when inactive -> nothing', () => {
      // Goal: stopping twice is harmless. Method: stop a machine that never started.
      const r = rlm([{ type: 'rlm.stopped' }]);
      expect(stateOf(r.snapshot)).toBe('inactive');
      expect(r.effects).toEqual([]);
    });
  });
});

// ------------------------------------------- rlmExpiration: RLMExpirationTask (leader only)

type XEv = RlmExpirationEvent;
type Expired = Extract<XEv, { type: 'expiration.step' }>['remoteExpired'];

const X_LEADER: XEv = { type: 'expiration.started', role: 'leader' };
const X_FOLLOWER: XEv = { type: 'expiration.started', role: 'follower' };

/** The awaited timer fired (kernel machineTimer for rlmExpiration). */
function xdue(): Step<XEv> {
  return (_s, fx) => ({ type: 'expiration.due', timerId: lastId(fx) });
}

/** The `expiration.step` answering the last requestStep (kernel, rlmStep of task 'expiration': facts.remoteExpiredNow). */
function xstep(remoteExpired: Expired = []): Step<XEv> {
  return (_s, fx) => ({ type: 'expiration.step', requestId: lastId(fx), remoteExpired });
}

/** tiering.onSegmentObjectDone for an expired segment's delete group (all four DELETEs done). */
function xdeleted(ok: boolean, segmentId = SEG0, error: string | null = ok ? null : 'ServiceUnavailable'): Step<XEv> {
  return (_s, fx) => ({ type: 'expiration.deleteCompleted', requestId: lastId(fx), segmentId, ok, error });
}

function expiration(events: Step<XEv>[], from?: Fed): Fed {
  return feedTask(rlmExpirationMachine, events, from);
}

/** A leader's expiration task in its first run, awaiting `expiration.step` 2 (the next id is 3). */
function expirationRunning(): Fed {
  return expiration([X_LEADER, xdue()]);
}

describe('rlmExpirationMachine (RLMExpirationTask, docs/protocol.md §5 remote retention)', () => {
  describe('task runs', () => {
    test('expiration.started (leader) -> idle, scheduleTask now', () => {
      // Goal: RemoteLogManager schedules the leader's expiration task with no initial delay, apart from the copy task.
      // Method: start a fresh machine as leader.
      const r = expiration([X_LEADER]);
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.effects).toEqual([{ type: 'scheduleTask', params: { timerId: 1, after: 'now' } }]);
      expect(r.snapshot.context.awaiting).toBe(1);
    });

    test('expiration.started (follower) -> inactive, nothing asked for: a follower has no expiration task', () => {
      // Goal: only a leader runs RLMExpirationTask (a follower runs RLMFollowerTask only).
      // Method: start a fresh machine as follower; then a leader's task that becomes follower, and its late timer.
      const f = expiration([X_FOLLOWER]);
      expect(stateOf(f.snapshot)).toBe('inactive');
      expect(f.effects).toEqual([]);
      expect(f.snapshot.context.awaiting).toBe(-1);
      const demoted = expiration([X_LEADER, X_FOLLOWER]);
      expect(stateOf(demoted.snapshot)).toBe('inactive');
      expect(demoted.lastEffects).toEqual([]);
      expect(demoted.snapshot.context.awaiting).toBe(-1);
      const late = expiration([{ type: 'expiration.due', timerId: 1 }], demoted);
      expect(late.lastEffects).toEqual([]);
      expect(stateOf(late.snapshot)).toBe('inactive');
    });

    test('expiration.due -> running + requestStep', () => {
      // Goal: each run makes its list from fresh facts. Method: the first timer fires.
      const r = expirationRunning();
      expect(stateOf(r.snapshot)).toBe('running');
      expect(r.lastEffects).toEqual([{ type: 'requestStep', params: { requestId: 2 } }]);
    });

    test('nothing expired -> idle, explain rlmRunDone (RLMExpirationTask), scheduleTask interval', () => {
      // Goal: a run that finds nothing to delete ends, names its task, and schedules the next one.
      // Method: the unfiltered effects of an empty step.
      const r = feed(rlmExpirationMachine, RLM, [X_LEADER, xdue(), xstep()]);
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.lastEffects).toEqual([
        { type: 'explain', params: { rule: 'rlmRunDone', detail: { task: 'RLMExpirationTask' } } },
        { type: 'scheduleTask', params: { timerId: 3, after: 'interval' } },
      ]);
      expect(r.snapshot.context.runs).toBe(1);
    });

    test('runs repeat: each run with a fresh timer and step id', () => {
      // Goal: the expiration task runs every interval after its previous run ended. Method: three empty runs.
      const r = expiration([X_LEADER, xdue(), xstep(), xdue(), xstep(), xdue(), xstep()]);
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(ofType(r.effects, 'scheduleTask').map((e) => e.params)).toEqual([
        { timerId: 1, after: 'now' },
        { timerId: 3, after: 'interval' },
        { timerId: 5, after: 'interval' },
        { timerId: 7, after: 'interval' },
      ]);
      expect(ofType(r.effects, 'requestStep').map((e) => e.params)).toEqual([{ requestId: 2 }, { requestId: 4 }, { requestId: 6 }]);
      expect(r.snapshot.context.runs).toBe(3);
    });
  });

  describe('an expiration pass', () => {
    test('expired segments -> deletingRemote: Log-Start-Offset raised once, then the first delete', () => {
      // Goal: RLMExpirationTask makes its list once and calls handleLogStartOffsetUpdate once, with the end + 1
      // of the last segment expiring by time or size, before it deletes anything.
      // Method: a step listing 0-49 and 50-99 (retention.bytes).
      const r = expiration([xstep(EXPIRED)], expirationRunning());
      expect(stateOf(r.snapshot)).toBe('deletingRemote');
      expect(r.lastEffects).toEqual([
        { type: 'raiseLogStartOffsetForRetention', params: { offset: 100 } },
        { type: 'startRemoteDelete', params: { requestId: 3, segmentId: SEG0, rule: 'retentionBytes' } },
      ]);
      expect(r.snapshot.context).toMatchObject({ awaiting: 3, segmentId: SEG0, expiring: [{ segmentId: SEG50, rule: 'retentionBytes' }] });
    });

    test('the pass deletes one segment at a time, oldest first, without a fresh step; after the last the run ends', () => {
      // Goal: the rest of the list is deleted in order (DELETE_SEGMENT_STARTED, delete, DELETE_SEGMENT_FINISHED),
      // and the pass is the whole run: the next list is made at the next run, not at once.
      // Method: two expired segments, both deletes succeed.
      const r = expiration([xstep(EXPIRED), xdeleted(true, SEG0)], expirationRunning());
      expect(stateOf(r.snapshot)).toBe('deletingRemote');
      expect(r.lastEffects).toEqual([
        { type: 'finishRemoteDelete', params: { segmentId: SEG0 } },
        { type: 'startRemoteDelete', params: { requestId: 4, segmentId: SEG50, rule: 'retentionBytes' } },
      ]);
      expect(r.snapshot.context).toMatchObject({ awaiting: 4, segmentId: SEG50, expiring: [] });
      const s = expiration([xdeleted(true, SEG50)], r);
      expect(stateOf(s.snapshot)).toBe('idle');
      expect(s.lastEffects).toEqual([
        { type: 'finishRemoteDelete', params: { segmentId: SEG50 } },
        { type: 'scheduleTask', params: { timerId: 5, after: 'interval' } },
      ]);
      expect(ofType(s.effects, 'raiseLogStartOffsetForRetention')).toHaveLength(1);
      expect(ofType(s.effects, 'requestStep').map((e) => e.params.requestId)).toEqual([2]);
      expect(s.snapshot.context).toMatchObject({ runs: 1, segmentId: null, expiring: [] });
      // The whole pass explains nothing at its end: the deletes are the narration.
      expect(feed(rlmExpirationMachine, RLM, [X_LEADER, xdue(), xstep(EXPIRED), xdeleted(true, SEG0), xdeleted(true, SEG50)]).effects.filter(isRunDone)).toEqual([]);
    });

    test.each<[string, Expired, number]>([
      ['time and size: past the last of them', [{ segmentId: SEG0, endOffset: 49, rule: 'retentionMs' }, { segmentId: SEG50, endOffset: 99, rule: 'retentionBytes' }], 100],
      ['below the log start and retried deletes do not move it', [{ segmentId: SEG0, endOffset: 49, rule: 'retryDelete' }, { segmentId: SEG50, endOffset: 99, rule: 'belowLogStartOffset' }], -1],
      ['a retried delete before a time breach: past the time breach', [{ segmentId: SEG50, endOffset: 99, rule: 'retryDelete' }, { segmentId: SEG0, endOffset: 49, rule: 'retentionMs' }], 50],
    ])('the Log-Start-Offset of a pass: %s', (_name, expired, offset) => {
      // Goal: only time and size breaches set the new log start (RemoteLogRetentionHandler keeps
      // the largest end + 1 of those). Method: one step with the list.
      const r = expiration([xstep(expired)], expirationRunning());
      expect(r.lastEffects[0]).toEqual({ type: 'raiseLogStartOffsetForRetention', params: { offset } });
      expect(r.lastEffects[1]).toEqual({ type: 'startRemoteDelete', params: { requestId: 3, segmentId: expired[0].segmentId, rule: expired[0].rule } });
    });

    test('a failed delete ends the pass -> idle and the next run, which lists the segment again', () => {
      // Goal: a failed delete leaves the segment DELETE_SEGMENT_STARTED and the rest of the pass waits for the
      // next run (no finishRemoteDelete; the list is dropped). Method: the first DELETE fails; the next run.
      const r = expiration([xstep(EXPIRED), xdeleted(false)], expirationRunning());
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.lastEffects).toEqual([{ type: 'scheduleTask', params: { timerId: 4, after: 'interval' } }]);
      expect(ofType(r.effects, 'finishRemoteDelete')).toEqual([]);
      expect(r.snapshot.context).toMatchObject({ expiring: [], segmentId: null, runs: 1 });
      const retry: Expired = [{ segmentId: SEG0, endOffset: 49, rule: 'retryDelete' }, EXPIRED[1]];
      const again = expiration([xdue(), xstep(retry)], r);
      expect(again.lastEffects).toEqual([
        { type: 'raiseLogStartOffsetForRetention', params: { offset: 100 } },
        { type: 'startRemoteDelete', params: { requestId: 6, segmentId: SEG0, rule: 'retryDelete' } },
      ]);
    });

    test('a failed delete in the middle of the pass: the earlier segment is finished, the rest waits', () => {
      // Goal: what was deleted stays deleted; the pass ends at the failure. Method: 0-49 deleted, 50-99 fails.
      const r = expiration([xstep(EXPIRED), xdeleted(true, SEG0), xdeleted(false, SEG50)], expirationRunning());
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.lastEffects).toEqual([{ type: 'scheduleTask', params: { timerId: 5, after: 'interval' } }]);
      expect(ofType(r.effects, 'finishRemoteDelete').map((e) => e.params)).toEqual([{ segmentId: SEG0 }]);
    });
  });

  describe('stale answers, restarts and expiration.stopped', () => {
    const IN: Record<string, Step<XEv>[]> = {
      idle: [X_LEADER],
      running: [X_LEADER, xdue()],
      deletingRemote: [X_LEADER, xdue(), xstep(EXPIRED)],
    };
    const stale = (e: XEv): Step<XEv> => (_s, fx) => ({ ...e, ...('timerId' in e ? { timerId: lastId(fx) - 1 } : { requestId: lastId(fx) - 1 }) }) as XEv;
    const awaited = (e: XEv): Step<XEv> => (_s, fx) => ({ ...e, ...('timerId' in e ? { timerId: lastId(fx) } : { requestId: lastId(fx) }) }) as XEv;
    const DUE: XEv = { type: 'expiration.due', timerId: 0 };
    const STEP: XEv = { type: 'expiration.step', requestId: 0, remoteExpired: EXPIRED };
    const DELETED: XEv = { type: 'expiration.deleteCompleted', requestId: 0, segmentId: SEG0, ok: true, error: null };

    test('the prefixes reach every state of the machine but inactive', () => {
      // Goal: the tables below cover every state. Method: compare with the machine's states.
      expect(Object.keys(IN).sort()).toEqual(activeStates(rlmExpirationMachine));
      for (const [state, steps] of Object.entries(IN)) expect(stateOf(expiration(steps).snapshot)).toBe(state);
    });

    test.each<[string, string, Step<XEv>]>([
      ['idle: an old timer', 'idle', stale(DUE)],
      ['idle: an expiration.step', 'idle', awaited(STEP)],
      ['idle: an expiration.deleteCompleted', 'idle', awaited(DELETED)],
      ['running: an old expiration.step', 'running', stale(STEP)],
      ['running: expiration.due with the awaited id', 'running', awaited(DUE)],
      ['running: expiration.deleteCompleted with the awaited id', 'running', awaited(DELETED)],
      ['deletingRemote: an old expiration.deleteCompleted', 'deletingRemote', stale(DELETED)],
      ['deletingRemote: an old failed expiration.deleteCompleted', 'deletingRemote', stale({ ...DELETED, ok: false, error: 'ServiceUnavailable' } as XEv)],
      ['deletingRemote: expiration.step with the awaited id', 'deletingRemote', awaited(STEP)],
    ])('ignored: %s', (_name, state, event) => {
      // Goal: only the awaited answer moves the machine, so a late answer never deletes twice.
      // Method: reach the state, deliver the event.
      const r = expiration(IN[state]);
      expect(stateOf(r.snapshot)).toBe(state);
      const s = expiration([event], r);
      expect(stateOf(s.snapshot)).toBe(state);
      expect(s.lastEffects).toEqual([]);
      expect(s.snapshot.context).toEqual(r.snapshot.context);
    });

    test.each(Object.keys(IN).map((s) => [s]))('expiration.stopped from %s -> inactive; the late answer is ignored', (state) => {
      // Goal: a stopped task asks for nothing, whatever it was doing. Method: reach the state, stop, answer late.
      const r = expiration(IN[state]);
      const id = lastId(r.effects);
      const s = expiration([{ type: 'expiration.stopped' }], r);
      expect(stateOf(s.snapshot)).toBe('inactive');
      expect(s.lastEffects).toEqual([]);
      expect(s.snapshot.context).toMatchObject({ awaiting: -1, segmentId: null, expiring: [] });
      const late = expiration([{ ...DUE, timerId: id } as XEv, { ...STEP, requestId: id } as XEv, { ...DELETED, requestId: id } as XEv], s);
      expect(stateOf(late.snapshot)).toBe('inactive');
      expect(late.effects.slice(s.effects.length)).toEqual([]);
    });

    test('expiration.started (leader) during a pass -> idle with a fresh timer; the delete in flight answers nothing', () => {
      // Goal: a new leadership starts a new task at once; the old pass is dropped (its segment, left
      // DELETE_SEGMENT_STARTED, is a retried delete of a later pass). Method: re-elected while deleting 0-49.
      const r = expiration([X_LEADER], expiration(IN.deletingRemote));
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.lastEffects).toEqual([{ type: 'scheduleTask', params: { timerId: 4, after: 'now' } }]);
      expect(r.snapshot.context).toMatchObject({ awaiting: 4, segmentId: null, expiring: [] });
      const late = expiration([{ ...DELETED, requestId: 3 } as XEv], r);
      expect(late.lastEffects).toEqual([]);
      expect(late.snapshot.context).toEqual(r.snapshot.context);
    });

    test('expiration.stopped when inactive -> nothing', () => {
      // Goal: stopping twice is harmless. Method: stop a machine that never started.
      const r = expiration([{ type: 'expiration.stopped' }]);
      expect(stateOf(r.snapshot)).toBe('inactive');
      expect(r.effects).toEqual([]);
    });
  });
});

// ------------------------------------------- logRetention: the broker's log retention task (every replica)

type LEvR = LogRetentionEvent;

/** The awaited timer fired (kernel machineTimer for logRetention). */
function retentionDue(): Step<LEvR> {
  return (_s, fx) => ({ type: 'retention.due', timerId: lastId(fx) });
}

/** The `retention.step` answering the last requestStep (kernel, rlmStep of task 'retention': facts.logRetentionFacts). */
function retentionStep(o: Partial<LogRetentionFacts> = {}): Step<LEvR> {
  return (_s, fx) => ({ type: 'retention.step', requestId: lastId(fx), localDeletable: [], localStoppedBy: null, rollActive: false, ...o });
}

function logRetention(events: Step<LEvR>[], from?: Fed): Fed {
  return feedTask(logRetentionMachine, events, from);
}

const R_START: LEvR = { type: 'retention.started' };

/** A log retention task in its first run, awaiting `retention.step` 2 (the next id is 3). */
function retentionRunning(): Fed {
  return logRetention([R_START, retentionDue()]);
}

describe('logRetentionMachine (LogManager kafka-log-retention, docs/protocol.md §5 local retention)', () => {
  describe('task runs', () => {
    test("retention.started -> idle, scheduleTask after 'start' (the broker's first run, at or after now)", () => {
      // Goal: the task is scheduled on the broker's schedule (log.initial.task.delay.ms after the broker
      // started, then every log.retention.check.interval.ms: domain/retention.ts nextRetentionRunMs), not at once.
      // Method: start a fresh machine.
      const r = logRetention([R_START]);
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.effects).toEqual([{ type: 'scheduleTask', params: { timerId: 1, after: 'start' } }]);
      expect(r.snapshot.context.awaiting).toBe(1);
    });

    test('retention.due -> running + requestStep', () => {
      // Goal: each decision is made from fresh facts. Method: the first timer fires.
      const r = retentionRunning();
      expect(stateOf(r.snapshot)).toBe('running');
      expect(r.lastEffects).toEqual([{ type: 'requestStep', params: { requestId: 2 } }]);
    });

    test("runs repeat: each run ends with scheduleTask after 'next' and a fresh id", () => {
      // Goal: the task runs at a fixed rate (the kernel places 'next' on the broker's grid, strictly after now).
      // Method: three runs with nothing to delete.
      const r = logRetention([R_START, retentionDue(), retentionStep(), retentionDue(), retentionStep(), retentionDue(), retentionStep()]);
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(ofType(r.effects, 'scheduleTask').map((e) => e.params)).toEqual([
        { timerId: 1, after: 'start' },
        { timerId: 3, after: 'next' },
        { timerId: 5, after: 'next' },
        { timerId: 7, after: 'next' },
      ]);
      expect(ofType(r.effects, 'requestStep').map((e) => e.params)).toEqual([{ requestId: 2 }, { requestId: 4 }, { requestId: 6 }]);
      expect(r.snapshot.context.runs).toBe(3);
    });
  });

  describe('retention.step decisions, in priority order', () => {
    const NEXT_STEP: Effect = { type: 'requestStep', params: { requestId: 3 } };
    const NEXT_RUN: Effect = { type: 'scheduleTask', params: { timerId: 3, after: 'next' } };
    const ROLL: Effect[] = [{ type: 'rollActiveSegment', params: {} }, { type: 'explain', params: { rule: 'rollForLocalRetention' } }, NEXT_STEP];

    test.each<[string, Partial<LogRetentionFacts>, string, Effect[]]>([
      ['rollActive first, before deleting', { rollActive: true, localDeletable: [S0] }, 'running', ROLL],
      ['rollActive alone', { rollActive: true }, 'running', ROLL],
      ['local deletable -> deleteLocalSegments, stays running', { localDeletable: [S0] }, 'running', [{ type: 'deleteLocalSegments', params: { segments: [S0] } }, NEXT_STEP]],
      ['several local segments in one effect', { localDeletable: [S0, S50] }, 'running', [{ type: 'deleteLocalSegments', params: { segments: [S0, S50] } }, NEXT_STEP]],
      ['nothing deletable (stopped by an upload) -> idle, the next run', { localStoppedBy: 'notUploaded' }, 'idle', [NEXT_RUN]],
      ['nothing to do -> idle, the next run', {}, 'idle', [NEXT_RUN]],
    ])('%s', (_name, o, state, expected) => {
      // Goal: one decision per step: roll a breaching active segment (deleteSegments rolls it before it can
      // go), else delete the local segments that may go, else end the run (docs/protocol.md §5).
      // Method: a task in its first run (awaiting step 2) gets the facts.
      const r = logRetention([retentionStep(o)], retentionRunning());
      expect(stateOf(r.snapshot)).toBe(state);
      expect(r.lastEffects).toEqual(expected);
    });

    test('a whole run: roll, then delete, then done (one run, one timer)', () => {
      // Goal: a run decides again after each effect until nothing more may go, then waits for the next run.
      // Method: the facts after each effect: the active segment breaches, once rolled it may go, then nothing.
      const r = logRetention([retentionStep({ rollActive: true }), retentionStep({ localDeletable: [S0, S50] }), retentionStep({ localStoppedBy: 'active' })], retentionRunning());
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(types(r.effects)).toEqual(['scheduleTask', 'requestStep', 'rollActiveSegment', 'explain', 'requestStep', 'deleteLocalSegments', 'requestStep', 'scheduleTask']);
      expect(last(r.effects, 'scheduleTask').params).toEqual({ timerId: 5, after: 'next' });
      expect(r.snapshot.context.runs).toBe(1);
    });

    test.each<[LocalRetentionStop]>([['active'], ['notBelowHighWatermark'], ['notUploaded'], ['withinRetention'], [null]])(
      'a run that ends explains where local retention stopped (logRetentionRunDone): %s',
      (localStoppedBy) => {
        // Goal: the narration says why the run deleted no more. Method: the unfiltered effects of the last step.
        const r = feed(logRetentionMachine, RLM, [R_START, retentionDue(), retentionStep({ localStoppedBy })]);
        expect(r.lastEffects).toEqual([
          { type: 'explain', params: { rule: 'logRetentionRunDone', detail: { localStoppedBy } } },
          { type: 'scheduleTask', params: { timerId: 3, after: 'next' } },
        ]);
      },
    );
  });

  describe('stale answers, restarts and retention.stopped', () => {
    const IN: Record<string, Step<LEvR>[]> = {
      idle: [R_START],
      running: [R_START, retentionDue()],
    };
    const DUE: LEvR = { type: 'retention.due', timerId: 0 };
    const STEP: LEvR = { type: 'retention.step', requestId: 0, localDeletable: [S0], localStoppedBy: null, rollActive: true };

    test('the prefixes reach every state of the machine but inactive', () => {
      // Goal: the tables below cover every state. Method: compare with the machine's states.
      expect(Object.keys(IN).sort()).toEqual(activeStates(logRetentionMachine));
      for (const [state, steps] of Object.entries(IN)) expect(stateOf(logRetention(steps).snapshot)).toBe(state);
    });

    test.each<[string, string, Step<LEvR>]>([
      ['idle: an old timer', 'idle', (_s, fx) => ({ ...DUE, timerId: lastId(fx) - 1 }) as LEvR],
      ['idle: a retention.step with the awaited id', 'idle', (_s, fx) => ({ ...STEP, requestId: lastId(fx) }) as LEvR],
      ['running: an old retention.step', 'running', (_s, fx) => ({ ...STEP, requestId: lastId(fx) - 1 }) as LEvR],
      ['running: retention.due with the awaited id', 'running', (_s, fx) => ({ ...DUE, timerId: lastId(fx) }) as LEvR],
    ])('ignored: %s', (_name, state, event) => {
      // Goal: only the awaited answer moves the machine. Method: reach the state, deliver the event.
      const r = logRetention(IN[state]);
      const s = logRetention([event], r);
      expect(stateOf(s.snapshot)).toBe(state);
      expect(s.lastEffects).toEqual([]);
      expect(s.snapshot.context).toEqual(r.snapshot.context);
    });

    test.each(Object.keys(IN).map((s) => [s]))('retention.stopped from %s -> inactive; the late answer is ignored', (state) => {
      // Goal: a stopped task (broker offline, replica removed) asks for nothing. Method: reach the state, stop, answer late.
      const r = logRetention(IN[state]);
      const id = lastId(r.effects);
      const s = logRetention([{ type: 'retention.stopped' }], r);
      expect(stateOf(s.snapshot)).toBe('inactive');
      expect(s.lastEffects).toEqual([]);
      expect(s.snapshot.context.awaiting).toBe(-1);
      const late = logRetention([{ ...DUE, timerId: id } as LEvR, { ...STEP, requestId: id } as LEvR], s);
      expect(stateOf(late.snapshot)).toBe('inactive');
      expect(late.effects.slice(s.effects.length)).toEqual([]);
    });

    test("retention.started during a run -> idle with a fresh timer after 'start'; the old step is ignored", () => {
      // Goal: a restarted task starts a new schedule whose ids the old answers cannot match.
      // Method: start again while running, then answer the old step.
      const r = logRetention([R_START], retentionRunning());
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.lastEffects).toEqual([{ type: 'scheduleTask', params: { timerId: 3, after: 'start' } }]);
      const late = logRetention([{ ...STEP, requestId: 2 } as LEvR], r);
      expect(late.lastEffects).toEqual([]);
      expect(late.snapshot.context).toEqual(r.snapshot.context);
    });

    test('retention.stopped when inactive -> nothing', () => {
      // Goal: stopping twice is harmless. Method: stop a machine that never started.
      const r = logRetention([{ type: 'retention.stopped' }]);
      expect(stateOf(r.snapshot)).toBe('inactive');
      expect(r.effects).toEqual([]);
    });
  });
});
