/**
 * `compare`: one workload run in several designs, side by side (issue: KIP-1176 mode).
 * The modes (core/study/modes.ts, one table) set the switches and nothing else, so the
 * scenario's workload, faults and seed are the same in each run.
 * Each row's figures come from the run's JSON (`metrics`, `trace`); the month's cost is
 * the run's cost scaled from its simulated duration to 30 days at the same rates, once the
 * run has covered at least MONTH_MIN_WINDOW_MS (null before: see monthAtRate).
 */
import { scaledSizesReason } from '../scenario/scaled.js';
import type { Scenario } from '../scenario/types.js';
import { describeNetwork } from '../sim/world/bandwidth.js';
import { Kernel } from '../sim/loop/kernel.js';
import { costUsd } from '../sim/state/costs.js';
import { buildRunJson, type PartitionJson, type RunJson } from '../sim/loop/output.js';
import { type TraceEntry, wholeMs } from '../sim/state/trace.js';
import { type CostLine, NO_STEADY_STATE, type SteadyFacts, type SteadyStateCost, measuredMonthByLine, steadyState } from './steady-cost.js';
import { type BytesFormat, type UsdFormat, formatBytes, formatMs, formatUsd } from '../util/format.js';

import { DESIGN_MODES, MODE_SWITCHES, type Mode } from './modes.js';

export { MODES, type Mode } from './modes.js';

export const MONTH_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The shortest stretch of simulated time a cost is extrapolated from to a month: 1 s.
 * Below it the "rate" is a handful of requests multiplied by millions (one GET at t = 8 ms
 * read as $129.60 a month); from 1 s on, every bundled workload has produced at least
 * once (their produce intervals are 50 to 1000 ms, 10 s for the hour-long metadata run),
 * and one request more or less moves the month by a few dollars at most.
 */
export const MONTH_MIN_WINDOW_MS = 1000;

/**
 * The month's cost at the rate of `usd` spent over `windowMs` of simulated time (30 days,
 * rounded to millionths of a dollar as the JSON rounds costs); null while the window is
 * shorter than MONTH_MIN_WINDOW_MS ("too early to extrapolate").
 */
export function monthAtRate(usd: number, windowMs: number): number | null {
  if (!(windowMs >= MONTH_MIN_WINDOW_MS)) return null;
  return round6((usd * MONTH_MS) / windowMs);
}

/** What a table prints instead of a month's cost that is too early to extrapolate. */
export const MONTH_TOO_EARLY = `too early (needs ≥ ${MONTH_MIN_WINDOW_MS / 1000} s)`;

/** The scenario with the mode's switches set. */
export function scenarioForMode(s: Scenario, mode: Mode): Scenario {
  const m = DESIGN_MODES[mode];
  const config = { ...s.config };
  if (m.kip1023 !== null) config['follower.fetch.last.tiered.offset.enable'] = m.kip1023;
  const topics = s.topics.map((t) => ({ ...t, config: { ...t.config, 'wal.enable': m.wal } }));
  // A timeline that turns a switch would undo the mode: such events are left out.
  const switches = new Set<string>(MODE_SWITCHES);
  const timeline = s.timeline.filter((e) => e.action.kind !== 'setConfig' || !Object.keys(e.action.values).some((k) => switches.has(k)));
  return { ...s, config, topics, timeline, name: `${s.name} [${mode}]` };
}

export interface LatencyFigures {
  count: number;
  p50: number | null;
  p99: number | null;
}

export interface CompareRow {
  mode: Mode;
  /** Longest time from a replica starting empty (t = 0 or addReplica) to joining the ISR; null when none did. */
  catchUpMs: number | null;
  /** Record bytes followers fetched from leaders. */
  bytesFromLeader: number;
  /** Bytes that crossed zones (all kinds), when the run reports them. */
  crossZoneBytes: number | null;
  crossZone: Record<string, number> | null;
  objectStore: { requests: number; bytes: number; walRequests: number; walBytes: number };
  produce: { acks1: LatencyFigures; acksAll: LatencyFigures };
  /** Consumer reads served from remote storage after the first leader change. */
  remoteReadsAfterFailover: { count: number; bytes: number };
  /**
   * The run's cost and the month's at the same rate; `month` is null when the run is
   * shorter than MONTH_MIN_WINDOW_MS (too short to extrapolate from).
   */
  costUsd: { run: number; month: number | null } | null;
  walMetadataRecords: number;
  violations: number;
  endMs: number;
  /**
   * The month at steady state (core/study/steady-cost.ts; docs/protocol.md §8.1): priced
   * from the scenario's rates once every transient is over, line by line, each with the
   * run-measured month of the same line beside it (`runMeasuredUsdPerMonth`, null while
   * the run is too short to extrapolate) and, in `warnings`, what the run did not reach.
   * Absent when the row was read from a run's JSON alone (no kernel).
   */
  steadyStateCostUsd?: SteadyStateCostRow;
}

