/**
 * The machines' step, computed the way XState's `transition()` computes it, without its
 * per-call cost. XState builds every intermediate snapshot in full (state value, node set,
 * tags) and copies the context at each `assign`; a transition of the follower fetcher
 * took 10 to 50 us, and a run of the reference hour takes millions of them. This reads the
 * same machine definitions (XState's own state nodes, transitions, guards and actions) and
 * follows the same SCXML microstep: select the first enabled transition from the active
 * leaf up; exit the states below the transition's domain (deepest first); run the
 * transition's actions; enter the target states (shallowest first, initial children by
 * default); then take eventless (`always`) transitions until none is enabled. Actions
 * resolve in XState's order: each `assign` sees the context of the ones before it, each
 * `enqueueActions` runs its body and resolves what it queued in place, and every other
 * action is returned as an effect `{ type, params }` (its params computed from the
 * context at that point).
 *
 * The snapshot returned has the fields of XState's (a plain object, as XState's is): the
 * state value and node list are computed once per configuration and shared, and an
 * unchanged machine gets its snapshot back, as from XState.
 *
 * It relies on the machines being pure (house style): a guard, params, assign or
 * enqueueActions function gets an argument object that is refilled for the next call, and
 * a second assign in one step may write into the context copy the first made (when no
 * effect or update holds that copy). A function that kept its argument or the context for
 * later would see them change; none does, and the tests would show the difference. The
 * working state is one set of objects for the module (a step runs to its end before the
 * next starts); a machine function that stepped a machine itself would share it, so a
 * step begun inside another throws instead of running on the outer step's state.
 *
 * What it earns: `npm run bench` part 2 runs the reference hour with the machines replaced
 * by a no-op handler; the real machines cost 1.7 to 1.8 times that with this step, 6 to 7
 * times with XState's `transition()` (README, Performance).
 *
 * What it relies on in XState (v5, read from its `StateNode`s, the same objects XState
 * steps): `machine.implementations` for named guards and actions; a state node's
 * `transitions` map, `always`, `entry`, `exit`, `initial`, `parent`, `type` and `tags`;
 * `and`/`or`/`not`'s `check` and `guards`; `assign`'s `assignment`; `enqueueActions`'
 * `collect`; the snapshot's fields (core/sim/runtime/statechart.ts reads the nodes). An XState
 * upgrade that changed one of these would change the traces, and
 * test/performance-equivalence.test.ts compares every bundled scenario, forty seeded fault
 * schedules and every conformance case both ways, trace for trace, so it fails loudly.
 *
 * Covers what the model's machines use: compound and atomic states, guards (named,
 * inline, `and`/`or`/`not`), `assign`, `enqueueActions` (with `enqueue.assign` and
 * `check`), `reenter`, `always`. Anything else (parallel or history states, `raise`,
 * `sendTo`, invoked or spawned actors, delays, a stopped or done machine) is handed to
 * XState's `transition()` whole, and counted in `fallbacks`. The tests step every machine
 * both ways over every bundled scenario and the machine exploration, and compare, and
 * expect no fall-back over the bundled scenarios.
 */
import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import { and, assign as xassign, not, or } from 'xstate';
import { pureTransition, scopeFor } from './pure-transition.js';
import { type Node, type Transition, candidatesOf, configOf, isAtomic, isSupported, planOf } from './statechart.js';

/** XState's built-in guards, told apart by their check functions (names do not survive minifying). */
const CHECK_AND = (and([]) as unknown as { check: unknown }).check;
const CHECK_OR = (or([]) as unknown as { check: unknown }).check;
const CHECK_NOT = (not(() => true) as unknown as { check: unknown }).check;

/** Thrown when a machine needs something this does not cover; XState then takes the step. */
class Unsupported extends Error {}

/** A small number per machine, for `copyContext`. */
const slots = new WeakMap<AnyStateMachine, number>();
let nextSlot = 0;

