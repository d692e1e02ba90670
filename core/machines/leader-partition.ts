/**
 * The leader side of one partition replica.
 * Models how Kafka's Partition / ReplicaManager answer a follower: Fetch (docs/protocol.md
 * §3, with the long poll of replica.fetch.wait.max.ms and diverging-epoch
 * answers), ListOffsets -1/-2/-4/-5/-6 (the EPUO rule, §3 and §4.2), OffsetsForLeaderEpoch;
 * it tracks follower log end offsets, expands the ISR and advances the high watermark.
 * Does not model fetch sessions, quotas, or the consumer's isolation levels.
 *
 * Pure: the kernel passes a view of the leader's log with each event and executes the
 * named effects (respond, append, park a fetch, set the high watermark).
 */
import { assertEvent, assign, setup } from 'xstate';
import { type LeaderView, decideFollowerFetch, listOffsetsAnswer } from '../domain/leader-rules.js';
import type { KafkaError, ListOffsetsTimestamp } from '../domain/protocol.js';
import type { Rule } from '../domain/rules.js';
import type { Acks } from '../scenario/types.js';
import { bugOn } from '../util/bugs.js';

export interface FollowerProgress {
  logEndOffset: number;
  /** Last time the follower was caught up (Kafka's lastCaughtUpTimeMs). */
  lastCaughtUpMs: number;
  lastFetchMs: number;
  /** The leader's log end offset at the follower's previous fetch. */
  lastFetchLeaderLogEndOffset: number;
}

export interface LeaderPartitionContext {
  broker: number;
  topic: string;
  partition: number;
  leaderEpoch: number;
  isr: number[];
  followers: Record<string, FollowerProgress>;
  /** Timer id of the pending ISR expiration check. */
  isrCheckTimer: number;
}

export interface LeaderFacts {
  view: LeaderView;
  /** Start offset of the current leader epoch in the leader's cache. */
  leaderEpochStartOffset: number;
  nowMs: number;
  /** Partition.effectiveMinIsr: min(min.insync.replicas, replication factor). */
  minIsr: number;
  /** replica.lag.time.max.ms */
  lagTimeMaxMs: number;
  /** The replicas whose brokers are not fenced (Partition.isReplicaIsrEligible). */
  isrEligible: readonly number[];
}

export type LeaderPartitionEvent =
  | { type: 'leadership.assumed'; leaderEpoch: number; isr: number[]; replicas: number[]; nowMs: number; logEndOffset: number; minIsr: number }
  | { type: 'leadership.resigned' }
  | ({
      type: 'fetch.received';
      msgId: number;
      from: number;
      fetchOffset: number;
      currentLeaderEpoch: number;
      lastFetchedEpoch: number;
      /** endOffsetFor(lastFetchedEpoch) in the leader's cache, when lastFetchedEpoch >= 0. */
      lastFetchedEpochEnd: { leaderEpoch: number; endOffset: number } | null;
      /** The long poll ran out: answer even with no data. */
      waitExpired: boolean;
      /**
       * A Fetch held in the long poll, completed now (data arrived or the wait ran out). Kafka
       * reads it with updateFetchState = false (DelayedFetch, readFromPurgatory): the follower's
       * progress was recorded when it arrived.
       */
      fromPurgatory?: boolean;
      /**
       * The Fetch finds enough to answer now (replica.fetch.min.bytes; leader-rules
       * fetchHasEnoughBytes). Absent: Kafka's default of one byte, any record.
       */
      enoughData?: boolean;
      /**
       * KIP-1176: the partition replicates through the WAL and the fetch offset is one the
       * WAL covers, so the answer carries no records (only the high watermark).
       */
      walServes?: boolean;
      /**
       * KIP-73 (ReplicaManager.shouldLeaderThrottle): the follower is out of the ISR, its
       * replica is throttled on this leader and the leader's quota is exceeded, so the read
       * returns no records and the Fetch waits in the purgatory until it expires.
       */
      leaderThrottled?: boolean;
    } & LeaderFacts)
  | ({ type: 'listOffsets.received'; msgId: number; from: number; timestamp: ListOffsetsTimestamp; currentLeaderEpoch: number } & LeaderFacts)
  | ({ type: 'offsetsForLeaderEpoch.received'; msgId: number; from: number; leaderEpoch: number; currentLeaderEpoch: number } & LeaderFacts)
  | ({ type: 'produce.received'; msgId: number; records: number; acks: Acks; zone?: string } & LeaderFacts)
  /** The controller changed the ISR (a broker was fenced): the leader adopts it. */
  | ({ type: 'partition.updated'; isr: number[] } & LeaderFacts)
  /** Kafka's isr-expiration task, every replica.lag.time.max.ms / 2. */
  | ({ type: 'isr.check'; timerId: number } & LeaderFacts);

