/**
 * The structure of an XState machine as the fast step reads it (core/sim/runtime/fast-transition.ts):
 * its state nodes and transitions, the configuration an active leaf stands for, the
 * transitions an event may take from a node (XState's getCandidates), and the states a
 * transition exits and enters from a leaf (SCXML's exit and entry sets, as XState's
 * computeExitSet and computeEntrySet give them). Each is computed once and remembered: the
 * definitions never change.
 */
import type { AnyStateMachine } from 'xstate';

/** XState's state node, as far as it is read here. */
export interface Node {
  id: string;
  key: string;
  type: string;
  order: number;
  parent?: Node;
  states: Record<string, Node>;
  transitions: Map<string, Transition[]>;
  always?: Transition[];
  entry: unknown[];
  exit: unknown[];
  invoke: unknown[];
  tags: string[];
  history: unknown;
  readonly initial: Transition;
  machine: AnyStateMachine;
}

export interface Transition {
  source: Node;
  target?: Node[];
  actions: unknown[];
  guard?: unknown;
  reenter: boolean;
}

/** What a configuration (its one active leaf) gives the snapshot: computed once. */
export interface Config {
  value: unknown;
  tags: Set<string>;
  /** The leaf and its ancestors, leaf first. */
  chain: Node[];
}

const configs = new WeakMap<Node, Config>();
const candidates = new WeakMap<Node, Map<string, Transition[]>>();
/** Per transition and active leaf: the states exited and entered. */
const plans = new WeakMap<Transition, Map<Node, Plan>>();
const supported = new WeakMap<AnyStateMachine, boolean>();

export interface Plan {
  exit: Node[];
  entry: Node[];
  defaultEntry: Set<Node>;
  /** The states entered are the states exited (a reentry): the active nodes stay as they are. */
  reentry: boolean;
}

export function isAtomic(n: Node): boolean {
  return n.type === 'atomic' || n.type === 'final';
}

export function isDescendant(child: Node, parent: Node | undefined): boolean {
  let m = child;
  while (m.parent !== undefined && m.parent !== parent) m = m.parent;
  return m.parent === parent;
}

export function properAncestors(n: Node, to: Node | undefined): Node[] {
  const out: Node[] = [];
  if (to === n) return out;
  let m = n.parent;
  while (m !== undefined && m !== to) {
    out.push(m);
    m = m.parent;
  }
  return out;
}

/** The machine uses only what this file covers (checked once per machine). */
export function isSupported(machine: AnyStateMachine): boolean {
  let ok = supported.get(machine);
  if (ok === undefined) {
    ok = true;
    const visit = (n: Node): void => {
      if (n.type === 'parallel' || n.type === 'history' || n.type === 'final' || n.history) ok = false;
      if (n.invoke.length > 0 || Object.keys((n as unknown as { config: { after?: object } }).config.after ?? {}).length > 0) ok = false;
      for (const c of Object.values(n.states)) visit(c);
    };
    visit(machine.root as unknown as Node);
    supported.set(machine, ok);
  }
  return ok;
}

export function configOf(leaf: Node): Config {
  let c = configs.get(leaf);
  if (c === undefined) {
    const chain = [leaf, ...properAncestors(leaf, undefined)];
    // XState's getStateValue for a chain of compound states: 'leaf' or { a: { b: 'leaf' } }.
    let value: unknown = leaf.key;
    for (let i = 1; i < chain.length - 1; i++) value = { [chain[i].key]: value };
    const tags = new Set<string>();
    for (const n of chain) for (const t of n.tags) tags.add(t);
    c = { value, tags, chain };
    configs.set(leaf, c);
  }
  return c;
}

function matchesEventDescriptor(eventType: string, descriptor: string): boolean {
  if (descriptor === eventType || descriptor === '*') return true;
  if (!descriptor.endsWith('.*')) return false;
  const partial = descriptor.split('.');
  const tokens = eventType.split('.');
  for (let i = 0; i < partial.length; i++) {
    if (partial[i] === '*') return i === partial.length - 1;
    if (partial[i] !== tokens[i]) return false;
  }
  return true;
}

/** XState's getCandidates: the exact event's transitions, then matching wildcards, longest first. */
export function candidatesOf(n: Node, eventType: string): Transition[] {
  let m = candidates.get(n);
  if (m === undefined) candidates.set(n, (m = new Map()));
  let c = m.get(eventType);
  if (c === undefined) {
    const exact = n.transitions.get(eventType);
    const wild = [...n.transitions.keys()]
      .filter((d) => d !== eventType && matchesEventDescriptor(eventType, d))
      .sort((a, b) => b.length - a.length)
      .flatMap((d) => n.transitions.get(d) ?? []);
    c = exact ? [...exact, ...wild] : wild;
    m.set(eventType, c);
  }
  return c;
}

/** XState's getTransitionDomain (no history states). */
function transitionDomain(t: Transition): Node | undefined {
  const targets = t.target ?? [];
  if (!t.reenter && targets.every((x) => x === t.source || isDescendant(x, t.source))) return t.source;
  const all = [...targets, t.source];
  const [head, ...tail] = all;
  for (const a of properAncestors(head, undefined)) if (tail.every((x) => isDescendant(x, a))) return a;
  if (t.reenter) return undefined;
  return t.source.machine.root as unknown as Node;
}

function addDescendantsToEnter(n: Node, defaultEntry: Set<Node>, enter: Set<Node>): void {
  if (n.type === 'compound') {
    const [initial] = n.initial.target ?? [];
    enter.add(initial);
    defaultEntry.add(initial);
    addDescendantsToEnter(initial, defaultEntry, enter);
    for (const a of properAncestors(initial, n)) enter.add(a);
  }
}

/** XState's computeExitSet and computeEntrySet for one transition from the leaf `leaf`. */
export function planOf(t: Transition, leaf: Node, active: readonly Node[]): Plan {
  let m = plans.get(t);
  if (m === undefined) plans.set(t, (m = new Map()));
  let p = m.get(leaf);
  if (p === undefined) {
    const domain = transitionDomain(t);
    const exit = new Set<Node>();
    if (t.reenter && t.source === domain && domain !== undefined) exit.add(domain);
    for (const n of active) if (isDescendant(n, domain)) exit.add(n);
    const enter = new Set<Node>();
    const defaultEntry = new Set<Node>();
    for (const s of t.target ?? []) {
      if (t.source !== s || t.source !== domain || t.reenter) {
        enter.add(s);
        defaultEntry.add(s);
      }
      addDescendantsToEnter(s, defaultEntry, enter);
    }
    for (const s of t.target ?? []) {
      const reentrancy = t.source.parent === undefined && t.reenter ? undefined : domain;
      for (const a of properAncestors(s, domain)) if (reentrancy === undefined || isDescendant(a, reentrancy)) enter.add(a);
    }
    const reentry = exit.size === enter.size && [...exit].every((n) => enter.has(n));
    p = { exit: [...exit].sort((a, b) => b.order - a.order), entry: [...enter].sort((a, b) => a.order - b.order), defaultEntry, reentry };
    m.set(leaf, p);
  }
  return p;
}
