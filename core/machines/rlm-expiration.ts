/**
 * The leader's remote retention for one partition: Kafka's RLMExpirationTask
 * (docs/protocol.md §5, "Remote retention"). RemoteLogManager schedules it apart from the
 * copy task, on its own thread pool (remote.log.manager.expiration.thread.pool.size), with
 * the same fixed delay (remote.log.manager.task.interval.ms) and no initial delay, so it
 * never waits for a copy in flight. Only a leader runs it; it keeps running with
 * remote.log.copy.disable (KIP-950).
 *
 * Each run is one pass (RLMExpirationTask.cleanupExpiredRemoteLogSegments): the segments
 * that expire (retention.ms / retention.bytes across both tiers, or below Log-Start-Offset)
 * are listed once, Log-Start-Offset is raised once past the last one expiring by time or
 * size (handleLogStartOffsetUpdate), then each is deleted, oldest first
 * (DELETE_SEGMENT_STARTED, delete its objects, DELETE_SEGMENT_FINISHED). A failed delete ends
 * the pass; the segment is retried first at the next run. The facts arrive in
 * `expiration.step`, computed by the kernel (domain/retention.ts remoteRetentionExpired).
 */
import { and, assertEvent, assign, not, setup } from 'xstate';
import type { RemoteExpiryRule } from '../domain/retention.js';
import type { Rule } from '../domain/rules.js';
import { answeredId } from './task-ids.js';

export interface RlmExpirationContext {
  broker: number;
  topic: string;
  partition: number;
  /** The timer or step the task waits for, or -1 (not leading). */
  awaiting: number;
  nextId: number;
  runs: number;
  /** The remote segment being deleted. */
  segmentId: string | null;
  /** The rest of this pass, oldest first. */
  expiring: Array<{ segmentId: string; rule: RemoteExpiryRule }>;
}

export type RlmExpirationEvent =
  /** The replica leads (run at once) or follows (no expiration task). */
  | { type: 'expiration.started'; role: 'leader' | 'follower' }
  | { type: 'expiration.stopped' }
  | { type: 'expiration.due'; timerId: number }
  | { type: 'expiration.step'; requestId: number; remoteExpired: Array<{ segmentId: string; endOffset: number; rule: RemoteExpiryRule }> }
  | { type: 'expiration.deleteCompleted'; requestId: number; segmentId: string; ok: boolean; error: string | null };

/** Where a pass puts Log-Start-Offset: past the last segment expiring by time or size, or -1. */
function retentionLogStart(expired: Array<{ endOffset: number; rule: RemoteExpiryRule }>): number {
  let offset = -1;
  for (const x of expired) if ((x.rule === 'retentionMs' || x.rule === 'retentionBytes') && x.endOffset + 1 > offset) offset = x.endOffset + 1;
  return offset;
}

const effects = {
  /** Effect: fire `expiration.due` now or after remote.log.manager.task.interval.ms. */
  scheduleTask: (_: unknown, _p: { timerId: number; after: 'now' | 'interval' }) => {},
  /** Effect: deliver `expiration.step` with the segments that expire now. */
  requestStep: (_: unknown, _p: { requestId: number }) => {},
  /**
   * Effect: before the pass deletes anything, raise Log-Start-Offset once, to the end + 1 of
   * the last segment expiring by time or size (never lowered; -1 when none does).
   * Kafka: RLMExpirationTask.handleLogStartOffsetUpdate.
   */
  raiseLogStartOffsetForRetention: (_: unknown, _p: { offset: number }) => {},
  /** Effect: DELETE_SEGMENT_STARTED and delete an expired segment's objects. */
  startRemoteDelete: (_: unknown, _p: { requestId: number; segmentId: string; rule: RemoteExpiryRule }) => {},
  /** Effect: DELETE_SEGMENT_FINISHED. */
  finishRemoteDelete: (_: unknown, _p: { segmentId: string }) => {},
  explain: (_: unknown, _p: { rule: Rule; detail?: Record<string, number | string | null> }) => {},
};

const types = {
  context: {} as RlmExpirationContext,
  events: {} as RlmExpirationEvent,
  input: {} as { broker: number; topic: string; partition: number },
};

const x = setup({ types, actions: effects });

const scheduleNextRun = x.enqueueActions(({ context, enqueue }) => {
  const timerId = context.nextId;
  enqueue.assign({ awaiting: timerId, nextId: timerId + 1, runs: context.runs + 1, segmentId: null, expiring: [] });
  enqueue({ type: 'scheduleTask', params: { timerId, after: 'interval' } });
});

