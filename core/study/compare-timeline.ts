/**
 * The side-by-side view's timeline (issue 8): two runs of one workload in different
 * designs, resolved once and held in step by simulated time.
 *
 * Each side is a Session of `scenarioForMode(scenario, mode)`, run to its end once. While
 * it runs, every visible step records its time, its trace end and the figures of
 * `compare()`'s row as they stand after the step (`SidePoint`), so the view can show the
 * figures at any cursor without running again, and the charts sample the same points. The
 * last point is taken at the run's end (the clock at `until`), where the figures are
 * exactly `compare()`'s.
 *
 * The shared cursor is a time: the merged, distinct step times of both runs (and the end).
 * Each side shows its latest step at or before the cursor.
 *
 * Leaves out: user actions (the side-by-side view replays the scenario as written) and
 * anything drawn; the browser shell renders the data.
 */
import { Session } from '../session/session.js';
import type { Scenario } from '../scenario/types.js';
import { type CompareRow, type Mode, monthAtRate, rowOf, scenarioForMode, TraceFigures } from './compare.js';
import type { StoreName } from '../ports/object-store.js';
import { type CrossZoneBytes, costUsd, type StoreCounters } from '../sim/state/costs.js';
import { buildRunJson, latencySummary, type PartitionJson } from '../sim/loop/output.js';
import type { TraceEntry } from '../sim/state/trace.js';
import { firstNotBefore } from '../util/bisect.js';

/** The figures of a `CompareRow` as they stand at one moment of a run. */
export interface SidePoint {
  atMs: number;
  /** Record bytes followers fetched from leaders so far. */
  bytesFromLeader: number;
  /** Cross-zone bytes of all kinds so far. */
  crossZoneBytes: number;
  /** Billed requests (PUT, GET, DELETE) to the tiered store and to the fast (WAL) store. */
  tieredRequests: number;
  walRequests: number;
  /** Cost of the run so far (USD, rounded as the JSON output rounds it). */
  costUsd: number;
  /**
   * The cost so far scaled to 30 days at the same rate; null until the run has covered
   * MONTH_MIN_WINDOW_MS (core/study/compare.ts monthAtRate), as the CLI's row.
   */
  costUsdMonth: number | null;
  acksAllP50: number | null;
  /** Longest catch-up of a replica that has joined the ISR so far; null while none has. */
  catchUpMs: number | null;
  remoteReadsAfterFailover: number;
}

/** A run resolved to its end: per visible step its time, trace end and figures. */
export interface ResolvedSide {
  mode: Mode;
  /** The scenario with the mode's switches set (what the session runs). */
  scenario: Scenario;
  seed: number;
  /** Index = visible step: the simulated time after the step (non-decreasing). */
  stepTimes: number[];
  /** Index = visible step: the trace length after the step. */
  traceEnds: number[];
  /** Index = visible step: the figures after the step. */
  points: SidePoint[];
  /** The figures at the end of the run (the clock at `until`): `compare()`'s row. */
  end: SidePoint;
  row: CompareRow;
  /** The run's counters at its end: cross-zone bytes by kind, and each store's requests by kind. */
  endCounters: { crossZoneBytes: CrossZoneBytes; objectStore: Record<StoreName, StoreCounters> };
  endMs: number;
  /** The session, left at its last step; goTo(n) shows any step. */
  session: Session;
}

/** Most visible steps a side may have (a runaway scenario stops here). */
export const MAX_SIDE_STEPS = 200_000;

/**
 * Runs `scenario` in `mode` to its end once, recording every visible step. Deterministic:
 * a function of (scenario, mode, seed).
 */
export function resolveSide(scenario: Scenario, mode: Mode, seed: number = scenario.seed): ResolvedSide {
  const s = scenarioForMode(scenario, mode);
  const session = new Session(s, seed);
  const k0 = session.kernel;
  const stepTimes = [k0.state.nowMs];
  const traceEnds = [k0.trace.length];
  const points = [pointOf(session)];
  while (session.step < MAX_SIDE_STEPS && session.forward()) {
    stepTimes.push(session.kernel.state.nowMs);
    traceEnds.push(session.kernel.trace.length);
    points.push(pointOf(session));
  }
  // The session stops after the last event; compare() also runs out the clock to `until`
  // (storage is priced over time), which processes nothing more.
  const k = session.kernel;
  k.runToEnd();
  const json = buildRunJson(k);
  const row = rowOf(mode, json, k);
  const end = pointOf(session);
  // Catch-up and remote reads come from the trace, read as rowOf reads it (with the
  // partitions as they are at the end), one prefix per step.
  const figures = traceFigures(json.partitions, k.trace, traceEnds);
  for (let i = 0; i < points.length; i++) {
    points[i].catchUpMs = figures[i].catchUpMs;
    points[i].remoteReadsAfterFailover = figures[i].remoteReads;
  }
  end.catchUpMs = row.catchUpMs;
  end.remoteReadsAfterFailover = row.remoteReadsAfterFailover.count;
  const m = k.state.metrics;
  const endCounters = {
    crossZoneBytes: { ...m.crossZoneBytes },
    objectStore: { tiered: { ...m.objectStore.tiered }, wal: { ...m.objectStore.wal } },
  };
  return { mode, scenario: s, seed, stepTimes, traceEnds, points, end, row, endCounters, endMs: json.endMs, session };
}

