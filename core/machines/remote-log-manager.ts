/**
 * Remote log manager task for one partition replica (Kafka's RLMCopyTask on the leader,
 * RLMFollowerTask on followers, and RLMExpirationTask), docs/protocol.md §5.
 * Runs every remote.log.manager.task.interval.ms, the first run at once. Each run:
 * 1. refreshes highestOffsetInRemoteStorage (Ry) from remote metadata, even when there is
 *    nothing to upload (KIP-1023's change), on followers too (RLMFollowerTask); while the
 *    metadata is loading it cannot. A leader with remote.log.copy.disable has no copy task,
 *    so nothing refreshes its Ry. On a new leader's first run with the metadata loaded, the
 *    copy task first raises a stale Log-Start-Offset to the start of the earliest remote
 *    segment still listed (RLMCopyTask.maybeUpdateLogStartOffsetOnBecomingLeader);
 * 2. applies local retention first, whenever it has something to delete (Kafka runs it
 *    in its own task, so uploads never hold it back);
 * 3. on the leader, copies the copy candidates one at a time in offset order
 *    (COPY_SEGMENT_STARTED, upload, COPY_SEGMENT_FINISHED, raise Ry); a failed copy is
 *    cleaned up (DELETE_SEGMENT_STARTED, delete objects, DELETE_SEGMENT_FINISHED) and
 *    retried on the next run;
 *    (local retention deletes uploaded segments below HW that breach the limit; the model
 *    runs it here rather than on log.retention.check.interval.ms), and rolls an active
 *    segment that breaches local.retention.ms so it can be uploaded;
 * 4. on the leader, expires remote segments (retention.ms / retention.bytes across both
 *    tiers): the pass's list is made once, Log-Start-Offset raised once past the last
 *    segment expiring by time or size, then each segment deleted.
 * The facts each decision needs arrive in `rlm.step`, computed by the kernel with the
 * pure functions of domain/retention.ts.
 */
import { and, assertEvent, assign, not, setup } from 'xstate';
import type { RemoteExpiryRule, SegmentRange } from '../domain/retention.js';
import type { Rule } from '../domain/rules.js';

export interface RemoteLogManagerContext {
  broker: number;
  topic: string;
  partition: number;
  role: 'leader' | 'follower';
  awaiting: number;
  nextId: number;
  runs: number;
  /** The segment being copied or deleted. */
  segmentId: string | null;
  /**
   * The rest of this expiry pass, oldest first: the list is made once, Log-Start-Offset is
   * raised once for all of it, then each is deleted (RLMExpirationTask.cleanupExpiredRemoteLogSegments).
   */
  expiring: Array<{ segmentId: string; rule: RemoteExpiryRule }>;
  segmentBaseOffset: number;
  segmentEndOffset: number;
  copyFailures: number;
  /**
   * The copy task of this leadership has looked up the log start offset in remote metadata
   * (Kafka's RLMCopyTask.isLogStartOffsetUpdated: a new task, so false again, on every
   * leadership).
   */
  logStartOffsetUpdated: boolean;
}

/** What the kernel reports at each decision point of a run. */
export interface RlmFacts {
  tiered: boolean;
  copyDisabled: boolean;
  metadataReady: boolean;
  /** The first copy candidate (leader only), or null. */
  candidate: SegmentRange | null;
  /** Local segments local retention may delete now, oldest first. */
  localDeletable: SegmentRange[];
  /** Why local retention stopped where it did (for the narration). */
  localStoppedBy: string | null;
  /** The active segment breaches local.retention.ms and is not empty. */
  rollActive: boolean;
  /** Remote segments remote retention expires now (leader only), oldest first. */
  remoteExpired: Array<{ segmentId: string; endOffset: number; rule: RemoteExpiryRule }>;
}

export type RemoteLogManagerEvent =
  | { type: 'rlm.started'; role: 'leader' | 'follower' }
  | { type: 'rlm.stopped' }
  | {
      type: 'rlm.taskDue';
      timerId: number;
      metadataReady: boolean;
      /** findHighestRemoteOffset over the local leader epoch lineage; -1 if none. */
      highestRemoteOffset: number;
      highestOffsetInRemoteStorage: number;
      /** RemoteLogManager.findLogStartOffset: where the earliest remote segment still listed starts. */
      remoteLogStartOffset: number;
      tiered: boolean;
      copyDisabled: boolean;
    }
  | ({ type: 'rlm.step'; requestId: number } & RlmFacts)
  | { type: 'rlm.copyCompleted'; requestId: number; segmentId: string; ok: boolean; error: string | null }
  | { type: 'rlm.deleteCompleted'; requestId: number; segmentId: string; ok: boolean; error: string | null };

