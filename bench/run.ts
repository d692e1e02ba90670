/**
 * `npm run bench`: the performance figures of issue 9, each printed beside its budget.
 *
 *   1. kernel: wall time of the reference hour (bench/workloads.ts: 3 brokers, 50 tiered
 *      partitions with RF 3, 5 MB/s, 3,600,000 simulated ms), three runs in fresh
 *      processes, the fastest the figure (all shown); events per second on it and on every
 *      bundled scenario. Budget: the hour in at most 5 s.
 *   2. xstate: the same workload with the machines replaced by a no-op handler that returns
 *      what they returned (bench/xstate-overhead.ts), in pairs. Budget: real / no-op at most 3.
 *   3. scaling: 10x the records at the same segment count (at most 1.2x the time and the
 *      memory), 10x the segments (at most 10x) (bench/scaling.ts, in rounds).
 *   4. seeking: step back and jump anywhere in a 100,000-event session (bench/seek.ts).
 *      Budget: p95 50 ms.
 *   5. memory: peak heap of the reference hour, the largest of its runs. Budget: 300 MB.
 *   6. page: first-load JavaScript gzipped (200 KB) and frame work p95 playing the largest
 *      bundled scenario at full speed in Chromium (16.7 ms) (bench/page.ts).
 *   7. stores: the S3 adapter's upload throughput against the raw SDK, on s3rver
 *      (bench/s3-upload.ts). Budget: at least 0.9.
 *   8. history: one record every 1 ms on one partition (bench/one-record-per-ms.yaml), as
 *      classic KIP-405 and with KIP-1176's WAL: the CPU time per step of the last 100,000
 *      steps of a 600,000-step run over that of the first 100,000 (bench/history.ts).
 *      Budget: at most 1.5 in each mode.
 *   9. checker: the exhaustive search (docs/checking.md) on small bundled scenarios with one
 *      crash and one store fault, and each deliberate bug's time to detection, exhaustive
 *      against the random swarm (bench/checker.ts). Budget: KIP-1023's bootstrap (2
 *      brokers, one crash, one store fault) exhausted in at most 300 s.
 *  10. whatif-1tib: the what-if of bench/whatif-1tib.yaml (1 TiB tiered only and 50 GiB
 *      local in 1 GiB segments, RF 3, a replica added on a 4th broker), classic and KIP-1023,
 *      each run headless in a fresh process until the new replica joins the ISR
 *      (bench/whatif-1tib.ts), the initial log's layout included. Budget: 5 s each. The
 *      smoke runs 64 GiB and 5 GiB.
 *
 * Options: `--json` prints one JSON document; `--smoke` runs small versions of every part
 * (CI: checks the benchmark works, enforces no budget); `--only kernel,xstate,...` runs
 * some parts. Exit code 1 when a budget is missed (not with --smoke) or a part fails.
 *
 * This machine's speed changes by up to twice from one minute to the next (a virtual
 * machine with other tenants: the same run takes 230 ms or 430 ms, and switches within a
 * process). So each measured part runs in a child process of its own (a fresh heap,
 * `--expose-gc`); what is compared is measured side by side, a moment apart (pairs,
 * rounds, segment by segment), and the figure is the median of the comparisons; the
 * hour's absolute time is the fastest of three runs, with all three printed.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScenarioText } from '../core/scenario/parse.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import type { RunFigures, RunSpec } from './kernel-run.js';
import { measurePage } from './page.js';
import type { S3UploadFigures } from './s3-upload.js';
import type { ScalingFigures, ScalingSpec } from './scaling.js';
import type { HistoryFigures, HistorySpec } from './history.js';
import type { SeekFigures, SeekSpec } from './seek.js';
import type { CheckerFigures, CheckerSpec } from './checker.js';
import { REFERENCE, type WorkloadOptions } from './workloads.js';
import type { XStateFigures, XStateSpec } from './xstate-overhead.js';
import type { WhatIfFigures, WhatIfSpec } from './whatif-1tib.js';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const argv = process.argv.slice(2);
const json = argv.includes('--json');
const smoke = argv.includes('--smoke');
const onlyAt = argv.indexOf('--only');
const PARTS = ['kernel', 'xstate', 'scaling', 'seeking', 'memory', 'page', 'stores', 'history', 'checker', 'whatif-1tib'] as const;
type Part = (typeof PARTS)[number];
const only = new Set<string>(onlyAt >= 0 ? (argv[onlyAt + 1] ?? '').split(',') : PARTS);
for (const p of only) {
  if (!(PARTS as readonly string[]).includes(p)) {
    process.stderr.write(`bench: --only: unknown part "${p}"; the parts are ${PARTS.join(', ')}\n`);
    process.exit(2);
  }
}

/** Sizes: the real benchmark, or the smoke (seconds, for CI). */
const SIZE = smoke
  ? {
      hour: { partitions: 50, durationMs: 20_000 } as WorkloadOptions,
      xstate: { workload: { durationMs: 5_000 }, pairs: 1, warmup: 1 } as XStateSpec,
      scaleBase: { durationMs: 10_000 } as WorkloadOptions,
      scaleRepeats: 1,
      hourRuns: 1,
      seek: { events: 5_000, backs: 10, jumps: 20 } as SeekSpec,
      s3: { segments: 4, warmup: 1, rounds: 3 },
      scenarioRepeats: 1,
      history: { steps: 60_000, window: 10_000 } as HistorySpec,
      checker: { scenarios: ['kip1023-bootstrap', 'classic-two-rounds'], bugs: true, swarmSeeds: 200 } as CheckerSpec,
      whatif: { size: 'smoke' } as WhatIfSpec,
    }
  : {
      hour: {} as WorkloadOptions,
      xstate: { workload: { durationMs: 60_000 }, pairs: 9, warmup: 4, withXState: true } as XStateSpec,
      scaleBase: { durationMs: 600_000 } as WorkloadOptions,
      scaleRepeats: 3,
      hourRuns: 3,
      seek: { events: 100_000, backs: 40, jumps: 120 } as SeekSpec,
      s3: {},
      scenarioRepeats: 3,
      history: { steps: 600_000, window: 100_000 } as HistorySpec,
      checker: {
        scenarios: ['kip1023-bootstrap', 'classic-one-round', 'classic-two-rounds', 'kip1023-epuo-above-local-start', 'kip1023-epuo-below-log-start', 'kip1023-no-jump', 'kip1023-stale-epuo', 'kip1023-remote-storage-error', 'rlm-upload-and-local-retention', 'classic-promoted-follower-local-reads', 'kip1023-promoted-follower-remote-reads', 'remote-retention-under-bootstrap'],
        bugs: true,
        swarmSeeds: 2000,
      } as CheckerSpec,
      whatif: { size: 'full' } as WhatIfSpec,
    };

