/**
 * Latency jitter (`model.jitter`; docs/scenario-format.md, "Jitter"): off by default, so a
 * scenario without it never advances the generator and runs as before; with it, the same
 * seed gives the same run and another seed other timings; every draw stays in its bounds;
 * bad values are reported with their path; the key survives the scenario's round trip.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { stringify as toYaml } from 'yaml';
import type { JitterDistribution } from '../core/domain/jitter.js';
import { parseScenarioText, validateScenario } from '../core/scenario/parse.js';
import { toScenarioFile } from '../core/scenario/serialize.js';
import type { InputProblem, ParseResult, Scenario } from '../core/scenario/types.js';
import { drawJitterMs } from '../core/sim/world/jitter.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import { nextUint32, seedPrng } from '../core/sim/state/prng.js';
import { type Loose, ROOT, loadBundled } from './support/run.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'jittered-fetch.yaml');
const bundled = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, '')).sort();

function ok(r: ParseResult): Scenario {
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.scenario;
}

function fixture(): Scenario {
  return ok(parseScenarioText(readFileSync(FIXTURE, 'utf8'), 'jittered-fetch.yaml'));
}

function run(s: Scenario, seed?: number): { kernel: Kernel; json: string } {
  const kernel = new Kernel(s, seed === undefined ? {} : { seed });
  kernel.runToEnd();
  return { kernel, json: JSON.stringify(buildRunJson(kernel)) };
}

/** A scenario's JSON value with `model.jitter` replaced. */
function withJitter(s: Scenario, jitter: unknown): unknown {
  const raw = JSON.parse(JSON.stringify(toScenarioFile(s))) as Loose;
  raw.model = { ...(raw.model ?? {}), jitter };
  return raw;
}

const zero: JitterDistribution = { uniformMs: 0, tailPercent: 0, tailMs: 0 };

describe('off by default', () => {
  test.each(bundled)('%s: no draw, no jitter key in config or metrics', (name) => {
    // Goal: a scenario without model.jitter leaves the generator as seeded, so its run is the
    // one the model made before jitter existed (bench/golden.sh compares the bytes).
    const { kernel, json } = run(loadBundled(name));
    expect(kernel.state.prng).toEqual(seedPrng(kernel.seed));
    const doc = JSON.parse(json) as Loose;
    expect(doc.config.model).not.toHaveProperty('jitter');
    expect(doc.metrics).not.toHaveProperty('jitter');
  });

  test.each(bundled)('%s: distributions of 0 ms draw nothing and change nothing else', (name) => {
    // Method: every hop and store given a distribution that cannot add anything; the JSON,
    // but for the echoed key and the (zero) counters, is the run without jitter.
    const plain = run(loadBundled(name)).json;
    const s = ok(validateScenario(withJitter(loadBundled(name), { network: zero, stores: { tiered: zero, wal: zero } })));
    const { kernel, json } = run(s);
    expect(kernel.state.prng).toEqual(seedPrng(kernel.seed));
    const doc = JSON.parse(json) as Loose;
    expect(doc.metrics.jitter.network.addedMs + doc.metrics.jitter.tiered.addedMs + doc.metrics.jitter.wal.addedMs).toBe(0);
    delete doc.config.model.jitter;
    delete doc.metrics.jitter;
    expect(JSON.stringify(doc)).toBe(plain);
  });
});