/** Where an expiry pass puts Log-Start-Offset: past the last segment expiring by time or size, or -1. */
function retentionLogStart(expired: RlmFacts['remoteExpired']): number {
  let offset = -1;
  for (const x of expired) if ((x.rule === 'retentionMs' || x.rule === 'retentionBytes') && x.endOffset + 1 > offset) offset = x.endOffset + 1;
  return offset;
}

/**
 * The effects the remote log manager declares: named, with typed params, executed by the
 * kernel (core/sim/loop/effects.ts). The actions below that enqueue them are bound to this setup,
 * so what they enqueue is typed against it (XState's setup().enqueueActions).
 */
const effects = {
  /** Effect: fire `rlm.taskDue` now or after remote.log.manager.task.interval.ms. */
  scheduleTask: (_: unknown, _p: { timerId: number; after: 'now' | 'interval' }) => {},
  /** Effect: deliver `rlm.step` with fresh facts at the current time. */
  requestStep: (_: unknown, _p: { requestId: number }) => {},
  /** Effect: raise the broker's in-memory highestOffsetInRemoteStorage (never lowered). */
  updateHighestOffsetInRemoteStorage: (_: unknown, _p: { offset: number }) => {},
  /** Effect: raise Log-Start-Offset (never lowered) to where remote data still listed starts. */
  updateLogStartOffsetOnBecomingLeader: (_: unknown, _p: { offset: number }) => {},
  /** Effect: COPY_SEGMENT_STARTED, then upload the segment, its offset index, producer snapshot and leader-epoch checkpoint. */
  startCopy: (_: unknown, _p: { requestId: number; baseOffset: number; endOffset: number }) => {},
  /** Effect: COPY_SEGMENT_FINISHED and Ry = endOffset. */
  finishCopy: (_: unknown, _p: { segmentId: string; endOffset: number }) => {},
  /** Effect: a failed copy: DELETE_SEGMENT_STARTED and delete the partial objects. */
  abortCopy: (_: unknown, _p: { requestId: number; segmentId: string; error: string | null }) => {},
  /**
   * Effect: before an expiry pass deletes anything, raise Log-Start-Offset once, to the
   * end + 1 of the last segment expiring by time or size (never lowered; -1 when none does).
   * Kafka: RLMExpirationTask.handleLogStartOffsetUpdate.
   */
  raiseLogStartOffsetForRetention: (_: unknown, _p: { offset: number }) => {},
  /** Effect: DELETE_SEGMENT_STARTED and delete an expired segment's objects. */
  startRemoteDelete: (_: unknown, _p: { requestId: number; segmentId: string; rule: RemoteExpiryRule }) => {},
  /** Effect: DELETE_SEGMENT_FINISHED. */
  finishRemoteDelete: (_: unknown, _p: { segmentId: string }) => {},
  /** Effect: delete uploaded local segments (advances Local-Log-Start-Offset, never LSO of a tiered topic). */
  deleteLocalSegments: (_: unknown, _p: { segments: SegmentRange[] }) => {},
  /** Effect: roll the active segment so it can be uploaded. */
  rollActiveSegment: (_: unknown, _p: Record<string, never>) => {},
  explain: (_: unknown, _p: { rule: Rule; detail?: Record<string, number | string | null> }) => {},
};

const types = {
  context: {} as RemoteLogManagerContext,
  events: {} as RemoteLogManagerEvent,
  input: {} as { broker: number; topic: string; partition: number },
};

const rlm = setup({ types, actions: effects });

const scheduleNextRun = rlm.enqueueActions(({ context, enqueue }) => {
  const timerId = context.nextId;
  enqueue.assign({ awaiting: timerId, nextId: timerId + 1, runs: context.runs + 1, segmentId: null });
  enqueue({ type: 'scheduleTask', params: { timerId, after: 'interval' } });
});

const nextStep = rlm.enqueueActions(({ context, enqueue }) => {
  const requestId = context.nextId;
  enqueue.assign({ awaiting: requestId, nextId: requestId + 1 });
  enqueue({ type: 'requestStep', params: { requestId } });
});

