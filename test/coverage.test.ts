/**
 * Model-based tests, item 1: every state and transition of every machine is taken, by the
 * bundled scenarios on the kernel and by the generated exploration; and the coverage
 * measure itself notices what is never taken.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { assign, createMachine, initialTransition } from 'xstate';
import { describe, expect, test } from 'vitest';
import { MachineCoverage, machineGraph } from '../core/check/coverage.js';
import { formatMachineCoverage, machineCoverage } from '../core/check/machine-coverage.js';
import { ROOT, loadBundled } from './support/run.js';

describe('machine coverage', () => {
  test('every state and every transition of every machine is taken (npm run coverage:machines)', () => {
    const scenarios = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml')).map((f) => loadBundled(f.replace(/\.yaml$/, '')));
    const r = machineCoverage(scenarios);
    const text = formatMachineCoverage(r);
    expect(r.complete, text).toBe(true);
    expect(r.machines.map((m) => m.machine)).toEqual(['fetcher', 'leader', 'rlm', 'rlmExpiration', 'logRetention', 'walReplica', 'walCombiner']);
    // The generated paths reach states the bundled scenarios never do (e.g. a fenced follower).
    const fetcher = r.machines.find((m) => m.machine === 'fetcher')!;
    expect(fetcher.paths.failed.length).toBeGreaterThan(0);
    expect(fetcher.fromScenarios.transitions).toBeLessThan(fetcher.total.transitions.total);
    // The figures the README quotes under "Model-based tests".
    const sum = (f: (m: (typeof r.machines)[number]) => number) => r.machines.reduce((a, m) => a + f(m), 0);
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ')).toContain(
      `alone reach ${fetcher.fromScenarios.transitions} of the fetcher's ${fetcher.total.transitions.total} transitions; with the exploration, all of them ` +
        `(${sum((m) => m.total.transitions.total)} transitions and ${sum((m) => m.total.states.total)} states over the seven machines)`,
    );
  }, 120000);

  test('the measure reports a transition and a state nothing takes', () => {
    // Goal: coverage can fail. Method: a machine with a guard that is never true.
    const m = createMachine({
      initial: 'a',
      context: { n: 0 },
      states: {
        a: { on: { go: [{ guard: ({ context }) => context.n > 5, target: 'never' }, { target: 'b', actions: assign({ n: 1 }) }] } },
        b: { always: { target: 'a' } },
        never: {},
      },
    });
    const cov = new MachineCoverage('toy', m);
    const [s0] = initialTransition(m);
    cov.recordInitial(s0);
    cov.record(s0, { type: 'go' });
    const r = cov.report();
    expect(r.missedStates).toEqual(['never']);
    expect(r.missedTransitions).toEqual(['a --go[0]--> never']);
    expect(r.transitions).toEqual({ covered: 2, total: 3 });
    expect(r.states).toEqual({ covered: 2, total: 3 });
    expect([...machineGraph(m).transitions.values()].map((t) => t.id)).toContain('b --always[0]--> a');
  });
});
