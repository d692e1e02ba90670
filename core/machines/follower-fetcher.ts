/**
 * Follower fetcher for one partition replica.
 * Models Kafka's AbstractFetcherThread / ReplicaFetcherThread and TierStateMachine: the
 * classic KIP-405 path (OFFSET_OUT_OF_RANGE, OFFSET_MOVED_TO_TIERED_STORAGE, building the
 * remote auxiliary state) and KIP-1023's start at the earliest pending upload offset,
 * with backoff and retry on every failure and `failed` on a fenced leader epoch.
 * Does not model fetch sessions, throttling or the fetcher thread's other partitions.
 *
 * The machine is pure: it asks for effects as named actions with params (send a request,
 * start a backoff timer, truncate the log, read an object) and receives their outcomes
 * as events. Facts about the local log arrive in the events (`replica`).
 */
import { and, assertEvent, assign, not, or, setup } from 'xstate';
import type { ListOffsetsTimestamp } from '../domain/protocol.js';
import { type EpochEntry, divergenceTruncationOffset, latestEpoch, latestEpochAfterTruncation } from '../domain/leader-epoch-cache.js';
import type { ProducerEntry } from '../domain/producer-state.js';
import type { RecordBatch } from '../domain/partition-log.js';
import type { Rule } from '../domain/rules.js';
import { bugOn } from '../util/bugs.js';
import { type Ev, type FollowerFetcherContext, type FollowerFetcherEvent, initialContext, kip1023Start, kip1023StartEpoch } from './follower-fetcher-context.js';

export type { FollowerFetcherContext, FollowerFetcherEvent, ReplicaFacts } from './follower-fetcher-context.js';

