/**
 * `compare --max-steps N` (issue 17, item 2): each mode's run may take at most N kernel
 * steps; a run that needs more stops the command with exit 2 and one line naming the mode
 * and the budget, as `run` does. A budget that every run fits changes nothing.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { Kernel } from '../core/sim/loop/kernel.js';
import { MODES, type Mode, StepBudgetExceeded, compare, scenarioForMode } from '../core/study/compare.js';
import { ROOT, loadBundled } from './support/run.js';

const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const CLI = join(ROOT, 'src', 'cli', 'main.ts');

function cli(...args: string[]) {
  const r = spawnSync(TSX, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const ID = 'wal-steady-state';
const scenario = loadBundled(ID);

/** The kernel steps each mode's run of the scenario takes, unbounded. */
const need = Object.fromEntries(
  MODES.map((m) => {
    const k = new Kernel(scenarioForMode(scenario, m));
    k.runToEnd();
    return [m, k.state.stepCount];
  }),
) as Record<Mode, number>;
const most = Math.max(...Object.values(need));

const LINE = (mode: Mode, n: number) =>
  new RegExp(`^compare: the ${mode} run stopped after ${n} steps at t=\\d+ms of ${scenario.until}ms; the scenario needs more \\(raise the budget with --max-steps N\\)\\n$`);

describe('compare --max-steps', () => {
  test('the workload: the classic run takes more steps than the WAL one', () => {
    // The cases below rely on it: a budget between the two stops only the classic run. (Its
    // followers take a Fetch per segment, and each produce spans three: docs/protocol.md §3.)
    expect(need.wal).toBeGreaterThan(100);
    expect(need.classic).toBeGreaterThan(need.wal);
  });

  test('a budget below the first mode\'s run: exit 2, one line naming that mode and the budget, nothing on stdout', () => {
    const n = need.classic - 1;
    const r = cli('compare', ID, '--max-steps', String(n));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(LINE('classic', n));
  });

  test('a budget the WAL run fits but the classic run does not (--modes wal,classic): the classic run is named', () => {
    const n = need.wal;
    expect(n).toBeLessThan(need.classic);
    const r = cli('compare', ID, '--modes', 'wal,classic', '--max-steps', String(n));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(LINE('classic', n));
  });

  test('with --json and --modes: no partial document, the selected mode named', () => {
    const r = cli('compare', ID, '--modes', 'wal', '--json', '--max-steps', '10');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(LINE('wal', 10));
  });

  test('a budget every run fits exactly: the same output as without one, table and JSON', () => {
    const table = cli('compare', ID, '--max-steps', String(most));
    expect(table.code).toBe(0);
    expect(table.stderr).toBe('');
    expect(table.stdout).toBe(cli('compare', ID).stdout);
    const json = cli('compare', ID, '--json', '--max-steps', String(most));
    expect(json.code).toBe(0);
    expect(json.stdout).toBe(cli('compare', ID, '--json').stdout);
    expect(JSON.parse(json.stdout).modes.map((m: { mode: string }) => m.mode)).toEqual([...MODES]);
  });

  test('a budget that is not a whole number from 1 is bad input', () => {
    for (const v of ['0', '-5', '1.5', 'many']) {
      const r = cli('compare', ID, '--max-steps', v);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('--max-steps');
    }
  });

  test('--help names the option', () => {
    const r = cli('compare', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--max-steps N');
  });
});

describe('compare() with maxSteps', () => {
  test('a budget every run fits gives the result without one', () => {
    expect(compare(scenario, MODES, undefined, { maxSteps: most })).toEqual(compare(scenario, MODES));
  });

  test('a run over the budget throws StepBudgetExceeded with its mode, the budget and where it stood', () => {
    let thrown: unknown;
    try {
      compare(scenario, ['wal', 'classic'], undefined, { maxSteps: need.wal });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(StepBudgetExceeded);
    const e = thrown as StepBudgetExceeded;
    expect({ mode: e.mode, maxSteps: e.maxSteps, untilMs: e.untilMs }).toEqual({ mode: 'classic', maxSteps: need.wal, untilMs: scenario.until });
    // Where the classic run stood after that many steps.
    const k = new Kernel(scenarioForMode(scenario, 'classic'));
    for (let i = 0; i < need.wal; i++) k.step();
    expect(e.atMs).toBe(k.nowMs);
  });
});