interface Figure {
  part: Part;
  name: string;
  value: number;
  unit: string;
  budget: number;
  /** The value must be at most (`<=`) or at least (`>=`) the budget. */
  cmp: '<=' | '>=';
  ok: boolean;
}

const figures: Figure[] = [];
const details: Record<string, unknown> = {};
const errors: Array<{ part: Part; error: string }> = [];

function figure(part: Part, name: string, value: number, unit: string, cmp: '<=' | '>=', budget: number): void {
  const ok = cmp === '<=' ? value <= budget : value >= budget;
  const f: Figure = { part, name, value, unit, budget, cmp, ok };
  figures.push(f);
  if (!json) {
    const v = `${value} ${unit}`.trim();
    const b = `budget ${cmp === '<=' ? '<=' : '>='} ${budget} ${unit}`.trim();
    console.log(`  ${name.padEnd(58)} ${v.padStart(14)}   ${b.padEnd(24)} ${ok ? 'ok' : smoke ? 'missed (smoke: not enforced)' : 'MISSED'}`);
  }
}

function note(text: string): void {
  if (!json) console.log(`    ${text}`);
}

function heading(text: string): void {
  if (!json) console.log(`\n${text}`);
}

/** Runs a bench script in a child process of its own and returns its JSON answer. */
function child<T>(script: string, spec: unknown): T {
  const r = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=4096', '--import', 'tsx', join(root, 'bench', script), JSON.stringify(spec), '--json'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  // A script may exit 1 for a budget it judged itself (s3-upload.ts): its result still counts.
  const line = r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if ((r.status !== 0 && r.status !== 1) || line === undefined) {
    throw new Error(`${script} failed (exit ${r.status ?? r.signal}): ${(r.stderr || r.stdout).trim().split('\n').slice(-5).join(' | ')}`);
  }
  return JSON.parse(line) as T;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (bytes: number) => +(bytes / 1e6).toFixed(1);

async function part(p: Part, fn: () => void | Promise<void>): Promise<void> {
  if (!only.has(p)) return;
  try {
    await fn();
  } catch (e) {
    errors.push({ part: p, error: (e as Error).message });
    if (!json) console.log(`  ${p}: FAILED: ${(e as Error).message}`);
  }
}

function bundledScenarios() {
  const dir = join(root, 'scenarios');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      const r = parseScenarioText(readFileSync(join(dir, f), 'utf8'), f);
      if (!r.ok) throw new Error(`${f} is not valid`);
      return { id: basename(f, '.yaml'), scenario: r.scenario };
    });
}

