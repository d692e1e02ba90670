/**
 * Exhaustive bounded checking of the executable model (docs/checking.md): every order of a
 * scenario's nondeterministic choices within the bounds, instead of one.
 *
 * A state is a kernel checkpoint between two steps. Its successors:
 * - one step, for every answer to the step's choice points (core/sim/loop/choices.ts): which due
 *   event runs first (`order`), whether a message between brokers arrives late (`delay`,
 *   at most `delays` per path), whether the store fails a request (`storeFault`, at most
 *   `storeFaults` per path);
 * - a fault starting at the next instant, before that instant's events: a broker crashes
 *   (at most `crashes` per path) and restarts `faultMs` later, or is cut off from the other
 *   brokers (`partitions`) and healed `faultMs` later.
 * States are identified by a hash of their canonical form (core/check/state-key.ts) and
 * the faults their path has used, so equal states are explored once; two choices that
 * commute meet in one state this way.
 *
 * Every invariant is checked in every state (the kernel's, over every partition). At the
 * end of each path (the scenario's `until`) liveness is checked: with no new fault, the run
 * goes on for `settleMs`; then every follower whose broker is up and connected and whose
 * fetcher is still fetching must be in the ISR (`followerJoinsIsr`).
 *
 * Breadth-first by default, so the first path found to each violation is a shortest one
 * (in transitions). That path is a scenario: its faults become timeline events and its
 * answers pinned `choices`, which `run` and the walkthrough replay.
 *
 * Pure and synchronous; the deliberate bugs of core/util/bugs.ts apply when the caller
 * runs it inside `withBugs`.
 */
import { parseScenarioText } from '../scenario/parse.js';
import { toScenarioFile } from '../scenario/serialize.js';
import type { Scenario, TimelineAction, TimelineEvent, PinnedChoice } from '../scenario/types.js';
import type { ChoiceKind, Chooser } from '../sim/loop/choices.js';
import { peek } from '../sim/state/event-queue.js';
import { Kernel } from '../sim/loop/kernel.js';
import type { Checkpoint, KernelState } from '../sim/state/state.js';
import { knownFinding } from './findings.js';
import { stateKey } from './state-key.js';

export interface ExhaustiveBounds {
  /** Broker crashes per path (each restarts `faultMs` later). */
  crashes: number;
  /** Object-store requests failed per path. */
  storeFaults: number;
  /** Network partitions per path (a broker cut off from the other brokers, healed `faultMs` later). */
  partitions: number;
  /** Late messages per path. */
  delays: number;
  /** How late a late message is, ms. */
  delayMs: number;
  /** How long a crash or a partition lasts, ms. */
  faultMs: number;
  /** Transitions from the start; deeper states are not expanded. */
  maxDepth: number;
  /** Distinct states; the search stops there (not exhausted). */
  maxStates: number;
  /** Simulated time the liveness check runs on after the end of a path, without new faults, ms. */
  settleMs: number;
  strategy: 'bfs' | 'dfs';
}

/**
 * The heap one distinct state costs during a search, bytes: its key in the visited set, its
 * node (kept for the path back to it) and, while it waits to be expanded, its checkpoint.
 * Measured (peak heap after a full collection over distinct states, Node 20, breadth-first):
 * 1.0 KB (classic-two-rounds), 1.3 KB (kip1023-bootstrap), 1.4 KB (failover-during-bootstrap,
 * 40,000 states), 2.6 KB (kip1023-leader-epochs with a late message), 3.6 KB (wal-steady-state
 * with a late message, the largest state of the bundled scenarios). The CLI sizes
 * `--max-states` against the heap with this figure, rounded up, so a bound it accepts fits.
 */
export const STATE_BYTES = 4096;

export const DEFAULT_BOUNDS: ExhaustiveBounds = {
  crashes: 1,
  storeFaults: 1,
  partitions: 0,
  delays: 0,
  delayMs: 50,
  faultMs: 1000,
  maxDepth: 100_000,
  maxStates: 2_000_000,
  settleMs: 30_000,
  strategy: 'bfs',
};

/** The faults a path has used, against the bounds. */
interface Used {
  crashes: number;
  partitions: number;
  storeFaults: number;
  delays: number;
}

/** How one state led to the next. */
type Transition =
  /** One step, with the non-default answers it took. */
  | { kind: 'step'; step: number; picks: PinnedChoice[] }
  /** A fault queued at `at` (before that instant's events), and its end at `endAt`. */
  | { kind: 'fault'; at: number; action: TimelineAction; endAt: number; end: TimelineAction };

