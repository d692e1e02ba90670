/**
 * Local retention of one partition replica: the broker's log retention task
 * (docs/protocol.md §5, "Local retention"). LogManager.startup schedules "kafka-log-retention"
 * (cleanupLogs → UnifiedLog.deleteOldSegments for every log the broker hosts) first
 * log.initial.task.delay.ms after the broker starts, then every
 * log.retention.check.interval.ms at a fixed rate (KafkaScheduler.schedule →
 * scheduleAtFixedRate). It runs on every replica of every topic, leader or follower, and
 * does not wait for the remote log manager.
 *
 * Each run: if the active segment breaches its limit and is not empty, roll it
 * (deleteSegments rolls before deleting an active segment); delete the oldest local
 * segments that may go (below HW, breaching the limit, and uploaded where uploads are
 * required: domain/retention.ts localRetentionDeletable); decide again until nothing more
 * may go. The facts arrive in `retention.step`.
 */
import { assertEvent, assign, not, setup } from 'xstate';
import type { SegmentRange } from '../domain/retention.js';
import type { Rule } from '../domain/rules.js';
import { answeredId } from './task-ids.js';

export interface LogRetentionContext {
  broker: number;
  topic: string;
  partition: number;
  /** The timer or step the task waits for, or -1. */
  awaiting: number;
  nextId: number;
  runs: number;
}

export interface LogRetentionFacts {
  /** Local segments that may be deleted now, oldest first. */
  localDeletable: SegmentRange[];
  /** Why local retention stopped where it did (for the narration). */
  localStoppedBy: string | null;
  /** The active segment breaches its retention limit and is not empty. */
  rollActive: boolean;
}

export type LogRetentionEvent =
  | { type: 'retention.started' }
  | { type: 'retention.stopped' }
  | { type: 'retention.due'; timerId: number }
  | ({ type: 'retention.step'; requestId: number } & LogRetentionFacts);

const effects = {
  /** Effect: fire `retention.due` at the broker's next log retention run (at or after now for 'start', after now for 'next'). */
  scheduleTask: (_: unknown, _p: { timerId: number; after: 'start' | 'next' }) => {},
  /** Effect: deliver `retention.step` with fresh facts. */
  requestStep: (_: unknown, _p: { requestId: number }) => {},
  /** Effect: delete local segments (the local log start moves; the log start too where no upload is required). */
  deleteLocalSegments: (_: unknown, _p: { segments: SegmentRange[] }) => {},
  /** Effect: roll the active segment so retention can take it. */
  rollActiveSegment: (_: unknown, _p: Record<string, never>) => {},
  explain: (_: unknown, _p: { rule: Rule; detail?: Record<string, number | string | null> }) => {},
};

const types = {
  context: {} as LogRetentionContext,
  events: {} as LogRetentionEvent,
  input: {} as { broker: number; topic: string; partition: number },
};

const r = setup({ types, actions: effects });

const scheduleNextRun = r.enqueueActions(({ context, enqueue }) => {
  const timerId = context.nextId;
  enqueue.assign({ awaiting: timerId, nextId: timerId + 1, runs: context.runs + 1 });
  enqueue({ type: 'scheduleTask', params: { timerId, after: 'next' } });
});

const nextStep = r.enqueueActions(({ context, enqueue }) => {
  const requestId = context.nextId;
  enqueue.assign({ awaiting: requestId, nextId: requestId + 1 });
  enqueue({ type: 'requestStep', params: { requestId } });
});

const startTask = r.enqueueActions(({ context, enqueue }) => {
  const timerId = context.nextId;
  enqueue.assign({ awaiting: timerId, nextId: timerId + 1 });
  enqueue({ type: 'scheduleTask', params: { timerId, after: 'start' } });
});

export const logRetentionMachine = setup({
  types,
  actions: { ...effects, scheduleNextRun, nextStep, startTask },
  guards: {
    isAwaited: ({ context, event }) => answeredId(event) === context.awaiting,
    shouldRollActive: ({ event }) => {
      assertEvent(event, 'retention.step');
      return event.rollActive;
    },
    hasLocalDeletable: ({ event }) => {
      assertEvent(event, 'retention.step');
      return event.localDeletable.length > 0;
    },
  },
}).createMachine({
  id: 'logRetention',
  context: ({ input }) => ({ ...input, awaiting: -1, nextId: 1, runs: 0 }),
  initial: 'inactive',
  on: {
    'retention.started': { target: '.idle', actions: 'startTask' },
    'retention.stopped': { target: '.inactive', actions: assign({ awaiting: -1 }) },
  },
  states: {
    /** Not running: the broker is offline or does not host the partition. */
    inactive: {},
    /** Waiting for the broker's next log retention run. */
    idle: {
      on: {
        'retention.due': [{ guard: not('isAwaited') }, { target: 'running', actions: 'nextStep' }],
      },
    },
    /** Deleting what may go, one decision at a time. */
    running: {
      on: {
        'retention.step': [
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
            target: 'idle',
            actions: [
              { type: 'explain', params: ({ event }) => ({ rule: 'logRetentionRunDone', detail: { localStoppedBy: event.localStoppedBy } }) },
              'scheduleNextRun',
            ],
          },
        ],
      },
    },
  },
});

export type LogRetentionMachine = typeof logRetentionMachine;