function pointOf(session: Session): SidePoint {
  const k = session.kernel;
  const m = k.state.metrics;
  const cz = m.crossZoneBytes;
  const store = (c: { puts: number; gets: number; deletes: number }) => c.puts + c.gets + c.deletes;
  const now = k.state.nowMs;
  const cost = costUsd(cz, m.objectStore, k.state.usage, k.state.prices, now);
  const unrounded = costUsd(cz, m.objectStore, k.state.usage, k.state.prices, now, false).total;
  return {
    atMs: now,
    bytesFromLeader: m.bytesFetchedByFollowers,
    crossZoneBytes: cz.replication + cz.produce + cz.consume + cz.walMetadata,
    tieredRequests: store(m.objectStore.tiered),
    walRequests: store(m.objectStore.wal),
    costUsd: cost.total,
    costUsdMonth: monthAtRate(unrounded, now),
    acksAllP50: latencySummary(k.state.produceLatencies.acksAll).latencyMsP50,
    catchUpMs: null,
    remoteReadsAfterFailover: 0,
  };
}


/**
 * rowOf's trace figures (catch-up, remote reads after the first leader change) for each
 * prefix of the trace ending at `ends[i]`, in one pass.
 */
export function traceFigures(partitions: PartitionJson[], trace: readonly TraceEntry[], ends: readonly number[]): Array<{ catchUpMs: number | null; remoteReads: number }> {
  const figures = new TraceFigures(partitions);
  const out: Array<{ catchUpMs: number | null; remoteReads: number }> = [];
  let i = 0;
  for (const end of ends) {
    for (; i < end && i < trace.length; i++) figures.observe(trace[i]);
    out.push({ catchUpMs: figures.catchUpMs, remoteReads: figures.remoteReads });
  }
  return out;
}

// ------------------------------------------------------------------ the shared cursor

/** The distinct times of every list, ascending (the cursor's positions). */
export function mergeStepTimes(...lists: ReadonlyArray<readonly number[]>): number[] {
  const all = new Set<number>();
  for (const l of lists) for (const t of l) all.add(t);
  return [...all].sort((a, b) => a - b);
}

/**
 * The latest step whose time is at or before `t` (times non-decreasing); 0 when none is
 * (step 0 is the run before anything happens).
 */
export function stepAtOrBefore(times: readonly number[], t: number): number {
  return Math.max(0, firstNotBefore(times, (x) => x <= t) - 1);
}

/** The cursor position of time `t`: the latest merged time at or before it (0 below the first). */
export function cursorAt(merged: readonly number[], t: number): number {
  return stepAtOrBefore(merged, t);
}

/**
 * The steps a side took to arrive at the cursor position `c` from `c - 1`: (from, to], with
 * `from` -1 at the first position (the trace from its start). Empty (from === to) when
 * nothing happened in this run at that time.
 */
export function stepsAt(times: readonly number[], merged: readonly number[], c: number): { from: number; to: number } {
  const to = stepAtOrBefore(times, merged[c] ?? 0);
  // At the first position the view also shows what the run did before its first step.
  const from = c <= 0 ? -1 : Math.min(to, stepAtOrBefore(times, merged[c - 1]));
  return { from, to };
}

// ------------------------------------------------------------------ sampled series

export type SeriesMetric = 'bytesFromLeader' | 'crossZoneBytes' | 'requests' | 'walRequests' | 'tieredRequests' | 'costUsd';

export interface Sample {
  atMs: number;
  value: number;
}

function valueOf(p: SidePoint, metric: SeriesMetric): number {
  return metric === 'requests' ? p.tieredRequests + p.walRequests : p[metric];
}

/**
 * A cumulative figure over simulated time, sampled at `n + 1` evenly spaced times from 0
 * to the run's end: each sample is the figure after the latest step at or before its
 * time, and the last is the run's end figure.
 */
export function sampleSeries(side: Pick<ResolvedSide, 'stepTimes' | 'points' | 'end' | 'endMs'>, metric: SeriesMetric, n = 100): Sample[] {
  const out: Sample[] = [];
  const count = Math.max(1, Math.floor(n));
  for (let j = 0; j < count; j++) {
    const t = Math.floor((j * side.endMs) / count);
    out.push({ atMs: t, value: valueOf(side.points[stepAtOrBefore(side.stepTimes, t)], metric) });
  }
  out.push({ atMs: side.endMs, value: valueOf(side.end, metric) });
  return out;
}

/** The figures at the cursor time `t`: the side's latest step at or before it, or its end. */
export function pointAt(side: Pick<ResolvedSide, 'stepTimes' | 'points' | 'end' | 'endMs'>, t: number): SidePoint {
  return t >= side.endMs ? side.end : side.points[stepAtOrBefore(side.stepTimes, t)];
}
