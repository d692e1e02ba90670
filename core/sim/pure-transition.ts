/**
 * XState's pure `transition()`, without its per-call cost. `transition()` builds a fresh
 * inert actor scope on every call (an Actor whose constructor computes an initial
 * snapshot); the kernel calls it for every delivered event, so it keeps one inert scope
 * per machine and reuses it. The scope is the same shape XState's own
 * createInertActorScope builds; the machines spawn no children, so sharing is safe.
 */
import { type AnyStateMachine, type MachineSnapshot, createActor } from 'xstate';

interface InertScope {
  scope: Record<string, unknown> & { actionExecutor: (a: unknown) => void };
  sink: unknown[];
}

const scopes = new WeakMap<AnyStateMachine, InertScope>();

function scopeFor(machine: AnyStateMachine): InertScope {
  let s = scopes.get(machine);
  if (s === undefined) {
    const self = createActor(machine);
    const entry: InertScope = {
      sink: [],
      scope: {
        self,
        defer: () => {},
        id: '',
        logger: () => {},
        sessionId: '',
        stopChild: () => {},
        system: self.system,
        emit: () => {},
        actionExecutor: (a: unknown) => entry.sink.push(a),
      },
    };
    s = entry;
    scopes.set(machine, s);
  }
  return s;
}

export function pureTransition<M extends AnyStateMachine>(machine: M, snapshot: MachineSnapshot<any, any, any, any, any, any, any, any>, event: { type: string }): [typeof snapshot, unknown[]] {
  const s = scopeFor(machine);
  const sink: unknown[] = [];
  s.sink = sink;
  const next = (machine as unknown as { transition: (a: unknown, b: unknown, c: unknown) => typeof snapshot }).transition(snapshot, event, s.scope);
  return [next, sink];
}
