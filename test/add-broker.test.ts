/**
 * A broker added to the cluster during a run (the timeline's addBroker, issue 18 point 3):
 * it starts, registers with the controller and hosts nothing until addReplica names it;
 * then it bootstraps as any empty replica and joins the ISR. Checked from a scenario file,
 * from the page's recorded actions (step back and replay), through checkpoints, and in the
 * validation of a file and of a link's actions.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { narrate } from '../core/narrate/narrate.js';
import { buildReport, renderReport } from '../core/report/report.js';
import { parseScenarioText, validateScenario, workProblems } from '../core/scenario/parse.js';
import { actionContext, contextAfter, readTimelineAction } from '../core/scenario/timeline.js';
import type { Scenario, TimelineAction } from '../core/scenario/types.js';
import { Session } from '../core/session/session.js';
import { buildView } from '../core/session/view.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import type { Checkpoint } from '../core/sim/state/state.js';
import type { TraceEntry } from '../core/sim/state/trace.js';
import { addActions, addNote, addReplicaChoices, pickChoice } from '../web/lib/add-replica.js';
import { type Loose, ROOT, loadBundled } from './support/run.js';

/** kip1023-bootstrap (two brokers, zones a and b) with a timeline that adds broker 2 as a replica at `at`. */
function withNewBroker(at = 500): Scenario {
  const s = loadBundled('kip1023-bootstrap');
  return {
    ...s,
    zones: ['a', 'b'],
    timeline: [
      { at, action: { kind: 'addBroker', broker: 2 } },
      { at, action: { kind: 'addReplica', topic: 'orders', partition: 0, broker: 2 } },
    ],
  };
}

const ADD: TimelineAction[] = [
  { kind: 'addBroker', broker: 2 },
  { kind: 'addReplica', topic: 'orders', partition: 0, broker: 2 },
];

function problemsOf(raw: Record<string, unknown>): Array<{ path: string; message: string }> {
  const r = validateScenario(raw);
  return r.ok ? [] : r.problems.map(({ path, message }) => ({ path, message }));
}

const base = {
  name: 'add',
  brokers: 2,
  topics: [{ name: 't', partitions: 1, replicas: [[0, 1]] }],
  until: 1000,
};