type Ev<T extends LeaderPartitionEvent['type']> = Extract<LeaderPartitionEvent, { type: T }>;

function epochError(leaderEpoch: number, requested: number): KafkaError | null {
  if (requested < leaderEpoch) return 'FENCED_LEADER_EPOCH';
  if (requested > leaderEpoch) return 'UNKNOWN_LEADER_EPOCH';
  return null;
}

/** A follower that never caught up (Kafka's lastCaughtUpTimeMs 0, long before the run began). */
const NEVER = Number.MIN_SAFE_INTEGER;

/**
 * Kafka's Replica.resetReplicaState on a new leader: every follower's log end unknown (0
 * here), last caught up now if it is in the ISR and never otherwise, so a follower outside
 * the ISR does not hold the HW back.
 */
function resetFollowers(replicas: readonly number[], isr: readonly number[], nowMs: number): Record<string, FollowerProgress> {
  const followers: Record<string, FollowerProgress> = {};
  for (const r of replicas) followers[String(r)] = { logEndOffset: 0, lastCaughtUpMs: isr.includes(r) ? nowMs : NEVER, lastFetchMs: NEVER, lastFetchLeaderLogEndOffset: -1 };
  return followers;
}

/** The same on a re-election of this leader: log ends kept, times reset as above. */
function reelectFollowers(followers: Record<string, FollowerProgress>, e: { isr: number[]; nowMs: number; logEndOffset: number }): Record<string, FollowerProgress> {
  const out: Record<string, FollowerProgress> = {};
  for (const key in followers) {
    const inSync = e.isr.includes(Number(key));
    out[key] = { logEndOffset: followers[key].logEndOffset, lastCaughtUpMs: inSync ? e.nowMs : NEVER, lastFetchMs: inSync ? e.nowMs : NEVER, lastFetchLeaderLogEndOffset: e.logEndOffset };
  }
  return out;
}

/**
 * Kafka's Replica.isCaughtUp: the follower has the leader's whole log, or it had the leader's
 * log end of its previous fetch within replica.lag.time.max.ms.
 */
function isCaughtUp(f: FollowerProgress, leaderLogEndOffset: number, nowMs: number, lagTimeMaxMs: number): boolean {
  return f.logEndOffset === leaderLogEndOffset || nowMs - f.lastCaughtUpMs <= lagTimeMaxMs;
}

/**
 * Kafka's Partition.maybeIncrementLeaderHW: no move while the ISR is below the effective
 * min.insync.replicas (KAFKA-15583, Kafka 3.7); otherwise the smallest log end offset among
 * the ISR and the replicas that are caught up and eligible to join it, so a follower about
 * to join is not left behind (shouldWaitForReplicaToJoinIsr). Returns the current HW when
 * it may not move.
 */
function highWatermarkOf(context: LeaderPartitionContext, isr: number[], leaderLogEndOffset: number, e: LeaderFacts): number {
  let hw = leaderLogEndOffset;
  if (bugOn('hwWithoutIsr')) return hw;
  if (isr.length < e.minIsr) return e.view.highWatermark;
  for (const key in context.followers) {
    const b = Number(key);
    if (b === context.broker) continue;
    const f = context.followers[key];
    if (f.logEndOffset >= hw) continue;
    if (isr.includes(b) || (e.isrEligible.includes(b) && isCaughtUp(f, leaderLogEndOffset, e.nowMs, e.lagTimeMaxMs))) hw = f.logEndOffset;
  }
  for (const b of isr) if (b !== context.broker && context.followers[String(b)] === undefined) hw = 0;
  return hw;
}

function isFollowerCaughtUpToJoinIsr(context: LeaderPartitionContext, e: Ev<'fetch.received'>): boolean {
  return !context.isr.includes(e.from) && e.fetchOffset >= e.view.highWatermark && e.fetchOffset >= e.leaderEpochStartOffset;
}