describe('seeded', () => {
  test('the same seed gives byte-identical runs', () => {
    const s = fixture();
    expect(run(s, 5).json).toBe(run(s, 5).json);
    expect(run(s).json).toBe(run(s, s.seed).json);
  });

  test('a checkpoint holds the generator: a restored run draws what the uninterrupted one did', () => {
    const s = fixture();
    const full = run(s, 3).json;
    const k = new Kernel(s, { seed: 3 });
    for (let i = 0; i < 100; i++) k.step();
    const restored = Kernel.restore(s, JSON.parse(JSON.stringify(k.checkpoint())));
    restored.runToEnd();
    expect(JSON.stringify(buildRunJson(restored))).toBe(full);
  });

  test('different seeds give different timings, and the same outcome', () => {
    const s = fixture();
    const runs = [1, 2, 3, 4].map((seed) => JSON.parse(run(s, seed).json) as Loose);
    const timings = runs.map((r) => JSON.stringify((r.trace as Loose[]).filter((e) => e.type === 'response').map((e) => e.atMs)));
    expect(new Set(timings).size).toBe(runs.length);
    for (const r of runs) {
      expect(r.violations).toEqual([]);
      expect(r.metrics.jitter.network.count).toBeGreaterThan(0);
      expect(r.metrics.jitter.tiered.count).toBeGreaterThan(0);
      expect(r.partitions[0].isr).toEqual([0, 1, 2]);
      for (const rep of r.partitions[0].replicas) expect(rep.logEndOffset).toBe(600);
    }
  });

  test('a link gets its own distribution, in either direction; other hops keep their latency', () => {
    // Method: only the link 0-1 jitters (written '1-0'); broker 2's conversation with the
    // leader is then the one of the run without jitter, and every draw is one of 0-1's hops.
    const raw = {
      name: 'link', brokers: 3, until: 3000,
      topics: [{ name: 't', partitions: 1, replicas: [[0, 1, 2]] }],
      timeline: [{ at: 100, produce: { topic: 't', partition: 0, records: 10, everyMs: 100 } }],
    };
    const s = ok(validateScenario({ ...raw, model: { jitter: { links: { '1-0': { uniformMs: 50 } } } } }));
    expect(s.model.jitter?.links).toEqual({ '0-1': { uniformMs: 50, tailPercent: 0, tailMs: 0 } });
    const jittered = run(s, 9).kernel;
    const plain = run(ok(validateScenario(raw))).kernel;
    const withBroker = (trace: Loose[], b: number) => trace.filter((e) => (e.type === 'request' && e.source === b) || (e.type === 'response' && e.target === b)).map((e) => [e.type, e.atMs, e.api]);
    expect(withBroker(jittered.trace, 2)).toEqual(withBroker(plain.trace, 2));
    expect(withBroker(jittered.trace, 1)).not.toEqual(withBroker(plain.trace, 1));
    const m = jittered.state.metrics.jitter!;
    const hops = withBroker(jittered.trace, 1).length;
    // Every request from 1 and response to 1 drew once; at the end one answer may still be on its way.
    expect(m.network.count).toBeGreaterThanOrEqual(hops);
    expect(m.network.count).toBeLessThanOrEqual(hops + 1);
    expect(m.network.maxMs).toBeLessThanOrEqual(50);
    expect(m.network.maxMs).toBeGreaterThan(0);
  });
});

