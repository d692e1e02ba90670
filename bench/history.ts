/**
 * History (figure 8): does a step cost more late in a run than early on? The workload is
 * bench/one-record-per-ms.yaml (one partition, RF 3, one record every 1 ms with acks=all,
 * Kafka's default segment.bytes, so the active segment holds every record of the run), in
 * one of compare's modes (core/study/compare.ts: classic, kip1023, wal). One run of N steps
 * (600,000 by default) in a process of its own, as `run --json` makes it (the trace kept),
 * timed in windows of W steps (100,000). The figure is the cost per step of the last window
 * over that of the first. Budget: at most 1.5.
 *
 * A step's cost is the process's CPU time (user and system, the collector's and the
 * compiler's threads included), not the wall clock, which also counts the time the process
 * waited for a core on a machine shared with other work; wall times are reported beside.
 * The first window includes the JIT's warm-up and the run's young objects growing into the
 * shapes they keep (it took 1.5 to 2.5 times the second in the runs measured here, and
 * still 1.5 to 1.7 times the later ones after a throwaway run of 100,000 steps in the same
 * process had warmed the JIT), so the last window is
 * also compared with the second (`ratioToSecond`), which has neither: printed, not held to
 * the budget, since consecutive windows of one run are seconds apart and this machine's
 * speed changes by up to twice from one minute to the next.
 *
 *   node --expose-gc --import tsx bench/history.ts '{"mode": "wal", "steps": 600000, "window": 100000}'
 */
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScenarioText } from '../core/scenario/parse.js';
import type { Scenario } from '../core/scenario/types.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { type Mode, scenarioForMode } from '../core/study/compare.js';

export interface HistorySpec {
  mode?: Mode;
  /** Kernel steps of the run (default 600,000). */
  steps?: number;
  /** Steps of a window (default 100,000). */
  window?: number;
}

export interface HistoryFigures {
  mode: Mode;
  steps: number;
  window: number;
  /** The run's windows in order: CPU ms and wall-clock ms. */
  windowsCpuMs: number[];
  windowsMs: number[];
  /** CPU time per step of the first and the last window, us. */
  firstUsPerStep: number;
  lastUsPerStep: number;
  /** Steps per CPU second of the first and the last window. */
  firstStepsPerSecond: number;
  lastStepsPerSecond: number;
  /** The figure: the last window's CPU time over the first's. */
  ratio: number;
  /** The last window's CPU time over the second's (both after the JIT's warm-up). */
  ratioToSecond: number;
  /** The last window's wall-clock time over the first's. */
  wallRatio: number;
  simulatedMs: number;
  traceEntries: number;
  /** The heap after a full collection at the end, the run held (needs --expose-gc; else -1). */
  heldHeapBytes: number;
}

const root = resolve(fileURLToPath(import.meta.url), '../..');

/** The benchmark's workload: bench/one-record-per-ms.yaml. */
export function historyScenario(): Scenario {
  const file = join(root, 'bench', 'one-record-per-ms.yaml');
  // 600,000 steps are more than the work budget of a scenario file (core/scenario/budget.ts):
  // the benchmark runs it on purpose, so the budget is not applied.
  const r = parseScenarioText(readFileSync(file, 'utf8'), 'one-record-per-ms.yaml', { checkWork: false });
  if (!r.ok) throw new Error(`one-record-per-ms.yaml is not valid: ${r.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
  return r.scenario;
}

/** The process's CPU time so far, ms. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export function measureHistory(spec: HistorySpec): HistoryFigures {
  const mode = spec.mode ?? 'classic';
  const steps = spec.steps ?? 600_000;
  const window = spec.window ?? 100_000;
  if (steps < 3 * window || steps % window !== 0) throw new Error('history: steps must be a multiple of window, at least 3 windows');
  const k = new Kernel(scenarioForMode(historyScenario(), mode));
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let done = 0; done < steps; done += window) {
    const c = cpuMs();
    const t = performance.now();
    for (let i = 0; i < window; i++) if (!k.step()) throw new Error(`the workload ended after ${k.state.stepCount} steps`);
    wall.push(performance.now() - t);
    cpu.push(cpuMs() - c);
  }
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const first = cpu[0];
  const last = cpu[cpu.length - 1];
  const us = (ms: number) => +((ms * 1000) / window).toFixed(2);
  const perSecond = (ms: number) => Math.round((window / ms) * 1000);
  return {
    mode,
    steps,
    window,
    windowsCpuMs: cpu.map((x) => Math.round(x)),
    windowsMs: wall.map((x) => Math.round(x)),
    firstUsPerStep: us(first),
    lastUsPerStep: us(last),
    firstStepsPerSecond: perSecond(first),
    lastStepsPerSecond: perSecond(last),
    ratio: +(last / first).toFixed(2),
    ratioToSecond: +(last / cpu[1]).toFixed(2),
    wallRatio: +(wall[wall.length - 1] / wall[0]).toFixed(2),
    simulatedMs: k.state.nowMs,
    traceEntries: k.trace.length,
    heldHeapBytes: gc === undefined ? -1 : getHeapStatistics().used_heap_size,
  };
}

if (process.argv[1]?.endsWith('history.ts')) {
  const spec = JSON.parse(process.argv[2] ?? '{}') as HistorySpec;
  console.log(JSON.stringify(measureHistory(spec)));
}