describe('addBroker in the kernel', () => {
  test('a 2-broker cluster gains broker 2, which joins as an empty replica, catches up and joins the ISR', () => {
    // Goal: the new broker hosts nothing until addReplica, then bootstraps by KIP-1023 like broker 1.
    // Method: kip1023-bootstrap with addBroker and addReplica at 500 ms; run to the end.
    const k = new Kernel(withNewBroker());
    k.runToEnd();
    const added = k.trace.find((e) => e.type === 'broker' && (e as Loose).action === 'added') as Loose;
    expect(added).toMatchObject({ atMs: 500, broker: 2, zone: 'a', rule: 'brokerRegistered' });
    expect(k.state.brokers.map((b) => [b.id, b.zone, b.alive])).toEqual([[0, 'a', true], [1, 'b', true], [2, 'a', true]]);
    const json = buildRunJson(k);
    const p = json.partitions[0];
    expect(p.isr).toEqual([0, 1, 2]);
    const r2 = p.replicas.find((r) => r.broker === 2)!;
    expect(r2.logEndOffset).toBe(200);
    expect(r2.localLogStartOffset).toBe(150); // KIP-1023: it started at the Earliest-Pending-Upload-Offset
    expect(json.config.zones).toEqual(['a', 'b', 'a']);
    // It fetched from the leader only after it was added.
    const firstFetch = k.trace.find((e) => e.type === 'request' && e.source === 2)!;
    expect(firstFetch.atMs).toBe(500);
    expect(json.violations).toEqual([]);
  });

  test('the narration tells the new broker with its rule, and the Markdown report lists it', () => {
    const k = new Kernel(withNewBroker());
    k.runToEnd();
    const lines = k.trace.map((e) => narrate(e)).filter((l): l is string => l !== null);
    expect(lines).toContain(
      't=500ms broker 2 joins the cluster in zone a: a new broker starts and registers with the controller (BrokerRegistration; docs/protocol.md §6, Brokers): it is in the cluster but hosts no replica until a reassignment adds one',
    );
    expect(lines).toContain('t=500ms broker 2 joins orders-0 as an empty replica');
    const md = renderReport(buildReport(withNewBroker(), { scenarioRef: 'add-broker.yaml' }), 'md');
    expect(md).toContain('- 2 brokers, broker 0 in zone a, broker 1 in zone b.');
    expect(md).toContain('- Joining during the run: broker 2 in zone a.');
    expect(md).toContain('`t=500ms` broker 2 starts and joins the cluster (it hosts no replica until one is added)');
  });

  test('an added broker hosts nothing: without addReplica it sends no request', () => {
    const s = withNewBroker();
    const k = new Kernel({ ...s, timeline: s.timeline.slice(0, 1) });
    k.runToEnd();
    expect(k.state.brokers).toHaveLength(3);
    expect(k.trace.some((e) => e.type === 'request' && e.source === 2)).toBe(false);
    expect(buildRunJson(k).partitions[0].replicas.map((r) => r.broker)).toEqual([0, 1]);
  });

  test('an addBroker whose id is taken, and an addReplica of a broker not in the cluster, are told as ignored', () => {
    const k = new Kernel(loadBundled('kip1023-bootstrap'));
    k.applyAction({ kind: 'addReplica', topic: 'orders', partition: 0, broker: 2 });
    k.applyAction({ kind: 'addBroker', broker: 1 });
    k.applyAction({ kind: 'addBroker', broker: 3 });
    const lines = k.trace.map((e) => narrate(e)).filter((l) => l?.includes('ignored'));
    expect(lines).toEqual([
      't=0ms addReplica ignored: no broker 2 in the cluster (addBroker adds one)',
      't=0ms addBroker ignored: broker 1 is already in the cluster',
      't=0ms addBroker ignored: the next broker id is 2',
    ]);
    expect(k.state.brokers).toHaveLength(2);
  });

  test('a replica added while the partition has no leader fetches once one is elected', () => {
    // Goal: no Fetch to "broker -1"; the election starts the new replica's fetcher.
    // Method: crash the only leader (broker 1 is not in the ISR yet), add broker 2, restart broker 0.
    const k = new Kernel(loadBundled('kip1023-bootstrap'));
    k.applyAction({ kind: 'crash', broker: 0 });
    expect(k.state.partitions['orders-0'].leader).toBe(-1);
    for (const a of ADD) k.applyAction(a);
    k.runUntil(1000);
    expect(k.trace.some((e) => e.type === 'request' && e.source === 2)).toBe(false);
    k.applyAction({ kind: 'restart', broker: 0 });
    k.runToEnd();
    expect(k.trace.find((e) => e.type === 'request' && e.source === 2)?.atMs).toBe(1000);
    expect(buildRunJson(k).partitions[0].isr).toContain(2);
  });

  test('a checkpoint taken after addBroker (also through JSON) continues with the same trace', () => {
    const whole = new Kernel(withNewBroker());
    whole.runToEnd();
    const k = new Kernel(withNewBroker());
    k.runUntil(520);
    expect(k.state.brokers).toHaveLength(3);
    const cp = k.checkpoint();
    const restored = Kernel.restore(withNewBroker(), cp);
    restored.runToEnd();
    expect(JSON.stringify(restored.trace)).toBe(JSON.stringify(whole.trace));
    const viaJson = Kernel.restore(withNewBroker(), JSON.parse(JSON.stringify({ ...cp, trace: cp.trace.slice(0, cp.traceLength) })) as Checkpoint);
    viaJson.runToEnd();
    expect(JSON.stringify(viaJson.trace)).toBe(JSON.stringify(whole.trace));
  });
});