/**
 * A shallow copy of a context. One copy site per machine (up to eight): a site that sees
 * the contexts of every machine, each of its own shape, is megamorphic in V8 and copies
 * ten times slower than one that sees a single shape.
 */
function copyContext(c: Record<string, unknown>, slot: number): Record<string, unknown> {
  switch (slot) {
    case 0:
      return { ...c };
    case 1:
      return { ...c };
    case 2:
      return { ...c };
    case 3:
      return { ...c };
    case 4:
      return { ...c };
    case 5:
      return { ...c };
    case 6:
      return { ...c };
    case 7:
      return { ...c };
    default:
      return { ...c };
  }
}

/** One step's working state. */
interface Step {
  slot: number;
  machine: AnyStateMachine;
  snapshot: AnyMachineSnapshot;
  event: { type: string };
  context: Record<string, unknown>;
  nodes: Node[];
  leaf: Node;
  /** Bumped by every assign and configuration change (XState makes a new snapshot then). */
  version: number;
  /** The context is a copy made in this step, held by nothing else yet (it may be updated in place). */
  owned: boolean;
  effects: unknown[];
  scope: { self: unknown; system: unknown };
}

/** The snapshot the guards and `check` see: XState passes its intermediate snapshot. */
function guardSnapshot(s: Step): AnyMachineSnapshot {
  if (s.version === 0) return s.snapshot;
  s.owned = false;
  return makeSnapshot(s);
}

/** The argument of assign functions, refilled for each (as `args`: the machines are pure). */
const assignArgs = { context: {} as Record<string, unknown>, event: {} as { type: string }, spawn: noSpawn as unknown, self: undefined as unknown, system: undefined as unknown };

/** `x` is `context` or holds it as one of its own values (then `context` is shared). */
function holds(x: unknown, context: object): boolean {
  if (x === context) return true;
  if (x === null || typeof x !== 'object') return false;
  for (const k in x) if ((x as Record<string, unknown>)[k] === context) return true;
  return false;
}

/**
 * The `{ context, event }` argument of guards and params, one object refilled for each call:
 * the machines are pure (a guard or a params function returns a value and keeps nothing),
 * and a fresh object per call was a tenth of what a step allocated.
 */
const args = { context: {} as Record<string, unknown>, event: {} as { type: string } };

function argsOf(context: Record<string, unknown>, event: { type: string }): typeof args {
  args.context = context;
  args.event = event;
  return args;
}

function guardPasses(s: Step, guard: unknown, context: Record<string, unknown>): boolean {
  const implementations = s.machine.implementations.guards as Record<string, unknown>;
  const inline = typeof guard === 'function';
  const resolved = inline ? guard : implementations[typeof guard === 'string' ? guard : (guard as { type: string }).type];
  if (!inline && !resolved) throw new Error(`Guard '${typeof guard === 'string' ? guard : (guard as { type: string }).type}' is not implemented.'.`);
  if (typeof resolved !== 'function') return guardPasses(s, resolved, context);
  const g = guard as { params?: unknown };
  const params = inline || typeof guard === 'string' ? undefined : 'params' in g ? (typeof g.params === 'function' ? (g.params as (a: unknown) => unknown)(argsOf(context, s.event)) : g.params) : undefined;
  const fn = resolved as ((args: unknown, params: unknown) => boolean) & { check?: unknown; guards?: unknown[] };
  if (!('check' in fn)) return fn(argsOf(context, s.event), params);
  // XState's built-in guards and, or, not: their sub-guards are evaluated the same way.
  const guards = fn.guards ?? [];
  if (fn.check === CHECK_AND) {
    for (const x of guards) if (!guardPasses(s, x, context)) return false;
    return true;
  }
  if (fn.check === CHECK_OR) {
    for (const x of guards) if (guardPasses(s, x, context)) return true;
    return false;
  }
  if (fn.check === CHECK_NOT) return !guardPasses(s, guards[0], context);
  // Other built-ins (stateIn) check against the snapshot of the moment.
  return (fn.check as (snap: unknown, args: unknown, g: unknown) => boolean)(guardSnapshot(s), { context, event: s.event }, fn);
}