const fetcher = setup({
  types: {
    context: {} as FollowerFetcherContext,
    events: {} as FollowerFetcherEvent,
    input: {} as { broker: number; topic: string; partition: number },
  },
  actions: {
    /** Effect: send Fetch(fetchOffset, currentLeaderEpoch, lastFetchedEpoch) to the leader. */
    sendFetch: (_, _p: { requestId: number; fetchOffset: number; currentLeaderEpoch: number; lastFetchedEpoch: number }) => {},
    /** Effect: send ListOffsets(timestamp) to the leader. */
    sendListOffsets: (_, _p: { requestId: number; timestamp: ListOffsetsTimestamp; currentLeaderEpoch: number }) => {},
    /** Effect: send OffsetsForLeaderEpoch(leaderEpoch) to the leader. */
    sendOffsetsForLeaderEpoch: (_, _p: { requestId: number; leaderEpoch: number; currentLeaderEpoch: number }) => {},
    /** Effect: append fetched batches as follower; update HW and log start offset. */
    appendRecords: (_, _p: { batches: RecordBatch[]; highWatermark: number; logStartOffset: number }) => {},
    /** Effect: update HW and log start offset from an empty response. */
    updateFromLeader: (_, _p: { highWatermark: number; logStartOffset: number }) => {},
    /** Effect: remove the local log at and above `offset`. */
    truncateTo: (_, _p: { offset: number; rule: Rule }) => {},
    /** Effect: clear the local log and restart it empty at `offset`. */
    truncateFullyAndStartAt: (_, _p: { offset: number; logStartOffset: number; rule: Rule }) => {},
    /** Effect: look up remote segment metadata for (epoch, offset) in the local RLMM. */
    lookupRemoteSegment: (_, _p: { requestId: number; epoch: number; offset: number }) => {},
    /** Effect: GET an object from the tiered store. */
    getRemoteObject: (_, _p: { requestId: number; key: string; purpose: 'leaderEpochCheckpoint' | 'producerSnapshot' }) => {},
    /** Effect: replace the leader epoch cache with a checkpoint read from remote storage. */
    restoreLeaderEpochs: (_, _p: { entries: EpochEntry[] }) => {},
    /** Effect: replace producer state with a snapshot read from remote storage. */
    restoreProducerState: (_, _p: { entries: ProducerEntry[] }) => {},
    /**
     * Effect (KIP-1176): start a timer of replica.fetch.wait.max.ms; `backoff.expired` with
     * `timerId` follows unless a WAL chunk is appended first.
     */
    startWalWait: (_, _p: { timerId: number }) => {},
    /** Effect: start a timer of replica.fetch.backoff.ms; `backoff.expired` with `timerId` follows. */
    startBackoff: (_, _p: { timerId: number; reason: string }) => {},
    /** Record a step and the rule that caused it, for the trace and narration. */
    explain: (_, _p: { rule: Rule; detail?: Record<string, number | string | null> }) => {},
  },
  guards: {
    isAwaitedResponse: ({ context, event }) => 'requestId' in event && event.requestId === context.awaiting,
    isAwaitedTimer: ({ context, event }) => event.type === 'backoff.expired' && event.timerId === context.awaiting,
    hasNoError: ({ event }) => 'error' in event && event.error === null,
    hasError: ({ event }) => 'error' in event && event.error !== null,
    isDivergingEpoch: ({ event }) => event.type === 'fetch.responded' && event.error === null && event.divergingEpoch !== null,
    isOffsetOutOfRange: ({ event }) => 'error' in event && event.error === 'OFFSET_OUT_OF_RANGE',
    isOffsetMovedToTieredStorage: ({ event }) => 'error' in event && event.error === 'OFFSET_MOVED_TO_TIERED_STORAGE',
    isFencedLeaderEpoch: ({ event }) => 'error' in event && event.error === 'FENCED_LEADER_EPOCH',
    /**
     * KIP-1023 applies when the flag is on, the topic is tiered and not compacted, and the
     * follower is empty. (The leader's LEO is not 0 whenever an empty follower gets one of
     * these errors at offset 0: the leader's log start or local log start is above 0.)
     */
    isKip1023Eligible: ({ event }) => {
      assertEvent(event, 'fetch.responded');
      const r = event.replica;
      return r.lastTieredOffsetEnabled && r.tiered && !r.compacted && (r.logEndOffset === 0 || bugOn('kip1023ForNonEmpty'));
    },
    isLeaderBehindFollower: ({ event }) => {
      assertEvent(event, 'listOffsets.responded');
      return event.offset < event.replica.logEndOffset;
    },
    isEpuoUnknownAndTieredOnlyExists: ({ context }) =>
      context.earliestPendingUploadOffset === -1 && context.leaderLocalLogStartOffset !== context.leaderLogStartOffset,
    isKip1023StartAtLogStart: ({ context }) => kip1023Start(context) === context.leaderLogStartOffset,
    isTargetEpochZero: ({ context }) => context.auxTargetEpoch === 0,
    isRemoteSegmentFound: ({ event }) => event.type === 'remoteSegment.lookedUp' && event.found !== null,
    isGetOk: ({ event }) => event.type === 'objectStore.getCompleted' && event.ok,
  },
});

/** A state of this machine, and one candidate transition for event `E`, typed as `createMachine` types them. */
type StateConfig = Parameters<typeof fetcher.createStateConfig>[0];
type Candidate<E extends FollowerFetcherEvent['type']> = Extract<NonNullable<NonNullable<StateConfig['on']>[E]>, readonly unknown[]>[number];

/** The answers to what the fetcher asks for, each carrying the id it was asked under. */
type Answer = 'fetch.responded' | 'listOffsets.responded' | 'offsetsForLeaderEpoch.responded' | 'remoteSegment.lookedUp' | 'objectStore.getCompleted';
/** The leader's replies to the requests that only prepare the next Fetch. */
type LeaderReply = 'listOffsets.responded' | 'offsetsForLeaderEpoch.responded';

/**
 * Entry actions of a state that waits for one answer: the next id becomes the awaited one,
 * then the effect is asked for under that id.
 */
function sendAwaited<T extends string, P extends object>(type: T, params: (context: FollowerFetcherContext) => P) {
  return [
    fetcher.assign(({ context }) => ({ awaiting: context.nextId, nextId: context.nextId + 1 })),
    { type, params: ({ context }: { context: FollowerFetcherContext }) => ({ requestId: context.awaiting, ...params(context) }) },
  ] as const;
}

