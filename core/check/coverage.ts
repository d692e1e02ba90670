/**
 * Transition coverage of the model's machines: every state and every transition (each
 * guarded candidate of each event, eventless `always` candidates included) of the XState
 * definitions, and which of them a set of runs actually took. The transitions taken are
 * read from XState's own inspection stream (`@xstate.microstep` carries the transition
 * definitions), so a guard that picked a candidate is counted exactly, `always` steps too.
 */
import { type AnyMachineSnapshot, type AnyStateMachine, createActor } from 'xstate';

export interface TransitionInfo {
  id: string;
  /** The source state's path (`''` for the root). */
  source: string;
  event: string;
  index: number;
  targets: string[];
}

interface NodeLike {
  path: string[];
  states: Record<string, NodeLike>;
  transitions: Map<string, unknown[]>;
  always?: unknown[];
}

const pathOf = (n: NodeLike) => n.path.join('.');

/** Every transition candidate and every state of a machine, by identity of its definition. */
export function machineGraph(machine: AnyStateMachine): { transitions: Map<unknown, TransitionInfo>; states: string[] } {
  const transitions = new Map<unknown, TransitionInfo>();
  const states: string[] = [];
  const add = (node: NodeLike, event: string, defs: unknown[]) => {
    defs.forEach((d, index) => {
      const targets = ((d as { target?: NodeLike[] }).target ?? []).map(pathOf);
      const source = pathOf(node);
      const id = `${source || '(root)'} --${event}[${index}]--> ${targets.join(',') || '(stay)'}`;
      transitions.set(d, { id, source, event, index, targets });
    });
  };
  const walk = (node: NodeLike) => {
    if (node.path.length > 0 && Object.keys(node.states).length === 0) states.push(pathOf(node));
    for (const [event, defs] of node.transitions) add(node, event, defs);
    if (node.always) add(node, 'always', node.always);
    for (const child of Object.values(node.states)) walk(child);
  };
  walk(machine.root as unknown as NodeLike);
  return { transitions, states };
}

/** The leaf state of a snapshot, as a dotted path. */
export function leafPath(value: unknown): string {
  if (typeof value === 'string') return value;
  const [k, v] = Object.entries(value as Record<string, unknown>)[0];
  return `${k}.${leafPath(v)}`;
}

/** Collects the transitions and states a machine took over many events. */
export class MachineCoverage {
  readonly graph: ReturnType<typeof machineGraph>;
  readonly taken = new Set<string>();
  readonly visited = new Set<string>();

  constructor(readonly name: string, readonly machine: AnyStateMachine) {
    this.graph = machineGraph(machine);
  }

  /**
   * Replays one event from `before` on a throwaway actor and records the transitions of
   * every microstep; returns the snapshot after it.
   */
  record(before: AnyMachineSnapshot, event: { type: string }): AnyMachineSnapshot {
    this.visited.add(leafPath(before.value));
    const persisted = this.machine.getPersistedSnapshot(before as never);
    const actor = createActor(this.machine, {
      snapshot: persisted as never,
      inspect: (ev) => {
        if (ev.type !== '@xstate.microstep') return;
        // Transient states (left by an `always` at once) show only in the microsteps.
        const mid = (ev as unknown as { snapshot?: { value?: unknown } }).snapshot;
        if (mid?.value !== undefined) this.visited.add(leafPath(mid.value));
        for (const t of (ev as unknown as { _transitions: unknown[] })._transitions) {
          const info = this.graph.transitions.get(t);
          if (info !== undefined) this.taken.add(info.id);
        }
      },
    });
    actor.start();
    actor.send(event as never);
    const after = actor.getSnapshot() as AnyMachineSnapshot;
    actor.stop();
    this.visited.add(leafPath(after.value));
    return after;
  }

  /** Marks the initial state (and any `always` steps out of it) as visited. */
  recordInitial(snapshot: AnyMachineSnapshot): void {
    this.visited.add(leafPath(snapshot.value));
  }

  report(): CoverageReport {
    const all = [...this.graph.transitions.values()].map((t) => t.id);
    return {
      machine: this.name,
      states: { covered: this.graph.states.filter((s) => this.visited.has(s)).length, total: this.graph.states.length },
      transitions: { covered: all.filter((t) => this.taken.has(t)).length, total: all.length },
      missedStates: this.graph.states.filter((s) => !this.visited.has(s)),
      missedTransitions: all.filter((t) => !this.taken.has(t)),
    };
  }
}

export interface CoverageReport {
  machine: string;
  states: { covered: number; total: number };
  transitions: { covered: number; total: number };
  missedStates: string[];
  missedTransitions: string[];
}