describe('draws stay in bounds', () => {
  const dist = fc.record({
    uniformMs: fc.integer({ min: 0, max: 1000 }),
    tailPercent: fc.integer({ min: 0, max: 100 }),
    tailMs: fc.integer({ min: 0, max: 5000 }),
  });

  test('every draw is an integer from 0 to uniformMs (+ tailMs with a tail)', () => {
    fc.assert(
      fc.property(dist, fc.integer({ min: 0, max: 0xffffffff }), (d, seed) => {
        const prng = seedPrng(seed);
        const tail = d.tailPercent > 0 ? d.tailMs : 0;
        for (let i = 0; i < 50; i++) {
          const x = drawJitterMs(prng, d);
          if (!Number.isInteger(x) || x < 0 || x > d.uniformMs + tail) return false;
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  test('a distribution that cannot add anything does not advance the generator', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 }), (seed, tailPercent, tailMs) => {
        const prng = seedPrng(seed);
        const before = [...prng];
        const d = { uniformMs: 0, tailPercent: tailMs === 0 ? tailPercent : 0, tailMs: tailPercent === 0 ? tailMs : 0 };
        return drawJitterMs(prng, d) === 0 && JSON.stringify(prng) === JSON.stringify(before);
      }),
    );
  });

  test('every value of the range comes up, and the tail about as often as asked', () => {
    const prng = seedPrng(42);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) seen.add(drawJitterMs(prng, { uniformMs: 9, tailPercent: 0, tailMs: 0 }));
    expect([...seen].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // uniformMs 0 and a tail of exactly 1000 ms or 0: the tail's share of 10,000 draws.
    let tails = 0;
    for (let i = 0; i < 10_000; i++) if (drawJitterMs(prng, { uniformMs: 0, tailPercent: 10, tailMs: 1000 }) > 0) tails++;
    expect(tails).toBeGreaterThan(900);
    expect(tails).toBeLessThan(1100);
  });

  test('the same seed draws the same sequence (integer maths only)', () => {
    const a = seedPrng(7);
    const b = seedPrng(7);
    const d = { uniformMs: 20, tailPercent: 5, tailMs: 200 };
    const xs = Array.from({ length: 200 }, () => drawJitterMs(a, d));
    expect(Array.from({ length: 200 }, () => drawJitterMs(b, d))).toEqual(xs);
    // Pinned: the first draws of seed 7, so another engine (or a change to prng.ts) shows up here.
    expect(xs.slice(0, 12)).toEqual([5, 19, 7, 2, 10, 7, 13, 13, 12, 207, 7, 14]);
    expect(nextUint32(seedPrng(1))).toBe(1828152527);
  });

  test('in a run: produce acks=1 latencies stay within the round trip plus twice the network bound', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 30 }), (seed, uniformMs) => {
        const s = ok(validateScenario({
          name: 'p', brokers: 2, zones: ['a', 'b'], until: 2000,
          model: { jitter: { network: { uniformMs } } },
          topics: [{ name: 't', partitions: 1, replicas: [[0, 1]] }],
          timeline: [{ at: 10, produce: { topic: 't', partition: 0, records: 5, everyMs: 50 } }],
        }));
        const k = new Kernel(s, { seed });
        k.runToEnd();
        const lat = k.state.produceLatencies.acks1;
        const m = k.state.metrics.jitter!;
        // The producer sits in the leader's zone: two hops of 1 ms.
        return lat.length > 0 && lat.every((x) => x >= 2 && x <= 2 + 2 * uniformMs) && m.network.maxMs <= uniformMs && k.state.violations.length === 0;
      }),
      { numRuns: 25 },
    );
  });
});

