/**
 * What every subsystem of the kernel works with: the state, the clock and queue, the trace,
 * and the machines. The kernel (core/sim/loop/kernel.ts) is the one implementation; the
 * subsystems (network, store, tiering, clients, controller, wal) are plain functions of a
 * `Sim`, so they import this interface and never the kernel, in the way a simulator keeps
 * its network, storage and checkers apart from the loop that joins them.
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { ObjectStoreBackend } from '../../ports/object-store.js';
import type { Scenario } from '../../scenario/types.js';
import type { Change } from '../checks/observed.js';
import type { MachineEvents, MachineName } from '../runtime/machines.js';
import type { KernelEvent, KernelState, RequestMessage } from './state.js';
import type { TraceEntry } from './trace.js';

export interface Sim {
  readonly scenario: Scenario;
  readonly state: KernelState;
  /** The trace so far (an asynchronous store completes its entries in place). */
  readonly trace: TraceEntry[];
  readonly store: ObjectStoreBackend;
  readonly latencyMode: 'model' | 'measured';
  /** The wall clock, ms, for `latency: 'measured'` (the core reads no clock of its own). */
  readonly clock: () => number;
  /** Requests to an asynchronous store issued in this step, awaited before the next. */
  readonly pendingIo: Promise<void>[];
  /** The requests a leader is answering in this step (requests are handled one at a time). */
  readonly answering: RequestMessage[];
  /** Every trace entry goes through here. */
  emit(e: TraceEntry): void;
  /** Queues an event at simulated time `atMs`. */
  schedule(atMs: number, ev: KernelEvent): void;
  /** Steps one machine with an event and executes the effects it asks for. */
  deliver<N extends MachineName>(broker: number, key: string, name: N, event: MachineEvents[N]): void;
  /** (Re)creates a machine in its initial state (a new replica, a restart, a crash's lost memory). */
  createMachine(broker: number, key: string, name: MachineName): void;
  machineSnapshot(broker: number, key: string, name: MachineName): AnyMachineSnapshot | undefined;
  /** The step may have changed this partition: its invariants are checked after the step. */
  touch(key: string): void;
  /** A change that may reach every partition (a crash, a config change). */
  touchAll(): void;
  /**
   * The one hook of the checkers: a subsystem reports a change an invariant is about, at the
   * moment it makes it (core/sim/checks/observed.ts); the kernel checks it and records what fails.
   */
  observe(change: Change): void;
  /**
   * The answer to a choice point (core/sim/loop/choices.ts): 0, the default, unless the run has
   * a chooser (the exhaustive checker's, or pinned choices). `what` is only called then.
   */
  choose(kind: 'delay' | 'storeFault', what: () => string): number;
}