export interface SteadyStateCostRow extends SteadyStateCost {
  lines: Array<CostLine & { runMeasuredUsdPerMonth: number | null }>;
}

export interface CompareResult {
  scenario: string;
  seed: number;
  modes: CompareRow[];
  /** What the times and bytes assumed of the network and the stores (core/sim/world/bandwidth.ts, describeNetwork). */
  assumed?: string;
  /** Only when the scenario's sizes are scaled (internal.segment.bytes; core/scenario/scaled.ts): why. */
  sizesScaledReason?: string;
}

type Loose = Record<string, unknown>;

function latency(x: unknown): LatencyFigures {
  const o = (x ?? {}) as { count?: number; latencyMsP50?: number | null; latencyMsP99?: number | null };
  return { count: o.count ?? 0, p50: o.latencyMsP50 ?? null, p99: o.latencyMsP99 ?? null };
}

/**
 * The figures a row reads from the trace, entry by entry (so a view can have them after
 * every step in one pass): the longest catch-up of a replica that started empty (a
 * follower at t = 0, an added replica) until it joined the ISR, and the consumer reads
 * served from remote storage from the first leader change on.
 */
export class TraceFigures {
  catchUpMs: number | null = null;
  remoteReads = 0;
  remoteReadBytes = 0;
  private firstFailoverMs: number | undefined;
  private readonly started = new Map<string, number>();
  private readonly joined = new Set<string>();

  constructor(partitions: readonly PartitionJson[]) {
    for (const p of partitions) {
      for (const r of p.replicas) if (r.broker !== p.leader) this.started.set(`${p.topic}-${p.partition}|${r.broker}`, 0);
    }
  }

  /** Whether `observe` reads anything from this entry (a run that does not keep its trace keeps these). */
  static reads(entry: TraceEntry): boolean {
    const e = entry as unknown as Loose;
    return (e.type === 'timeline' && e.action === 'addReplica') || (e.type === 'isr' && Array.isArray(e.added)) || e.type === 'leader' || (e.type === 'objectStore' && e.purpose === 'consumerRead');
  }

  observe(entry: TraceEntry): void {
    const e = entry as unknown as Loose;
    const at = e.atMs as number;
    const tp = `${String(e.topic)}-${String(e.partition)}`;
    if (e.type === 'timeline' && e.action === 'addReplica' && e.rule === 'replicaAdded') this.started.set(`${tp}|${String(e.broker)}`, at);
    if (e.type === 'isr' && Array.isArray(e.added)) {
      for (const b of e.added as number[]) {
        const id = `${tp}|${b}`;
        const from = this.started.get(id);
        if (from === undefined || this.joined.has(id)) continue;
        this.joined.add(id);
        this.catchUpMs = Math.max(this.catchUpMs ?? 0, at - from);
      }
    }
    if (this.firstFailoverMs === undefined && e.type === 'leader' && e.rule !== 'initialLeader') this.firstFailoverMs = at;
    if (e.type === 'objectStore' && e.purpose === 'consumerRead' && this.firstFailoverMs !== undefined && at >= this.firstFailoverMs) {
      this.remoteReads++;
      this.remoteReadBytes += (e.bytes as number) ?? 0;
    }
  }
}

/**
 * The figures of one finished run. With the kernel, the month's cost is scaled from the
 * unrounded cost (a short run's rounded cents would otherwise be multiplied too).
 */
