/**
 * The replica side of KIP-1176 (docs/protocol.md §7.4 and §7.7), one per partition replica.
 * A follower of a WAL-enabled partition learns of chunks from the WAL metadata topic,
 * reads each chunk's byte range from the fast store (a ranged GET) and appends it as
 * follower; its Fetch to the leader then only reports the offset. Chunks of an older
 * leader epoch than the one it knows are dropped; chunks it already has are skipped; a
 * chunk past its log end waits until the gap is filled (by an earlier chunk, or by the
 * leader's records when it replicates the classic way). A failed read is retried after
 * replica.fetch.backoff.ms.
 *
 * On a leader change the elected replica first syncs the tail from the WAL: it applies
 * every chunk of the old epoch it knows of past its log end, then says so (`tailSynced`)
 * and the kernel completes the election at the new log end.
 *
 * Pure: the kernel passes chunk descriptions and log facts in events and runs the effects
 * (GET a chunk, append it, start a retry timer, report the tail synced).
 */
import { assertEvent, assign, setup } from 'xstate';
import { bugOn } from '../util/bugs.js';
import type { Rule } from '../domain/rules.js';

/** One WAL metadata record (docs/protocol.md §7.3), as a replica keeps it. */
export interface WalChunkRef {
  /** Offset of the record in `__remote_wal_log_metadata`. */
  id: number;
  objectKey: string;
  /** Bytes of the chunk in the object (model bytes, inclusive). */
  range: [number, number];
  baseOffset: number;
  lastOffset: number;
  leaderEpoch: number;
}

export interface WalReplicaContext {
  broker: number;
  topic: string;
  partition: number;
  /** The partition's leader epoch this replica knows. */
  leaderEpoch: number;
  logEndOffset: number;
  /** Chunks known and not yet applied, by base offset. */
  chunks: WalChunkRef[];
  /** The chunk being read. */
  current: WalChunkRef | null;
  awaiting: number;
  nextId: number;
  /** Elected leader: apply what is known, then report `tailSynced`. */
  syncing: boolean;
  /** Chunks applied while syncing the tail. */
  applied: number;
  retries: number;
}

export type WalReplicaEvent =
  | { type: 'wal.started'; leaderEpoch: number; logEndOffset: number; chunks: WalChunkRef[] }
  | { type: 'wal.stopped' }
  | { type: 'wal.chunkPublished'; chunk: WalChunkRef }
  | { type: 'wal.leaderEpoch'; leaderEpoch: number }
  /**
   * The log changed by another path. After a truncation (`rewound`) the replica reads the
   * retained metadata again from its new log end, as a consumer of the WAL metadata topic
   * seeks back: chunks it dropped as already applied may be needed again.
   */
  | { type: 'wal.logChanged'; logEndOffset: number; rewound?: WalChunkRef[] }
  | { type: 'wal.chunkRead'; requestId: number; ok: boolean; error: string | null }
  | { type: 'wal.retry'; timerId: number }
  | { type: 'wal.syncTail' };

/** The chunk that continues the log: it holds the log end offset, in a current epoch. */
export function applicableChunk(c: Pick<WalReplicaContext, 'chunks' | 'logEndOffset' | 'leaderEpoch'>): WalChunkRef | undefined {
  return c.chunks.find((k) => k.baseOffset <= c.logEndOffset && c.logEndOffset <= k.lastOffset && (k.leaderEpoch >= c.leaderEpoch || bugOn('acceptStaleWalChunk')));
}

/** Keeps chunks not yet fully in the log, ordered by base offset (then metadata offset). */
function keep(chunks: readonly WalChunkRef[], logEndOffset: number): WalChunkRef[] {
  return chunks.filter((k) => k.lastOffset >= logEndOffset).sort((a, b) => a.baseOffset - b.baseOffset || a.id - b.id);
}