interface Node {
  parent: Node | null;
  via: Transition | null;
  depth: number;
  used: Used;
  /** Held while the state waits to be expanded. */
  cp: Checkpoint | null;
  /** The visited set's key: the state's hash and the faults used. */
  key: string;
  violations: number;
}

export interface FoundViolation {
  invariant: string;
  message: string;
  atMs: number;
  /** A known finding's id (Kafka behaviour the model reproduces), or null: a new violation. */
  known: string | null;
  /** Transitions on the path (faults and steps). */
  depth: number;
  /** Steps on the path. */
  steps: number;
  /** The path as a scenario: faults in the timeline, answers pinned in `choices`. */
  scenario: Scenario;
  /** States explored when it was found, and seconds since the start. */
  foundAfterStates: number;
  foundAfterSeconds: number;
  /** The saved scenario, run from the start, shows it again. */
  replayed: boolean;
}

export interface ExhaustiveReport {
  scenario: string;
  bounds: ExhaustiveBounds;
  /** Transitions executed (states generated, equal ones counted each time). */
  statesExplored: number;
  distinctStates: number;
  /** The deepest state reached, in transitions. */
  depth: number;
  /** Every state within the bounds (depth included) was explored. */
  exhausted: boolean;
  /** States at `maxDepth` that had successors (0: every path reached its end). */
  cutByDepth: number;
  /** The search stopped at `maxStates`. */
  stoppedAtMaxStates: boolean;
  /** Why the search was stopped early from outside (`shouldStop`'s answer, e.g. a signal's name), or null. */
  stoppedBy: string | null;
  seconds: number;
  statesPerSecond: number;
  /** Paths' end states checked for liveness, and how many of those were judged (faults over, followers fetching). */
  ends: number;
  livenessJudged: number;
  /** One per invariant (and known finding): the first found, on a shortest path under BFS. */
  violations: FoundViolation[];
  /** How many states broke each invariant (known findings by id). */
  violationStates: Record<string, number>;
}

export interface ExhaustiveOptions {
  bounds?: Partial<ExhaustiveBounds>;
  /** Called now and then with the figures so far. */
  onProgress?: (p: ExhaustiveProgress) => void;
  /** Stop at the first new violation (not a known finding). */
  stopAtFirst?: boolean;
  /** The wall clock, ms (the core reads none of its own; default: 0, so seconds read 0). */
  clock?: () => number;
  /** Asked between states: a reason to stop now (the report then holds the search so far), or null. */
  shouldStop?: () => string | null;
}

/** The figures of a search under way, as `onProgress` gets them and the search yields them. */
export interface ExhaustiveProgress {
  explored: number;
  distinct: number;
  depth: number;
  frontier: number;
}

/** How many states are expanded between two pauses of `exhaustiveSearch`. */
const STATES_PER_PAUSE = 256;

/** The followers' ISR liveness property, named like the invariants. */
export const LIVENESS = 'followerJoinsIsr';

export function exhaustive(given: Scenario, file: string, options: ExhaustiveOptions = {}): ExhaustiveReport {
  const search = exhaustiveSearch(given, file, options);
  for (;;) {
    const r = search.next();
    if (r.done === true) return r.value;
  }
}

/**
 * The search, pausing every few hundred states with the figures so far, so a caller can
 * drive it between other work (the CLI lets its signal handlers run there) and stop it
 * through `shouldStop`; it returns the report.
 */