/**
 * The leader cannot place the follower's last fetched epoch: its cache has no epoch at or
 * below it with a higher one after (Kafka's `endOffsetFor` answers UNDEFINED), which
 * `Partition.readRecords` answers OFFSET_OUT_OF_RANGE.
 */
function isUnknownFetchedEpoch(e: Ev<'fetch.received'>): boolean {
  return e.lastFetchedEpoch >= 0 && e.lastFetchedEpochEnd !== null && e.lastFetchedEpochEnd.endOffset < 0;
}

/** ReplicaManager.handleOffsetOutOfRangeError's tiered case, as the leader's offset rules decide it. */
function isTieredOnly(e: Ev<'fetch.received'>): boolean {
  return decideFollowerFetch(e.view, e.fetchOffset).rule === 'tieredOnlyOffset';
}

function isDiverging(e: Ev<'fetch.received'>): boolean {
  if (e.lastFetchedEpoch < 0 || e.lastFetchedEpochEnd === null || e.lastFetchedEpochEnd.endOffset < 0) return false;
  return e.lastFetchedEpochEnd.leaderEpoch < e.lastFetchedEpoch || e.lastFetchedEpochEnd.endOffset < e.fetchOffset;
}

/**
 * The effects the leader declares: named, with typed params, executed by the kernel
 * (core/sim/loop/effects.ts). The actions below that enqueue them are bound to this setup, so
 * what they enqueue is typed against it (XState's setup().enqueueActions).
 */
const effects = {
  /**
   * Effect: answer a follower Fetch; with no error the kernel reads records from fetchOffset.
   * `highWatermark` is the leader's HW as the read found it, before this Fetch moved the
   * follower's log end (Kafka's Partition.readRecords keeps `initialHighWatermark`, and
   * fetchRecords calls updateFollowerFetchState after the read): the HW this Fetch raises
   * reaches the follower with its next answer.
   */
  respondFetch: (_: unknown, _p: { msgId: number; error: KafkaError | null; rule: Rule; fetchOffset: number; divergingEpoch: { epoch: number; endOffset: number } | null; highWatermark: number }) => {},
  /** Effect: hold a Fetch with no new data until data arrives or replica.fetch.wait.max.ms. */
  parkFetch: (_: unknown, _p: { msgId: number }) => {},
  respondListOffsets: (_: unknown, _p: { msgId: number; error: KafkaError | null; timestamp: ListOffsetsTimestamp; offset: number; rule: Rule }) => {},
  respondOffsetsForLeaderEpoch: (_: unknown, _p: { msgId: number; error: KafkaError | null; requestedEpoch: number }) => {},
  /** Effect: append a produce as leader in the current epoch. */
  appendAsLeader: (_: unknown, _p: { msgId: number; records: number; acks: Acks; zone?: string }) => {},
  /** Effect: refuse a produce. */
  rejectProduce: (_: unknown, _p: { error: KafkaError; rule: Rule }) => {},
  /** Effect: set the leader's high watermark (never lowered). */
  advanceHighWatermark: (_: unknown, _p: { highWatermark: number }) => {},
  /** Effect: fire `isr.check` at the broker's next isr-expiration tick (every replica.lag.time.max.ms / 2 from its start). */
  startIsrCheckTimer: (_: unknown, _p: { timerId: number }) => {},
  /** Effect: record an ISR change. */
  isrChanged: (_: unknown, _p: { isr: number[]; added: number[]; removed: number[]; rule: Rule }) => {},
};

const types = {
  context: {} as LeaderPartitionContext,
  events: {} as LeaderPartitionEvent,
  input: {} as { broker: number; topic: string; partition: number },
};

const leader = setup({ types, actions: effects });