export function rowOf(mode: Mode, json: RunJson, k?: Kernel, observed?: TraceFigures, reached?: RunReached): CompareRow {
  const trace = json.trace as unknown as Loose[];
  const m = json.metrics as Loose;
  // A run that streamed its trace (compare's keepTrace false) observed it as it went.
  let figures = observed;
  if (figures === undefined) {
    figures = new TraceFigures(json.partitions);
    for (const e of json.trace) figures.observe(e);
  }
  const stores = (m.objectStore ?? null) as Record<string, Record<string, number>> | null;
  const storeTotals = (s: Record<string, number> | undefined) => ({
    requests: (s?.puts ?? 0) + (s?.gets ?? 0) + (s?.deletes ?? 0),
    bytes: (s?.bytesPut ?? 0) + (s?.bytesGot ?? 0),
  });
  // Without the run's own counters, count the trace's object-store operations.
  const fromTrace = (store: string) => {
    const ops = trace.filter((e) => e.type === 'objectStore' && e.store === store && e.ok === true);
    return { requests: ops.length, bytes: ops.reduce((n, e) => n + ((e.bytes as number) ?? 0), 0) };
  };
  const tiered = stores ? storeTotals(stores.tiered) : fromTrace('tiered');
  const wal = stores ? storeTotals(stores.wal) : fromTrace('wal');
  const crossZone = (m.crossZoneBytes ?? null) as Record<string, number> | null;
  const cost = (m.costUsd ?? null) as { total?: number } | null;
  const produce = m.produce as Loose;
  const walMetrics = m.wal as { metadata?: { records?: number } } | undefined;
  return {
    mode,
    catchUpMs: figures.catchUpMs,
    bytesFromLeader: (m.bytesFetchedByFollowers as number) ?? 0,
    crossZoneBytes: crossZone ? Object.values(crossZone).reduce((n, v) => n + v, 0) : null,
    crossZone,
    objectStore: { requests: tiered.requests + wal.requests, bytes: tiered.bytes + wal.bytes, walRequests: wal.requests, walBytes: wal.bytes },
    produce: { acks1: latency(produce.acks1), acksAll: latency(produce.acksAll) },
    remoteReadsAfterFailover: { count: figures.remoteReads, bytes: figures.remoteReadBytes },
    costUsd: cost && typeof cost.total === 'number' ? { run: cost.total, month: monthAtRate(unroundedTotal(k) ?? cost.total, json.endMs) } : null,
    walMetadataRecords: walMetrics?.metadata?.records ?? 0,
    violations: json.violations.length,
    endMs: json.endMs,
    ...(k === undefined ? {} : { steadyStateCostUsd: steadyRow(mode, json, k, reached) }),
  };
}

/** The steady-state month of the kernel's scenario, with the run's own month line by line and what the run did not reach. */
function steadyRow(mode: Mode, json: RunJson, k: Kernel, reached?: RunReached): SteadyStateCostRow {
  const { cost, facts } = steadyState(k.scenario, mode);
  const measured = json.endMs >= MONTH_MIN_WINDOW_MS ? measuredMonthByLine(k.state.metrics, k.state.usage, k.state.prices, json.endMs) : null;
  return {
    month: cost.month,
    lines: cost.lines.map((l) => ({ ...l, runMeasuredUsdPerMonth: measured?.[l.id]?.usdPerMonth ?? null })),
    assumptions: cost.assumptions,
    warnings: [...cost.warnings, ...runWarnings(json, facts, reached)],
  };
}

/** What a run reached of the steady state, read off its trace (kept, or as it streams). */
export interface RunReached {
  rolled: boolean;
  localDeleted: boolean;
  remoteExpired: boolean;
  walDeleted: boolean;
}

export function newRunReached(): RunReached {
  return { rolled: false, localDeleted: false, remoteExpired: false, walDeleted: false };
}

export function noteReached(r: RunReached, entry: TraceEntry): void {
  const e = entry as unknown as Loose;
  if (e.type === 'log' && e.action === 'segmentRolled') r.rolled = true;
  else if (e.type === 'log' && e.action === 'localSegmentDeleted') r.localDeleted = true;
  else if (e.type === 'rlm' && e.action === 'deleteStarted' && (e.rule === 'retentionMs' || e.rule === 'retentionBytes')) r.remoteExpired = true;
  else if (e.type === 'wal' && e.action === 'deleteObject') r.walDeleted = true;
}

/**
 * Where the run falls short of the steady state (its month then extrapolates a start, not a
 * rate): no segment rolled, local or remote retention not reached, no WAL object cleaned up.
 */