export function* exhaustiveSearch(given: Scenario, file: string, options: ExhaustiveOptions = {}): Generator<ExhaustiveProgress, ExhaustiveReport> {
  // Pinned choices of the scenario itself would fix what the search is to vary.
  const { choices: _pinned, ...scenario } = given;
  void _pinned;
  const b: ExhaustiveBounds = { ...DEFAULT_BOUNDS, ...options.bounds };
  const clock = options.clock ?? (() => 0);
  const started = clock();
  const seconds = () => (clock() - started) / 1000;
  const visited = new Set<string>();
  const found = new Map<string, FoundViolation>();
  const violationStates: Record<string, number> = {};
  /** End states already settled for the liveness check (equal ones are judged once). */
  const settled = new Set<string>();
  let explored = 0;
  let maxDepth = 0;
  let cutByDepth = 0;
  let stopped = false;
  let ends = 0;
  let judged = 0;
  let stopNow = false;
  let stoppedBy: string | null = null;
  let sincePause = 0;

  const restore = (cp: Checkpoint, chooser?: Chooser) => Kernel.restore(scenario, cp, { checkEveryPartition: true, ...(chooser ? { chooser } : {}) });

  const root = new Kernel(scenario, { checkEveryPartition: true });
  const rootUsed: Used = { crashes: 0, partitions: 0, storeFaults: 0, delays: 0 };
  const rootCp = root.checkpoint();
  const rootNode: Node = { parent: null, via: null, depth: 0, used: rootUsed, cp: rootCp, key: keyOf(rootCp, rootUsed), violations: 0 };
  visited.add(rootNode.key);
  const frontier: Node[] = [rootNode];
  let head = 0;
  const progress = (): ExhaustiveProgress => ({ explored, distinct: visited.size, depth: maxDepth, frontier: frontier.length - head });
  const report = (): void => {
    options.onProgress?.(progress());
  };

  /** A successor: counted, its violations recorded, queued if new. */
  const reach = (parent: Node, k: Kernel, via: Transition, used: Used): void => {
    explored++;
    const cp = k.release();
    const node: Node = { parent, via, depth: parent.depth + 1, used, cp, key: keyOf(cp, used), violations: k.state.violations.length };
    const fresh = k.state.violations.slice(parent.violations);
    let stopHere = false;
    for (const v of fresh) {
      const known = knownFinding(v, k.trace)?.id ?? null;
      const id = known ?? v.invariant;
      violationStates[id] = (violationStates[id] ?? 0) + 1;
      if (known === null) stopHere = true;
      if (!found.has(id)) found.set(id, foundViolation(scenario, node, v, known, explored, seconds()));
    }
    if (visited.has(node.key)) return;
    visited.add(node.key);
    if (node.depth > maxDepth) maxDepth = node.depth;
    // A new violation ends its path: what follows would only repeat it.
    if (stopHere) {
      if (options.stopAtFirst) stopNow = true;
      return;
    }
    frontier.push(node);
  };

  while (head < frontier.length && !stopNow) {
    if (++sincePause >= STATES_PER_PAUSE) {
      sincePause = 0;
      yield progress();
      stoppedBy = options.shouldStop?.() ?? null;
      if (stoppedBy !== null) break;
    }
    if (visited.size >= b.maxStates) {
      stopped = true;
      break;
    }
    const node = b.strategy === 'bfs' ? frontier[head++] : frontier.pop()!;
    if (b.strategy === 'dfs') head = 0;
    const cp = node.cp!;
    node.cp = null;
    if ((explored & 1023) === 0) report();
    const next = peek(cp.state.queue);
    if (next === undefined || next.at > scenario.until) {
      ends++;
      if (settled.has(node.key)) continue;
      settled.add(node.key);
      const r = checkLiveness(scenario, cp, b);
      if (r.judged) judged++;
      if (r.problem === null) continue;
      violationStates[LIVENESS] = (violationStates[LIVENESS] ?? 0) + 1;
      if (found.has(LIVENESS)) continue;
      found.set(LIVENESS, foundViolation(settleScenario(scenario, b), node, { invariant: LIVENESS, message: r.problem, atMs: r.atMs }, null, explored, seconds()));
      if (options.stopAtFirst) stopNow = true;
      continue;
    }
    if (node.depth >= b.maxDepth) {
      cutByDepth++;
      continue;
    }
    // One step, under every answer to its choice points.
    for (const answers of stepAnswers(node.used, b)) {
      if (stopNow) break;
      const k = restore(cp, answers.chooser);
      k.step();
      reach(node, k, { kind: 'step', step: k.state.stepCount, picks: answers.picks() }, answers.used());
    }
    // A fault at the next instant, before its events (between two events of one instant is
    // the same as before both, with the other run first by an order choice).
    const at = next.at;
    const boundary = at > cp.state.nowMs || cp.state.stepCount === 0;
    for (const f of boundary ? faultsAt(cp.state, node.used, b, at) : []) {
      if (stopNow) break;
      const k = restore(cp);
      k.inject(at, f.action);
      k.inject(f.endAt, f.end);
      reach(node, k, { kind: 'fault', at, action: f.action, endAt: f.endAt, end: f.end }, f.used);
    }
  }
  report();
  const secs = seconds();
  const exhausted = !stopped && !stopNow && stoppedBy === null && head >= frontier.length;
  return {
    scenario: file,
    bounds: b,
    statesExplored: explored,
    distinctStates: visited.size,
    depth: maxDepth,
    exhausted,
    cutByDepth,
    stoppedAtMaxStates: stopped,
    stoppedBy,
    seconds: Math.round(secs * 100) / 100,
    statesPerSecond: secs > 0 ? Math.round(explored / secs) : 0,
    ends,
    livenessJudged: judged,
    violations: [...found.values()],
    violationStates,
  };
}