function noSpawn(): never {
  throw new Unsupported('spawn');
}

function unsupported(what: string): () => never {
  return () => {
    throw new Unsupported(what);
  };
}

/** Where `enqueue` puts actions, while an `enqueueActions` body runs. */
let queue: unknown[] = [];
/** The step and context `check` evaluates against, while an `enqueueActions` body runs. */
let checkStep: Step | null = null;
let checkContext: Record<string, unknown> = {};

/** Queue arrays by enqueueActions nesting depth, and the depth now. */
const queues: unknown[][] = [];
let depth = 0;

/** The argument of enqueueActions bodies, refilled for each (as `args`: the machines are pure). */
const collectArgs = {
  context: {} as Record<string, unknown>,
  event: {} as { type: string },
  enqueue: undefined as unknown,
  check: undefined as unknown,
  self: undefined as unknown,
  system: undefined as unknown,
};

/** The `check` of XState's enqueueActions: a guard against the context of the moment. */
function check(guard: unknown): boolean {
  if (checkStep === null) throw new Error('check outside an enqueueActions body');
  return guardPasses(checkStep, guard, checkContext);
}

/** The `enqueue` of XState's enqueueActions (one object: the bodies run one at a time). */
const enqueue = Object.assign((x: unknown) => void queue.push(x), {
  assign: (...args: unknown[]) => void queue.push((xassign as (...a: unknown[]) => unknown)(...args)),
  cancel: unsupported('cancel'),
  raise: unsupported('raise'),
  sendTo: unsupported('sendTo'),
  sendParent: unsupported('sendParent'),
  spawnChild: unsupported('spawnChild'),
  stopChild: unsupported('stopChild'),
  emit: unsupported('emit'),
});
collectArgs.enqueue = enqueue;
collectArgs.check = check;

/** XState's resolveAndExecuteActionsWithContext, for assign, enqueueActions and effects. */
function runActions(s: Step, actions: readonly unknown[]): void {
  const implementations = s.machine.implementations.actions as Record<string, unknown>;
  for (const action of actions) {
    const inline = typeof action === 'function';
    const resolved = (inline ? action : implementations[typeof action === 'string' ? action : (action as { type: string }).type]) as
      | (((...a: unknown[]) => unknown) & { type?: string; resolve?: unknown; assignment?: unknown; collect?: unknown })
      | undefined;
    const a = action as { type?: string; params?: unknown };
    const params = inline || typeof action === 'string' ? undefined : 'params' in a ? (typeof a.params === 'function' ? (a.params as (x: unknown) => unknown)(argsOf(s.context, s.event)) : a.params) : undefined;
    if (resolved === undefined || !('resolve' in resolved)) {
      const type = typeof action === 'string' ? action : typeof action === 'object' ? (action as { type: string }).type : ((action as { name?: string }).name || '(anonymous)');
      if (s.owned && holds(params, s.context)) s.owned = false;
      s.effects.push({ type, params });
      continue;
    }
    if (resolved.type === 'xstate.assign') {
      const assignment = resolved.assignment;
      const args = assignArgs;
      args.context = s.context;
      args.event = s.event;
      args.self = s.scope.self;
      args.system = s.scope.system;
      let update: Record<string, unknown>;
      if (typeof assignment === 'function') update = assignment(args, params) as Record<string, unknown>;
      else {
        update = {};
        for (const key of Object.keys(assignment as object)) {
          const v = (assignment as Record<string, unknown>)[key];
          update[key] = typeof v === 'function' ? (v as (x: unknown, p: unknown) => unknown)(args, params) : v;
        }
      }
      // XState: Object.assign({}, context, update), a new object at every assign. When
      // the context is already a copy this step made and handed to no one (no effect or
      // update holds it), the update is written into it: the same values, one copy less.
      if (s.owned && holds(update, s.context)) s.owned = false;
      if (s.owned) {
        for (const key in update) s.context[key] = update[key];
      } else {
        const next = copyContext(s.context, s.slot);
        for (const key in update) next[key] = update[key];
        s.context = next;
        s.owned = true;
      }
      s.version++;
      continue;
    }
    if (resolved.type === 'xstate.enqueueActions') {
      // One queue array per nesting depth, reused (an enqueueActions body rarely queues much).
      const queued = (queues[depth] ??= []);
      queued.length = 0;
      depth++;
      const outerQueue = queue;
      const outerStep = checkStep;
      const outerContext = checkContext;
      queue = queued;
      checkStep = s;
      checkContext = s.context;
      try {
        const a = collectArgs;
        a.context = s.context;
        a.event = s.event;
        a.self = s.scope.self;
        a.system = s.scope.system;
        (resolved.collect as (args: unknown, params: unknown) => void)(a, params);
        runActions(s, queued);
      } finally {
        queue = outerQueue;
        checkStep = outerStep;
        checkContext = outerContext;
        depth--;
      }
      continue;
    }
    // raise, sendTo, log, emit, cancel, spawn, stop: XState takes the whole step.
    throw new Unsupported(String(resolved.type));
  }
}