describe('validation', () => {
  const base = () => ({
    name: 'v', brokers: 3, until: 1000,
    topics: [{ name: 't', partitions: 1, replicas: [[0, 1]] }],
  });
  const problems = (jitter: unknown, extra: Loose = {}): InputProblem[] => {
    const r = validateScenario({ ...base(), ...extra, model: { jitter } });
    return r.ok ? [] : r.problems;
  };

  test.each<[string, unknown, string, RegExp]>([
    ['not a map', 5, 'model.jitter', /expected a map of what jitters \(network, links, stores\), got 5/],
    ['an unknown key', { net: {} }, 'model.jitter.net', /unknown key 'net' of model.jitter; expected one of network, links, stores/],
    ['an unknown distribution key', { network: { uniform: 2 } }, 'model.jitter.network.uniform', /unknown key 'uniform' of a jitter distribution; expected one of uniformMs, tailPercent, tailMs/],
    ['a negative value', { network: { uniformMs: -1 } }, 'model.jitter.network.uniformMs', /expected an integer from 0 to 600000 \(ms\), got -1/],
    ['a fraction', { stores: { wal: { uniformMs: 1.5 } } }, 'model.jitter.stores.wal.uniformMs', /expected an integer from 0 to 600000 \(ms\), got 1.5/],
    ['a string', { network: { uniformMs: '2' } }, 'model.jitter.network.uniformMs', /got "2"/],
    ['a percent above 100', { network: { uniformMs: 1, tailPercent: 101, tailMs: 5 } }, 'model.jitter.network.tailPercent', /expected an integer from 0 to 100 \(percent\), got 101/],
    ['a tail without tailMs', { network: { tailPercent: 5 } }, 'model.jitter.network.tailMs', /tailPercent 5 needs tailMs/],
    ['a tail without tailPercent', { network: { tailMs: 50 } }, 'model.jitter.network.tailPercent', /tailMs 50 needs tailPercent/],
    ['a distribution that is not a map', { network: 2 }, 'model.jitter.network', /expected a jitter distribution, a map of uniformMs, tailPercent, tailMs/],
    ['an unknown store', { stores: { s3: { uniformMs: 1 } } }, 'model.jitter.stores.s3', /unknown object store 's3'; expected one of tiered, wal/],
    ['a link that is not A-B', { links: { '1_2': { uniformMs: 1 } } }, 'model.jitter.links["1_2"]', /expected a link "A-B" between two brokers \(their ids, e.g. "0-1"\), got "1_2"/],
    ['a link with a leading zero', { links: { '01-2': { uniformMs: 1 } } }, 'model.jitter.links["01-2"]', /expected a link "A-B"/],
    ['a link from a broker to itself', { links: { '1-1': { uniformMs: 1 } } }, 'model.jitter.links["1-1"]', /'1-1' names broker 1 twice/],
    ['a link to a broker that does not exist', { links: { '0-7': { uniformMs: 1 } } }, 'model.jitter.links["0-7"]', /no broker 7 in the scenario; a link joins two of the brokers 0 .. 2 \(brokers: 3\)/],
    ['a link given twice', { links: { '1-2': { uniformMs: 1 }, '2-1': { uniformMs: 2 } } }, 'model.jitter.links["2-1"]', /the link between brokers 1 and 2 is already given as '1-2'/],
  ])('%s', (_, jitter, path, message) => {
    const found = problems(jitter);
    expect(found.map((p) => p.path)).toEqual([path]);
    expect(found[0].message).toMatch(message);
  });

  test('a link may name a broker an addBroker event adds', () => {
    const timeline = [{ at: 10, addBroker: {} }];
    expect(problems({ links: { '0-3': { uniformMs: 1 } } }, { timeline })).toEqual([]);
    const bad = problems({ links: { '0-4': { uniformMs: 1 } } }, { timeline });
    expect(bad.map((p) => p.message)).toEqual([expect.stringMatching(/no broker 4 in the scenario; a link joins two of the brokers 0 .. 3 \(brokers: 3, and 1 added by addBroker\)/)]);
  });

  test('null and empty maps are accepted; defaults are filled in', () => {
    expect(ok(validateScenario({ ...base(), model: { jitter: null } })).model).toEqual({});
    expect(ok(validateScenario({ ...base(), model: { jitter: {} } })).model).toEqual({ jitter: {} });
    expect(ok(validateScenario({ ...base(), model: { jitter: { network: {}, stores: { wal: { uniformMs: 3 } } } } })).model.jitter).toEqual({
      network: zero,
      stores: { wal: { uniformMs: 3, tailPercent: 0, tailMs: 0 } },
    });
  });

  test('a setConfig cannot change jitter; unknown model keys list it', () => {
    const r = validateScenario({ ...base(), timeline: [{ at: 1, setConfig: { jitter: {} } }] });
    expect(r.ok ? [] : r.problems.map((p) => p.message)).toEqual([expect.stringMatching(/'jitter' is a model knob and cannot be changed during a run/)]);
    const u = validateScenario({ ...base(), model: { jiter: {} } });
    expect(u.ok ? [] : u.problems.map((p) => p.message)).toEqual([expect.stringMatching(/unknown model knob 'jiter'; expected one of .*clientZone, jitter$/)]);
  });

  test('YAML text: problems, never a throw', () => {
    const text = readFileSync(FIXTURE, 'utf8').replace('uniformMs: 30', 'uniformMs: -30');
    const r = parseScenarioText(text, 'x.yaml');
    expect(r.ok ? [] : r.problems).toEqual([{ path: 'model.jitter.stores.tiered.uniformMs', message: 'expected an integer from 0 to 600000 (ms), got -30' }]);
  });
});