/** Entry actions: ListOffsets(timestamp) to the leader, awaited. */
function sendListOffsets(timestamp: ListOffsetsTimestamp) {
  return sendAwaited('sendListOffsets', (c) => ({ timestamp, currentLeaderEpoch: c.leaderEpoch }));
}

/** Entry actions: Fetch(fetchOffset, currentLeaderEpoch, lastFetchedEpoch) to the leader, awaited. */
function sendFetch() {
  return sendAwaited('sendFetch', (c) => ({ fetchOffset: c.fetchOffset, currentLeaderEpoch: c.leaderEpoch, lastFetchedEpoch: c.lastFetchedEpoch }));
}

/** Entry actions: GET one object of the remote segment's aux state, awaited. */
function getRemoteObject(purpose: 'leaderEpochCheckpoint' | 'producerSnapshot') {
  return sendAwaited('getRemoteObject', (c) => ({ key: c.remoteKeys![purpose], purpose }));
}

/** Where a Fetch response's diverging epoch cuts the local log. */
function divergenceOffset(e: Ev<'fetch.responded'>): number {
  return divergenceTruncationOffset(e.replica.leaderEpochs, e.replica.logEndOffset, e.divergingEpoch!);
}

/**
 * A state that asks for one effect (`entry`, from sendAwaited) and waits for its answer
 * `event`: an answer under another id is stale and dropped, the awaited one goes to the
 * `candidates`. `on` holds the state's other events.
 */
function awaitAnswer<E extends Answer>(entry: StateConfig['entry'], event: E, candidates: Candidate<E>[], on: StateConfig['on'] = {}): StateConfig {
  return { entry, on: { ...on, [event]: [{ guard: not('isAwaitedResponse') }, ...candidates] } };
}

/** Keeps the leader's error, for the backoff's reason and the output. */
function recordError() {
  return fetcher.assign(({ event }) => {
    assertEvent(event, ['fetch.responded', 'listOffsets.responded', 'offsetsForLeaderEpoch.responded']);
    return { lastError: event.error };
  });
}

/**
 * A state that sends one request to the leader and waits for the reply: FENCED_LEADER_EPOCH
 * fails the fetcher until the next leader change, any other error backs off and then
 * retries the Fetch, and a reply without error goes to `candidates`.
 */
function askLeader<E extends LeaderReply>(entry: StateConfig['entry'], reply: E, candidates: Candidate<E>[]): StateConfig {
  return awaitAnswer(entry, reply, [
    { guard: 'isFencedLeaderEpoch', target: '#followerFetcher.failed', actions: fetcher.assign({ lastError: 'FENCED_LEADER_EPOCH' }) },
    { guard: 'hasError', target: '#followerFetcher.delayed', actions: recordError() },
    ...candidates,
  ]);
}

/**
 * Reading the aux state goes to remote storage, not the leader: like Kafka's synchronous
 * TierStateMachine, a leader change takes effect once it is done.
 */
function continueAcrossLeaderChange(): Candidate<'fetcher.started'> {
  const explain = { type: 'explain', params: { rule: 'auxStateContinuesAcrossLeaderChange' } } as const;
  return { actions: [assign(({ event }) => ({ leader: event.leader, leaderEpoch: event.leaderEpoch })), explain] };
}

/** A failed GET of the aux state: back off and retry from the Fetch. */
function remoteStorageError(): Candidate<'objectStore.getCompleted'> {
  return { target: '#followerFetcher.delayed', actions: assign(({ event }) => ({ lastError: `remote storage error: ${event.error}` })) };
}

