/**
 * `npm run coverage:machines`: transition coverage of every machine, from two sources:
 * the bundled scenarios run on the kernel (what a scenario shows), and the model-based
 * exploration of each machine over its event domain (explore-machines.ts), which replays
 * every generated path through the kernel's own step function. Complete means every state
 * and every guarded transition candidate was taken.
 */
import type { AnyStateMachine } from 'xstate';
import type { Scenario } from '../scenario/types.js';
import { Kernel } from '../sim/loop/kernel.js';
import { MACHINES, type MachineName } from '../sim/runtime/machines.js';
import { type CoverageReport, MachineCoverage } from './coverage.js';
import { type ExploreResult, exploreMachine, machineSpecs } from './explore-machines.js';

export interface MachineCoverageResult {
  machine: string;
  fromScenarios: { states: number; transitions: number };
  total: CoverageReport;
  explored: number;
  steps: number;
  failures: string[];
  /** Shortest generated event path to each state (event types). */
  paths: Record<string, string[]>;
}

export function machineCoverage(scenarios: Scenario[]): { machines: MachineCoverageResult[]; complete: boolean } {
  const names = Object.keys(MACHINES) as MachineName[];
  const fromScenarios = Object.fromEntries(names.map((n) => [n, new MachineCoverage(n, MACHINES[n] as unknown as AnyStateMachine)])) as Record<MachineName, MachineCoverage>;
  const total = Object.fromEntries(names.map((n) => [n, new MachineCoverage(n, MACHINES[n] as unknown as AnyStateMachine)])) as Record<MachineName, MachineCoverage>;
  for (const s of scenarios) {
    const k = new Kernel(s);
    k.onDeliver = (d) => {
      fromScenarios[d.name].record(d.before, d.event);
      total[d.name].record(d.before, d.event);
    };
    k.runToEnd();
  }
  const explored: Record<string, ExploreResult> = {};
  for (const spec of machineSpecs(MACHINES as unknown as Record<string, AnyStateMachine>)) explored[spec.name] = exploreMachine(spec, total[spec.name as MachineName]);
  const machines = names.map((n) => {
    const sc = fromScenarios[n].report();
    const e = explored[n];
    return {
      machine: n,
      fromScenarios: { states: sc.states.covered, transitions: sc.transitions.covered },
      total: total[n].report(),
      explored: e.explored,
      steps: e.steps,
      failures: e.failures,
      paths: Object.fromEntries(Object.entries(e.paths).map(([st, p]) => [st, p.map((x) => x.type)])),
    };
  });
  const complete = machines.every((m) => m.total.missedStates.length === 0 && m.total.missedTransitions.length === 0 && m.failures.length === 0);
  return { machines, complete };
}

export function formatMachineCoverage(r: ReturnType<typeof machineCoverage>): string {
  const lines: string[] = [];
  for (const m of r.machines) {
    const t = m.total;
    lines.push(
      `${m.machine.padEnd(12)} states ${t.states.covered}/${t.states.total}, transitions ${t.transitions.covered}/${t.transitions.total}` +
        `  (bundled scenarios alone: ${m.fromScenarios.states} states, ${m.fromScenarios.transitions} transitions; generated: ${m.explored} abstract states, ${m.steps} steps)`,
    );
    for (const s of t.missedStates) lines.push(`    never reached: ${s}`);
    for (const x of t.missedTransitions) lines.push(`    never taken:   ${x}`);
    for (const f of m.failures) lines.push(`    CHECK FAILED:  ${f}`);
  }
  lines.push(r.complete ? 'coverage complete: every state and transition of every machine was taken' : 'coverage INCOMPLETE');
  return lines.join('\n');
}
