/**
 * KIP-1176's per-broker WAL combiner (`RLMWalCombinerTask`, docs/protocol.md §7.2-7.3).
 * Once records are appended to a WAL-enabled partition the broker leads, the combiner
 * waits `wal.combine.interval.ms` (or less, once `wal.combine.max.bytes` are pending),
 * then writes one object to the fast store with the new bytes of every such partition,
 * concatenated; when the PUT succeeds, one WAL metadata record per partition chunk is
 * published to `__remote_wal_log_metadata`. A failed PUT is retried after a backoff with
 * everything pending by then (the failed chunks included); `failures` counts the PUTs
 * failed in a row, and from the first until one succeeds (the retries' PUTs in flight
 * included) `wal.fallback.fetch.enable` lets the leader serve followers by Fetch. One PUT
 * at a time. KIP-1176 was withdrawn; this is a reconstruction of its design.
 *
 * Pure: the kernel passes the bytes pending with each event and runs the effects (start
 * the interval timer, assemble and PUT an object, publish its chunks, put chunks back).
 */
import { assign, not, setup } from 'xstate';

export interface WalCombinerContext {
  broker: number;
  /** Id of the timer or PUT the combiner waits for; anything else is stale. */
  awaiting: number;
  nextId: number;
  /** PUT failures in a row. */
  failures: number;
  lastError: string | null;
}

/** Facts the kernel passes with every event. */
export interface WalCombinerFacts {
  /** Bytes appended to led WAL partitions and not yet in an object. */
  pendingBytes: number;
  /** wal.combine.max.bytes */
  maxBytes: number;
}

export type WalCombinerEvent =
  | ({ type: 'wal.appended' } & WalCombinerFacts)
  | ({ type: 'wal.timer'; timerId: number } & WalCombinerFacts)
  | ({ type: 'wal.putCompleted'; requestId: number; ok: boolean; error: string | null } & WalCombinerFacts)
  | { type: 'wal.stopped' };

type Ev<T extends WalCombinerEvent['type']> = Extract<WalCombinerEvent, { type: T }>;

const pending = (e: WalCombinerEvent): number => ('pendingBytes' in e ? e.pendingBytes : 0);
const full = (e: WalCombinerEvent): boolean => 'pendingBytes' in e && e.pendingBytes >= e.maxBytes;

export const walCombinerMachine = setup({
  types: {
    context: {} as WalCombinerContext,
    events: {} as WalCombinerEvent,
    input: {} as { broker: number },
  },
  actions: {
    /** Effect: fire `wal.timer` with `timerId` after wal.combine.interval.ms. */
    startIntervalTimer: (_, _p: { timerId: number }) => {},
    /**
     * Effect: fire `wal.timer` after Kafka's client backoff for the `failures`-th failure in
     * a row (retry.backoff.ms 100 doubling up to retry.backoff.max.ms 1000, KIP-580).
     */
    startRetryTimer: (_, _p: { timerId: number; failures: number }) => {},
    /** Effect: assemble one object from every led WAL partition's pending bytes and PUT it. */
    flush: (_, _p: { requestId: number; reason: string }) => {},
    /** Effect: the PUT succeeded: publish one WAL metadata record per chunk of the object. */
    publishChunks: (_, _p: { requestId: number }) => {},
    /** Effect: the PUT failed: its chunks are pending again and go into the next object. */
    restoreChunks: (_, _p: { requestId: number; error: string | null; failures: number }) => {},
  },
  guards: {
    isFull: ({ event }) => full(event),
    hasPending: ({ event }) => pending(event) > 0,
    isAwaited: ({ context, event }) =>
      (event.type === 'wal.timer' && event.timerId === context.awaiting) || (event.type === 'wal.putCompleted' && event.requestId === context.awaiting),
    isPutOk: ({ event }) => event.type === 'wal.putCompleted' && event.ok,
  },
}).createMachine({
  id: 'walCombiner',
  context: ({ input }) => ({ broker: input.broker, awaiting: -1, nextId: 1, failures: 0, lastError: null }),
  initial: 'idle',
  on: {
    'wal.stopped': { target: '.idle', actions: assign({ awaiting: -1, failures: 0, lastError: null }) },
  },
  states: {
    /** Nothing pending. */
    idle: {
      on: {
        'wal.appended': [{ guard: 'isFull', target: 'flushing' }, { guard: 'hasPending', target: 'waiting' }],
      },
    },
    /** Bytes pending: the interval timer runs (or the size limit cuts it short). */
    waiting: {
      entry: [
        assign(({ context }) => ({ awaiting: context.nextId, nextId: context.nextId + 1 })),
        { type: 'startIntervalTimer', params: ({ context }) => ({ timerId: context.awaiting }) },
      ],
      on: {
        'wal.appended': { guard: 'isFull', target: 'flushing' },
        'wal.timer': [
          { guard: not('isAwaited') },
          { guard: 'hasPending', target: 'flushing' },
          { target: 'idle' },
        ],
      },
    },
    /** One object's PUT is in flight; new appends wait for the next one. */
    flushing: {
      entry: [
        assign(({ context }) => ({ awaiting: context.nextId, nextId: context.nextId + 1 })),
        {
          type: 'flush',
          params: ({ context, event }) => ({
            requestId: context.awaiting,
            reason: context.failures > 0 ? 'retry' : full(event) ? 'maxBytes' : 'interval',
          }),
        },
      ],
      on: {
        'wal.putCompleted': [
          { guard: not('isAwaited') },
          {
            guard: 'isPutOk',
            target: 'published',
            actions: [{ type: 'publishChunks', params: ({ event }) => ({ requestId: event.requestId }) }, assign({ failures: 0, lastError: null })],
          },
          {
            target: 'retrying',
            actions: [
              assign(({ context, event }) => ({ failures: context.failures + 1, lastError: event.error })),
              {
                type: 'restoreChunks',
                params: ({ context, event }) => ({ requestId: event.requestId, error: event.error, failures: context.failures }),
              },
            ],
          },
        ],
      },
    },
    /** Transient: after a successful PUT, flush again at once if full, else wait or rest. */
    published: {
      always: [
        { guard: ({ event }) => full(event), target: 'flushing' },
        { guard: ({ event }) => pending(event) > 0, target: 'waiting' },
        { target: 'idle' },
      ],
    },
    /** The last PUT failed: try again after a backoff with everything pending. */
    retrying: {
      entry: [
        assign(({ context }) => ({ awaiting: context.nextId, nextId: context.nextId + 1 })),
        { type: 'startRetryTimer', params: ({ context }) => ({ timerId: context.awaiting, failures: context.failures }) },
      ],
      on: {
        'wal.timer': [
          { guard: not('isAwaited') },
          { guard: 'hasPending', target: 'flushing' },
          { target: 'idle', actions: assign({ failures: 0, lastError: null }) },
        ],
      },
    },
  },
});

export type { Ev as WalCombinerEv };
