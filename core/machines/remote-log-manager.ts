/**
 * The remote log manager's task for one partition replica: Kafka's RLMCopyTask on the
 * leader, RLMFollowerTask on a follower (docs/protocol.md §5). Runs at once, then
 * remote.log.manager.task.interval.ms after its previous run ENDED (RemoteLogManager
 * schedules it with fixed delay, no initial delay). Each run:
 * 1. refreshes highestOffsetInRemoteStorage (Ry) from remote metadata, even when there is
 *    nothing to upload (KIP-1023's change), on followers too (RLMFollowerTask: that is its
 *    whole run); while the metadata is loading it cannot. A leader with
 *    remote.log.copy.disable has no copy task, so nothing refreshes its Ry. On a new leader's
 *    first run with the metadata loaded, it first raises a stale Log-Start-Offset to the
 *    start of the earliest remote segment still listed
 *    (RLMCopyTask.maybeUpdateLogStartOffsetOnBecomingLeader);
 * 2. on the leader, copies the copy candidates one at a time in offset order
 *    (COPY_SEGMENT_STARTED, upload, COPY_SEGMENT_FINISHED, raise Ry); a failed copy is
 *    cleaned up (DELETE_SEGMENT_STARTED, delete objects, DELETE_SEGMENT_FINISHED) and
 *    retried on the next run.
 * Remote retention is the leader's RLMExpirationTask (machines/rlm-expiration.ts) and local
 * retention the broker's log retention task (machines/log-retention.ts), each on its own
 * schedule, so neither waits for a copy in flight.
 * The facts each decision needs arrive in `rlm.step`, computed by the kernel with the
 * pure functions of domain/retention.ts.
 */
import { and, assertEvent, assign, not, setup } from 'xstate';
import type { SegmentRange } from '../domain/retention.js';
import type { Rule } from '../domain/rules.js';
import { answeredId } from './task-ids.js';

export interface RemoteLogManagerContext {
  broker: number;
  topic: string;
  partition: number;
  role: 'leader' | 'follower';
  /** The timer or step the task waits for, or -1. */
  awaiting: number;
  nextId: number;
  runs: number;
  /** The segment being copied, or whose failed copy is being cleaned up. */
  segmentId: string | null;
  segmentBaseOffset: number;
  segmentEndOffset: number;
  copyFailures: number;
  /**
   * The end of the last copy candidate when this run made its list, or null before its first
   * decision: a run copies the candidates it listed at its start and no segment that became
   * one later (RLMCopyTask.copyLogSegmentsToRemote takes candidateLogSegments once).
   */
  copyUpTo: number | null;
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
  /** The end offset of the last copy candidate now (candidates run on from the first, in offset order), or -1. */
  lastCandidateEnd: number;
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
  /** Effect: DELETE_SEGMENT_FINISHED. */
  finishRemoteDelete: (_: unknown, _p: { segmentId: string }) => {},
  explain: (_: unknown, _p: { rule: Rule; detail?: Record<string, number | string | null> }) => {},
};

const types = {
  context: {} as RemoteLogManagerContext,
  events: {} as RemoteLogManagerEvent,
  input: {} as { broker: number; topic: string; partition: number },
};

const rlm = setup({ types, actions: effects });

/** The copy (or follower) task's run is over: its next run interval from now. */
const scheduleNextRun = rlm.enqueueActions(({ context, enqueue }) => {
  const timerId = context.nextId;
  enqueue.assign({ awaiting: timerId, nextId: timerId + 1, runs: context.runs + 1, segmentId: null, copyUpTo: null });
  enqueue({ type: 'scheduleTask', params: { timerId, after: 'interval' } });
});

const nextStep = rlm.enqueueActions(({ context, enqueue }) => {
  const requestId = context.nextId;
  enqueue.assign({ awaiting: requestId, nextId: requestId + 1 });
  enqueue({ type: 'requestStep', params: { requestId } });
});

/** A (re)start: the task of the new role runs at once. */
const startTask = rlm.enqueueActions(({ context, event, enqueue }) => {
  assertEvent(event, 'rlm.started');
  const timerId = context.nextId;
  enqueue.assign({ role: event.role, awaiting: timerId, nextId: timerId + 1, segmentId: null, logStartOffsetUpdated: false, copyUpTo: null });
  enqueue({ type: 'scheduleTask', params: { timerId, after: 'now' } });
});

export const remoteLogManagerMachine = setup({
  types,
  actions: { ...effects, scheduleNextRun, nextStep, startTask },
  guards: {
    isAwaited: ({ context, event }) => answeredId(event) === context.awaiting,
    isLeader: ({ context }) => context.role === 'leader',
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
    canCopy: ({ context, event: e }) => {
      assertEvent(e, 'rlm.step');
      return context.role === 'leader' && e.tiered && !e.copyDisabled && e.metadataReady && e.candidate !== null && e.candidate.endOffset <= (context.copyUpTo ?? e.lastCandidateEnd);
    },
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
    segmentBaseOffset: -1,
    segmentEndOffset: -1,
    copyUpTo: null,
    copyFailures: 0,
    logStartOffsetUpdated: false,
  }),
  initial: 'inactive',
  on: {
    // A new role (or a restart): the task of that role starts again.
    'rlm.started': { target: '.idle', actions: 'startTask' },
    'rlm.stopped': { target: '.inactive', actions: assign({ awaiting: -1, segmentId: null }) },
  },
  states: {
    /** Not running: the broker is offline or does not host the partition. */
    inactive: {},
    /** Waiting for the task's next run. */
    idle: {
      on: {
        'rlm.taskDue': [
          { guard: not('isAwaited') },
          // RLMFollowerTask can learn nothing while the metadata loads: the run is over.
          {
            guard: and([not('isLeader'), 'isMetadataLoading']),
            actions: [{ type: 'explain', params: { rule: 'rlmMetadataLoading', detail: { task: 'RLMFollowerTask' } } }, 'scheduleNextRun'],
          },
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
          // RLMFollowerTask: learning Ry is the whole run.
          {
            guard: and([not('isLeader'), 'learnsHigherOffset']),
            actions: [{ type: 'updateHighestOffsetInRemoteStorage', params: ({ event }) => ({ offset: event.highestRemoteOffset }) }, 'scheduleNextRun'],
          },
          { guard: not('isLeader'), actions: 'scheduleNextRun' },
          {
            guard: 'learnsHigherOffset',
            target: 'running',
            actions: [{ type: 'updateHighestOffsetInRemoteStorage', params: ({ event }) => ({ offset: event.highestRemoteOffset }) }, 'nextStep'],
          },
          { target: 'running', actions: 'nextStep' },
        ],
      },
    },
    /** Deciding the next copy from fresh facts. */
    running: {
      on: {
        'rlm.step': [
          { guard: not('isAwaited') },
          {
            guard: 'canCopy',
            target: 'copying',
            actions: [
              assign(({ context, event }) => ({
                segmentBaseOffset: event.candidate!.baseOffset,
                segmentEndOffset: event.candidate!.endOffset,
                copyUpTo: context.copyUpTo ?? event.lastCandidateEnd,
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
            target: 'idle',
            actions: [
              {
                type: 'explain',
                params: ({ event }) => ({
                  rule: 'rlmRunDone',
                  detail: {
                    task: 'RLMCopyTask',
                    copy: !event.tiered ? 'notTiered' : event.copyDisabled ? 'copyDisabled' : !event.metadataReady ? 'metadataLoading' : 'noCandidate',
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
  },
});

export type RemoteLogManagerMachine = typeof remoteLogManagerMachine;