export const followerFetcherMachine = fetcher.createMachine({
  id: 'followerFetcher',
  context: ({ input }) => initialContext(input),
  initial: 'idle',
  on: {
    'fetcher.started': {
      target: '.fetching',
      actions: assign(({ context, event }) => ({
        leader: event.leader, leaderEpoch: event.leaderEpoch, fetchOffset: event.replica.logEndOffset, lastFetchedEpoch: event.lastFetchedEpoch,
        path: null, retries: 0, lastError: null, awaiting: -1, nextId: context.nextId,
      })),
    },
    'fetcher.stopped': { target: '.idle', actions: assign({ awaiting: -1, path: null }) },
  },
  states: {
    /** Not a follower (leader, offline, or not yet assigned). */
    idle: {},
    /** Kafka's Fetching state: a Fetch is in flight at fetchOffset. */
    fetching: awaitAnswer(sendFetch(), 'fetch.responded', [
      {
        guard: 'isDivergingEpoch',
        target: 'truncating',
        actions: [
          { type: 'truncateTo', params: ({ event }) => ({ offset: divergenceOffset(event), rule: 'divergingEpoch' }) },
          // Kafka: lastFetchedEpoch = the log's latest epoch after the truncation, so the
          // next Fetch does not repeat the stale epoch.
          assign(({ event }) => {
            const offset = divergenceOffset(event);
            return { fetchOffset: offset, lastFetchedEpoch: latestEpochAfterTruncation(event.replica.leaderEpochs, offset) };
          }),
        ],
      },
      {
        // KIP-1176: no records came (the WAL carries them); the log may have grown since
        // the Fetch was sent, and then the new offset is reported at once.
        guard: ({ context, event }) => event.error === null && event.wal === true && event.replica.logEndOffset > context.fetchOffset,
        target: 'fetching',
        reenter: true,
        actions: [
          { type: 'updateFromLeader', params: ({ event }) => ({ highWatermark: event.highWatermark, logStartOffset: event.logStartOffset }) },
          assign(({ event }) => ({ fetchOffset: event.replica.logEndOffset, lastFetchedEpoch: latestEpoch(event.replica.leaderEpochs), retries: 0, lastError: null, path: null })),
        ],
      },
      {
        guard: ({ event }) => event.error === null && event.wal === true,
        target: 'walIdle',
        actions: [
          { type: 'updateFromLeader', params: ({ event }) => ({ highWatermark: event.highWatermark, logStartOffset: event.logStartOffset }) },
          assign({ retries: 0, lastError: null, path: null }),
        ],
      },
      {
        guard: 'hasNoError',
        target: 'fetching',
        reenter: true,
        actions: [
          { type: 'appendRecords', params: ({ event }) => ({ batches: event.batches, highWatermark: event.highWatermark, logStartOffset: event.logStartOffset }) },
          assign(({ event }) => {
            const last = event.batches[event.batches.length - 1];
            return last === undefined ? {} : { fetchOffset: last.lastOffset + 1, lastFetchedEpoch: last.leaderEpoch, retries: 0, lastError: null, path: null };
          }),
        ],
      },
      { guard: 'isFencedLeaderEpoch', target: 'failed', actions: [assign({ lastError: 'FENCED_LEADER_EPOCH' }), { type: 'explain', params: { rule: 'fencedLeaderEpoch' } }] },
      {
        guard: and([or(['isOffsetOutOfRange', 'isOffsetMovedToTieredStorage']), 'isKip1023Eligible']),
        target: 'kip1023',
        actions: [
          assign(({ event }) => ({ path: 'kip1023' as const, lastError: event.error, leaderLogStartOffset: event.logStartOffset })),
          { type: 'explain', params: ({ event }) => ({ rule: 'kip1023Eligible', detail: { error: event.error } }) },
        ],
      },
      {
        guard: 'isOffsetOutOfRange',
        target: 'outOfRange',
        actions: [
          assign(({ event }) => ({ path: 'classic' as const, lastError: 'OFFSET_OUT_OF_RANGE', leaderLogStartOffset: event.logStartOffset })),
          {
            type: 'explain',
            params: ({ event: { replica: r } }) => ({ rule: r.lastTieredOffsetEnabled && r.logEndOffset !== 0 && r.tiered ? 'classicOutOfRangeNotEmpty' : 'classicOutOfRange' }),
          },
        ],
      },
      {
        guard: 'isOffsetMovedToTieredStorage',
        target: 'tieredOffset',
        actions: [
          // TierStateMachine uses the leader's log start offset carried by the Fetch response.
          assign(({ event }) => ({ path: 'classic' as const, lastError: 'OFFSET_MOVED_TO_TIERED_STORAGE', leaderLogStartOffset: event.logStartOffset })),
          { type: 'explain', params: ({ event: { replica: r } }) => ({ rule: r.lastTieredOffsetEnabled && r.logEndOffset !== 0 ? 'classicTieredOffsetNotEmpty' : 'classicTieredOffset' }) },
        ],
      },
      { target: 'delayed', actions: recordError() },
    ]),
    /** Kafka's Truncating state: a divergent tail is removed before fetching again. */
    truncating: {
      always: { target: 'fetching' },
    },
    /** Classic OFFSET_OUT_OF_RANGE handling: fetchOffsetAndTruncate. */
    outOfRange: {
      initial: 'awaitingLatestOffset',
      states: {
        awaitingLatestOffset: askLeader(sendListOffsets(-1), 'listOffsets.responded', [
          {
            guard: 'isLeaderBehindFollower',
            target: '#followerFetcher.fetching',
            actions: [
              { type: 'truncateTo', params: ({ event }) => ({ offset: event.offset, rule: 'leaderEndBelowFollowerEnd' }) },
              assign(({ event }) => ({
                fetchOffset: event.offset,
                leaderLogEndOffset: event.offset,
                lastFetchedEpoch: latestEpochAfterTruncation(event.replica.leaderEpochs, event.offset),
              })),
            ],
          },
          { target: 'awaitingEarliestOffset', actions: assign(({ event }) => ({ leaderLogEndOffset: event.offset })) },
        ]),
        awaitingEarliestOffset: askLeader(sendListOffsets(-2), 'listOffsets.responded', [
          {
            guard: ({ event }) => event.offset > event.replica.logEndOffset,
            target: '#followerFetcher.fetching',
            actions: [
              { type: 'truncateFullyAndStartAt', params: ({ event }) => ({ offset: event.offset, logStartOffset: event.offset, rule: 'leaderStartAboveFollowerEnd' }) },
              assign(({ event }) => ({ fetchOffset: event.offset, leaderLogStartOffset: event.offset, lastFetchedEpoch: -1 })),
            ],
          },
          {
            target: '#followerFetcher.fetching',
            actions: [
              assign(({ event }) => ({ fetchOffset: Math.max(event.offset, event.replica.logEndOffset), leaderLogStartOffset: event.offset })),
              { type: 'explain', params: ({ event }) => ({ rule: 'resumeAtFollowerEnd', detail: { offset: Math.max(event.offset, event.replica.logEndOffset) } }) },
            ],
          },
        ]),
      },
    },
    /** Classic OFFSET_MOVED_TO_TIERED_STORAGE handling: TierStateMachine.start. */
    tieredOffset: {
      initial: 'awaitingEarliestLocalOffset',
      states: {
        awaitingEarliestLocalOffset: askLeader(sendListOffsets(-4), 'listOffsets.responded', [
          {
            target: '#followerFetcher.buildingAuxState',
            actions: assign(({ event }) => ({
              leaderLocalLogStartOffset: event.offset,
              leaderLocalLogStartEpoch: event.leaderEpoch,
              auxTargetOffset: event.offset,
              auxTargetEpoch: event.leaderEpoch,
            })),
          },
        ]),
      },
    },
    /** KIP-1023: ListOffsets -2, -6 and -4, then one jump to the chosen start. */
    kip1023: {
      initial: 'awaitingEarliestOffset',
      states: {
        awaitingEarliestOffset: askLeader(sendListOffsets(-2), 'listOffsets.responded', [
          { target: 'awaitingEarliestPendingUploadOffset', actions: assign(({ event }) => ({ leaderLogStartOffset: event.offset })) },
        ]),
        awaitingEarliestPendingUploadOffset: askLeader(sendListOffsets(-6), 'listOffsets.responded', [
          { target: 'awaitingEarliestLocalOffset', actions: assign(({ event }) => ({ earliestPendingUploadOffset: event.offset, earliestPendingUploadEpoch: event.leaderEpoch })) },
        ]),
        awaitingEarliestLocalOffset: askLeader(sendListOffsets(-4), 'listOffsets.responded', [
          { target: 'choosingStart', actions: assign(({ event }) => ({ leaderLocalLogStartOffset: event.offset, leaderLocalLogStartEpoch: event.leaderEpoch })) },
        ]),
        /** Transient: apply KIP-1023's start rule to the three answers. */
        choosingStart: {
          always: [
            {
              guard: 'isEpuoUnknownAndTieredOnlyExists',
              target: '#followerFetcher.delayed',
              actions: [
                assign({ lastError: 'earliest pending upload offset unknown' }),
                {
                  type: 'explain',
                  params: ({ context: c }) => ({ rule: 'kip1023PendingUploadUnknown', detail: { logStartOffset: c.leaderLogStartOffset, localLogStartOffset: c.leaderLocalLogStartOffset } }),
                },
              ],
            },
            {
              guard: 'isKip1023StartAtLogStart',
              target: '#followerFetcher.fetching',
              actions: [
                { type: 'truncateFullyAndStartAt', params: ({ context: c }) => ({ offset: c.leaderLogStartOffset, logStartOffset: c.leaderLogStartOffset, rule: 'kip1023StartAtLogStart' }) },
                assign(({ context }) => ({ fetchOffset: context.leaderLogStartOffset, lastFetchedEpoch: -1 })),
              ],
            },
            {
              target: '#followerFetcher.buildingAuxState',
              actions: [
                assign(({ context }) => ({ auxTargetOffset: kip1023Start(context), auxTargetEpoch: kip1023StartEpoch(context) })),
                {
                  type: 'explain',
                  params: ({ context: c }) => ({
                    rule: 'kip1023Start',
                    detail: { earliestPendingUploadOffset: c.earliestPendingUploadOffset, localLogStartOffset: c.leaderLocalLogStartOffset, start: kip1023Start(c) },
                  }),
                },
              ],
            },
          ],
        },
      },
    },
    /** TierStateMachine.buildRemoteLogAuxState up to auxTargetOffset (docs/protocol.md §4.3). */
    buildingAuxState: {
      initial: 'choosingPreviousEpoch',
      states: {
        choosingPreviousEpoch: {
          always: [
            { guard: 'isTargetEpochZero', target: 'lookingUpRemoteSegment', actions: assign({ auxPreviousEpoch: 0 }) },
            { target: 'awaitingEpochEndOffset' },
          ],
        },
        awaitingEpochEndOffset: askLeader(
          sendAwaited('sendOffsetsForLeaderEpoch', (c) => ({ leaderEpoch: c.auxTargetEpoch - 1, currentLeaderEpoch: c.leaderEpoch })),
          'offsetsForLeaderEpoch.responded',
          [
            {
              target: 'lookingUpRemoteSegment',
              actions: assign(({ context, event }) => ({ auxPreviousEpoch: event.endOffset > context.auxTargetOffset - 1 ? event.leaderEpoch : context.auxTargetEpoch })),
            },
          ],
        ),
        lookingUpRemoteSegment: awaitAnswer(sendAwaited('lookupRemoteSegment', (c) => ({ epoch: c.auxPreviousEpoch, offset: c.auxTargetOffset - 1 })), 'remoteSegment.lookedUp', [
          {
            guard: 'isRemoteSegmentFound',
            target: 'awaitingLeaderEpochCheckpoint',
            actions: [
              assign(({ event }) => ({ remoteSegmentEndOffset: event.found!.endOffset, remoteKeys: event.found!.keys })),
              {
                type: 'truncateFullyAndStartAt',
                params: ({ context, event }) => ({
                  offset: event.found!.endOffset + 1,
                  logStartOffset: context.leaderLogStartOffset >= 0 ? context.leaderLogStartOffset : event.found!.endOffset + 1,
                  rule: context.path === 'kip1023' ? 'auxStateKip1023' : 'auxStateClassic',
                }),
              },
            ],
          },
          {
            target: '#followerFetcher.delayed',
            actions: [
              assign({ lastError: 'previous remote log segment metadata was not found' }),
              {
                type: 'explain',
                params: ({ context, event }) => ({ rule: 'remoteSegmentNotFound', detail: { epoch: context.auxPreviousEpoch, offset: context.auxTargetOffset - 1, reason: event.reason } }),
              },
            ],
          },
        ]),
        awaitingLeaderEpochCheckpoint: awaitAnswer(getRemoteObject('leaderEpochCheckpoint'), 'objectStore.getCompleted', [
          {
            guard: 'isGetOk',
            target: 'awaitingProducerSnapshot',
            actions: [
              { type: 'restoreLeaderEpochs', params: ({ event }) => ({ entries: event.leaderEpochs ?? [] }) },
              assign(({ event }) => {
                const entries = event.leaderEpochs ?? [];
                return { lastFetchedEpoch: entries.length > 0 ? entries[entries.length - 1][0] : -1 };
              }),
            ],
          },
          remoteStorageError(),
        ], { 'fetcher.started': continueAcrossLeaderChange() }),
        awaitingProducerSnapshot: awaitAnswer(getRemoteObject('producerSnapshot'), 'objectStore.getCompleted', [
          {
            guard: 'isGetOk',
            target: 'awaitingLatestOffset',
            actions: [{ type: 'restoreProducerState', params: ({ event }) => ({ entries: event.producers ?? [] }) }],
          },
          remoteStorageError(),
        ], { 'fetcher.started': continueAcrossLeaderChange() }),
        /**
         * TierStateMachine.start ends with leader.fetchLatestOffset (ListOffsets -1) for the
         * initial lag, then fetches from the end of the remote segment. A failure here is
         * thrown out of start(): the partition backs off with its fetch offset unchanged and
         * the next Fetch takes the same path again.
         */
        awaitingLatestOffset: askLeader(sendListOffsets(-1), 'listOffsets.responded', [
          {
            target: '#followerFetcher.fetching',
            actions: [
              assign(({ context }) => ({ fetchOffset: context.remoteSegmentEndOffset + 1, retries: 0 })),
              {
                type: 'explain',
                params: ({ context, event }) => ({
                  rule: 'auxStateBuilt',
                  detail: { offset: context.remoteSegmentEndOffset + 1, leaderEndOffset: event.offset, initialLag: event.offset - (context.remoteSegmentEndOffset + 1) },
                }),
              },
            ],
          },
        ]),
      },
    },
    /** Backoff after a failure; fetchOffset is unchanged and the Fetch is retried. */
    delayed: {
      entry: [
        assign(({ context }) => ({ awaiting: context.nextId, nextId: context.nextId + 1, retries: context.retries + 1 })),
        { type: 'startBackoff', params: ({ context }) => ({ timerId: context.awaiting, reason: context.lastError ?? 'error' }) },
      ],
      on: {
        'backoff.expired': [{ guard: not('isAwaitedTimer') }, { target: 'fetching' }],
      },
    },
    /**
     * KIP-1176: the leader answered without records; the next Fetch reports the offset as
     * soon as the WAL replica appends a chunk, or after replica.fetch.wait.max.ms.
     */
    walIdle: {
      entry: [
        assign(({ context }) => ({ awaiting: context.nextId, nextId: context.nextId + 1 })),
        { type: 'startWalWait', params: ({ context }) => ({ timerId: context.awaiting }) },
      ],
      on: {
        'wal.appended': {
          target: 'fetching',
          actions: assign(({ context, event }) => ({ fetchOffset: Math.max(context.fetchOffset, event.logEndOffset), lastFetchedEpoch: event.lastEpoch })),
        },
        'backoff.expired': [{ guard: not('isAwaitedTimer') }, { target: 'fetching' }],
      },
    },
    /** Marked failed (fenced leader epoch) until the next leader change. */
    failed: {},
  },
});

export type FollowerFetcherMachine = typeof followerFetcherMachine;

/** Kafka's PartitionFetchState.state for the JSON output. */
export function kafkaFetchState(stateValue: unknown): 'truncating' | 'fetching' {
  return stateValue === 'truncating' ? 'truncating' : 'fetching';
}
