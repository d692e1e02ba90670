/**
 * The graph of a machine definition, for the statechart view (web/components/StatechartView.svelte):
 * its states (nested, as XState's state nodes hold them) and every transition of every
 * state, read from the same `StateNode`s the kernel steps (core/sim/runtime/statechart.ts):
 * each event's candidate list in order, and each `always`. A transition with no target (one
 * that only runs actions, or drops a stale event) is kept, drawn as a loop on its state.
 *
 * Also: which transition an event took from a snapshot (`takenTransition`), by XState's own
 * selection (`machine.getTransitionData`: the first enabled candidate from the active leaf
 * up, guards evaluated on the snapshot's context; the machines are pure, so evaluating them
 * again changes nothing).
 */
import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';

/**
 * The check functions of XState's `and`, `or` and `not` (how composites are told apart: names
 * do not survive minifying). Passed in, not imported, so that the view's chunk imports nothing
 * the page's first load holds (web/lib/chart-kit.ts makes them; a shared module would split
 * the first load into more chunks).
 */
export interface GuardChecks {
  and: unknown;
  or: unknown;
  not: unknown;
}

export interface ChartState {
  /** Dot path as the kernel reports it (`kip1023.awaitingEarliestOffset`); '' for the machine itself. */
  path: string;
  key: string;
  /** XState's node id (`followerFetcher.kip1023.awaitingEarliestOffset`). */
  id: string;
  /** Parent path ('' = the machine); null for the machine itself. */
  parent: string | null;
  depth: number;
  compound: boolean;
  /** Path of the initial child of a compound state. */
  initial: string | null;
  entry: string[];
  exit: string[];
  /** Rules that this state's entry and exit actions explain. */
  rules: string[];
}

export interface ChartTransition {
  /** `source path|event|index` (index in the source's candidate list for the event). */
  id: string;
  source: string;
  /** Event type, or `always` for an eventless transition. */
  event: string;
  eventless: boolean;
  index: number;
  /** Target paths; empty: no target (an internal transition: actions only, or nothing). */
  targets: string[];
  guard: string | null;
  /** The guard's named guards (for looking them up). */
  guardNames: string[];
  actions: string[];
  /** Rules named by `explain` actions (or inside the named actions' bodies). */
  rules: string[];
  reenter: boolean;
}

export interface MachineGraph {
  id: string;
  states: ChartState[];
  transitions: ChartTransition[];
}

/** A state node, as far as it is read here (XState v5's StateNode). */
interface NodeLike {
  id: string;
  key: string;
  type: string;
  parent?: NodeLike;
  states: Record<string, NodeLike>;
  transitions: Map<string, TransitionLike[]>;
  always?: TransitionLike[];
  entry: unknown[];
  exit: unknown[];
  initial?: { target?: NodeLike[] };
}

interface TransitionLike {
  source: NodeLike;
  target?: NodeLike[];
  actions: unknown[];
  guard?: unknown;
  reenter: boolean;
  eventType: string;
}

/** The path of a node below the machine root: its keys joined with dots. */
export function pathOf(n: NodeLike): string {
  const keys: string[] = [];
  for (let m: NodeLike | undefined = n; m?.parent !== undefined; m = m.parent) keys.unshift(m.key);
  return keys.join('.');
}

/** A guard as text: `isAwaited`, `!isAwaited`, `(a || b) && c`, `inline`. */
export function guardText(g: unknown, checks: GuardChecks, names: string[] = []): string {
  if (typeof g === 'string') {
    names.push(g);
    return g;
  }
  if (typeof g === 'function') {
    const fn = g as { check?: unknown; guards?: unknown[] };
    const parts = (fn.guards ?? []).map((x) => guardText(x, checks, names));
    if (fn.check === checks.not) return `!${parts[0]}`;
    if (fn.check === checks.and) return parts.map((p) => (p.includes('||') ? `(${p})` : p)).join(' && ');
    if (fn.check === checks.or) return parts.map((p) => (p.includes('&&') ? `(${p})` : p)).join(' || ');
    return 'inline guard';
  }
  if (g !== null && typeof g === 'object' && 'type' in g) {
    const t = String((g as { type: unknown }).type);
    names.push(t);
    return t;
  }
  return String(g);
}