describe('addBroker from the page (recorded actions)', () => {
  const picture = (s: Session) => JSON.stringify({ step: s.step, view: buildView(s.kernel), trace: s.kernel.trace.length });

  test('a new broker recorded at a step: step back and forward, and a new session with the same actions, give the same run', () => {
    const a = new Session(loadBundled('kip1023-bootstrap'));
    for (let i = 0; i < 4; i++) a.forward();
    for (const x of ADD) a.act(x);
    expect(a.actions.map((x) => x.action.kind)).toEqual(['addBroker', 'addReplica']);
    const pictures = [picture(a)];
    while (a.forward()) pictures.push(picture(a));
    const end = a.step;
    const trace: TraceEntry[] = a.kernel.trace.slice();
    expect(buildView(a.kernel).partitions[0].replicas.map((r) => r.broker)).toEqual([0, 1, 2]);
    expect(buildView(a.kernel).partitions[0].isr).toEqual([0, 1, 2]);
    // Back to before the action, and forward again: the action replays at its step.
    a.goTo(2);
    expect(a.kernel.state.brokers).toHaveLength(2);
    a.goTo(4);
    expect(picture(a)).toBe(pictures[0]);
    a.goTo(end);
    expect(JSON.stringify(a.kernel.trace)).toBe(JSON.stringify(trace));
    const b = new Session(loadBundled('kip1023-bootstrap'), undefined, a.actions.slice());
    b.runToEnd();
    expect(JSON.stringify(b.kernel.trace)).toBe(JSON.stringify(trace));
  });

  test('actions at step 0 go into the step-0 checkpoint', () => {
    const a = new Session(loadBundled('kip1023-bootstrap'));
    for (const x of ADD) a.act(x);
    a.runToEnd();
    const trace = JSON.stringify(a.kernel.trace);
    a.goTo(0);
    expect(a.kernel.state.brokers).toHaveLength(3);
    a.runToEnd();
    expect(JSON.stringify(a.kernel.trace)).toBe(trace);
  });
});

