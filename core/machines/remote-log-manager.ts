/**
 * Remote log manager task for one partition replica (Kafka's RLMTask / RLMCopyTask).
 * Runs every remote.log.manager.task.interval.ms, the first run at once. On every run it
 * refreshes highestOffsetInRemoteStorage from remote metadata, even when there is nothing
 * to upload (KIP-1023's change); while the remote log metadata is still loading it
 * cannot learn anything. Segment copy and retention are not modelled yet (they arrive
 * with the full-life-of-a-partition work).
 */
import { assign, enqueueActions, setup } from 'xstate';

export interface RemoteLogManagerContext {
  broker: number;
  topic: string;
  partition: number;
  role: 'leader' | 'follower';
  awaiting: number;
  nextId: number;
  runs: number;
}

export type RemoteLogManagerEvent =
  | { type: 'rlm.started'; role: 'leader' | 'follower' }
  | { type: 'rlm.stopped' }
  | {
      type: 'rlm.taskDue';
      timerId: number;
      /** The partition's remote log metadata has finished loading on this broker. */
      metadataReady: boolean;
      /** findHighestRemoteOffset over the local leader epoch lineage; -1 if none. */
      highestRemoteOffset: number;
      /** The broker's in-memory highestOffsetInRemoteStorage. */
      highestOffsetInRemoteStorage: number;
      tiered: boolean;
    };

type TaskDue = Extract<RemoteLogManagerEvent, { type: 'rlm.taskDue' }>;

export const remoteLogManagerMachine = setup({
  types: {
    context: {} as RemoteLogManagerContext,
    events: {} as RemoteLogManagerEvent,
    input: {} as { broker: number; topic: string; partition: number },
  },
  actions: {
    /** Effect: fire `rlm.taskDue` now or after remote.log.manager.task.interval.ms. */
    scheduleTask: (_, _p: { timerId: number; after: 'now' | 'interval' }) => {},
    /** Effect: raise the broker's in-memory highestOffsetInRemoteStorage (never lowered). */
    updateHighestOffsetInRemoteStorage: (_, _p: { offset: number }) => {},
    explain: (_, _p: { rule: string; detail?: Record<string, number | string | null> }) => {},
    scheduleNextRun: enqueueActions(({ context, enqueue }) => {
      const timerId = context.nextId;
      enqueue.assign({ awaiting: timerId, nextId: timerId + 1, runs: context.runs + 1 });
      enqueue({ type: 'scheduleTask', params: { timerId, after: 'interval' } } as never);
    }),
  },
  guards: {
    isAwaitedTimer: ({ context, event }) => event.type === 'rlm.taskDue' && event.timerId === context.awaiting,
    isMetadataLoading: ({ event }) => !(event as TaskDue).metadataReady,
    isNotTiered: ({ event }) => !(event as TaskDue).tiered,
    learnsHigherOffset: ({ event }) => {
      const e = event as TaskDue;
      return e.highestRemoteOffset > e.highestOffsetInRemoteStorage;
    },
  },
}).createMachine({
  id: 'remoteLogManager',
  context: ({ input }) => ({ ...input, role: 'follower', awaiting: -1, nextId: 1, runs: 0 }),
  initial: 'inactive',
  on: {
    'rlm.started': {
      target: '.scheduled',
      actions: [
        assign(({ context, event }) => ({ role: event.role, awaiting: context.nextId, nextId: context.nextId + 1 })),
        { type: 'scheduleTask', params: ({ context }) => ({ timerId: context.awaiting, after: 'now' as const }) },
      ],
    },
    'rlm.stopped': { target: '.inactive', actions: assign({ awaiting: -1 }) },
  },
  states: {
    /** Not running: the broker is offline or does not host the partition. */
    inactive: {},
    /** Waiting for the next task run. */
    scheduled: {
      on: {
        'rlm.taskDue': [
          { guard: ({ context, event }) => event.timerId !== context.awaiting },
          { guard: 'isNotTiered', actions: 'scheduleNextRun' },
          {
            guard: 'isMetadataLoading',
            actions: [{ type: 'explain', params: { rule: 'rlmMetadataLoading' } }, 'scheduleNextRun'],
          },
          {
            guard: 'learnsHigherOffset',
            actions: [
              { type: 'updateHighestOffsetInRemoteStorage', params: ({ event }) => ({ offset: event.highestRemoteOffset }) },
              'scheduleNextRun',
            ],
          },
          { actions: 'scheduleNextRun' },
        ],
      },
    },
  },
});