function keyOf(cp: Checkpoint, used: Used): string {
  return `${stateKey(cp)}|${used.crashes}|${used.partitions}|${used.storeFaults}|${used.delays}`;
}

interface Answers {
  chooser: Chooser;
  picks: () => PinnedChoice[];
  used: () => Used;
}

/**
 * Every vector of answers to one step's choice points within the bounds. The step is run
 * once with the defaults to learn its points; each point then gets its other answers, with
 * the defaults after it, and so on (the points after an answer can differ, so each vector
 * is learnt by running it).
 */
function* stepAnswers(used: Used, b: ExhaustiveBounds): Generator<Answers> {
  const pending: number[][] = [[]];
  while (pending.length > 0) {
    const prefix = pending.pop()!;
    const picks: PinnedChoice[] = [];
    const u: Used = { ...used };
    const seen: Array<{ kind: ChoiceKind; options: number }> = [];
    const chooser: Chooser = (p) => {
      const i = seen.length;
      seen.push({ kind: p.kind, options: p.options });
      const answer = i < prefix.length ? prefix[i] : 0;
      if (answer !== 0) {
        const what = p.what();
        picks.push({ step: p.step, n: p.n, kind: p.kind, pick: answer, what: p.kind === 'order' ? what[answer] : what[0] });
        if (p.kind === 'delay') u.delays++;
        if (p.kind === 'storeFault') u.storeFaults++;
      }
      return answer;
    };
    yield { chooser, picks: () => picks, used: () => u };
    // The points after the prefix took their defaults: each other answer is a new vector.
    const budget = { delays: b.delays - u.delays, storeFaults: b.storeFaults - u.storeFaults };
    for (let i = seen.length - 1; i >= prefix.length; i--) {
      const base = [...prefix, ...new Array<number>(i - prefix.length).fill(0)];
      const { kind, options } = seen[i];
      if (kind === 'order') for (let a = options - 1; a >= 1; a--) pending.push([...base, a]);
      else if (kind === 'delay' && budget.delays > 0) pending.push([...base, b.delayMs]);
      else if (kind === 'storeFault' && budget.storeFaults > 0) pending.push([...base, 1]);
    }
  }
}

/** The faults that may start at `at`, with their ends. */
function faultsAt(state: KernelState, used: Used, b: ExhaustiveBounds, at: number): Array<{ action: TimelineAction; end: TimelineAction; endAt: number; used: Used }> {
  const out: Array<{ action: TimelineAction; end: TimelineAction; endAt: number; used: Used }> = [];
  const endAt = at + b.faultMs;
  state.brokers.forEach((broker, id) => {
    if (!broker.alive) return;
    if (used.crashes < b.crashes) out.push({ action: { kind: 'crash', broker: id }, end: { kind: 'restart', broker: id }, endAt, used: { ...used, crashes: used.crashes + 1 } });
    if (used.partitions < b.partitions && !state.isolated[String(id)] && state.brokers.length > 1)
      out.push({ action: { kind: 'isolate', broker: id }, end: { kind: 'heal', broker: id }, endAt, used: { ...used, partitions: used.partitions + 1 } });
  });
  return out;
}

// ------------------------------------------------------------------ liveness

/**
 * The scenario a path's end is settled in: `settleMs` longer, its repeated produces stopped at
 * the old end. With late messages in the search, a message made late just before the end may
 * still be on its way for `delayMs`: the settling time starts once it can have arrived, so
 * liveness is never judged while a late message is in flight.
 */
export function settleScenario(s: Scenario, b: Pick<ExhaustiveBounds, 'settleMs' | 'delays' | 'delayMs'>): Scenario {
  return {
    ...s,
    until: s.until + (b.delays > 0 ? b.delayMs : 0) + b.settleMs,
    timeline: s.timeline.map((e) => (e.action.kind === 'produce' && e.action.everyMs !== undefined && e.action.untilMs === undefined ? { ...e, action: { ...e.action, untilMs: s.until } } : e)),
  };
}

/**
 * With no new fault, the run goes on for `settleMs`; then every follower that is up,
 * connected and still fetching must be in its partition's ISR. Judged only when the
 * stores are up and the partition's leader is up and connected.
 */