export function runWarnings(json: Pick<RunJson, 'trace' | 'endMs'>, facts: SteadyFacts, seen?: RunReached): string[] {
  if (facts.bytesPerSec <= 0) return [];
  const out: string[] = [];
  // A run that streamed its trace (compare's keepTrace false) noted these as it went.
  let reached = seen;
  if (reached === undefined) {
    reached = newRunReached();
    for (const e of json.trace) noteReached(reached, e);
  }
  const { rolled, localDeleted, remoteExpired, walDeleted } = reached;
  const run = formatMs(json.endMs, { unit: 'auto' });
  const when = (ms: number | null) => (ms === null ? '' : ` (at this rate, from about ${formatDuration(ms)} on)`);
  const short = `The run (${run}) is too short to show steady state:`;
  if (!rolled && facts.segmentFillMs !== null) out.push(`${short} no segment rolled (one fills in about ${formatDuration(facts.segmentFillMs)}), so it made no tiered-store request and its month has none.`);
  if (!localDeleted && facts.localRetentionReachedMs !== null) out.push(`${short} local retention was not reached${when(facts.localRetentionReachedMs)}, so its local disks held less than they do at steady state.`);
  if (facts.tiered && !remoteExpired && facts.remoteRetentionReachedMs !== null) out.push(`${short} remote retention was not reached${when(facts.remoteRetentionReachedMs)}, so its tiered store held less than at steady state and expired nothing (no DELETE).`);
  if (facts.wal && !walDeleted && facts.walCleanupReachedMs !== null) out.push(`${short} no WAL object was deleted${when(facts.walCleanupReachedMs)}, so its fast store kept growing.`);
  return out;
}

/** A duration in the largest unit that keeps it above 1 (ms, s, min, h, days). */
export function formatDuration(ms: number): string {
  const units: Array<[number, string]> = [[86_400_000, 'days'], [3_600_000, 'h'], [60_000, 'min'], [1000, 's']];
  for (const [size, name] of units) if (ms >= size) return `${+(ms / size).toFixed(1)} ${name}`;
  return `${Math.round(ms)} ms`;
}