export const remoteLogManagerMachine = setup({
  types,
  actions: { ...effects, scheduleNextRun, nextStep },
  guards: {
    isAwaited: ({ context, event }) => ('requestId' in event ? event.requestId : 'timerId' in event ? event.timerId : -1) === context.awaiting,
    isMetadataLoading: ({ event }) => {
      assertEvent(event, 'rlm.taskDue');
      return !event.metadataReady;
    },
    // Kafka runs maybeUpdateLogStartOffsetOnBecomingLeader in the copy task only, so not
    // with remote.log.copy.disable (no copy task), and retries it while the metadata loads.
    findsLogStartOffset: ({ context, event: e }) => {
      assertEvent(e, 'rlm.taskDue');
      return context.role === 'leader' && e.tiered && !e.copyDisabled && !context.logStartOffsetUpdated;
    },
    learnsHigherOffset: ({ context, event: e }) => {
      assertEvent(e, 'rlm.taskDue');
      if (context.role === 'leader' && e.copyDisabled) return false;
      return e.highestRemoteOffset > e.highestOffsetInRemoteStorage;
    },
    shouldRollActive: ({ event }) => {
      assertEvent(event, 'rlm.step');
      return event.rollActive;
    },
    canCopy: ({ context, event: e }) => {
      assertEvent(e, 'rlm.step');
      return context.role === 'leader' && e.tiered && !e.copyDisabled && e.metadataReady && e.candidate !== null;
    },
    hasLocalDeletable: ({ event }) => {
      assertEvent(event, 'rlm.step');
      return event.localDeletable.length > 0;
    },
    hasRemoteExpired: ({ context, event }) => {
      assertEvent(event, 'rlm.step');
      return context.role === 'leader' && event.remoteExpired.length > 0;
    },
    hasMoreExpiring: ({ context }) => context.expiring.length > 0,
    isOk: ({ event }) => {
      assertEvent(event, ['rlm.copyCompleted', 'rlm.deleteCompleted']);
      return event.ok;
    },
  },
}).createMachine({
  id: 'remoteLogManager',
  context: ({ input }) => ({
    ...input,
    role: 'follower',
    awaiting: -1,
    nextId: 1,
    runs: 0,
    segmentId: null,
    expiring: [],
    segmentBaseOffset: -1,
    segmentEndOffset: -1,
    copyFailures: 0,
    logStartOffsetUpdated: false,
  }),
  initial: 'inactive',
  on: {
    'rlm.started': {
      target: '.idle',
      actions: [
        assign(({ context, event }) => ({ role: event.role, awaiting: context.nextId, nextId: context.nextId + 1, segmentId: null, logStartOffsetUpdated: false })),
        { type: 'scheduleTask', params: ({ context }) => ({ timerId: context.awaiting, after: 'now' as const }) },
      ],
    },
    'rlm.stopped': { target: '.inactive', actions: assign({ awaiting: -1, segmentId: null, expiring: [] }) },
  },
  states: {
    /** Not running: the broker is offline or does not host the partition. */
    inactive: {},
    /** Waiting for the next task run. */
    idle: {
      on: {
        'rlm.taskDue': [
          { guard: not('isAwaited') },
          {
            guard: 'isMetadataLoading',
            target: 'running',
            actions: [{ type: 'explain', params: { rule: 'rlmMetadataLoading' } }, 'nextStep'],
          },
          // The log start first, then Ry: RLMCopyTask.copyLogSegmentsToRemote calls
          // maybeUpdateLogStartOffsetOnBecomingLeader before maybeUpdateCopiedOffset.
          {
            guard: and(['findsLogStartOffset', 'learnsHigherOffset']),
            target: 'running',
            actions: [
              assign({ logStartOffsetUpdated: true }),
              { type: 'updateLogStartOffsetOnBecomingLeader', params: ({ event }) => ({ offset: event.remoteLogStartOffset }) },
              { type: 'updateHighestOffsetInRemoteStorage', params: ({ event }) => ({ offset: event.highestRemoteOffset }) },
              'nextStep',
            ],
          },
          {
            guard: 'findsLogStartOffset',
            target: 'running',
            actions: [
              assign({ logStartOffsetUpdated: true }),
              { type: 'updateLogStartOffsetOnBecomingLeader', params: ({ event }) => ({ offset: event.remoteLogStartOffset }) },
              'nextStep',
            ],
          },
          {
            guard: 'learnsHigherOffset',
            target: 'running',
            actions: [{ type: 'updateHighestOffsetInRemoteStorage', params: ({ event }) => ({ offset: event.highestRemoteOffset }) }, 'nextStep'],
          },
          { target: 'running', actions: 'nextStep' },
        ],
      },
    },
    /** Deciding the next thing this run does, from fresh facts. */
    running: {
      on: {
        'rlm.step': [
          { guard: not('isAwaited') },
          {
            guard: 'shouldRollActive',
            actions: [{ type: 'rollActiveSegment', params: {} }, { type: 'explain', params: { rule: 'rollForLocalRetention' } }, 'nextStep'],
          },
          {
            guard: 'hasLocalDeletable',
            actions: [{ type: 'deleteLocalSegments', params: ({ event }) => ({ segments: event.localDeletable }) }, 'nextStep'],
          },
          {
            guard: 'canCopy',
            target: 'copying',
            actions: [
              assign(({ context, event }) => ({
                segmentBaseOffset: event.candidate!.baseOffset,
                segmentEndOffset: event.candidate!.endOffset,
                awaiting: context.nextId,
                nextId: context.nextId + 1,
              })),
              {
                type: 'startCopy',
                params: ({ context, event }) => ({ requestId: context.awaiting, baseOffset: event.candidate!.baseOffset, endOffset: event.candidate!.endOffset }),
              },
            ],
          },
          {
            guard: 'hasRemoteExpired',
            target: 'deletingRemote',
            actions: [
              assign(({ context, event }) => ({
                segmentId: event.remoteExpired[0].segmentId,
                expiring: event.remoteExpired.slice(1).map((x) => ({ segmentId: x.segmentId, rule: x.rule })),
                awaiting: context.nextId,
                nextId: context.nextId + 1,
              })),
              { type: 'raiseLogStartOffsetForRetention', params: ({ event }) => ({ offset: retentionLogStart(event.remoteExpired) }) },
              {
                type: 'startRemoteDelete',
                params: ({ context, event }) => ({ requestId: context.awaiting, segmentId: event.remoteExpired[0].segmentId, rule: event.remoteExpired[0].rule }),
              },
            ],
          },
          {
            target: 'idle',
            actions: [
              {
                type: 'explain',
                params: ({ context, event }) => ({
                  rule: 'rlmRunDone',
                  detail: {
                    localStoppedBy: event.localStoppedBy,
                    copy:
                      context.role !== 'leader' ? 'follower'
                      : !event.tiered ? 'notTiered'
                      : event.copyDisabled ? 'copyDisabled'
                      : !event.metadataReady ? 'metadataLoading'
                      : 'noCandidate',
                  },
                }),
              },
              'scheduleNextRun',
            ],
          },
        ],
      },
    },
    /** Uploading one segment; the next decision waits for the copy. */
    copying: {
      on: {
        'rlm.copyCompleted': [
          { guard: not('isAwaited') },
          {
            guard: 'isOk',
            target: 'running',
            actions: [
              { type: 'finishCopy', params: ({ context, event }) => ({ segmentId: event.segmentId, endOffset: context.segmentEndOffset }) },
              assign({ copyFailures: 0 }),
              'nextStep',
            ],
          },
          {
            target: 'cleaningUpFailedCopy',
            actions: [
              assign(({ context, event }) => ({ segmentId: event.segmentId, copyFailures: context.copyFailures + 1, awaiting: context.nextId, nextId: context.nextId + 1 })),
              { type: 'abortCopy', params: ({ context, event }) => ({ requestId: context.awaiting, segmentId: event.segmentId, error: event.error }) },
            ],
          },
        ],
      },
    },
    /** DELETE_SEGMENT_STARTED for a failed copy; retried on the next run. */
    cleaningUpFailedCopy: {
      on: {
        'rlm.deleteCompleted': [
          { guard: not('isAwaited') },
          {
            guard: 'isOk',
            target: 'idle',
            actions: [{ type: 'finishRemoteDelete', params: ({ event }) => ({ segmentId: event.segmentId }) }, 'scheduleNextRun'],
          },
          { target: 'idle', actions: 'scheduleNextRun' },
        ],
      },
    },
    /** Deleting the expired remote segments of one pass, one at a time. */
    deletingRemote: {
      on: {
        'rlm.deleteCompleted': [
          { guard: not('isAwaited') },
          {
            guard: and(['isOk', 'hasMoreExpiring']),
            actions: [
              { type: 'finishRemoteDelete', params: ({ event }) => ({ segmentId: event.segmentId }) },
              { type: 'startRemoteDelete', params: ({ context }) => ({ requestId: context.nextId, segmentId: context.expiring[0].segmentId, rule: context.expiring[0].rule }) },
              assign(({ context }) => ({ segmentId: context.expiring[0].segmentId, expiring: context.expiring.slice(1), awaiting: context.nextId, nextId: context.nextId + 1 })),
            ],
          },
          {
            guard: 'isOk',
            target: 'running',
            actions: [{ type: 'finishRemoteDelete', params: ({ event }) => ({ segmentId: event.segmentId }) }, 'nextStep'],
          },
          // A failed delete ends the pass; the segment stays DELETE_SEGMENT_STARTED and is
          // retried first at the next run.
          { target: 'idle', actions: [assign({ expiring: [] }), 'scheduleNextRun'] },
        ],
      },
    },
  },
});

export type RemoteLogManagerMachine = typeof remoteLogManagerMachine;