async function main(): Promise<void> {
  const started = performance.now();
  const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? '', node: process.version, loadAverage1m: +loadavg()[0].toFixed(2) };
  if (!json) console.log(`TierScope benchmark${smoke ? ' (smoke: small sizes, budgets not enforced)' : ''}: node ${machine.node}, ${machine.cpus} cores, load ${machine.loadAverage1m}`);

  // The bundled scenarios: events per second, and which is largest (the page plays it).
  let largest = 'steady-state-upload';
  if (only.has('kernel') || only.has('page')) {
    let most = -1;
    const perScenario: Record<string, { steps: number; eventsPerSecond: number }> = {};
    let steps = 0;
    let ms = 0;
    for (const { id, scenario } of bundledScenarios()) {
      new Kernel(scenario).runToEnd(); // warm-up
      const times: number[] = [];
      let n = 0;
      for (let r = 0; r < SIZE.scenarioRepeats; r++) {
        const t = performance.now();
        const k = new Kernel(scenario);
        k.runToEnd();
        times.push(performance.now() - t);
        n = k.state.stepCount;
      }
      const m = median(times);
      perScenario[id] = { steps: n, eventsPerSecond: Math.round((n / m) * 1000) };
      steps += n;
      ms += m;
      if (n > most) {
        most = n;
        largest = id;
      }
    }
    details.bundledScenarios = { events: steps, ms: Math.round(ms), eventsPerSecond: Math.round((steps / ms) * 1000), largest, perScenario };
  }

  let hours: RunFigures[] | undefined;
  /** The hour in child processes one after another; each a fresh process, all figures kept. */
  const runHours = (): RunFigures[] => {
    const out: RunFigures[] = [];
    for (let i = 0; i < SIZE.hourRuns; i++) out.push(child<RunFigures>('kernel-run.ts', { workload: SIZE.hour, maxWallMs: smoke ? 60_000 : 600_000 } satisfies RunSpec));
    return out;
  };
  await part('kernel', () => {
    heading('1. Kernel throughput');
    hours = runHours();
    // The fastest run is the figure: this machine's speed changes by up to twice from one
    // minute to the next (other tenants), the same code taking 8 s or 15 s; every run is shown.
    const sorted = [...hours].sort((a, b) => (a.complete ? a.wallMs : Infinity) - (b.complete ? b.wallMs : Infinity));
    const hour = sorted[0];
    details.hour = { workload: { ...REFERENCE, ...SIZE.hour }, runs: hours, fastest: hour.wallMs };
    const simulated = `${(hour.simulatedMs / 1000).toFixed(0)} s simulated`;
    const label = hours.length > 1 ? `fastest of ${hours.length} runs` : 'wall time';
    figure('kernel', `reference workload (${simulated}${hour.complete ? '' : ', STOPPED EARLY'}): ${label}`, hour.complete ? hour.wallMs : Number.POSITIVE_INFINITY, 'ms', '<=', 5_000);
    if (hours.length > 1) note(`runs: ${hours.map((h) => `${h.wallMs} ms`).join(', ')} (median ${sorted[Math.floor(sorted.length / 2)].wallMs} ms)`);
    note(`${hour.steps} events, ${hour.eventsPerSecond} events/s (fastest run), ${hour.traceEntries} trace entries, ${hour.remoteSegments} remote segments, ${mb(hour.producedBytes)} MB produced`);
    const b = details.bundledScenarios as { events: number; eventsPerSecond: number; largest: string };
    note(`bundled scenarios: ${b.events} events at ${b.eventsPerSecond} events/s (largest: ${b.largest})`);
  });

  await part('xstate', () => {
    heading('2. XState overhead');
    const x = child<XStateFigures>('xstate-overhead.ts', SIZE.xstate);
    details.xstate = { workload: SIZE.xstate.workload, ...x };
    figure('xstate', 'real machines / no-op handler (median of pairs)', x.ratio, 'x', '<=', 3);
    note(`${x.steps} events, ${x.transitions} transitions; real ${x.realMs.join(', ')} ms; no-op ${x.noopMs.join(', ')} ms; ${x.usPerTransition} us a transition`);
    if (x.xstateRatio !== undefined) note(`with XState's own transition() stepping the machines instead: ${x.xstateMs!.join(', ')} ms, ${x.xstateRatio}x the no-op run, ${x.xstateUsPerTransition} us a transition`);
  });

  await part('scaling', () => {
    heading('3. Scaling');
    const x = child<ScalingFigures>('scaling.ts', { workload: SIZE.scaleBase, rounds: SIZE.scaleRepeats } satisfies ScalingSpec);
    details.scaling = x;
    figure('scaling', '10x records, same segments: time ratio', x.recordsTimeRatio, 'x', '<=', 1.2);
    figure('scaling', '10x records, same segments: memory ratio (held heap)', x.recordsMemoryRatio, 'x', '<=', 1.2);
    figure('scaling', '10x segments: time ratio', x.segmentsTimeRatio, 'x', '<=', 10);
    figure('scaling', '10x segments: memory ratio (held heap)', x.segmentsMemoryRatio, 'x', '<=', 10);
    for (const [name, v] of Object.entries(x.variants)) {
      note(`${name}: ${v.steps} events, ${v.remoteSegments} remote segments, ${mb(v.producedBytes)} MB produced; ${v.wallMs.join(', ')} ms; held ${v.heldHeapBytes.map(mb).join(', ')} MB`);
    }
  });

  await part('seeking', () => {
    heading('4. Seeking');
    const s = child<SeekFigures>('seek.ts', SIZE.seek);
    details.seeking = s;
    figure('seeking', `step back / jump in a ${s.events}-event session: p95`, s.p95Ms, 'ms', '<=', 50);
    note(`${s.visibleSteps} visible steps, played forward in ${s.forwardMs} ms; back p50/p95 ${s.backMsP50}/${s.backMsP95} ms, jump p50/p95 ${s.jumpMsP50}/${s.jumpMsP95} ms, max ${s.maxMs} ms`);
  });

  await part('memory', () => {
    heading('5. Memory');
    const hs = hours ?? runHours();
    // The largest peak of the runs (the hour's heap does not depend on the machine's speed,
    // but on when the collector ran).
    const h = [...hs].sort((a, b) => b.peakHeapBytes - a.peakHeapBytes)[0];
    figure('memory', `reference workload (${(h.simulatedMs / 1000).toFixed(0)} s simulated): peak heap${hs.length > 1 ? `, largest of ${hs.length} runs` : ''}`, mb(h.peakHeapBytes), 'MB', '<=', 300);
    note(`peaks ${hs.map((x) => mb(x.peakHeapBytes)).join(', ')} MB; held at the end ${mb(h.heldHeapBytes)} MB; largest resident set ${mb(Math.max(...hs.map((x) => x.maxRssBytes)))} MB`);
  });

  await part('page', () => {
    heading('6. The page');
    const scenario = smoke ? 'steady-state-upload' : largest;
    const p = measurePage(scenario);
    details.page = p;
    figure('page', 'first-load JavaScript, gzipped', +(p.firstLoadJsGzipBytes / 1000).toFixed(1), 'KB', '<=', 200);
    figure('page', `frame work p95, ${p.scenario} at full speed (${p.steps} steps)`, p.frameWorkMsP95, 'ms', '<=', 16.7);
    note(`${p.frames} frames, frame work p50 ${p.frameWorkMsP50} ms, max ${p.frameWorkMsMax} ms; p95 of its parts: stepping ${p.p95Parts.stepping}, state ${p.p95Parts.refresh}, DOM ${p.p95Parts.domUpdate}, layout ${p.p95Parts.layout} ms`);
    note(`animation frame interval p95 ${p.rafIntervalMsP95} ms; ${(p.lazyJsGzipBytes / 1000).toFixed(1)} KB more loaded on demand`);
  });

  await part('stores', () => {
    heading('7. Stores');
    // In a child process of its own too: the adapter encodes as it goes, so its side is the
    // one a busy heap or leftover work from the other parts would slow.
    const s = child<S3UploadFigures>('s3-upload.ts', SIZE.s3);
    details.stores = s;
    figure('stores', 'S3 adapter upload throughput / raw SDK (s3rver)', s.ratio, 'x', '>=', 0.9);
    note(`adapter ${s.adapterMiBps} MiB/s, raw SDK ${s.rawMiBps} MiB/s (${s.segments} segments a round, ${s.rounds} rounds)`);
  });

  await part('history', () => {
    heading('8. History: one record every 1 ms, a step late in the run against one early on');
    const runs: Record<string, HistoryFigures> = {};
    for (const mode of ['classic', 'wal'] as const) {
      const h = child<HistoryFigures>('history.ts', { ...SIZE.history, mode } satisfies HistorySpec);
      runs[mode] = h;
      const k = (n: number) => `${n / 1000}k`;
      figure('history', `${mode}: CPU per step, steps ${k(h.steps - h.window)}-${k(h.steps)} / 0-${k(h.window)}`, h.ratio, 'x', '<=', 1.5);
      note(`first ${h.firstUsPerStep} us a step (${h.firstStepsPerSecond} steps/s), last ${h.lastUsPerStep} us (${h.lastStepsPerSecond} steps/s); last / second window ${h.ratioToSecond}x; wall clock last / first ${h.wallRatio}x`);
      note(`windows of ${k(h.window)} steps, CPU ms: ${h.windowsCpuMs.join(', ')}; ${(h.simulatedMs / 1000).toFixed(0)} s simulated, ${h.traceEntries} trace entries, ${mb(h.heldHeapBytes)} MB held at the end`);
    }
    details.history = runs;
  });

  await part('checker', () => {
    heading('9. Checker: exhaustive search with one crash and one store fault; each deliberate bug, exhaustive against the swarm');
    const c = child<CheckerFigures>('checker.ts', SIZE.checker);
    details.checker = c;
    const goal = c.scenarios[0];
    figure('checker', `${goal.scenario} (${goal.brokers} brokers, 1 crash, 1 store fault) exhausted`, goal.exhausted ? goal.seconds : Infinity, 's', '<=', 300);
    for (const r of c.scenarios)
      note(`${r.scenario.padEnd(40)} ${String(r.distinctStates).padStart(8)} distinct states, ${r.exhausted ? 'exhausted' : 'NOT exhausted'}, depth ${r.depth}, ${r.seconds} s, ${r.statesPerSecond} states/s${Object.keys(r.known).length ? `; known: ${Object.entries(r.known).map(([k, n]) => `${k} in ${n} states`).join(', ')}` : ''}${r.newViolations ? `; ${r.newViolations} NEW VIOLATION(S)` : ''}`);
    for (const b of c.bugs)
      note(
        `${b.bug.padEnd(20)} on ${b.scenario}: exhaustive ${b.exhaustive.found ? `${b.exhaustive.states} states, ${b.exhaustive.seconds} s (${b.invariant}, path of ${b.exhaustive.depth})` : 'not found'}; swarm ${b.swarm.found ? `seed ${b.swarm.seed}: ${b.swarm.seeds} seeds, ${b.swarm.steps} steps, ${b.swarm.seconds} s` : `not found in ${b.swarm.seeds} seeds (${b.swarm.seconds} s)`}`,
      );
  });

  await part('whatif-1tib', () => {
    heading('10. What if: a replica added to a partition with 1 TiB tiered and 50 GiB local, until it joins the ISR');
    // Each mode in a fresh process of its own: neither runs on the other's warmed-up JIT.
    const runs = (['classic', 'kip1023'] as const).map((m) => child<WhatIfFigures>('whatif-1tib.ts', { ...SIZE.whatif, modes: [m] } satisfies WhatIfSpec));
    const w: WhatIfFigures = { size: runs[0].size, runs: runs.flatMap((x) => x.runs) };
    details.whatif = w;
    for (const r of w.runs) {
      figure('whatif-1tib', `${r.mode}: ${w.size.remoteGiB} GiB remote, ${w.size.localGiB} GiB local, to the ISR join`, r.joinedAtMs === null ? Number.POSITIVE_INFINITY : r.wallMs, 'ms', '<=', 5_000);
      note(`joined at ${r.joinedAtMs === null ? 'never' : `${(r.joinedAtMs / 1000).toFixed(1)} s`} simulated; ${r.fetchRounds} Fetch rounds, ${mb(r.bytesFetchedByFollowers)} MB fetched; ${r.steps} events, ${r.traceEntries} trace entries; setup ${r.setupMs} ms; peak heap ${mb(r.peakHeapBytes)} MB${r.violations ? `; ${r.violations} VIOLATION(S)` : ''}`);
    }
  });

  const missed = figures.filter((f) => !f.ok);
  const ok = errors.length === 0 && (smoke || missed.length === 0);
  const wallS = Math.round((performance.now() - started) / 1000);
  if (json) {
    console.log(JSON.stringify({ smoke, machine: { ...machine, loadAverage1mAtEnd: +loadavg()[0].toFixed(2) }, wallSeconds: wallS, ok, figures, errors, details }, null, 2));
  } else {
    console.log(`\n${figures.length - missed.length} of ${figures.length} figures within budget${errors.length ? `, ${errors.length} part(s) failed` : ''}${smoke ? ' (smoke: budgets not enforced)' : ''}; ${wallS} s, load ${loadavg()[0].toFixed(2)} at the end.`);
  }
  process.exitCode = ok ? 0 : 1;
}

void main();