/** One microstep along transition `t` (XState's microstep, exit, actions, entry). */
function microstep(s: Step, t: Transition): void {
  if (t.target === undefined || t.target.length === 0) {
    runActions(s, t.actions);
    return;
  }
  const plan = planOf(t, s.leaf, s.nodes);
  if (plan.reentry) {
    // Exit and enter the same states: their actions run, the node list is unchanged (as
    // in XState, which then keeps the snapshot's node list).
    for (const n of plan.exit) runActions(s, n.exit);
    runActions(s, t.actions);
    for (const n of plan.entry) {
      runActions(s, n.entry);
      if (plan.defaultEntry.has(n) && n.type === 'compound') runActions(s, n.initial.actions);
    }
    return;
  }
  // The active nodes as XState's Set keeps them (insertion order), in a small array.
  const nodes = s.nodes.slice();
  for (const n of plan.exit) {
    runActions(s, n.exit);
    const i = nodes.indexOf(n);
    if (i >= 0) nodes.splice(i, 1);
  }
  runActions(s, t.actions);
  for (const n of plan.entry) {
    if (!nodes.includes(n)) nodes.push(n);
    runActions(s, n.entry);
    if (plan.defaultEntry.has(n) && n.type === 'compound') runActions(s, n.initial.actions);
  }
  let same = nodes.length === s.nodes.length;
  if (same) for (const n of s.nodes) if (!nodes.includes(n)) same = false;
  if (!same) {
    s.nodes = nodes;
    s.version++;
  }
  s.leaf = leafOf(s.nodes);
}

/** The first enabled transition for `eventType` from the leaf up, or the first enabled `always`. */
function select(s: Step, eventless: boolean): Transition | undefined {
  for (const n of configOf(s.leaf).chain) {
    const list = eventless ? n.always : candidatesOf(n, s.event.type);
    if (list === undefined) continue;
    for (const t of list) if (t.guard === undefined || guardPasses(s, t.guard, s.context)) return t;
  }
  return undefined;
}

function makeSnapshot(s: Step): AnyMachineSnapshot {
  const p = s.snapshot as AnyMachineSnapshot & Record<string, unknown>;
  const c = configOf(s.leaf);
  // The fields of XState's createMachineSnapshot, in its order.
  return {
    status: p.status,
    output: p.output,
    error: p.error,
    machine: p.machine,
    context: s.context,
    _nodes: s.nodes,
    value: c.value,
    tags: c.tags,
    children: p.children,
    historyValue: p.historyValue,
    matches: p.matches,
    hasTag: p.hasTag,
    can: p.can,
    getMeta: p.getMeta,
    toJSON: p.toJSON,
  } as unknown as AnyMachineSnapshot;
}

