/**
 * The model's machines as the kernel runs them: their names, how one is stepped (XState's
 * pure transition, or the same transition computed by core/sim/runtime/fast-transition.ts), and the
 * types that join machine and kernel: the events each machine takes and the effects it
 * declares in its `setup()`. The effect types are read off the machine definitions, so
 * a declared effect the kernel does not interpret fails to compile (core/sim/loop/effects.ts),
 * and a parameter it does not read fails test/effect-params.test.ts.
 */
import type { AnyMachineSnapshot, StateMachine } from 'xstate';
import { type FollowerFetcherEvent, followerFetcherMachine } from '../../machines/follower-fetcher.js';
import { type LeaderPartitionEvent, leaderPartitionMachine } from '../../machines/leader-partition.js';
import { type LogRetentionEvent, logRetentionMachine } from '../../machines/log-retention.js';
import { type RemoteLogManagerEvent, remoteLogManagerMachine } from '../../machines/remote-log-manager.js';
import { type RlmExpirationEvent, rlmExpirationMachine } from '../../machines/rlm-expiration.js';
import { type WalCombinerEvent, walCombinerMachine } from '../../machines/wal-combiner.js';
import { type WalReplicaEvent, walReplicaMachine } from '../../machines/wal-replica.js';
import { fastTransition } from './fast-transition.js';
import { pureTransition } from './pure-transition.js';

export const MACHINES = {
  fetcher: followerFetcherMachine,
  leader: leaderPartitionMachine,
  rlm: remoteLogManagerMachine,
  rlmExpiration: rlmExpirationMachine,
  logRetention: logRetentionMachine,
  walReplica: walReplicaMachine,
  walCombiner: walCombinerMachine,
} as const;

export type MachineName = keyof typeof MACHINES;

/** Per-partition machines, one of each on every replica. */
export const PARTITION_MACHINES = ['fetcher', 'leader', 'rlm', 'rlmExpiration', 'logRetention', 'walReplica'] as const;

/** The events each machine takes. */
export interface MachineEvents {
  fetcher: FollowerFetcherEvent;
  leader: LeaderPartitionEvent;
  rlm: RemoteLogManagerEvent;
  rlmExpiration: RlmExpirationEvent;
  logRetention: LogRetentionEvent;
  walReplica: WalReplicaEvent;
  walCombiner: WalCombinerEvent;
}

/** The actions a machine's `setup()` declares, as `{ type, params }`. */
type DeclaredActions<M> =
  M extends StateMachine<any, any, any, any, infer A, any, any, any, any, any, any, any, any, any, any> ? A : never;

/**
 * The effects of a machine: its declared actions whose params have a type. An action the
 * machine implements itself (an `assign`, an `enqueueActions`, plain or bound to its setup)
 * has untyped or `undefined` params and never reaches the kernel; an effect without
 * parameters declares `params: Record<string, never>` (and is written `{ type, params: {} }`).
 */
export type EffectOf<N extends MachineName> =
  DeclaredActions<(typeof MACHINES)[N]> extends infer A
    ? A extends { type: string; params: infer P }
      ? unknown extends P
        ? never
        : [P] extends [undefined]
          ? never
          : A
      : never
    : never;

export type EffectType<N extends MachineName> = EffectOf<N>['type'];

export type EffectParams<N extends MachineName, T extends EffectType<N>> = Extract<EffectOf<N>, { type: T }>['params'];

/** One machine step: the next snapshot and the actions it asks for. */
export type MachineStep = (name: MachineName, snapshot: AnyMachineSnapshot, event: { type: string }) => [AnyMachineSnapshot, unknown[]];

/** XState's pure `transition()` of the named machine (core/sim/runtime/pure-transition.ts): the reference. */
export const xstateStep: MachineStep = (name, snapshot, event) => pureTransition(MACHINES[name] as never, snapshot as never, event) as [AnyMachineSnapshot, unknown[]];

/**
 * The kernel's default machine step: the same transition as `xstateStep`, computed from
 * the same machine definitions without XState's per-call cost (core/sim/runtime/fast-transition.ts;
 * the tests compare the two on every machine).
 */
export const fastStep: MachineStep = (name, snapshot, event) => fastTransition(MACHINES[name], snapshot, event);

/** Names of nested state values, remembered per value object (the fast step shares them). */
const stateNames = new WeakMap<object, string>();

/** `{a: {b: 'c'}}` -> `a.b.c`. */
export function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    let name = stateNames.get(value);
    if (name === undefined) {
      const [k, v] = Object.entries(value as Record<string, unknown>)[0] ?? ['', ''];
      const rest = stateName(v);
      name = rest === '' ? k : `${k}.${rest}`;
      stateNames.set(value, name);
    }
    return name;
  }
  return '';
}

/** A snapshot as the machines make it (not one read back from JSON). */
export function isLiveSnapshot(x: unknown): x is AnyMachineSnapshot {
  return typeof x === 'object' && x !== null && 'machine' in x && '_nodes' in x;
}