describe('the scenario file', () => {
  test('toScenarioFile keeps the key: JSON and YAML read back as the same scenario', () => {
    const s = fixture();
    expect(toScenarioFile(s).model).toEqual({ jitter: s.model.jitter });
    expect(ok(parseScenarioText(JSON.stringify(toScenarioFile(s)), 'x.json'))).toEqual(s);
    expect(ok(parseScenarioText(toYaml(toScenarioFile(s)), 'x.yaml'))).toEqual(s);
  });

  test('a link written high id first reads back as the same scenario', () => {
    const s = ok(validateScenario({ ...{ name: 'r', brokers: 3, until: 100, topics: [{ name: 't', partitions: 1, replicas: [[0]] }] }, model: { recordBytes: 10, jitter: { links: { '2-0': { uniformMs: 4, tailPercent: 1, tailMs: 9 } } } } }));
    expect(s.model).toEqual({ recordBytes: 10, jitter: { links: { '0-2': { uniformMs: 4, tailPercent: 1, tailMs: 9 } } } });
    expect(ok(parseScenarioText(JSON.stringify(toScenarioFile(s)), 'x.json'))).toEqual(s);
  });

  test('the example of docs/scenario-format.md, "Jitter", is valid', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'scenario-format.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Jitter'));
    const example = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const text = `name: x\nbrokers: 3\nuntil: 100\ntopics: [{ name: t, partitions: 1, replicas: [[0, 1, 2]] }]\n${example}`;
    expect(ok(parseScenarioText(text, 'doc.yaml')).model.jitter).toMatchObject({
      network: { uniformMs: 2 },
      links: { '0-2': { uniformMs: 20, tailPercent: 5, tailMs: 200 } },
      stores: { tiered: { uniformMs: 30 }, wal: { uniformMs: 4, tailPercent: 1, tailMs: 50 } },
    });
  });
});

describe('CLI', () => {
  const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
  const CLI = join(ROOT, 'src', 'cli', 'main.ts');
  const cli = (...args: string[]) => {
    const r = spawnSync(TSX, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  test('--seed changes a jittered run, and the summary says the seed drew', () => {
    const a = cli('run', FIXTURE, '--seed', '1', '--json');
    const b = cli('run', FIXTURE, '--seed', '2', '--json');
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.stderr).toBe('');
    const ja = JSON.parse(a.stdout) as Loose;
    const jb = JSON.parse(b.stdout) as Loose;
    expect([ja.seed, jb.seed]).toEqual([1, 2]);
    expect(JSON.stringify({ ...ja, seed: 0 })).not.toBe(JSON.stringify({ ...jb, seed: 0 }));
    expect(ja.config.model.jitter.links).toEqual({ '0-2': { uniformMs: 20, tailPercent: 5, tailMs: 200 } });
    expect(ja.metrics.jitter.network.count).toBeGreaterThan(0);
    const n = cli('run', FIXTURE, '--seed', '2');
    expect(n.code).toBe(0);
    expect(n.stderr).toBe('');
    expect(n.stdout).toMatch(/latency jitter drawn from the seed \(model\.jitter\): network \+0\.\.2 ms; link 0-2 \+0\.\.20 ms, 5% \+0\.\.200 ms more; tiered store \+0\.\.30 ms/);
    expect(n.stdout).toMatch(/seed: 2 drew the jittered latencies \(\d+ network hops, \d+ store requests\), so another seed gives another run/);
    expect(n.stdout).not.toMatch(/nothing in this run was drawn at random/);
  });
});
