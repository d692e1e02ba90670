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

/**
 * XState's `assign` copies the context with `Object.assign({}, context, update)`. V8 keeps
 * an object built that way in fast mode (a hidden class, properties at fixed offsets) only
 * up to about 19 properties, unless its hidden-class chain from `{}` already exists; past
 * that every copy is a dictionary (hash table) and costs ten times as much (the follower
 * fetcher's 23 fields: 8 to 10 us a copy instead of under 1). Defining the same keys in the
 * same order once on a plain object builds that chain, which every later copy then follows.
 * Only speed depends on this: the copies hold the same values either way.
 */
const warmed = new WeakSet<AnyStateMachine>();

function warmContextShape(context: unknown): void {
  if (context === null || typeof context !== 'object') return;
  const o = {};
  for (const [k, v] of Object.entries(context)) Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
}

/** The machine's inert actor scope (created once; `self` and `system` for the actions' arguments). */
export function scopeFor(machine: AnyStateMachine): InertScope {
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
  if (!warmed.has(machine)) {
    warmed.add(machine);
    warmContextShape(snapshot.context);
  }
  const sink: unknown[] = [];
  s.sink = sink;
  const next = (machine as unknown as { transition: (a: unknown, b: unknown, c: unknown) => typeof snapshot }).transition(snapshot, event, s.scope);
  return [next, sink];
}

/**
 * XState's `initialTransition()`, with the machine's one inert scope: `initialTransition`
 * builds a new actor for every call (an actor whose constructor computes an initial
 * snapshot of its own), and a kernel creates hundreds of machines.
 */
export function pureInitialTransition<M extends AnyStateMachine>(machine: M, input: unknown): [MachineSnapshot<any, any, any, any, any, any, any, any>, unknown[]] {
  const s = scopeFor(machine);
  const sink: unknown[] = [];
  s.sink = sink;
  const snapshot = (machine as unknown as { getInitialSnapshot: (scope: unknown, input: unknown) => MachineSnapshot<any, any, any, any, any, any, any, any> }).getInitialSnapshot(s.scope, input);
  return [snapshot, sink];
}