function unroundedTotal(k: Kernel | undefined): number | undefined {
  if (k === undefined) return undefined;
  const m = k.state.metrics;
  return costUsd(m.crossZoneBytes, m.objectStore, k.state.usage, k.state.prices, k.state.nowMs, false).total;
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** A mode's run needed more kernel steps than `compare` was given (`maxSteps`). */
export class StepBudgetExceeded extends Error {
  constructor(
    readonly mode: Mode,
    readonly maxSteps: number,
    /** Where the run stood when it stopped, and where it would have ended. */
    readonly atMs: number,
    readonly untilMs: number,
  ) {
    super(`the ${mode} run stopped after ${maxSteps} steps at t=${atMs}ms of ${untilMs}ms`);
    this.name = 'StepBudgetExceeded';
  }
}

export interface CompareOptions {
  /** Kernel steps each mode's run may take (default: no limit); past it, StepBudgetExceeded. */
  maxSteps?: number;
  /**
   * False: each run streams its trace to the row's figures instead of keeping it (the same
   * figures, without holding every entry: `whatif`'s long bootstraps). Default true.
   */
  keepTrace?: boolean;
  /** Called with each mode's finished run (its JSON, without the trace when not kept, and its kernel). */
  onRun?: (mode: Mode, json: RunJson, k: Kernel) => void;
  /**
   * Called with each trace entry of each mode's run as it is made, and the run's kernel (the
   * state at that moment). The entries of the initial state, made while the kernel is built,
   * are not passed.
   */
  onTrace?: (mode: Mode, e: TraceEntry, k: Kernel) => void;
}

/**
 * Runs the scenario once per mode (synchronously, in memory) and collects the rows. A run
 * that would need more than `maxSteps` steps throws StepBudgetExceeded, naming its mode;
 * one that fits is the run without a budget (its clock runs out to `until` the same way).
 */
export function compare(s: Scenario, modes: readonly Mode[], seed?: number, options: CompareOptions = {}): CompareResult {
  const maxSteps = options.maxSteps ?? Number.POSITIVE_INFINITY;
  let assumed: string | undefined;
  const keepTrace = options.keepTrace ?? true;
  const rows = modes.map((mode) => {
    // Without the trace kept, the few entries the row's figures read are (TraceFigures.reads).
    const read: TraceEntry[] = [];
    const reached = newRunReached();
    let remoteLogMetadataRecords = 0;
    let built: Kernel | undefined;
    const stream = (e: TraceEntry): void => {
      if (built !== undefined) options.onTrace?.(mode, e, built);
      if (keepTrace) return;
      noteReached(reached, e);
      if (TraceFigures.reads(e)) read.push(e);
      // As buildRunJson counts them from a kept trace.
      else if (e.type === 'remoteMetadata' && (e as { action?: string }).action === 'stateChanged') remoteLogMetadataRecords++;
    };
    const k = new Kernel(scenarioForMode(s, mode), {
      ...(seed === undefined ? {} : { seed }),
      ...(keepTrace ? {} : { keepTrace: false }),
      ...(!keepTrace || options.onTrace !== undefined ? { onTrace: stream } : {}),
    });
    built = k;
    assumed ??= describeNetwork(k.state.model, k.state.brokerConfig['replica.fetch.max.bytes']);
    let steps = 0;
    while (k.step()) {
      if (++steps >= maxSteps && k.hasNext()) throw new StepBudgetExceeded(mode, maxSteps, wholeMs(k.nowMs), k.scenario.until);
    }
    const json = buildRunJson(k, keepTrace ? undefined : { remoteLogMetadataRecords });
    options.onRun?.(mode, json, k);
    let observed: TraceFigures | undefined;
    if (!keepTrace) {
      observed = new TraceFigures(json.partitions);
      for (const e of read) observed.observe(e);
    }
    return rowOf(mode, json, k, observed, keepTrace ? undefined : reached);
  });
  const scaled = scaledSizesReason(s);
  return { scenario: s.name, seed: seed ?? s.seed, modes: rows, ...(scaled !== null ? { sizesScaledReason: scaled } : {}), ...(assumed === undefined ? {} : { assumed }) };
}

/** Bytes in the figure tables: one decimal, kept ("1.0 MiB"), in B, KiB or MiB. */
export const FIGURE_BYTES: BytesFormat = { decimals: 1, keepZeros: true, largest: 'MiB' };
/** Dollars in the figure tables: whole from $100, two significant digits below $1 ($0.0017, $0.000012). */
export const FIGURE_USD: UsdFormat = { wholeFrom: 100, significant: 2 };

const fmtBytes = (n: number | null): string => (n === null ? 'n/a' : formatBytes(n, FIGURE_BYTES));
const fmtMs = (n: number | null): string => (n === null ? '-' : formatMs(n));
// A row with latencies has both percentiles (count > 0).
const fmtLat = (l: LatencyFigures): string => (l.count === 0 ? '-' : `${l.p50} / ${formatMs(l.p99!)}`);
const fmtUsd = (n: number): string => formatUsd(n, FIGURE_USD);

/** The figures of a row, as the CLI table and the Markdown report print them: label and value. */
export const FIGURE_ROWS: ReadonlyArray<readonly [string, (x: CompareRow) => string]> = [
  ['new follower caught up after', (x) => fmtMs(x.catchUpMs)],
  ['bytes fetched from the leader', (x) => fmtBytes(x.bytesFromLeader)],
  ['cross-zone bytes', (x) => fmtBytes(x.crossZoneBytes)],
  ['object-store requests (of which WAL)', (x) => `${x.objectStore.requests} (${x.objectStore.walRequests})`],
  ['object-store bytes (of which WAL)', (x) => `${fmtBytes(x.objectStore.bytes)} (${fmtBytes(x.objectStore.walBytes)})`],
  ['produce latency acks=1, p50 / p99', (x) => fmtLat(x.produce.acks1)],
  ['produce latency acks=all, p50 / p99', (x) => fmtLat(x.produce.acksAll)],
  ['remote reads after a failover', (x) => (x.remoteReadsAfterFailover.count === 0 ? '0' : `${x.remoteReadsAfterFailover.count} (${fmtBytes(x.remoteReadsAfterFailover.bytes)})`)],
  ['WAL metadata records', (x) => String(x.walMetadataRecords)],
  ['cost of the run', (x) => (x.costUsd ? fmtUsd(x.costUsd.run) : 'n/a')],
  ['cost per month at this rate', (x) => (x.costUsd ? (x.costUsd.month === null ? MONTH_TOO_EARLY : fmtUsd(x.costUsd.month)) : 'n/a')],
  ['invariant violations', (x) => String(x.violations)],
];

/** The comparison as a plain-text table, one column per mode. */
export function formatCompare(r: CompareResult): string {
  const header = ['', ...r.modes.map((x) => x.mode)];
  const body = FIGURE_ROWS.map(([label, f]) => [label, ...r.modes.map(f)]);
  const widths = header.map((_, i) => Math.max(...[header, ...body].map((row) => row[i].length)));
  const line = (row: string[]) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const lines = [`${r.scenario} (seed ${r.seed}, ${formatMs(r.modes[0]?.endMs ?? 0)} simulated)`, '', line(header), ...body.map(line)];
  if (r.sizesScaledReason !== undefined) lines.push('', `sizes scaled: ${r.sizesScaledReason}`);
  if (r.assumed !== undefined) lines.push(...(r.sizesScaledReason === undefined ? [''] : []), `assumed: ${r.assumed}`);
  const steady = formatSteadyCosts(r);
  if (steady !== '') lines.push('', steady);
  return lines.join('\n');
}

/** Words wrapped at `width`, every line after the first indented by `indent`. */
function wrap(text: string, width: number, first: string, indent: string): string[] {
  const out: string[] = [];
  let line = first;
  for (const word of text.split(' ')) {
    if (line.length + word.length + 1 > width && line.trim().length > first.trim().length) {
      out.push(line.trimEnd());
      line = indent;
    }
    line += (line === first || line === indent ? '' : ' ') + word;
  }
  out.push(line.trimEnd());
  return out;
}

/**
 * The steady-state month of each mode (core/study/steady-cost.ts): its lines with the
 * calculation and, beside each, the same line measured in the run and scaled to a month
 * (today's extrapolation, the cross-check), then the assumptions and warnings. A mode whose
 * steady state is another's (KIP-1023's is classic's) says so in one line.
 */
export function formatSteadyCosts(r: CompareResult): string {
  const out: string[] = [];
  const shown: Array<{ mode: Mode; cost: SteadyStateCostRow }> = [];
  for (const row of r.modes) {
    const cost = row.steadyStateCostUsd;
    if (cost === undefined) continue;
    const runMonth = row.costUsd?.month ?? null;
    const runText = runMonth === null ? MONTH_TOO_EARLY : fmtUsd(runMonth);
    const none = cost.warnings.find((w) => w.startsWith(NO_STEADY_STATE));
    if (none !== undefined) {
      // Nothing repeats, so every line is $0: one sentence instead of the table.
      out.push('', `${row.mode}: no steady state; the run measured ${runText}.`);
      if (row === r.modes[0]) out.push(...wrap(none, 100, '  ! ', '    '));
      continue;
    }
    const same = shown.find((x) => sameLines(x.cost, cost));
    if (same !== undefined) {
      out.push(
        '',
        `${row.mode}: the same steady state as ${same.mode}, ${fmtUsd(cost.month)} a month${row.mode === 'kip1023' ? ' (KIP-1023 only changes where an empty follower starts)' : ''}; the run measured ${runText}.`,
      );
      for (const w of cost.warnings.filter((w) => !same.cost.warnings.includes(w))) out.push(...wrap(w, 100, '  ! ', '    '));
      continue;
    }
    shown.push({ mode: row.mode, cost });
    const head = ['line', 'steady state', 'run-measured', 'calculation'];
    const body = cost.lines.map((l) => [l.name, fmtUsd(l.usdPerMonth), l.runMeasuredUsdPerMonth === null ? '-' : fmtUsd(l.runMeasuredUsdPerMonth), l.calculation.replace(/ = [^=]*$/, '')]);
    body.push(['total', fmtUsd(cost.month), runText, '']);
    const w = [0, 1, 2].map((i) => Math.max(...[head, ...body].map((x) => x[i].length)));
    const fmt = (x: string[]) => `  ${x[0].padEnd(w[0])}  ${x[1].padStart(w[1])}  ${x[2].padStart(w[2])}  ${x[3]}`.trimEnd();
    out.push('', `${row.mode}: ${fmtUsd(cost.month)} a month at steady state (the run, ${formatMs(row.endMs, { unit: 'auto' })}, scaled to 30 days: ${runText})`, fmt(head), ...body.map(fmt));
    out.push('  assumptions:');
    for (const a of cost.assumptions) out.push(...wrap(a, 100, '  - ', '    '));
    if (cost.warnings.length > 0) out.push('  warnings:');
    for (const x of cost.warnings) out.push(...wrap(x, 100, '  ! ', '    '));
  }
  if (out.length === 0) return '';
  return [
    'Cost per month at steady state: the scenario\'s rates priced once segments roll, are uploaded and expire, and retention is reached',
    "(docs/protocol.md §8.1); \"run-measured\" is the same line measured in this run and scaled to 30 days, the cross-check.",
    ...out,
  ].join('\n');
}

function sameLines(a: SteadyStateCost, b: SteadyStateCost): boolean {
  return a.month === b.month && a.lines.length === b.lines.length && a.lines.every((l, i) => l.id === b.lines[i].id && l.usdPerMonth === b.lines[i].usdPerMonth);
}
