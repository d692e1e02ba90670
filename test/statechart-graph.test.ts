/**
 * The statechart view's graph (web/lib/statechart-graph.ts): every state and every
 * transition of each machine, counted here independently from the machines' configs (the
 * objects passed to `createMachine`, not XState's state nodes the graph reads), and the
 * transition an event took (`takenTransition`) agrees with what the kernel did, step by step.
 */
import { describe, expect, test } from 'vitest';
import { Session } from '../core/session/session.js';
import { MACHINES, type MachineName, stateName, xstateStep } from '../core/sim/runtime/machines.js';
import { scopeFor } from '../core/sim/runtime/pure-transition.js';
import { GUARD_CHECKS } from '../web/lib/chart-kit.js';
import { type GuardChecks, machineGraph as graphOf, takenTransition as takenOne, takenTransitions as takenAll } from '../web/lib/statechart-graph.js';

const C: GuardChecks = GUARD_CHECKS;
const machineGraph = (m: Parameters<typeof graphOf>[0]) => graphOf(m, C);
const takenTransition = (m: Parameters<typeof takenOne>[0], b: Parameters<typeof takenOne>[1], e: { type: string }) => takenOne(m, b, e, C);
const takenTransitions = (m: Parameters<typeof takenAll>[0], b: Parameters<typeof takenAll>[1], e: { type: string }, scope: unknown) => takenAll(m, b, e, C, scope);
import { loadBundled } from './support/run.js';

interface Config {
  states?: Record<string, Config>;
  on?: Record<string, unknown>;
  always?: unknown;
  initial?: string;
}

const many = (x: unknown): number => (x === undefined ? 0 : Array.isArray(x) ? x.length : 1);

/** States (the machine itself included) and transitions of a machine's config, and each state's dot path. */
function countConfig(c: Config, prefix = ''): { states: string[]; transitions: number; events: Set<string> } {
  const out = { states: [prefix], transitions: 0, events: new Set<string>() };
  for (const [event, list] of Object.entries(c.on ?? {})) {
    out.transitions += many(list);
    out.events.add(event);
  }
  out.transitions += many(c.always);
  for (const [key, child] of Object.entries(c.states ?? {})) {
    const sub = countConfig(child, prefix ? `${prefix}.${key}` : key);
    out.states.push(...sub.states);
    out.transitions += sub.transitions;
    for (const e of sub.events) out.events.add(e);
  }
  return out;
}

const NAMES = Object.keys(MACHINES) as MachineName[];

describe('machineGraph', () => {
  test.each(NAMES)('%s: every state and every transition of the definition', (name) => {
    const machine = MACHINES[name];
    const g = machineGraph(machine);
    const expected = countConfig(machine.config as Config);
    expect(g.states.map((s) => s.path).sort()).toEqual([...expected.states].sort());
    expect(g.transitions.length).toBe(expected.transitions);
    expect(new Set(g.transitions.filter((t) => !t.eventless).map((t) => t.event))).toEqual(expected.events);
    // Ids are unique; every source and target is a state of the graph.
    expect(new Set(g.transitions.map((t) => t.id)).size).toBe(g.transitions.length);
    const paths = new Set(g.states.map((s) => s.path));
    for (const t of g.transitions) {
      expect(paths.has(t.source)).toBe(true);
      for (const x of t.targets) expect(paths.has(x)).toBe(true);
    }
    // Compound states name their initial child.
    for (const s of g.states.filter((x) => x.compound)) expect(s.initial !== null && paths.has(s.initial)).toBe(true);
  });

  test('the counts the statechart spec checks (a change to a machine changes them here first)', () => {
    const counts = Object.fromEntries(NAMES.map((n) => [n, [machineGraph(MACHINES[n]).states.length, machineGraph(MACHINES[n]).transitions.length]]));
    for (const n of NAMES) {
      const c = countConfig(MACHINES[n].config as Config);
      expect(counts[n]).toEqual([c.states.length, c.transitions]);
    }
    expect(counts.logRetention).toEqual([4, 8]);
  });

  test('guards read as text: named, not, and/or composites', () => {
    const rlm = machineGraph(MACHINES.rlm);
    const guards = new Set(rlm.transitions.map((t) => t.guard));
    expect(guards).toContain('!isAwaited');
    expect(guards).toContain('!isLeader && isMetadataLoading');
    const fetcher = machineGraph(MACHINES.fetcher);
    expect(fetcher.transitions.some((t) => t.guard === '(isOffsetOutOfRange || isOffsetMovedToTieredStorage) && isKip1023Eligible')).toBe(true);
    const lr = machineGraph(MACHINES.logRetention);
    const roll = lr.transitions.find((t) => t.guard === 'shouldRollActive');
    expect(roll?.actions).toEqual(['rollActiveSegment', 'explain', 'nextStep']);
    expect(roll?.rules).toEqual(['rollForLocalRetention']);
    const done = lr.transitions.find((t) => t.source === 'running' && t.targets[0] === 'idle');
    expect(done?.rules).toEqual(['logRetentionRunDone']);
  });
});

describe('takenTransitions', () => {
  test.each(['kip1023-bootstrap', 'kip1023-leader-epochs', 'retention-three-tasks', 'wal-steady-state'])('%s: agrees with every machine step of the run', (id) => {
    const s = new Session(loadBundled(id));
    let checked = 0;
    let moved = 0;
    let eventless = 0;
    s.observe((d) => {
      const machine = MACHINES[d.name];
      const ids = takenTransitions(machine, d.before, d.event, scopeFor(machine).scope);
      expect(takenTransition(machine, d.before, d.event)).toBe(ids[0] ?? null);
      const [after, actions] = xstateStep(d.name, d.before, d.event);
      const effects = actions.filter((a) => !(a as { type: string }).type.startsWith('xstate.'));
      const from = stateName(d.before.value);
      const to = stateName(after.value);
      checked++;
      if (ids.length === 0) {
        // Nothing enabled: XState changes nothing.
        expect(to).toBe(from);
        expect(effects).toEqual([]);
        return;
      }
      const g = machineGraph(machine);
      const chain = ids.map((x) => g.transitions.find((t) => t.id === x)!);
      expect(chain.every((t) => t !== undefined)).toBe(true);
      const [first, ...rest] = chain;
      expect(first.event === d.event.type || first.event.endsWith('*')).toBe(true);
      expect(rest.every((t) => t.eventless)).toBe(true);
      eventless += rest.length;
      // The first one's source is the active state or one of its ancestors.
      expect(first.source === '' || from === first.source || from.startsWith(`${first.source}.`)).toBe(true);
      // The last one with a target holds the state the machine ends in; none: it stays.
      const last = [...chain].reverse().find((t) => t.targets.length > 0);
      if (last === undefined) expect(to).toBe(from);
      else expect(to === last.targets[0] || to.startsWith(`${last.targets[0]}.`)).toBe(true);
      if (to !== from) moved++;
    });
    while (s.forward());
    expect(checked).toBeGreaterThan(20);
    expect(moved).toBeGreaterThan(5);
    if (id === 'wal-steady-state') expect(eventless).toBeGreaterThan(0);
  });
});