const recordFollowerFetch = leader.assign(({ context, event }) => {
  assertEvent(event, 'fetch.received');
  const e = event;
  const prev = (context.followers as Record<number, FollowerProgress | undefined>)[e.from];
  // Kafka's Replica.updateFetchState: caught up now if the fetch reaches the leader's
  // LEO; otherwise caught up as of the previous fetch if it reaches the LEO of then.
  // A replica the leader has no state for starts as Kafka's ReplicaState.Empty: never caught up.
  let lastCaughtUpMs = prev?.lastCaughtUpMs ?? NEVER;
  if (e.fetchOffset >= e.view.logEndOffset) lastCaughtUpMs = Math.max(lastCaughtUpMs, e.nowMs);
  else if (prev !== undefined && e.fetchOffset >= prev.lastFetchLeaderLogEndOffset) lastCaughtUpMs = Math.max(lastCaughtUpMs, prev.lastFetchMs);
  // A copy with the one follower replaced (broker ids are integer keys, in ascending
  // order either way). Spread, then the broker id as a number: a computed string key
  // in the literal takes V8's slow path, on the most frequent event of a run.
  const followers: Record<number, FollowerProgress> = { ...context.followers };
  const lastFetchLeaderLogEndOffset = prev === undefined ? e.view.logEndOffset : Math.max(e.view.logEndOffset, prev.lastFetchLeaderLogEndOffset);
  followers[e.from] = { logEndOffset: e.fetchOffset, lastCaughtUpMs, lastFetchMs: e.nowMs, lastFetchLeaderLogEndOffset };
  return { followers: followers as Record<string, FollowerProgress> };
});

/** Kafka's maybeShrinkIsr: drop followers not caught up within replica.lag.time.max.ms. */
const maybeShrinkIsr = leader.enqueueActions(({ context, event, enqueue }) => {
  assertEvent(event, 'isr.check');
  const e = event;
  const removed = context.isr.filter((b) => {
    if (b === context.broker) return false;
    const f = context.followers[String(b)];
    return f === undefined || !isCaughtUp(f, e.view.logEndOffset, e.nowMs, e.lagTimeMaxMs);
  });
  if (removed.length === 0) return;
  const isr = context.isr.filter((b) => !removed.includes(b));
  enqueue.assign({ isr });
  enqueue({ type: 'isrChanged', params: { isr, added: [], removed, rule: 'followerLagging' } });
  const hw = highWatermarkOf(context, isr, e.view.logEndOffset, e);
  if (hw > e.view.highWatermark) enqueue({ type: 'advanceHighWatermark', params: { highWatermark: hw } });
});

const scheduleIsrCheck = leader.enqueueActions(({ context, enqueue }) => {
  const timerId = context.isrCheckTimer + 1;
  enqueue.assign({ isrCheckTimer: timerId });
  enqueue({ type: 'startIsrCheckTimer', params: { timerId } });
});

/** A follower joins the ISR once its log end reaches the HW and the current epoch's start. */
const maybeExpandIsr = leader.enqueueActions(({ context, event, enqueue }) => {
  assertEvent(event, 'fetch.received');
  if (!isFollowerCaughtUpToJoinIsr(context, event)) return;
  const isr = [...context.isr, event.from].sort((a, b) => a - b);
  enqueue.assign({ isr });
  enqueue({ type: 'isrChanged', params: { isr, added: [event.from], removed: [], rule: 'followerCaughtUp' } });
});

const advanceHighWatermarkIfAlone = leader.enqueueActions(({ context, event, enqueue }) => {
  assertEvent(event, 'leadership.assumed');
  if (event.isr.length === 1 && event.isr[0] === context.broker && event.minIsr <= 1) enqueue({ type: 'advanceHighWatermark', params: { highWatermark: event.logEndOffset } });
});

const maybeAdvanceHighWatermark = leader.enqueueActions(({ context, event, enqueue }) => {
  assertEvent(event, ['fetch.received', 'partition.updated']);
  const hw = highWatermarkOf(context, context.isr, event.view.logEndOffset, event);
  if (hw > event.view.highWatermark) enqueue({ type: 'advanceHighWatermark', params: { highWatermark: hw } });
});

