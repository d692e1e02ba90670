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
import type { SegmentRange } from '../core/domain/retention.js';
import { type FollowerFetcherEvent, type ReplicaFacts, followerFetcherMachine } from '../core/machines/follower-fetcher.js';
import { type LeaderPartitionEvent, leaderPartitionMachine } from '../core/machines/leader-partition.js';
import { type RemoteLogManagerEvent, type RlmFacts, remoteLogManagerMachine } from '../core/machines/remote-log-manager.js';
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
// Remote log manager: events as core/sim/loop/kernel.ts builds them (rlmTaskEvent, rlmFacts, onStoreDone)

type REv = RemoteLogManagerEvent;

const RLM = { broker: 0, topic: 't', partition: 0 };

/** kernel.rlmTaskEvent; defaults: tiered, metadata ready, nothing uploaded. */
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

/** kernel.rlmFacts; defaults: a tiered topic, metadata ready, nothing to do. */
function rfacts(o: Partial<RlmFacts> = {}): RlmFacts {
  return {
    tiered: true,
    copyDisabled: false,
    metadataReady: true,
    candidate: null,
    localDeletable: [],
    localStoppedBy: null,
    rollActive: false,
    remoteExpired: [],
    ...o,
  };
}

/** The `rlm.step` answering the last requestStep (kernel `rlmStep`). */
function rstep(o: Partial<RlmFacts> = {}): Step<REv> {
  return (_s, fx) => ({ type: 'rlm.step', requestId: lastId(fx), ...rfacts(o) });
}

/** kernel.onStoreDone for a copy group (all four PUTs done). */
function copied(ok: boolean, segmentId = SEG0, error: string | null = ok ? null : 'ServiceUnavailable'): Step<REv> {
  return (_s, fx) => ({ type: 'rlm.copyCompleted', requestId: lastId(fx), segmentId, ok, error });
}

/** kernel.onStoreDone for a delete group (all four DELETEs done). */
function deleted(ok: boolean, segmentId = SEG0, error: string | null = ok ? null : 'ServiceUnavailable'): Step<REv> {
  return (_s, fx) => ({ type: 'rlm.deleteCompleted', requestId: lastId(fx), segmentId, ok, error });
}

/** The end-of-run explanation (rlmRunDone) is checked on its own; the other tests leave it out. */
const isRunDone = (e: Effect) => e.type === 'explain' && (e.params as { rule?: string } | undefined)?.rule === 'rlmRunDone';

function rlm(events: Step<REv>[], from?: Fed): Fed {
  const r = feed(remoteLogManagerMachine, RLM, events, from);
  return { ...r, effects: r.effects.filter((e) => !isRunDone(e)), lastEffects: r.lastEffects.filter((e) => !isRunDone(e)) };
}

test('a run that ends explains why nothing more was uploaded or deleted (rlmRunDone)', () => {
  const r = feed(remoteLogManagerMachine, RLM, [
    () => ({ type: 'rlm.started', role: 'leader' }),
    taskDue(),
    rstep({ copyDisabled: true, localStoppedBy: 'notUploaded' }),
  ]);
  expect(r.lastEffects.find(isRunDone)?.params).toEqual({ rule: 'rlmRunDone', detail: { localStoppedBy: 'notUploaded', copy: 'copyDisabled' } });
});

const SEG0 = 't-0-0-1';
const SEG50 = 't-0-50-2';
const S0: SegmentRange = { baseOffset: 0, endOffset: 49, bytes: 51200 };
const S50: SegmentRange = { baseOffset: 50, endOffset: 99, bytes: 51200 };
const EXPIRED = [
  { segmentId: SEG0, endOffset: 49, rule: 'retentionBytes' as const },
  { segmentId: SEG50, endOffset: 99, rule: 'retentionBytes' as const },
];

const START_LEADER: REv = { type: 'rlm.started', role: 'leader' };
const START_FOLLOWER: REv = { type: 'rlm.started', role: 'follower' };

/** A leader in its first run, awaiting `rlm.step` 2 (the next id is 3). */
function leaderRunning(): Fed {
  return rlm([START_LEADER, taskDue()]);
}