/** `rule: 'name'` in a function's source (string literals survive minifying). */
function rulesInSource(fn: unknown): string[] {
  if (typeof fn !== 'function') return [];
  const out: string[] = [];
  for (const m of Function.prototype.toString.call(fn).matchAll(/rule\s*:\s*["'`]([A-Za-z0-9_.-]+)["'`]/g)) out.push(m[1]);
  return out;
}

/** An action's name, and the rules it explains (static params, a params function, or a named action's body). */
function describeAction(a: unknown, machine: AnyStateMachine): { name: string; rules: string[] } {
  const impls = (machine.implementations.actions ?? {}) as Record<string, unknown>;
  if (typeof a === 'string') {
    const impl = impls[a];
    const inner = impl as { collect?: unknown; assignment?: unknown } | undefined;
    return { name: a, rules: [...rulesInSource(inner?.collect), ...rulesInSource(impl)] };
  }
  if (typeof a === 'function') {
    const t = (a as { type?: string }).type ?? 'inline';
    const body = a as { collect?: unknown };
    return { name: t.replace(/^xstate\./, ''), rules: rulesInSource(body.collect) };
  }
  if (a !== null && typeof a === 'object' && 'type' in a) {
    const { type, params } = a as { type: string; params?: unknown };
    const rules: string[] = [];
    if (params !== null && typeof params === 'object' && typeof (params as { rule?: unknown }).rule === 'string') rules.push((params as { rule: string }).rule);
    rules.push(...rulesInSource(params));
    const impl = impls[type] as { collect?: unknown } | undefined;
    rules.push(...rulesInSource(impl?.collect));
    return { name: type, rules };
  }
  return { name: String(a), rules: [] };
}

const uniq = (xs: string[]) => [...new Set(xs)];

const graphs = new WeakMap<AnyStateMachine, MachineGraph>();

/** The states and transitions of a machine definition (computed once per machine). */
export function machineGraph(machine: AnyStateMachine, checks: GuardChecks): MachineGraph {
  const known = graphs.get(machine);
  if (known) return known;
  const states: ChartState[] = [];
  const transitions: ChartTransition[] = [];
  const actionList = (list: unknown[]) => list.map((a) => describeAction(a, machine));
  const visit = (n: NodeLike, depth: number): void => {
    const path = pathOf(n);
    const entry = actionList(n.entry);
    const exit = actionList(n.exit);
    const initial = n.type === 'compound' && n.initial?.target?.[0] ? pathOf(n.initial.target[0]) : null;
    states.push({
      path,
      key: n.parent === undefined ? machine.id : n.key,
      id: n.id,
      parent: n.parent === undefined ? null : pathOf(n.parent),
      depth,
      compound: n.type === 'compound',
      initial,
      entry: entry.map((a) => a.name),
      exit: exit.map((a) => a.name),
      rules: uniq([...entry, ...exit].flatMap((a) => a.rules)),
    });
    const add = (t: TransitionLike, event: string, index: number, eventless: boolean) => {
      const guardNames: string[] = [];
      const acts = actionList(t.actions);
      transitions.push({
        id: `${path}|${event}|${index}`,
        source: path,
        event,
        eventless,
        index,
        targets: (t.target ?? []).map(pathOf),
        guard: t.guard === undefined ? null : guardText(t.guard, checks, guardNames),
        guardNames: uniq(guardNames),
        actions: acts.map((a) => a.name),
        rules: uniq(acts.flatMap((a) => a.rules)),
        reenter: t.reenter,
      });
    };
    for (const [event, list] of n.transitions) list.forEach((t, i) => add(t, event, i, false));
    (n.always ?? []).forEach((t, i) => add(t, 'always', i, true));
    for (const c of Object.values(n.states)) visit(c, depth + 1);
  };
  visit(machine.root as unknown as NodeLike, 0);
  const g = { id: machine.id, states, transitions };
  graphs.set(machine, g);
  return g;
}

/** The active leaf's path and its ancestors' paths, leaf first ('' last: the machine). */
function chainOf(value: string): string[] {
  const out: string[] = [];
  let p = value;
  for (;;) {
    out.push(p);
    if (p === '') return out;
    p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '';
  }
}

/** `{a: {b: 'c'}}` -> `a.b.c`. */
function valuePath(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const [k, v] = Object.entries(value as Record<string, unknown>)[0] ?? ['', ''];
    const rest = valuePath(v);
    return rest === '' ? k : `${k}.${rest}`;
  }
  return '';
}

const inside = (state: string, target: string) => state === target || state.startsWith(`${target}.`);

/**
 * The transitions `event` takes from `before`, in order (ids in `machineGraph`): the
 * event's own (XState's selection, `machine.getTransitionData`), then the eventless ones it
 * led to, read from XState's microsteps (each the first `always` of the active chain whose
 * target holds the next microstep's state). Empty when no transition is enabled.
 */
export function takenTransitions(machine: AnyStateMachine, before: AnyMachineSnapshot, event: { type: string }, checks: GuardChecks, scope?: unknown): string[] {
  if (before.status !== 'active') return [];
  let taken: TransitionLike[];
  try {
    taken = machine.getTransitionData(before as never, event as never) as unknown as TransitionLike[];
  } catch {
    return [];
  }
  const t = taken[0];
  if (t === undefined) return [];
  const list = t.source.transitions.get(t.eventType) ?? [];
  const index = list.indexOf(t);
  if (index < 0) return [];
  const out = [`${pathOf(t.source)}|${t.eventType}|${index}`];
  if (scope === undefined) return out;
  // Eventless moves after it: XState's microstates, one a transition.
  let states: string[];
  try {
    const micro = (machine as unknown as { microstep: (s: unknown, e: unknown, a: unknown) => Array<{ value: unknown }> }).microstep(before, event, scope);
    states = micro.map((m) => valuePath(m.value));
  } catch {
    return out;
  }
  const g = machineGraph(machine, checks);
  for (let i = 0; i + 1 < states.length; i++) {
    const from = chainOf(states[i]);
    const next = states[i + 1];
    const always = from
      .flatMap((src) => g.transitions.filter((x) => x.eventless && x.source === src))
      .find((x) => x.targets.some((target) => inside(next, target)));
    if (always === undefined) break;
    out.push(always.id);
  }
  return out;
}

/** The transition `event` takes from `before` (its id in `machineGraph`), or null when none is enabled. */
export function takenTransition(machine: AnyStateMachine, before: AnyMachineSnapshot, event: { type: string }, checks: GuardChecks): string | null {
  return takenTransitions(machine, before, event, checks)[0] ?? null;
}
