/**
 * Exhaustive bounded checking (core/check/exhaustive.ts; docs/checking.md): the kernel's
 * choice points as data, the search over them, state hashing, liveness, counterexamples that
 * replay, and the deliberate bugs each found on a small bundled scenario.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { exhaustive, followersInIsr, pathScenario, replays, settleScenario } from '../core/check/exhaustive.js';
import { canonicalForm, stateKey } from '../core/check/state-key.js';
import { parseScenarioText } from '../core/scenario/parse.js';
import { toScenarioFile } from '../core/scenario/serialize.js';
import type { Chooser } from '../core/sim/loop/choices.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { BUGS, BUG_SCENARIOS, type BugName, withBugs } from '../core/util/bugs.js';
import { decodeUrlState } from '../web/lib/url.js';
import { ROOT, cliIn, loadBundled } from './support/run.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const cli = (args: string[], cwd: string) => cliIn(args, cwd);

const bundled = readdirSync(join(ROOT, 'scenarios'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.replace(/\.yaml$/, ''));

describe('choice points', () => {
  test.each(bundled)('%s: a chooser that always takes the default gives the normal run, byte for byte', (name) => {
    const s = loadBundled(name);
    const plain = new Kernel(s);
    plain.runToEnd();
    let asked = 0;
    const defaults: Chooser = () => (asked++, 0);
    const chosen = new Kernel(s, { chooser: defaults });
    chosen.runToEnd();
    expect(JSON.stringify(chosen.trace)).toBe(JSON.stringify(plain.trace));
    expect(chosen.state.stepCount).toBe(plain.state.stepCount);
    // Every message between brokers and every store request is a point.
    const messages = plain.trace.filter((e) => e.type === 'request' && typeof (e as { source: unknown }).source === 'number').length;
    expect(asked).toBeGreaterThanOrEqual(messages);
  });

  test('a late message arrives later, and a failed store request is refused with InternalError', () => {
    const s = loadBundled('classic-two-rounds');
    let late = false;
    let failed = false;
    const k = new Kernel(s, {
      chooser: (p) => {
        if (p.kind === 'delay' && !late) return (late = true), 40;
        if (p.kind === 'storeFault' && !failed) return (failed = true), 1;
        return 0;
      },
    });
    k.runToEnd();
    const first = k.trace.find((e) => e.type === 'request')!;
    const answered = k.trace.find((e) => e.type === 'response' && (e as { correlationId: number }).correlationId === (first as { correlationId: number }).correlationId)!;
    expect(answered.atMs - first.atMs).toBeGreaterThanOrEqual(40);
    const refused = k.trace.find((e) => e.type === 'objectStore' && (e as { error?: string }).error === 'InternalError');
    expect(refused).toBeDefined();
    // Not billed: the store never served it.
    const plain = new Kernel(s);
    plain.runToEnd();
    expect(k.state.metrics.objectStore.tiered.gets).toBeLessThan(plain.state.metrics.objectStore.tiered.gets + 1);
  });

  test('pinned choices replay; one that does not match the run is reported, not applied', () => {
    const s = loadBundled('classic-two-rounds');
    // The first delay point of the run, and what it is about.
    let first: { step: number; n: number; what: string } | undefined;
    new Kernel(s, { chooser: (p) => ((first ??= p.kind === 'delay' ? { step: p.step, n: p.n, what: p.what()[0] } : undefined), 0) }).runToEnd();
    expect(first!.what).toMatch(/^Fetch (request|response) \d→\d orders-0$/);
    const { step, n } = first!;
    const good = { ...s, choices: [{ step, n, kind: 'delay' as const, pick: 25, what: first!.what }] };
    const k = new Kernel(good);
    k.runToEnd();
    expect(k.pinned!.mismatches).toEqual([]);
    expect(k.pinned!.unused()).toEqual([]);
    const bad = { ...s, choices: [{ step, n, kind: 'storeFault' as const, pick: 1 }, { step: 999999, n: 0, kind: 'order' as const, pick: 1 }] };
    const b = new Kernel(bad);
    b.runToEnd();
    expect(b.pinned!.mismatches[0].reason).toBe(`step ${step} point ${n} is a delay choice, not storeFault`);
    expect(b.pinned!.unused().map((c) => c.step)).toEqual([999999]);
    const wrongWhat = { ...s, choices: [{ step, n, kind: 'delay' as const, pick: 25, what: 'Fetch request 7→9 x-0' }] };
    const w = new Kernel(wrongWhat);
    w.runToEnd();
    expect(w.pinned!.mismatches[0].reason).toBe(`step ${step} point ${n} is "${first!.what}", not "Fetch request 7→9 x-0"`);
  });

  test('the choices key is validated with messages that name the entry', () => {
    const base = readFileSync(join(ROOT, 'scenarios', 'classic-two-rounds.yaml'), 'utf8');
    const r = parseScenarioText(`${base}\nchoices:\n  - { step: 0, n: 0, kind: order, pick: 1 }\n  - { step: 3, n: 1, kind: meteor, pick: 1 }\n  - { step: 4, n: 0, kind: storeFault, pick: 2 }\n  - { step: 5, n: 0, kind: delay, pick: 5, extra: 1 }\n  - { step: 6, n: 0, kind: delay, pick: 5 }\n  - { step: 6, n: 0, kind: delay, pick: 7 }\n`, 'x.yaml');
    expect(r.ok).toBe(false);
    const text = !r.ok ? r.problems.map((p) => `${p.path}: ${p.message}`).join('\n') : '';
    expect(text).toContain('choices[0].step');
    expect(text).toContain('choices[1].kind');
    expect(text).toContain('choices[2].pick');
    expect(text).toContain('choices[3]');
    expect(text).toContain('step 6 point 0 is pinned twice (choices[4] too)');
  });
});

describe('state hashing', () => {
  test('history is left out of the key, the future is in it', () => {
    const k = new Kernel(loadBundled('kip1023-bootstrap'));
    for (let i = 0; i < 10; i++) k.step();
    const cp = k.checkpoint();
    const key = stateKey(cp);
    const sameFuture = { ...cp, state: { ...cp.state, stepCount: 12345, violations: [], metrics: { ...cp.state.metrics, requests: {} } }, trace: [] };
    expect(stateKey(sameFuture)).toBe(key);
    const later = { ...cp, state: { ...cp.state, nowMs: cp.state.nowMs + 1 } };
    expect(stateKey(later)).not.toBe(key);
    const crashed = { ...cp, state: { ...cp.state, brokers: cp.state.brokers.map((b, i) => (i === 1 ? { ...b, alive: false } : b)) } };
    expect(stateKey(crashed)).not.toBe(key);
    // Events due at one time are a multiset: their queue order is not part of the key.
    const heap = [...cp.state.queue.heap];
    const swapped = { ...cp, state: { ...cp.state, queue: { ...cp.state.queue, heap: heap.map((q, i) => ({ ...q, seq: 1000 - i })) } } };
    const hasTimeline = heap.some((q) => q.ev.kind === 'timeline');
    if (!hasTimeline) expect(canonicalForm(swapped)).toBe(canonicalForm(cp));
  });
});

describe('exhaustive search', () => {
  test('KIP-1023 bootstrap, 2 brokers, one crash and one store fault: exhausted, the known finding met, no new violation, liveness judged', () => {
    const r = exhaustive(loadBundled('kip1023-bootstrap'), 'kip1023-bootstrap', { bounds: { crashes: 1, storeFaults: 1 } });
    expect(r.exhausted).toBe(true);
    expect(r.cutByDepth).toBe(0);
    expect(r.distinctStates).toBeGreaterThan(1000);
    expect(r.statesExplored).toBeGreaterThanOrEqual(r.distinctStates - 1);
    expect(r.livenessJudged).toBeGreaterThan(0);
    expect(r.violations.filter((v) => v.known === null)).toEqual([]);
    const known = r.violations.find((v) => v.known === 'auxStateIncomplete');
    expect(known).toBeDefined();
    expect(known!.replayed).toBe(true);
    // Its path: the follower crashes while it builds the remote auxiliary state.
    expect(known!.scenario.timeline.some((e) => e.action.kind === 'crash')).toBe(true);
    console.log(`kip1023-bootstrap, 1 crash + 1 store fault: ${r.distinctStates} distinct states, ${r.statesExplored} explored, depth ${r.depth}`);
    // The figures docs/checking.md's sample and the README quote for this search (all but the time).
    const n = (x: number) => x.toLocaleString('en-US');
    const checking = readFileSync(join(ROOT, 'docs', 'checking.md'), 'utf8');
    expect(checking).toContain(`${n(r.distinctStates)} distinct states (${n(r.statesExplored)} explored), depth ${r.depth}, exhausted`);
    expect(checking).toContain(`liveness: ${n(r.ends)} end states settled for 30000 ms, ${n(r.livenessJudged)} judged`);
    expect(checking).toContain(`known finding auxStateIncomplete (followerEpochsMatchLeader) in ${n(r.violationStates.auxStateIncomplete)} states; shortest path ${known!.depth} transitions`);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`(${n(r.distinctStates)} distinct states)`);
    expect(readme).toContain(`| kip1023-bootstrap (budget: 300 s) | ${n(r.distinctStates)} | ${r.depth} |`);
  }, 120000);

  test('with no fault allowed, the search is the normal run and its order choices', () => {
    const r = exhaustive(loadBundled('kip1023-bootstrap'), 'x', { bounds: { crashes: 0, storeFaults: 0 } });
    const k = new Kernel(loadBundled('kip1023-bootstrap'));
    k.runToEnd();
    expect(r.exhausted).toBe(true);
    expect(r.distinctStates).toBeGreaterThanOrEqual(k.state.stepCount + 1);
    expect(r.violations).toEqual([]);
  });

  test('breadth-first and depth-first exhaust the same state space', () => {
    const s = loadBundled('classic-two-rounds');
    const bfs = exhaustive(s, 'x', { bounds: { crashes: 1, storeFaults: 0 } });
    const dfs = exhaustive(s, 'x', { bounds: { crashes: 1, storeFaults: 0, strategy: 'dfs' } });
    expect(bfs.exhausted && dfs.exhausted).toBe(true);
    expect(dfs.distinctStates).toBe(bfs.distinctStates);
    expect(Object.keys(dfs.violationStates).sort()).toEqual(Object.keys(bfs.violationStates).sort());
  }, 120000);

  test('more faults, more states; the bounds stop the search and say so', () => {
    const s = loadBundled('classic-two-rounds');
    const none = exhaustive(s, 'x', { bounds: { crashes: 0, storeFaults: 0 } });
    const late = exhaustive(s, 'x', { bounds: { crashes: 0, storeFaults: 0, delays: 1 } });
    expect(late.distinctStates).toBeGreaterThan(none.distinctStates);
    const capped = exhaustive(s, 'x', { bounds: { maxStates: 50 } });
    expect(capped.exhausted).toBe(false);
    expect(capped.stoppedAtMaxStates).toBe(true);
    const shallow = exhaustive(s, 'x', { bounds: { maxDepth: 5 } });
    expect(shallow.exhausted).toBe(true);
    expect(shallow.cutByDepth).toBeGreaterThan(0);
    expect(shallow.depth).toBe(5);
  }, 120000);

  test('a path with a late message and a failed store request is saved as a scenario that replays through the file format', () => {
    const s = loadBundled('kip1023-bootstrap');
    // The shortest path to a planted bug, with every kind of choice allowed.
    const r = withBugs(['skipAuxState'], () => exhaustive(s, 'x', { bounds: { crashes: 1, storeFaults: 1, delays: 1, maxStates: 20000 }, stopAtFirst: true }));
    const v = r.violations.find((x) => x.known === null)!;
    expect(v.replayed).toBe(true);
    const text = JSON.stringify(toScenarioFile(v.scenario));
    const back = parseScenarioText(text, 'ce.json');
    expect(back.ok).toBe(true);
    expect(replayedWith(['skipAuxState'], back.ok ? back.scenario : s, v.invariant)).toBe(true);
    expect(replayedWith([], back.ok ? back.scenario : s, v.invariant)).toBe(false);
  }, 120000);

  test('hand-made path: faults go before the same instant\'s events, pins replay', () => {
    const s = loadBundled('kip1023-bootstrap');
    const path = pathScenario(s, [{ kind: 'fault', at: 68, action: { kind: 'crash', broker: 1 }, endAt: 1068, end: { kind: 'restart', broker: 1 } }], 'p');
    expect(path.timeline.map((e) => `${e.at}:${e.action.kind}`)).toEqual(['68:crash', '1068:restart']);
    expect(replays(path, 'followerEpochsMatchLeader')).toBe(true);
  });
});

function replayedWith(bugs: BugName[], s: Parameters<typeof replays>[0], invariant: string): boolean {
  return withBugs(bugs, () => replays(s, invariant));
}

describe('liveness', () => {
  test('a follower that is up, connected and fetching must be in the ISR: the check can fail', () => {
    const k = new Kernel(loadBundled('classic-two-rounds'));
    k.runToEnd();
    expect(followersInIsr(k)).toMatchObject({ judged: true, problem: null });
    const part = k.state.partitions[k.state.partitionOrder[0]];
    part.isr = part.isr.filter((b) => b === part.leader);
    expect(followersInIsr(k).problem).toMatch(/follower 1 of orders-0 is up, connected and fetching .* but is not in the ISR \[0\] of leader 0/);
    // A follower that is down is not judged.
    k.state.brokers[1].alive = false;
    expect(followersInIsr(k)).toMatchObject({ judged: false, problem: null });
  });
});

describe('deliberate bugs: each is found on a small bundled scenario, and its path replays', () => {
  const where = BUG_SCENARIOS;
  test('every bug has a scenario', () => expect(Object.keys(where).sort()).toEqual(Object.keys(BUGS).sort()));
  test.each(Object.keys(BUGS) as BugName[])('%s', (bug) => {
    const r = withBugs([bug], () => exhaustive(loadBundled(where[bug]), where[bug], { bounds: { maxStates: 20000 }, stopAtFirst: true }));
    const v = r.violations.find((x) => x.known === null);
    expect(v, `${bug} not found on ${where[bug]}`).toBeDefined();
    expect(v!.replayed).toBe(true);
    // Without the bug the same path is fine.
    expect(replayedWith([], v!.scenario, v!.invariant)).toBe(false);
    console.log(`${bug} on ${where[bug]}: ${v!.invariant} after ${v!.foundAfterStates} states, path of ${v!.depth} transitions`);
  }, 120000);
});

describe('the CLI', () => {
  test('explore FILE --exhaustive: figures, known findings, exit 0; --json; a planted bug exits 129 with a replay command', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-exhaustive-'));
    dirs.push(dir);
    const ok = await cli(['explore', 'classic-two-rounds', '--exhaustive', '--crashes', '1', '--store-faults', '0'], dir);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/exhaustive: classic-two-rounds, every path with up to 1 crash, 0 store faults/);
    expect(ok.stdout).toMatch(/[\d,]+ distinct states \([\d,]+ explored\), depth \d+, exhausted: every path reached the end, in [\d.]+ s: [\d,]+ states\/s/);
    expect(ok.stdout).toContain('no new violation');
    const json = await cli(['explore', 'kip1023-stale-epuo', '--exhaustive', '--json', '--plant-bug', 'noEpuoLsoClamp', '--max-states', '5000'], dir);
    expect(json.code).toBe(129);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ mode: 'exhaustive', scenario: 'kip1023-stale-epuo', plantedBug: 'noEpuoLsoClamp' });
    const v = doc.violations.find((x: { known: string | null }) => x.known === null);
    expect(v).toMatchObject({ invariant: 'listOffsetsWithinLog', replayed: true });
    expect(v.replay.command).toBe(`npm run sim -- run ${v.replay.file} --plant-bug noEpuoLsoClamp`);
    const replay = await cli(['run', v.replay.file, '--plant-bug', 'noEpuoLsoClamp'], dir);
    expect(replay.code).toBe(129);
    expect(replay.stdout).toContain('listOffsetsWithinLog');
  }, 120000);

  test('a counterexample without a planted bug gets a walkthrough URL holding its file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-exhaustive-'));
    dirs.push(dir);
    const r = await cli(['explore', 'kip1023-bootstrap', '--exhaustive', '--json'], dir);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const known = doc.violations.find((x: { known: string | null }) => x.known === 'auxStateIncomplete');
    const url = new URL(known.replay.url);
    // The scenario in the fragment (no server sees it), as the page writes its links.
    expect(url.hash).toMatch(/^#src=/);
    const decoded = decodeUrlState(url.search, url.hash);
    expect(decoded.problems).toEqual([]);
    expect(JSON.parse(decoded.state.source!)).toEqual(JSON.parse(readFileSync(join(dir, known.replay.file), 'utf8')));
  }, 120000);

  test('bad options exit 2 with one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-exhaustive-'));
    dirs.push(dir);
    const cases: Array<[string[], string]> = [
      [['explore', 'kip1023-bootstrap', '--exhaustive', '--crashes', 'x'], '--crashes (broker crashes per path) expects a whole number from 0 to 10, got "x"'],
      // Every duration has an upper bound (a billion ms of settling used to be accepted and hang).
      [['explore', 'kip1023-bootstrap', '--exhaustive', '--settle-ms', '1000000000'], '--settle-ms (fault-free time before the liveness check, ms) expects a whole number from 0 to 3,600,000, got "1000000000"'],
      [['explore', 'kip1023-bootstrap', '--exhaustive', '--delay-ms', '3600001'], '--delay-ms (how late a late message is, ms) expects a whole number from 1 to 3,600,000'],
      [['explore', '--crashes', '1'], 'need --exhaustive'],
      [['explore', '--exhaustive'], 'explore --exhaustive needs exactly one scenario'],
      [['explore', 'kip1023-bootstrap', '--exhaustive', '--strategy', 'random'], '--strategy expects bfs'],
      [['explore', 'kip1023-bootstrap', '--exhaustive', '--plant-bug', 'typo'], '--plant-bug expects one of deleteBeforeUpload'],
      [['explore', 'kip1023-bootstrap', '--exhaustive', '--seeds', '5'], '--seeds is for the random swarm'],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args, dir);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  }, 120000);
});

describe('liveness is not judged while a late message is in flight', () => {
  test("the settling starts once the longest late message can have arrived (the scenario's until, plus delayMs with late messages, plus settleMs)", () => {
    const s = loadBundled('kip1023-bootstrap');
    expect(settleScenario(s, { settleMs: 30_000, delays: 0, delayMs: 60_000 }).until).toBe(s.until + 30_000);
    expect(settleScenario(s, { settleMs: 30_000, delays: 1, delayMs: 60_000 }).until).toBe(s.until + 90_000);
  });
});