export function checkLiveness(s: Scenario, cp: Checkpoint, b: Pick<ExhaustiveBounds, 'settleMs' | 'delays' | 'delayMs'>): { judged: boolean; problem: string | null; atMs: number } {
  const k = Kernel.restore(settleScenario(s, b), cp, { checkEveryPartition: true });
  k.runToEnd();
  return followersInIsr(k);
}

/** The liveness condition on a settled run (also used to check a replay). */
export function followersInIsr(k: Kernel): { judged: boolean; problem: string | null; atMs: number } {
  const st = k.state;
  const atMs = st.nowMs;
  if (!st.storeAvailable.tiered || !st.storeAvailable.wal) return { judged: false, problem: null, atMs };
  const up = (b: number) => st.brokers[b]?.alive === true && !st.isolated[String(b)];
  let judged = false;
  for (const key of st.partitionOrder) {
    const part = st.partitions[key];
    if (part.leader < 0 || !up(part.leader)) continue;
    for (const r of part.replicas) {
      if (r === part.leader || !up(r)) continue;
      const fetcher = k.machineState(r, key, 'fetcher');
      if (fetcher === '' || fetcher === 'idle' || fetcher === 'failed') continue;
      judged = true;
      if (!part.isr.includes(r))
        return {
          judged,
          problem: `follower ${r} of ${key} is up, connected and fetching (${fetcher}) at t=${atMs}ms, long after the last fault, but is not in the ISR [${part.isr.join(', ')}] of leader ${part.leader}`,
          atMs,
        };
    }
  }
  return { judged, problem: null, atMs };
}

// ------------------------------------------------------------------ counterexamples

function pathOf(node: Node): Transition[] {
  const out: Transition[] = [];
  for (let n: Node | null = node; n !== null && n.via !== null; n = n.parent) out.push(n.via);
  return out.reverse();
}

/**
 * The path to `node` as a scenario: its faults in the timeline (before the scenario's own
 * events of the same time, in the order they were queued, as the checker ran them) and its
 * answers pinned in `choices`.
 */
export function pathScenario(base: Scenario, path: readonly Transition[], name: string): Scenario {
  const injected: TimelineEvent[] = [];
  const choices: PinnedChoice[] = [];
  for (const t of path) {
    if (t.kind === 'step') choices.push(...t.picks);
    else {
      injected.push({ at: t.at, action: t.action });
      if (t.endAt <= base.until) injected.push({ at: t.endAt, action: t.end });
    }
  }
  // Stable: equal times keep the order the faults were queued in.
  injected.sort((x, y) => x.at - y.at);
  const timeline: TimelineEvent[] = [];
  let i = 0;
  for (const e of base.timeline) {
    while (i < injected.length && injected[i].at <= e.at) timeline.push(injected[i++]);
    timeline.push(e);
  }
  while (i < injected.length) timeline.push(injected[i++]);
  const { choices: _old, ...rest } = base;
  void _old;
  return { ...rest, name, timeline, ...(choices.length > 0 ? { choices } : {}) };
}

function foundViolation(
  s: Scenario,
  node: Node,
  v: { invariant: string; message: string; atMs: number },
  known: string | null,
  explored: number,
  secs: number,
): FoundViolation {
  const path = pathOf(node);
  const scenario = pathScenario(s, path, `${s.name} (counterexample: ${v.invariant})`);
  scenario.description = `A path the exhaustive checker found to ${v.invariant}${known ? ` (known finding ${known})` : ''}: ${v.message}` + (s.description ? `\n\nThe scenario it starts from: ${s.description}` : '');
  return {
    invariant: v.invariant,
    message: v.message,
    atMs: v.atMs,
    known,
    depth: path.length,
    steps: path.filter((t) => t.kind === 'step').length,
    scenario,
    foundAfterStates: explored,
    foundAfterSeconds: Math.round(secs * 100) / 100,
    replayed: replays(scenario, v.invariant),
  };
}

/**
 * The saved path, written as a scenario file and read back as `run` reads it, then run from
 * the start with its pinned choices, breaks the same invariant (or, for liveness, leaves the
 * follower out). A saved file the format refuses does not replay.
 */
export function replays(s: Scenario, invariant: string): boolean {
  const read = parseScenarioText(JSON.stringify(toScenarioFile(s)), 'counterexample.json', { checkWork: false });
  if (!read.ok) return false;
  const k = new Kernel(read.scenario);
  k.runToEnd();
  if (k.pinned !== null && k.pinned.mismatches.length > 0) return false;
  if (invariant === LIVENESS) return followersInIsr(k).problem !== null;
  return k.state.violations.some((v) => v.invariant === invariant);
}