const current: Step = {
  slot: 0,
  machine: undefined as unknown as AnyStateMachine,
  snapshot: undefined as unknown as AnyMachineSnapshot,
  event: { type: '' },
  context: {},
  nodes: [],
  leaf: undefined as unknown as Node,
  version: 0,
  owned: false,
  effects: [],
  scope: { self: undefined, system: undefined },
};

/** The active leaf of a node list (one: no parallel states), remembered per list. */
const leaves = new WeakMap<readonly Node[], Node>();

function leafOf(nodes: readonly Node[]): Node {
  let leaf = leaves.get(nodes);
  if (leaf === undefined) {
    for (const n of nodes) if (isAtomic(n)) leaf = n;
    if (leaf === undefined) throw new Unsupported('no leaf');
    leaves.set(nodes, leaf);
  }
  return leaf;
}

/** XState's macrostep for one external event: the event's microstep, then eventless ones. */
/** A step is under way (the working state below is in use). */
let stepping = false;

function macrostep(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: { type: string }): [AnyMachineSnapshot, unknown[]] {
  if (stepping) throw new Error(`${machine.id} ${event.type}: a machine step begun inside another (the fast step's working state is shared; machines must be pure)`);
  stepping = true;
  try {
    return macrostepInner(machine, snapshot, event);
  } finally {
    stepping = false;
  }
}

function macrostepInner(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: { type: string }): [AnyMachineSnapshot, unknown[]] {
  const nodes = (snapshot as unknown as { _nodes: Node[] })._nodes;
  const leaf = leafOf(nodes);
  let slot = slots.get(machine);
  if (slot === undefined) slots.set(machine, (slot = nextSlot++));
  // One working state, refilled for each step (a step runs to its end before another starts).
  const s = current;
  s.slot = slot;
  s.machine = machine;
  s.snapshot = snapshot;
  s.event = event;
  s.context = snapshot.context as Record<string, unknown>;
  s.nodes = nodes;
  s.leaf = leaf;
  s.version = 0;
  s.owned = false;
  s.effects = [];
  s.scope = scopeFor(machine).scope as unknown as { self: unknown; system: unknown };
  const t = select(s, false);
  if (t !== undefined) microstep(s, t);
  // Eventless transitions, until none is enabled or one changes nothing (XState's rule).
  for (let guard = 0; ; guard++) {
    if (guard > 1000) throw new Error(`${machine.id}: eventless transitions do not settle`);
    const e = select(s, true);
    if (e === undefined) break;
    const before = s.version;
    microstep(s, e);
    if (s.version === before) break;
  }
  return [s.version === 0 ? snapshot : makeSnapshot(s), s.effects];
}

/**
 * The steps handed to XState's `transition()` (the fall-backs above), counted for the
 * tests, which expect none over the bundled scenarios: a machine or event that falls back
 * still steps correctly, only slowly. Touched only on the fall-back path.
 */
export const fallbacks = { count: 0, last: null as string | null };

function fallBack(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: { type: string }, reason: string): [AnyMachineSnapshot, unknown[]] {
  fallbacks.count++;
  fallbacks.last = `${machine.id} ${event.type}: ${reason}`;
  return pureTransition(machine as never, snapshot as never, event) as [AnyMachineSnapshot, unknown[]];
}

/**
 * The next snapshot and the effects of `event`, as XState's `transition()` gives them
 * (core/sim/runtime/pure-transition.ts), computed as described above.
 */
export function fastTransition(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, event: { type: string }): [AnyMachineSnapshot, unknown[]] {
  if (snapshot.status !== 'active') return fallBack(machine, snapshot, event, `status ${snapshot.status}`);
  if (event.type.startsWith('xstate.')) return fallBack(machine, snapshot, event, 'XState event');
  if (!isSupported(machine)) return fallBack(machine, snapshot, event, 'unsupported machine');
  try {
    return macrostep(machine, snapshot, event);
  } catch (e) {
    if (e instanceof Unsupported) return fallBack(machine, snapshot, event, `unsupported: ${e.message}`);
    throw e;
  }
}