describe('validation of addBroker', () => {
  test('a file may name a broker that an earlier addBroker added; the body may be empty or give the next id', () => {
    const r = validateScenario({
      ...base,
      timeline: [
        { at: 0, addBroker: {} },
        { at: 0, addReplica: { topic: 't', partition: 0, broker: 2 } },
        { at: 10, addBroker: { broker: 3 } },
        { at: 20, crash: { broker: 3 } },
      ],
    });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.scenario.timeline.map((e) => e.action)).toEqual([
      { kind: 'addBroker', broker: 2 },
      { kind: 'addReplica', topic: 't', partition: 0, broker: 2 },
      { kind: 'addBroker', broker: 3 },
      { kind: 'crash', broker: 3 },
    ]);
  });

  test('a broker used before the addBroker that adds it, a wrong id, an id never added: each says why', () => {
    expect(problemsOf({
      ...base,
      timeline: [
        { at: 0, addReplica: { topic: 't', partition: 0, broker: 2 } },
        { at: 5, addBroker: { broker: 5 } },
        { at: 6, crash: { broker: 3 } },
        { at: 7, heal: { broker: 9 } },
        { at: 8, addBroker: { zone: 'b' } },
      ],
    })).toEqual([
      { path: 'timeline[0].addReplica.broker', message: 'expected an integer from 0 to 1 (a broker id; brokers: 2), got 2: broker 2 joins the cluster only at timeline[1] (addBroker), after this event' },
      { path: 'timeline[1].addBroker.broker', message: 'expected the integer 2 (the next broker id: brokers 0 .. 1 are in the cluster here), got 5' },
      { path: 'timeline[2].crash.broker', message: 'expected an integer from 0 to 2 (a broker id; brokers: 2, and 1 added by addBroker), got 3: broker 3 joins the cluster only at timeline[4] (addBroker), after this event' },
      { path: 'timeline[3].heal.broker', message: 'expected an integer from 0 to 2 (a broker id; brokers: 2, and 1 added by addBroker), got 9: no broker 9 is in the cluster at this point (addBroker adds brokers in id order, the next being 3)' },
      { path: 'timeline[4].addBroker.zone', message: expect.stringContaining("unknown key 'zone' in addBroker") },
    ]);
    expect(problemsOf({ ...base, timeline: [{ at: 0, crash: { broker: 2 } }] })).toEqual([
      { path: 'timeline[0].crash.broker', message: 'expected an integer from 0 to 1 (a broker id; brokers: 2), got 2: no broker 2 is in the cluster at this point (an addBroker before this adds it: 2 is the next id)' },
    ]);
  });

  test("docs/scenario-format.md's example adds broker 3 and then makes it a replica", () => {
    const doc = readFileSync(join(ROOT, 'docs', 'scenario-format.md'), 'utf8');
    const r = parseScenarioText(/```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '', 'scenario-format.md');
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.scenario.timeline.slice(-2).map((e) => e.action)).toEqual([
      { kind: 'addBroker', broker: 3 },
      { kind: 'addReplica', topic: 'orders', partition: 0, broker: 3 },
    ]);
  });

  test('no more than 64 brokers', () => {
    const full = { ...base, brokers: 63, timeline: [{ at: 0, addBroker: {} }, { at: 1, addBroker: {} }] };
    expect(problemsOf(full)).toEqual([
      { path: 'timeline[1].addBroker', message: 'the cluster would have 65 brokers, more than the limit of 64 (docs/scenario-format.md, Limits)' },
    ]);
  });

  test("a link's actions: an addReplica of a broker an earlier addBroker added reads back; without it, the same message as a file", () => {
    const s = loadBundled('kip1023-bootstrap');
    let ctx = actionContext(s);
    const first = readTimelineAction(ctx, { kind: 'addBroker' }, 'actions[0].action');
    expect(first).toEqual({ ok: true, action: { kind: 'addBroker', broker: 2 } });
    expect(readTimelineAction(ctx, ADD[1], 'actions[1].action')).toEqual({
      ok: false,
      problems: [{ path: 'actions[1].action.broker', message: 'expected an integer from 0 to 1 (a broker id; brokers: 2), got 2: no broker 2 is in the cluster at this point (an addBroker before this adds it: 2 is the next id)' }],
    });
    if (first.ok) ctx = contextAfter(ctx, first.action);
    expect(readTimelineAction(ctx, ADD[1], 'actions[1].action')).toEqual({ ok: true, action: ADD[1] });
  });

  test('a CLI-shaped file round-trips: YAML with addBroker parses, and the run is the same every time', () => {
    const text = [
      'name: add a broker',
      'brokers: 2',
      'topics: [{ name: t, partitions: 1, replicas: [[0, 1]] }]',
      'timeline:',
      '  - { at: 0, produce: { topic: t, partition: 0, records: 50 } }',
      '  - { at: 100, addBroker: {} }',
      '  - { at: 100, addReplica: { topic: t, partition: 0, broker: 2 } }',
      'until: 2000',
    ].join('\n');
    const r = parseScenarioText(text, 'add.yaml');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const runs = [0, 1].map(() => {
      const k = new Kernel(r.scenario);
      k.runToEnd();
      return JSON.stringify(buildRunJson(k));
    });
    expect(runs[0]).toBe(runs[1]);
    expect(JSON.parse(runs[0]).partitions[0].isr).toEqual([0, 1, 2]);
  });
});

describe("the page's Add row (web/lib/add-replica.ts)", () => {
  test('2 brokers, both replicas: the only choice, and the default, is a new broker 2; it records addBroker then addReplica', () => {
    const s = loadBundled('kip1023-bootstrap');
    const k = new Kernel(s);
    const view = buildView(k);
    const row = addReplicaChoices(view, view.partitions[0], s);
    expect(row.choices.map((c) => c.label)).toEqual(['a new broker 2 (added to the cluster)']);
    const c = pickChoice(row, null)!;
    expect(addActions(c, view.partitions[0])).toEqual(ADD);
    expect(addNote(c, row, view.partitions[0], false, [])?.blocked).toBe(false);
  });

  test('3 brokers, broker 2 not a replica: broker 2 is the default; a down broker and a partition without a leader are said in words', () => {
    const s = loadBundled('failover-during-bootstrap');
    const k = new Kernel(s);
    let view = buildView(k);
    const row = addReplicaChoices(view, view.partitions[0], s);
    expect(row.choices.map((c) => c.value)).toEqual(['broker-2', 'new-3']);
    expect(row.choices.map((c) => c.label)).toEqual(['broker 2', 'a new broker 3 (added to the cluster)']);
    expect(pickChoice(row, null)?.value).toBe('broker-2');
    expect(pickChoice(row, 'broker-7')?.value).toBe('broker-2');
    expect(addNote(pickChoice(row, null), row, view.partitions[0], false, [])).toBe(null);
    k.applyAction({ kind: 'crash', broker: 2 });
    view = buildView(k);
    const down = addReplicaChoices(view, view.partitions[0], s);
    expect(down.choices[0].label).toBe('broker 2 (down)');
    expect(addNote(down.choices[0], down, view.partitions[0], false, [])?.text).toBe('Broker 2 is down: it becomes a replica now and fetches once it restarts.');
    expect(addNote(down.choices[0], down, view.partitions[0], false, [{ path: 'until', message: 'the run would take about 600,000 kernel events' }]))
      .toEqual({ text: 'Not possible: the run would take about 600,000 kernel events', blocked: true });
  });

  test('a partition with no leader, and the end of the run, are said in words', () => {
    const s = loadBundled('kip1023-bootstrap');
    const k = new Kernel(s);
    k.applyAction({ kind: 'crash', broker: 0 });
    const view = buildView(k);
    const row = addReplicaChoices(view, view.partitions[0], s);
    expect(addNote(row.choices[0], row, view.partitions[0], true, [])).toEqual({
      text: 'Broker 2 starts in zone a and registers with the controller, then joins orders-0 as an empty replica (two actions in the link). orders-0 has no leader: the new replica fetches once one is elected. The run is at its end (until): the replica is added, but has no time left to fetch.',
      blocked: false,
    });
  });

  test('an added replica past the work budget: the button is disabled and the note gives the budget\'s message', () => {
    // Goal: the row asks the same budget as the page's act (docs/scenario-format.md, Limits).
    // Method: one idle follower for 60,000,000 ms (about 358,000 kernel events) fits; a second does not.
    const r = validateScenario({ ...base, until: 60_000_000 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const k = new Kernel(r.scenario);
    const view = buildView(k);
    const row = addReplicaChoices(view, view.partitions[0], r.scenario);
    const choice = pickChoice(row, null)!;
    // The page keeps the run's trace: its budget is the kept-trace one (AddReplicaRow.svelte).
    const budget = workProblems(r.scenario, addActions(choice, view.partitions[0]), { traceKept: true });
    expect(budget.length).toBeGreaterThan(0);
    const note = addNote(choice, row, view.partitions[0], false, budget);
    expect(note?.blocked).toBe(true);
    expect(note?.text).toMatch(/^Not possible: the run would take about [\d,]+ kernel events, more than the limit of 500,000/);
  });

  test('a scenario that adds a broker later: no new broker until it has', () => {
    const s = withNewBroker(500);
    const k = new Kernel(s);
    const view = buildView(k);
    const row = addReplicaChoices(view, view.partitions[0], s);
    expect(row.choices).toEqual([]);
    expect(row.noNewBroker).toBe('The scenario adds broker 2 later (its timeline); a new broker can be added after that.');
    expect(addNote(null, row, view.partitions[0], false, [])).toEqual({
      text: 'Every broker is a replica of orders-0. The scenario adds broker 2 later (its timeline); a new broker can be added after that.',
      blocked: true,
    });
  });
});