export const leaderPartitionMachine = setup({
  types,
  actions: { ...effects, recordFollowerFetch, maybeShrinkIsr, scheduleIsrCheck, maybeExpandIsr, advanceHighWatermarkIfAlone, maybeAdvanceHighWatermark },
  guards: {
    hasEpochError: ({ context, event }) => {
      assertEvent(event, 'fetch.received');
      return epochError(context.leaderEpoch, event.currentLeaderEpoch) !== null;
    },
    isUnknownFetchedEpoch: ({ event }) => {
      assertEvent(event, 'fetch.received');
      return isUnknownFetchedEpoch(event);
    },
    isBelowLogStart: ({ event }) => {
      assertEvent(event, 'fetch.received');
      return event.fetchOffset < event.view.logStartOffset;
    },
    isDivergingEpoch: ({ event }) => {
      assertEvent(event, 'fetch.received');
      return isDiverging(event);
    },
    isFetchError: ({ event }) => {
      assertEvent(event, 'fetch.received');
      return decideFollowerFetch(event.view, event.fetchOffset).error !== null;
    },
    /**
     * Not enough to return yet (fewer than replica.fetch.min.bytes; with Kafka's default, no
     * record): hold the fetch (long poll, ReplicaManager.fetchMessages parks a DelayedFetch)
     * unless it has waited long enough.
     */
    hasNoNewData: ({ event }) => {
      assertEvent(event, 'fetch.received');
      return !event.waitExpired && !(event.enoughData ?? event.fetchOffset < event.view.logEndOffset);
    },
    hasNotEnoughReplicas: ({ context, event }) => {
      assertEvent(event, 'produce.received');
      return event.acks === 'all' && context.isr.length < event.minIsr;
    },
  },
}).createMachine({
  id: 'leaderPartition',
  context: ({ input }) => ({ broker: input.broker, topic: input.topic, partition: input.partition, leaderEpoch: -1, isr: [], followers: {}, isrCheckTimer: 0 }),
  initial: 'follower',
  states: {
    /** Not the leader: requests are answered NOT_LEADER_OR_FOLLOWER by the kernel. */
    follower: {
      on: {
        'leadership.assumed': {
          target: 'leader',
          actions: [
            assign(({ event }) => {
            return { leaderEpoch: event.leaderEpoch, isr: [...event.isr], followers: resetFollowers(event.replicas, event.isr, event.nowMs) };
          }),
            // Kafka's makeLeader, then maybeIncrementLeaderHW: the followers' log ends are not
            // known yet, so only a leader alone in the ISR moves its HW (to its log end).
            'advanceHighWatermarkIfAlone',
            'scheduleIsrCheck',
          ],
        },
      },
    },
    leader: {
      on: {
        'leadership.resigned': { target: 'follower', actions: assign({ isr: [], followers: {} }) },
        'leadership.assumed': {
          actions: assign(({ context, event }) => ({ leaderEpoch: event.leaderEpoch, isr: [...event.isr], followers: reelectFollowers(context.followers, event) })),
        },
        'partition.updated': {
          actions: [assign(({ event }) => ({ isr: [...event.isr] })), 'maybeAdvanceHighWatermark'],
        },
        'isr.check': [
          { guard: ({ context, event }) => event.timerId !== context.isrCheckTimer },
          { actions: ['maybeShrinkIsr', 'scheduleIsrCheck'] },
        ],
        'fetch.received': [
          {
            guard: 'hasEpochError',
            actions: {
              type: 'respondFetch',
              params: ({ context, event }) => ({
                msgId: event.msgId,
                error: epochError(context.leaderEpoch, event.currentLeaderEpoch),
                rule: 'leaderEpochCheck',
                fetchOffset: event.fetchOffset,
                divergingEpoch: null,
                highWatermark: event.view.highWatermark,
              }),
            },
          },
          {
            // Partition.readRecords: an epoch the leader cannot place is out of range, and a
            // fetch below the log start is out of range "regardless of whether epochs are
            // diverging", both before the diverging-epoch check.
            guard: 'isUnknownFetchedEpoch',
            actions: {
              type: 'respondFetch',
              // The OffsetOutOfRangeException goes through handleOffsetOutOfRangeError like any
              // other: in the tiered-only range it becomes OFFSET_MOVED_TO_TIERED_STORAGE.
              params: ({ event }) => ({
                msgId: event.msgId,
                error: isTieredOnly(event) ? 'OFFSET_MOVED_TO_TIERED_STORAGE' : 'OFFSET_OUT_OF_RANGE',
                rule: 'unknownLastFetchedEpoch',
                fetchOffset: event.fetchOffset,
                divergingEpoch: null,
                highWatermark: event.view.highWatermark,
              }),
            },
          },
          {
            guard: 'isBelowLogStart',
            actions: {
              type: 'respondFetch',
              params: ({ event }) => ({ msgId: event.msgId, error: 'OFFSET_OUT_OF_RANGE', rule: 'belowLogStartOffset', fetchOffset: event.fetchOffset, divergingEpoch: null, highWatermark: event.view.highWatermark }),
            },
          },
          {
            guard: 'isDivergingEpoch',
            actions: {
              type: 'respondFetch',
              params: ({ event }) => ({
                msgId: event.msgId,
                error: null,
                rule: 'divergingEpoch',
                fetchOffset: event.fetchOffset,
                divergingEpoch: { epoch: event.lastFetchedEpochEnd!.leaderEpoch, endOffset: event.lastFetchedEpochEnd!.endOffset },
                highWatermark: event.view.highWatermark,
              }),
            },
          },
          {
            guard: 'isFetchError',
            actions: {
              type: 'respondFetch',
              params: ({ event }) => {
                const d = decideFollowerFetch(event.view, event.fetchOffset);
                return { msgId: event.msgId, error: d.error, rule: d.rule, fetchOffset: event.fetchOffset, divergingEpoch: null, highWatermark: event.view.highWatermark };
              },
            },
          },
          {
            guard: ({ event }) => event.fromPurgatory === true && event.walServes !== true,
            actions: {
              type: 'respondFetch',
              params: ({ event }) => ({ msgId: event.msgId, error: null, rule: 'localRecords', fetchOffset: event.fetchOffset, divergingEpoch: null, highWatermark: event.view.highWatermark }),
            },
          },
          {
            guard: ({ event }) => event.walServes === true,
            actions: [
              'recordFollowerFetch',
              'maybeExpandIsr',
              'maybeAdvanceHighWatermark',
              {
                type: 'respondFetch',
                params: ({ event }) => ({ msgId: event.msgId, error: null, rule: 'walEmptyRecords', fetchOffset: event.fetchOffset, divergingEpoch: null, highWatermark: event.view.highWatermark }),
              },
            ],
          },
          {
            guard: ({ event }) => event.leaderThrottled === true && !event.waitExpired,
            actions: [
              'recordFollowerFetch',
              'maybeExpandIsr',
              'maybeAdvanceHighWatermark',
              { type: 'parkFetch', params: ({ event }) => ({ msgId: event.msgId }) },
            ],
          },
          {
            guard: 'hasNoNewData',
            actions: [
              'recordFollowerFetch',
              'maybeExpandIsr',
              'maybeAdvanceHighWatermark',
              { type: 'parkFetch', params: ({ event }) => ({ msgId: event.msgId }) },
            ],
          },
          {
            actions: [
              'recordFollowerFetch',
              'maybeExpandIsr',
              'maybeAdvanceHighWatermark',
              {
                type: 'respondFetch',
                params: ({ event }) => ({ msgId: event.msgId, error: null, rule: 'localRecords', fetchOffset: event.fetchOffset, divergingEpoch: null, highWatermark: event.view.highWatermark }),
              },
            ],
          },
        ],
        'listOffsets.received': {
          actions: {
            type: 'respondListOffsets',
            params: ({ context, event }) => {
              const err = epochError(context.leaderEpoch, event.currentLeaderEpoch);
              const a = listOffsetsAnswer(event.view, event.timestamp);
              return { msgId: event.msgId, error: err, timestamp: event.timestamp, offset: err ? -1 : a.offset, rule: a.rule };
            },
          },
        },
        'offsetsForLeaderEpoch.received': {
          actions: {
            type: 'respondOffsetsForLeaderEpoch',
            params: ({ context, event }) => ({
              msgId: event.msgId,
              error: epochError(context.leaderEpoch, event.currentLeaderEpoch),
              requestedEpoch: event.leaderEpoch,
            }),
          },
        },
        'produce.received': [
          {
            guard: 'hasNotEnoughReplicas',
            actions: { type: 'rejectProduce', params: { error: 'NOT_ENOUGH_REPLICAS' as const, rule: 'minInsyncReplicas' } },
          },
          {
            actions: [
              { type: 'appendAsLeader', params: ({ event }) => ({ msgId: event.msgId, records: event.records, acks: event.acks, ...(event.zone !== undefined ? { zone: event.zone } : {}) }) },
              {
                type: 'advanceHighWatermark',
                params: ({ context, event }) => ({
                  highWatermark: highWatermarkOf(context, context.isr, event.view.logEndOffset + event.records, event),
                }),
              },
            ],
          },
        ],
      },
    },
  },
});