describe('remoteLogManagerMachine', () => {
  describe('task runs', () => {
    test.each<[string, REv]>([
      ['leader', START_LEADER],
      ['follower', START_FOLLOWER],
    ])('rlm.started (%s) -> idle, scheduleTask now', (role, started) => {
      // Goal: the first task run is at once (docs/protocol.md §5; RLM task scheduled with no initial delay).
      // Method: start a fresh machine.
      const r = rlm([started]);
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.effects).toEqual([{ type: 'scheduleTask', params: { timerId: 1, after: 'now' } }]);
      expect(r.snapshot.context.role).toBe(role);
      expect(r.snapshot.context.awaiting).toBe(1);
    });

    test.each<[string, number, number, Effect[]]>([
      ['learns a higher offset -> updateHighestOffsetInRemoteStorage first', 149, -1, [{ type: 'updateHighestOffsetInRemoteStorage', params: { offset: 149 } }]],
      ['learns a higher offset over a known one', 199, 149, [{ type: 'updateHighestOffsetInRemoteStorage', params: { offset: 199 } }]],
      ['same offset -> nothing to update', 149, 149, []],
      ['lower offset (Ry never decreases) -> nothing to update', 100, 149, []],
      ['stale Ry below the metadata (-1 computed) -> nothing to update', -1, 30, []],
      ['nothing uploaded -> nothing to update', -1, -1, []],
    ])('taskDue: %s, then running + requestStep', (_name, highestRemoteOffset, highestOffsetInRemoteStorage, updates) => {
      // Goal: every run refreshes Ry from metadata before deciding anything, even with nothing
      // to upload (KIP-1023's change), and never lowers it (docs/protocol.md §1 and §5 step 1); a
      // follower's run too (Kafka's RLMFollowerTask), so that an election does not reset it.
      // Method: the first run of a follower, and a leader's second run, metadata ready.
      const f = rlm([START_FOLLOWER, taskDue({ highestRemoteOffset, highestOffsetInRemoteStorage })]);
      expect(stateOf(f.snapshot)).toBe('running');
      expect(f.lastEffects).toEqual([...updates, { type: 'requestStep', params: { requestId: 2 } }]);
      expect(f.snapshot.context.awaiting).toBe(2);
      const l = rlm([rstep(), taskDue({ highestRemoteOffset, highestOffsetInRemoteStorage })], leaderRunning());
      expect(l.lastEffects).toEqual([...updates, { type: 'requestStep', params: { requestId: 4 } }]);
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

    test('with remote.log.copy.disable a leader has no copy task: no log start look-up and no Ry refresh', () => {
      // Goal: RemoteLogManager.doHandleLeaderPartition creates no RLMCopyTask when copy is disabled, and only
      // the copy task (or a follower's RLMFollowerTask) refreshes Ry.
      // Method: a leader's first run with copyDisabled and a higher offset in the metadata.
      const r = rlm([START_LEADER, taskDue({ copyDisabled: true, highestRemoteOffset: 149, remoteLogStartOffset: 200 })]);
      expect(r.lastEffects).toEqual([{ type: 'requestStep', params: { requestId: 2 } }]);
      expect(r.snapshot.context.logStartOffsetUpdated).toBe(false);
    });

    test('taskDue while the metadata is loading -> explain rlmMetadataLoading and requestStep; Ry not updated', () => {
      // Goal: the replica cannot learn Ry before the remote log metadata is loaded, even if it would be higher;
      // the run goes on (local retention may still apply) and the facts say the metadata is not ready.
      // Method: the first run finds metadata not ready and a computed highest remote offset of 149.
      const r = rlm([START_LEADER, taskDue({ metadataReady: false, highestRemoteOffset: 149 })]);
      expect(stateOf(r.snapshot)).toBe('running');
      expect(r.lastEffects).toEqual([
        { type: 'explain', params: { rule: 'rlmMetadataLoading' } },
        { type: 'requestStep', params: { requestId: 2 } },
      ]);
      expect(ofType(r.effects, 'updateHighestOffsetInRemoteStorage')).toEqual([]);
    });

    test('taskDue on a topic that is not tiered (the kernel computes -1) -> running + requestStep only', () => {
      // Goal: nothing to learn without tiering; local retention is still decided in the run.
      // Method: one run of a follower with tiered false.
      const r = rlm([START_FOLLOWER, taskDue({ tiered: false })]);
      expect(stateOf(r.snapshot)).toBe('running');
      expect(r.lastEffects).toEqual([{ type: 'requestStep', params: { requestId: 2 } }]);
    });

    test('runs repeat: a run with nothing to do goes idle and schedules the next with a fresh timer id', () => {
      // Goal: the task runs every interval. Method: three runs, each with nothing to do.
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

    test.each<[string, Step<REv>[], number]>([
      ['a timer already fired', [START_LEADER, taskDue(), rstep()], 1],
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

  describe('rlm.step decisions, in priority order (docs/protocol.md §5)', () => {
    const ALL = { rollActive: true, candidate: S0, localDeletable: [S0], remoteExpired: EXPIRED };
    const NEXT_RUN: Effect = { type: 'scheduleTask', params: { timerId: 3, after: 'interval' } };
    const NEXT_STEP: Effect = { type: 'requestStep', params: { requestId: 3 } };
    const COPY_S0: Effect = { type: 'startCopy', params: { requestId: 3, baseOffset: 0, endOffset: 49 } };
    const DELETE_LOCAL: Effect = { type: 'deleteLocalSegments', params: { segments: [S0] } };
    const DELETE_REMOTE: Effect = { type: 'startRemoteDelete', params: { requestId: 3, segmentId: SEG0, rule: 'retentionBytes' } };
    // The pass raises Log-Start-Offset once, past the last expiring segment (SEG50 ends at 99).
    const RAISE_LSO: Effect = { type: 'raiseLogStartOffsetForRetention', params: { offset: 100 } };
    const ROLL: Effect[] = [{ type: 'rollActiveSegment', params: {} }, { type: 'explain', params: { rule: 'rollForLocalRetention' } }, NEXT_STEP];

    test.each<[string, 'leader' | 'follower', Partial<RlmFacts>, string, Effect[]]>([
      ['rollActive first, before everything else', 'leader', ALL, 'running', ROLL],
      ['rollActive on a follower too', 'follower', { rollActive: true }, 'running', ROLL],
      ['leader, a candidate -> copy it', 'leader', { candidate: S0 }, 'copying', [COPY_S0]],
      ['leader, a candidate before remote deletes', 'leader', { candidate: S0, remoteExpired: EXPIRED }, 'copying', [COPY_S0]],
      ['follower never copies', 'follower', { candidate: S0 }, 'idle', [NEXT_RUN]],
      ['copyDisabled -> no copy', 'leader', { candidate: S0, copyDisabled: true }, 'idle', [NEXT_RUN]],
      ['not tiered -> no copy', 'leader', { candidate: S0, tiered: false }, 'idle', [NEXT_RUN]],
      ['metadata loading -> no copy', 'leader', { candidate: S0, metadataReady: false }, 'idle', [NEXT_RUN]],
      ['copyDisabled, local deletable -> local retention still applies', 'leader', { candidate: S0, copyDisabled: true, localDeletable: [S0] }, 'running', [DELETE_LOCAL, NEXT_STEP]],
      ['leader, local deletable -> deleteLocalSegments, stays running', 'leader', { localDeletable: [S0] }, 'running', [DELETE_LOCAL, NEXT_STEP]],
      ['follower, local deletable -> deleteLocalSegments', 'follower', { localDeletable: [S0] }, 'running', [DELETE_LOCAL, NEXT_STEP]],
      ['local deletes before a copy and remote deletes', 'leader', { ...ALL, rollActive: false }, 'running', [DELETE_LOCAL, NEXT_STEP]],
      ['local deletes before remote deletes', 'leader', { localDeletable: [S0], remoteExpired: EXPIRED }, 'running', [DELETE_LOCAL, NEXT_STEP]],
      ['several local segments in one effect', 'leader', { localDeletable: [S0, S50] }, 'running', [{ type: 'deleteLocalSegments', params: { segments: [S0, S50] } }, NEXT_STEP]],
      ['leader, remote expired -> raise LSO once, delete the first one', 'leader', { remoteExpired: EXPIRED }, 'deletingRemote', [RAISE_LSO, DELETE_REMOTE]],
      ['leader, copyDisabled, remote expired -> still deletes', 'leader', { copyDisabled: true, candidate: S0, remoteExpired: EXPIRED }, 'deletingRemote', [RAISE_LSO, DELETE_REMOTE]],
      ['follower ignores remoteExpired', 'follower', { remoteExpired: EXPIRED }, 'idle', [NEXT_RUN]],
      ['nothing to do -> idle, scheduleTask interval', 'leader', {}, 'idle', [NEXT_RUN]],
    ])('%s', (_name, role, o, state, expected) => {
      // Goal: one decision per step, in the machine's order: roll a breaching active segment, delete
      // uploaded local segments (Kafka runs local retention in its own task, so uploads never hold it
      // back), copy the next candidate (leader only, tiered, copy enabled, metadata loaded), expire
      // remote segments (leader only), else wait for the next run (docs/protocol.md §5).
      // Method: a replica in its first run (awaiting step 2) gets the facts.
      const r = rlm([{ type: 'rlm.started', role }, taskDue(), rstep(o)]);
      expect(stateOf(r.snapshot)).toBe(state);
      expect(r.lastEffects).toEqual(expected);
    });

    test('copying remembers the candidate; deletingRemote remembers the segment', () => {
      // Goal: the completion is matched to what was asked for. Method: start a copy, and a delete.
      const c = rlm([rstep({ candidate: S50 })], leaderRunning());
      expect(c.snapshot.context).toMatchObject({ awaiting: 3, segmentBaseOffset: 50, segmentEndOffset: 99 });
      const d = rlm([rstep({ remoteExpired: EXPIRED })], leaderRunning());
      expect(d.snapshot.context).toMatchObject({ awaiting: 3, segmentId: SEG0 });
    });
  });

  describe('copy', () => {
    test('copyCompleted ok -> finishCopy(segmentId, endOffset of the candidate) + requestStep', () => {
      // Goal: COPY_SEGMENT_FINISHED and Ry = endOffset after the upload, then the next decision (docs/protocol.md §5 step 3).
      // Method: copy 0-49 and complete it.
      const r = rlm([rstep({ candidate: S0 }), copied(true)], leaderRunning());
      expect(stateOf(r.snapshot)).toBe('running');
      expect(r.lastEffects).toEqual([
        { type: 'finishCopy', params: { segmentId: SEG0, endOffset: 49 } },
        { type: 'requestStep', params: { requestId: 4 } },
      ]);
      expect(r.snapshot.context.copyFailures).toBe(0);
    });

    test('a whole run: copy 0-49, delete it locally, copy 50-99, delete it locally, then wait for the next run', () => {
      // Goal: candidates are copied one at a time in offset order; local retention (1 byte) deletes each
      // uploaded segment as soon as the facts allow it, before the next copy.
      // Method: the facts the kernel gives after each effect for the bundled rlm-upload-and-local-retention.
      const r = rlm([
        rstep({ candidate: S0 }),
        copied(true, SEG0),
        rstep({ candidate: S50, localDeletable: [S0] }),
        rstep({ candidate: S50 }),
        copied(true, SEG50),
        rstep({ localDeletable: [S50] }),
        rstep(),
      ], leaderRunning());
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(types(r.effects)).toEqual([
        'scheduleTask', 'updateLogStartOffsetOnBecomingLeader', 'requestStep',
        'startCopy', 'finishCopy', 'requestStep',
        'deleteLocalSegments', 'requestStep',
        'startCopy', 'finishCopy', 'requestStep',
        'deleteLocalSegments', 'requestStep',
        'scheduleTask',
      ]);
      expect(ofType(r.effects, 'deleteLocalSegments').map((e) => e.params)).toEqual([{ segments: [S0] }, { segments: [S50] }]);
      expect(ofType(r.effects, 'finishCopy').map((e) => e.params)).toEqual([
        { segmentId: SEG0, endOffset: 49 },
        { segmentId: SEG50, endOffset: 99 },
      ]);
      expect(r.snapshot.context.runs).toBe(1);
    });

    test('copyCompleted failed -> cleaningUpFailedCopy + abortCopy; deleteCompleted -> finishRemoteDelete (LSO kept) and the next run retries', () => {
      // Goal: a failed copy is cleaned up (DELETE_SEGMENT_STARTED -> delete -> DELETE_SEGMENT_FINISHED) and
      // retried on the next run, not in this one (docs/protocol.md §5 step 3).
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

      const retried = rlm([taskDue(), rstep({ candidate: S0 })], cleaned);
      expect(stateOf(retried.snapshot)).toBe('copying');
      expect(retried.lastEffects).toEqual([{ type: 'startCopy', params: { requestId: 7, baseOffset: 0, endOffset: 49 } }]);
      const done = rlm([copied(true, 't-0-0-2')], retried);
      expect(done.lastEffects[0]).toEqual({ type: 'finishCopy', params: { segmentId: 't-0-0-2', endOffset: 49 } });
      expect(done.snapshot.context.copyFailures).toBe(0);
    });

    test('a failed cleanup -> idle and the next run, without finishRemoteDelete (the metadata stays DELETE_SEGMENT_STARTED)', () => {
      // Goal: what the machine does when the cleanup's DELETEs fail too (the store is down): it gives up
      // on this segment id and waits for the next run, which copies the segment again under a new id.
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

  describe('remote retention', () => {
    test('an expiry pass: Log-Start-Offset raised once, then every segment of the list deleted, then a fresh step', () => {
      // Goal: RLMExpirationTask makes its list once, calls handleLogStartOffsetUpdate once with
      // the end + 1 of the last segment expiring by time or size, then deletes them all
      // (docs/protocol.md §5, remote retention). Method: two expired segments.
      const r = rlm([rstep({ remoteExpired: EXPIRED }), deleted(true, SEG0)], leaderRunning());
      expect(stateOf(r.snapshot)).toBe('deletingRemote');
      expect(r.lastEffects).toEqual([
        { type: 'finishRemoteDelete', params: { segmentId: SEG0 } },
        { type: 'startRemoteDelete', params: { requestId: 4, segmentId: SEG50, rule: 'retentionBytes' } },
      ]);
      const s = rlm([deleted(true, SEG50), rstep()], r);
      expect(stateOf(s.snapshot)).toBe('idle');
      expect(ofType(s.effects, 'raiseLogStartOffsetForRetention').map((e) => e.params)).toEqual([{ offset: 100 }]);
      expect(ofType(s.effects, 'startRemoteDelete').map((e) => e.params)).toEqual([
        { requestId: 3, segmentId: SEG0, rule: 'retentionBytes' },
        { requestId: 4, segmentId: SEG50, rule: 'retentionBytes' },
      ]);
      expect(ofType(s.effects, 'finishRemoteDelete').map((e) => e.params.segmentId)).toEqual([SEG0, SEG50]);
      // No fresh step between the two deletes: 2 is the run's first step, 5 the one after the pass.
      expect(ofType(s.effects, 'requestStep').map((e) => e.params.requestId)).toEqual([2, 5]);
    });

    test.each<[string, Array<{ segmentId: string; endOffset: number; rule: 'retentionMs' | 'retentionBytes' | 'belowLogStartOffset' | 'retryDelete' }>, number]>([
      ['time and size: past the last of them', [{ segmentId: SEG0, endOffset: 49, rule: 'retentionMs' }, { segmentId: SEG50, endOffset: 99, rule: 'retentionBytes' }], 100],
      ['below the log start and retried deletes do not move it', [{ segmentId: SEG0, endOffset: 49, rule: 'retryDelete' }, { segmentId: SEG50, endOffset: 99, rule: 'belowLogStartOffset' }], -1],
      ['a retried delete before a time breach: past the time breach', [{ segmentId: SEG50, endOffset: 99, rule: 'retryDelete' }, { segmentId: SEG0, endOffset: 49, rule: 'retentionMs' }], 50],
    ])('the Log-Start-Offset of a pass: %s', (_name, expired, offset) => {
      // Goal: only time and size breaches set the new log start (RemoteLogRetentionHandler keeps
      // the largest end + 1 of those). Method: one step with the list.
      const r = rlm([rstep({ remoteExpired: expired })], leaderRunning());
      expect(r.lastEffects[0]).toEqual({ type: 'raiseLogStartOffsetForRetention', params: { offset } });
    });

    test('deletingRemote: a failed delete ends the pass -> idle and the next run', () => {
      // Goal: a failed delete is retried by a later run; the rest of the pass waits for it.
      // Method: the first DELETE fails.
      const r = rlm([rstep({ remoteExpired: EXPIRED }), deleted(false)], leaderRunning());
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.lastEffects).toEqual([{ type: 'scheduleTask', params: { timerId: 4, after: 'interval' } }]);
      expect(ofType(r.effects, 'finishRemoteDelete')).toEqual([]);
      expect(r.snapshot.context.expiring).toEqual([]);
      const again = rlm([taskDue(), rstep({ remoteExpired: EXPIRED })], r);
      expect(again.lastEffects).toEqual([
        { type: 'raiseLogStartOffsetForRetention', params: { offset: 100 } },
        { type: 'startRemoteDelete', params: { requestId: 6, segmentId: SEG0, rule: 'retentionBytes' } },
      ]);
    });
  });

  describe('stale answers and rlm.stopped', () => {
    // Prefixes that leave the machine in each state, with the id it awaits.
    const IN: Record<string, Step<REv>[]> = {
      idle: [START_LEADER],
      running: [START_LEADER, taskDue()],
      copying: [START_LEADER, taskDue(), rstep({ candidate: S0 })],
      cleaningUpFailedCopy: [START_LEADER, taskDue(), rstep({ candidate: S0 }), copied(false)],
      deletingRemote: [START_LEADER, taskDue(), rstep({ remoteExpired: EXPIRED })],
    };
    const stale = (e: REv): Step<REv> => (_s, fx) => ({ ...e, requestId: lastId(fx) - 1 }) as REv;
    const STEP = { type: 'rlm.step', requestId: 0, ...rfacts({ candidate: S0, localDeletable: [S0], remoteExpired: EXPIRED, rollActive: true }) } as REv;
    const COPIED = { type: 'rlm.copyCompleted', requestId: 0, segmentId: SEG0, ok: true, error: null } as REv;
    const DELETED = { type: 'rlm.deleteCompleted', requestId: 0, segmentId: SEG0, ok: true, error: null } as REv;

    test.each<[string, string, Step<REv>]>([
      ['running: an old rlm.step', 'running', stale(STEP)],
      ['copying: an old rlm.copyCompleted', 'copying', stale(COPIED)],
      ['copying: an old failed rlm.copyCompleted', 'copying', stale({ ...COPIED, ok: false, error: 'ServiceUnavailable' } as REv)],
      ['copying: rlm.step (not a copy completion)', 'copying', (_s, fx) => ({ ...STEP, requestId: lastId(fx) }) as REv],
      ['copying: rlm.deleteCompleted with the awaited id', 'copying', (_s, fx) => ({ ...DELETED, requestId: lastId(fx) }) as REv],
      ['cleaningUpFailedCopy: an old rlm.deleteCompleted', 'cleaningUpFailedCopy', stale(DELETED)],
      ['cleaningUpFailedCopy: the failed copy completion again', 'cleaningUpFailedCopy', stale({ ...COPIED, ok: false, error: 'ServiceUnavailable' } as REv)],
      ['deletingRemote: an old rlm.deleteCompleted', 'deletingRemote', stale(DELETED)],
      ['deletingRemote: rlm.step', 'deletingRemote', (_s, fx) => ({ ...STEP, requestId: lastId(fx) }) as REv],
      ['idle: an rlm.step', 'idle', (_s, fx) => ({ ...STEP, requestId: lastId(fx) }) as REv],
      ['idle: an rlm.copyCompleted', 'idle', (_s, fx) => ({ ...COPIED, requestId: lastId(fx) }) as REv],
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
      const awaited = lastId(r.effects);
      const s = rlm([{ type: 'rlm.stopped' }], r);
      expect(stateOf(s.snapshot)).toBe('inactive');
      expect(s.lastEffects).toEqual([]);
      expect(s.snapshot.context.awaiting).toBe(-1);
      const late = rlm([
        { type: 'rlm.taskDue', timerId: awaited, metadataReady: true, highestRemoteOffset: 149, highestOffsetInRemoteStorage: -1, remoteLogStartOffset: 0, tiered: true, copyDisabled: false },
        { ...STEP, requestId: awaited } as REv,
        { ...COPIED, requestId: awaited } as REv,
        { ...DELETED, requestId: awaited } as REv,
      ], s);
      expect(stateOf(late.snapshot)).toBe('inactive');
      expect(late.effects.slice(s.effects.length)).toEqual([]);
    });

    test('rlm.started after rlm.stopped -> idle with a fresh timer (ids never reused)', () => {
      // Goal: a restarted task starts a new loop whose ids the old answers cannot match.
      // Method: start, copy, stop, start again.
      const r = rlm([START_LEADER, taskDue(), rstep({ candidate: S0 }), { type: 'rlm.stopped' }, START_FOLLOWER]);
      expect(stateOf(r.snapshot)).toBe('idle');
      expect(r.lastEffects).toEqual([{ type: 'scheduleTask', params: { timerId: 4, after: 'now' } }]);
      expect(r.snapshot.context.role).toBe('follower');
    });

    test('rlm.stopped when inactive -> nothing', () => {
      // Goal: stopping twice is harmless. Method: stop a machine that never started.
      const r = rlm([{ type: 'rlm.stopped' }]);
      expect(stateOf(r.snapshot)).toBe('inactive');
      expect(r.effects).toEqual([]);
    });
  });
});