const nextStep = x.enqueueActions(({ context, enqueue }) => {
  const requestId = context.nextId;
  enqueue.assign({ awaiting: requestId, nextId: requestId + 1 });
  enqueue({ type: 'requestStep', params: { requestId } });
});

/** Leading: the task runs at once. Following: no task (awaiting -1). */
const startTask = x.enqueueActions(({ context, event, enqueue }) => {
  assertEvent(event, 'expiration.started');
  if (event.role !== 'leader') {
    enqueue.assign({ awaiting: -1, segmentId: null, expiring: [] });
    return;
  }
  const timerId = context.nextId;
  enqueue.assign({ awaiting: timerId, nextId: timerId + 1, segmentId: null, expiring: [] });
  enqueue({ type: 'scheduleTask', params: { timerId, after: 'now' } });
});

export const rlmExpirationMachine = setup({
  types,
  actions: { ...effects, scheduleNextRun, nextStep, startTask },
  guards: {
    isAwaited: ({ context, event }) => answeredId(event) === context.awaiting,
    isLeaderStart: ({ event }) => {
      assertEvent(event, 'expiration.started');
      return event.role === 'leader';
    },
    hasExpired: ({ event }) => {
      assertEvent(event, 'expiration.step');
      return event.remoteExpired.length > 0;
    },
    hasMoreExpiring: ({ context }) => context.expiring.length > 0,
    isOk: ({ event }) => {
      assertEvent(event, 'expiration.deleteCompleted');
      return event.ok;
    },
  },
}).createMachine({
  id: 'rlmExpiration',
  context: ({ input }) => ({ ...input, awaiting: -1, nextId: 1, runs: 0, segmentId: null, expiring: [] }),
  initial: 'inactive',
  on: {
    'expiration.started': [
      { guard: 'isLeaderStart', target: '.idle', actions: 'startTask' },
      { target: '.inactive', actions: 'startTask' },
    ],
    'expiration.stopped': { target: '.inactive', actions: assign({ awaiting: -1, segmentId: null, expiring: [] }) },
  },
  states: {
    /** No expiration task: the replica does not lead, or the broker is offline. */
    inactive: {},
    /** Waiting for the next run. */
    idle: {
      on: {
        'expiration.due': [{ guard: not('isAwaited') }, { target: 'running', actions: 'nextStep' }],
      },
    },
    /** Making the pass's list from fresh facts. */
    running: {
      on: {
        'expiration.step': [
          { guard: not('isAwaited') },
          {
            guard: 'hasExpired',
            target: 'deletingRemote',
            actions: [
              assign(({ context, event }) => ({
                segmentId: event.remoteExpired[0].segmentId,
                expiring: event.remoteExpired.slice(1).map((e) => ({ segmentId: e.segmentId, rule: e.rule })),
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
          { target: 'idle', actions: [{ type: 'explain', params: { rule: 'rlmRunDone', detail: { task: 'RLMExpirationTask' } } }, 'scheduleNextRun'] },
        ],
      },
    },
    /** Deleting this pass's segments, one at a time. */
    deletingRemote: {
      on: {
        'expiration.deleteCompleted': [
          { guard: not('isAwaited') },
          {
            guard: and(['isOk', 'hasMoreExpiring']),
            actions: [
              { type: 'finishRemoteDelete', params: ({ event }) => ({ segmentId: event.segmentId }) },
              { type: 'startRemoteDelete', params: ({ context }) => ({ requestId: context.nextId, segmentId: context.expiring[0].segmentId, rule: context.expiring[0].rule }) },
              assign(({ context }) => ({ segmentId: context.expiring[0].segmentId, expiring: context.expiring.slice(1), awaiting: context.nextId, nextId: context.nextId + 1 })),
            ],
          },
          // The pass is done, and so is the run.
          {
            guard: 'isOk',
            target: 'idle',
            actions: [{ type: 'finishRemoteDelete', params: ({ event }) => ({ segmentId: event.segmentId }) }, 'scheduleNextRun'],
          },
          // A failed delete ends the pass; the segment stays DELETE_SEGMENT_STARTED and is
          // retried first at the next run.
          { target: 'idle', actions: 'scheduleNextRun' },
        ],
      },
    },
  },
});

export type RlmExpirationMachine = typeof rlmExpirationMachine;