export const walReplicaMachine = setup({
  types: {
    context: {} as WalReplicaContext,
    events: {} as WalReplicaEvent,
    input: {} as { broker: number; topic: string; partition: number },
  },
  actions: {
    /** Effect: ranged GET of the chunk's bytes from the fast store. */
    getChunk: (_, _p: { requestId: number; chunk: WalChunkRef }) => {},
    /** Effect: append the chunk's batches at and past the log end, as follower. */
    appendChunk: (_, _p: { requestId: number; chunk: WalChunkRef }) => {},
    /** Effect: fire `wal.retry` with `timerId` after replica.fetch.backoff.ms. */
    startRetryTimer: (_, _p: { timerId: number; reason: string }) => {},
    /** Effect: the elected replica has applied the WAL tail; complete the election. */
    tailSynced: (_, _p: { logEndOffset: number; applied: number }) => {},
    /** Record a step and the rule that caused it. */
    explain: (_, _p: { rule: Rule; detail?: Record<string, number | string | null> }) => {},
  },
  guards: {
    hasApplicable: ({ context }) => applicableChunk(context) !== undefined,
    isSyncing: ({ context }) => context.syncing,
  },
}).createMachine({
  id: 'walReplica',
  context: ({ input }) => ({
    broker: input.broker,
    topic: input.topic,
    partition: input.partition,
    leaderEpoch: -1,
    logEndOffset: 0,
    chunks: [],
    current: null,
    awaiting: -1,
    nextId: 1,
    syncing: false,
    applied: 0,
    retries: 0,
  }),
  initial: 'inactive',
  on: {
    'wal.stopped': { target: '.inactive', actions: assign({ chunks: [], current: null, awaiting: -1, syncing: false, retries: 0 }) },
    'wal.logChanged': {
      actions: assign(({ context, event }) => {
        const again = (event.rewound ?? []).filter((k) => (k.leaderEpoch >= context.leaderEpoch || bugOn('acceptStaleWalChunk')) && !context.chunks.some((c) => c.id === k.id));
        return { logEndOffset: event.logEndOffset, chunks: keep([...context.chunks, ...again], event.logEndOffset) };
      }),
    },
    'wal.chunkPublished': [
      {
        guard: ({ context, event }) => event.chunk.leaderEpoch < context.leaderEpoch && !bugOn('acceptStaleWalChunk'),
        actions: {
          type: 'explain',
          params: ({ context, event }) => ({
            rule: 'walChunkStaleEpoch',
            detail: { chunkEpoch: event.chunk.leaderEpoch, leaderEpoch: context.leaderEpoch, baseOffset: event.chunk.baseOffset, lastOffset: event.chunk.lastOffset },
          }),
        },
      },
      { guard: ({ context, event }) => event.chunk.lastOffset < context.logEndOffset },
      { actions: assign(({ context, event }) => ({ chunks: keep([...context.chunks, event.chunk], context.logEndOffset) })) },
    ],
    'wal.leaderEpoch': {
      actions: [
        assign(({ context, event }) => ({
          leaderEpoch: Math.max(context.leaderEpoch, event.leaderEpoch),
          chunks: context.chunks.filter((k) => k.leaderEpoch >= event.leaderEpoch || bugOn('acceptStaleWalChunk')),
        })),
      ],
    },
  },
  states: {
    /** Not following a WAL partition (leader, offline, or a classic topic). */
    inactive: {
      on: {
        'wal.started': {
          target: 'following',
          actions: assign(({ event }) => ({
            leaderEpoch: event.leaderEpoch,
            logEndOffset: event.logEndOffset,
            chunks: keep(event.chunks.filter((k) => k.leaderEpoch >= event.leaderEpoch), event.logEndOffset),
            current: null,
            syncing: false,
            retries: 0,
          })),
        },
        'wal.syncTail': { actions: { type: 'tailSynced', params: ({ context }) => ({ logEndOffset: context.logEndOffset, applied: 0 }) } },
      },
    },
    /** Waiting for the chunk that continues the log. */
    following: {
      always: [
        { guard: 'hasApplicable', target: 'reading' },
        {
          guard: 'isSyncing',
          target: 'inactive',
          actions: [
            { type: 'tailSynced', params: ({ context }) => ({ logEndOffset: context.logEndOffset, applied: context.applied }) },
            assign({ syncing: false, chunks: [], applied: 0 }),
          ],
        },
      ],
      on: {
        'wal.syncTail': { target: 'following', reenter: true, actions: assign({ syncing: true, applied: 0 }) },
      },
    },
    /** A chunk's ranged GET is in flight. */
    reading: {
      entry: [
        assign(({ context }) => ({ awaiting: context.nextId, nextId: context.nextId + 1, current: applicableChunk(context) ?? null })),
        { type: 'getChunk', params: ({ context }) => ({ requestId: context.awaiting, chunk: context.current! }) },
      ],
      on: {
        'wal.syncTail': { actions: assign({ syncing: true, applied: 0 }) },
        'wal.chunkRead': [
          { guard: ({ context, event }) => event.requestId !== context.awaiting },
          {
            // The leader changed while the chunk was read: it belongs to an older epoch now.
            guard: ({ context, event }) => event.ok && context.current!.leaderEpoch < context.leaderEpoch && !bugOn('acceptStaleWalChunk'),
            target: 'following',
            actions: [
              {
                type: 'explain',
                params: ({ context }) => ({
                  rule: 'walChunkStaleEpoch',
                  detail: { chunkEpoch: context.current!.leaderEpoch, leaderEpoch: context.leaderEpoch, baseOffset: context.current!.baseOffset, lastOffset: context.current!.lastOffset },
                }),
              },
              assign({ current: null }),
            ],
          },
          {
            guard: ({ event }) => event.ok,
            target: 'following',
            actions: [
              { type: 'appendChunk', params: ({ context, event }) => ({ requestId: event.requestId, chunk: context.current! }) },
              assign(({ context }) => {
                const end = Math.max(context.logEndOffset, context.current!.lastOffset + 1);
                return { logEndOffset: end, chunks: keep(context.chunks, end), current: null, retries: 0, applied: context.applied + (context.syncing ? 1 : 0) };
              }),
            ],
          },
          {
            // An elected replica does not wait for the fast store: what it could not read
            // was never committed (followers report offsets only after appending chunks).
            guard: 'isSyncing',
            target: 'inactive',
            actions: [
              { type: 'explain', params: ({ event }) => ({ rule: 'walTailSyncFailed', detail: { error: event.error } }) },
              { type: 'tailSynced', params: ({ context }) => ({ logEndOffset: context.logEndOffset, applied: context.applied }) },
              assign({ syncing: false, chunks: [], current: null, applied: 0 }),
            ],
          },
          {
            target: 'backoff',
            actions: assign(({ context }) => ({ retries: context.retries + 1 })),
          },
        ],
      },
    },
    /** A read failed: retry after replica.fetch.backoff.ms. */
    backoff: {
      entry: [
        assign(({ context }) => ({ awaiting: context.nextId, nextId: context.nextId + 1, current: null })),
        {
          type: 'startRetryTimer',
          params: ({ context, event }) => {
            assertEvent(event, 'wal.chunkRead');
            return { timerId: context.awaiting, reason: `fast store read failed: ${event.error ?? 'error'}` };
          },
        },
      ],
      on: {
        'wal.syncTail': {
          target: 'inactive',
          actions: [
            { type: 'tailSynced', params: ({ context }) => ({ logEndOffset: context.logEndOffset, applied: 0 }) },
            assign({ syncing: false, chunks: [], current: null, applied: 0 }),
          ],
        },
        'wal.retry': [{ guard: ({ context, event }) => event.timerId !== context.awaiting }, { target: 'following' }],
      },
    },
  },
});
