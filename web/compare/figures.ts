/**
 * Words and numbers of the side-by-side view: the designs' names, the metrics table's
 * rows (whole run from `compare()`'s rows, and at the cursor), the differences ("−99.8 %")
 * and the one-line headline. Pure, so the tests read the same text the page shows.
 */
import { type CompareRow, FIGURE_USD, MONTH_MIN_WINDOW_MS, type Mode } from '../../core/study/compare.js';
import type { ResolvedSide, SidePoint } from '../../core/study/compare-timeline.js';
import { NO_STEADY_STATE } from '../../core/study/steady-cost.js';
import type { Scenario } from '../../core/scenario/types.js';
import { formatBytes, formatCount, formatMs, formatUsd } from '../../core/util/format.js';
import { DESIGN_MODES, MODES, MODE_SWITCHES, modeSwitches } from '../../core/study/modes.js';

/** The names and switches of the designs, from their one table (core/study/modes.ts). */
const byMode = <T>(f: (m: Mode) => T): Record<Mode, T> => Object.fromEntries(MODES.map((m) => [m, f(m)])) as Record<Mode, T>;
export const MODE_LABEL: Record<Mode, string> = byMode((m) => DESIGN_MODES[m].label);

/** The short name on a chart line. */
export const MODE_SHORT: Record<Mode, string> = byMode((m) => DESIGN_MODES[m].short);

/** What each design switches (core/study/compare.ts scenarioForMode). */
export const MODE_DETAIL: Record<Mode, string> = byMode((m) => modeSwitches(m));

const MINUS = '\u2212';

/**
 * How `b` differs from `a`: a percentage (one decimal) while it stays below double, a
 * factor (×5.3) above, the plain amount when `a` is 0 (nothing to take a percentage of),
 * "same" when equal, "—" when either is missing.
 */
export function difference(a: number | null, b: number | null, plain: (n: number) => string = String): string {
  if (a === null || b === null) return '—';
  if (a === b) return 'same';
  if (a === 0) return `${b > 0 ? '+' : MINUS}${plain(Math.abs(b))}`;
  if (b >= 2 * a && a > 0) {
    const f = b / a;
    return `×${f >= 10 ? Math.round(f) : f.toFixed(1)}`;
  }
  const pct = ((b - a) / Math.abs(a)) * 100;
  const text = Math.abs(pct).toFixed(1);
  if (text === '0.0') return b > a ? '+<0.1 %' : `${MINUS}<0.1 %`;
  return `${pct < 0 ? MINUS : '+'}${text} %`;
}

export type RowId = 'catchUp' | 'bytesFromLeader' | 'crossZone' | 'tieredRequests' | 'walRequests' | 'cost' | 'costMonth' | 'acksAllP50' | 'remoteReads';

export interface TableRow {
  id: RowId;
  label: string;
  /** Whole run: the two designs and how the second differs from the first. */
  a: string;
  b: string;
  diff: string;
  /** At the cursor. */
  atA: string;
  atB: string;
}

const ms = (v: number | null) => (v === null ? '—' : formatMs(v));
/**
 * A month's cost not extrapolated yet, in a table cell: short, so the table keeps to the
 * page's width; MONTH_NOTE under the table says why (the CLI's table prints MONTH_TOO_EARLY,
 * "too early (needs ≥ 1 s)", in the cell).
 */
export const MONTH_EARLY_CELL = 'too early';
export const MONTH_NOTE = `Cost per month at this rate: the cost so far scaled to 30 days, once the run has covered at least ${MONTH_MIN_WINDOW_MS / 1000} s of simulated time; before that it reads "${MONTH_EARLY_CELL}", since a run's first few requests are not a rate.`;

/** Dollars as the CLI's compare table prints them ($234, $0.0018), so the page and the CLI agree. */
const usd = (n: number) => formatUsd(n, FIGURE_USD);
const count = (n: number) => formatCount(n);

interface RowDef {
  id: RowId;
  label: string;
  final: (r: CompareRow) => number | null;
  now: (p: SidePoint) => number | null;
  fmt: (n: number | null) => string;
  /** Text of the whole-run cell when it says more than the number (remote reads with bytes). */
  finalText?: (r: CompareRow) => string;
}

const ROWS: RowDef[] = [
  { id: 'catchUp', label: 'new follower caught up after', final: (r) => r.catchUpMs, now: (p) => p.catchUpMs, fmt: ms },
  { id: 'bytesFromLeader', label: 'bytes fetched from the leader', final: (r) => r.bytesFromLeader, now: (p) => p.bytesFromLeader, fmt: (n) => (n === null ? '—' : formatBytes(n)) },
  { id: 'crossZone', label: 'cross-zone bytes', final: (r) => r.crossZoneBytes, now: (p) => p.crossZoneBytes, fmt: (n) => (n === null ? 'n/a' : formatBytes(n)) },
  { id: 'tieredRequests', label: 'requests to the tiered store', final: (r) => r.objectStore.requests - r.objectStore.walRequests, now: (p) => p.tieredRequests, fmt: (n) => (n === null ? '—' : count(n)) },
  { id: 'walRequests', label: 'requests to the fast store (WAL)', final: (r) => r.objectStore.walRequests, now: (p) => p.walRequests, fmt: (n) => (n === null ? '—' : count(n)) },
  { id: 'cost', label: 'cost of the run', final: (r) => r.costUsd?.run ?? null, now: (p) => p.costUsd, fmt: (n) => (n === null ? 'n/a' : usd(n)) },
  {
    // Extrapolated only from a run of at least MONTH_MIN_WINDOW_MS (core/study/compare.ts
    // monthAtRate), at the cursor as in the CLI's table: before, the cell says so.
    id: 'costMonth',
    label: 'cost per month at this rate',
    final: (r) => r.costUsd?.month ?? null,
    now: (p) => p.costUsdMonth,
    fmt: (n) => (n === null ? MONTH_EARLY_CELL : usd(n)),
    finalText: (r) => (r.costUsd === null ? 'n/a' : r.costUsd.month === null ? MONTH_EARLY_CELL : usd(r.costUsd.month)),
  },
  { id: 'acksAllP50', label: 'acks=all latency p50', final: (r) => r.produce.acksAll.p50, now: (p) => p.acksAllP50, fmt: ms },
  {
    id: 'remoteReads',
    label: 'remote reads after a failover',
    final: (r) => r.remoteReadsAfterFailover.count,
    now: (p) => p.remoteReadsAfterFailover,
    fmt: (n) => (n === null ? '—' : count(n)),
    finalText: (r) => (r.remoteReadsAfterFailover.count === 0 ? '0' : `${count(r.remoteReadsAfterFailover.count)} (${formatBytes(r.remoteReadsAfterFailover.bytes)})`),
  },
];

/** The metrics table: whole-run figures of both designs with the difference, and the figures at the cursor. */
export function tableRows(a: CompareRow, b: CompareRow, atA: SidePoint, atB: SidePoint): TableRow[] {
  return ROWS.map((d) => {
    const fa = d.final(a);
    const fb = d.final(b);
    return {
      id: d.id,
      label: d.label,
      a: d.finalText ? d.finalText(a) : d.fmt(fa),
      b: d.finalText ? d.finalText(b) : d.fmt(fb),
      diff: difference(fa, fb, (n) => d.fmt(n)),
      atA: d.fmt(d.now(atA)),
      atB: d.fmt(d.now(atB)),
    };
  });
}

/**
 * One line that says what moving from the first design to the second buys and costs. With
 * KIP-1176 on one side: cross-zone bytes, fast-store requests, the month's cost and the
 * acks=all latency; otherwise catch-up, bytes from the leader and remote reads after a
 * failover.
 */
export function headline(a: CompareRow, b: CompareRow): string {
  const name = `From ${MODE_LABEL[a.mode]} to ${MODE_LABEL[b.mode]}`;
  const arrow = (x: string, y: string) => `${x} → ${y}`;
  const bytes = (n: number | null) => (n === null ? 'n/a' : formatBytes(n));
  const parts: string[] = [];
  if (a.mode === 'wal' || b.mode === 'wal') {
    parts.push(`cross-zone bytes ${arrow(bytes(a.crossZoneBytes), bytes(b.crossZoneBytes))} (${difference(a.crossZoneBytes, b.crossZoneBytes, formatBytes)})`);
    parts.push(`fast-store requests ${arrow(count(a.objectStore.walRequests), count(b.objectStore.walRequests))} (all object-store requests ${arrow(count(a.objectStore.requests), count(b.objectStore.requests))})`);
    if (a.costUsd?.month != null && b.costUsd?.month != null) parts.push(`cost/month ${arrow(usd(a.costUsd.month), usd(b.costUsd.month))}`);
    if (a.produce.acksAll.p50 !== null && b.produce.acksAll.p50 !== null) parts.push(`acks=all p50 ${arrow(String(a.produce.acksAll.p50), ms(b.produce.acksAll.p50))}`);
  } else {
    if (a.catchUpMs !== null || b.catchUpMs !== null) parts.push(`new follower caught up after ${arrow(ms(a.catchUpMs), ms(b.catchUpMs))}`);
    parts.push(`bytes from the leader ${arrow(bytes(a.bytesFromLeader), bytes(b.bytesFromLeader))} (${difference(a.bytesFromLeader, b.bytesFromLeader, formatBytes)})`);
    parts.push(`remote reads after a failover ${arrow(count(a.remoteReadsAfterFailover.count), count(b.remoteReadsAfterFailover.count))}`);
  }
  return `${name}: ${parts.join(' · ')}`;
}

/**
 * True when the scenario file already runs in `mode` (its switches are the mode's and no
 * timeline event turns them), so the walkthrough of the file shows the same steps.
 */
export function runsAsWritten(s: Scenario, mode: Mode): boolean {
  const switches: readonly string[] = MODE_SWITCHES;
  if (s.timeline.some((e) => e.action.kind === 'setConfig' && Object.keys(e.action.values).some((k) => switches.includes(k)))) return false;
  const m = DESIGN_MODES[mode];
  const walAll = s.topics.every((t) => (t.config as Record<string, unknown>)['wal.enable'] === true);
  const walNone = s.topics.every((t) => (t.config as Record<string, unknown>)['wal.enable'] !== true);
  const flag = (s.config as Record<string, unknown>)['follower.fetch.last.tiered.offset.enable'] === true;
  if (!(m.wal ? walAll : walNone)) return false;
  return m.kip1023 === null || flag === m.kip1023;
}

const KIND_NAME: Record<string, string> = { replication: 'replication', produce: 'produce', consume: 'consume', walMetadata: 'WAL metadata' };

/** Where a run's end figures come from: cross-zone bytes by kind, each store's requests by kind. */
export function breakdown(c: ResolvedSide['endCounters']): { crossZone: string; tiered: string; wal: string } {
  const kinds = Object.entries(c.crossZoneBytes)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${KIND_NAME[k] ?? k} ${formatBytes(v)}`);
  const store = (x: ResolvedSide['endCounters']['objectStore']['tiered']) => {
    const parts = [
      [x.puts, 'PUT'],
      [x.gets, 'GET'],
      [x.deletes, 'DELETE'],
      [x.lists, 'LIST'],
    ]
      .filter(([n]) => (n as number) > 0)
      .map(([n, name]) => `${count(n as number)} ${name}`);
    return parts.length === 0 ? 'none' : parts.join(' · ');
  };
  return { crossZone: kinds.length === 0 ? 'none' : kinds.join(' · '), tiered: store(c.objectStore.tiered), wal: store(c.objectStore.wal) };
}

/** One line of the steady-state table: both designs' dollars a month, how the second differs, and each side's calculation. */
export interface SteadyRow {
  id: string;
  name: string;
  /** The formula in words (the row's tooltip). */
  formula: string;
  a: string;
  b: string;
  diff: string;
  /** The calculation with the numbers (each cell's tooltip); '' when the design has no such line. */
  calcA: string;
  calcB: string;
}

/**
 * The month at steady state of both designs (CompareRow.steadyStateCostUsd,
 * core/study/steady-cost.ts), line by line in the order the lines come (a line only one
 * design has, such as the fast store's, shows "—" on the other side), then the total.
 * Null when either row has none.
 */
export function steadyRows(a: CompareRow, b: CompareRow): SteadyRow[] | null {
  const sa = a.steadyStateCostUsd;
  const sb = b.steadyStateCostUsd;
  if (sa === undefined || sb === undefined || steadyNone(a, b) !== null) return null;
  // The order of the side with more lines (the WAL's come between the tiered store's and storage), then any other.
  const ids = (sa.lines.length >= sb.lines.length ? sa : sb).lines.map((l) => l.id);
  for (const l of [...sa.lines, ...sb.lines]) if (!ids.includes(l.id)) ids.push(l.id);
  const rows: SteadyRow[] = ids.map((id) => {
    const la = sa.lines.find((l) => l.id === id);
    const lb = sb.lines.find((l) => l.id === id);
    const x = la?.usdPerMonth ?? null;
    const y = lb?.usdPerMonth ?? null;
    return {
      id,
      name: (la ?? lb)!.name,
      formula: (la ?? lb)!.formula,
      a: x === null ? '—' : usd(x),
      b: y === null ? '—' : usd(y),
      diff: difference(x ?? 0, y ?? 0, usd),
      calcA: la?.calculation ?? '',
      calcB: lb?.calculation ?? '',
    };
  });
  rows.push({ id: 'total', name: 'total a month', formula: 'the sum of the lines', a: usd(sa.month), b: usd(sb.month), diff: difference(sa.month, sb.month, usd), calcA: '', calcB: '' });
  return rows;
}

export const STEADY_NOTE =
  "Cost per month at steady state: the scenario's rates priced once segments roll, upload and expire and retention is reached (docs/protocol.md §8.1), not the run scaled up. Hover a line for its formula, a cell for its numbers.";

/** Why neither design has a steady state (no repeating produce), or null: the page says so instead of a table of $0 lines. */
export function steadyNone(a: CompareRow, b: CompareRow): string | null {
  const none = (r: CompareRow) => r.steadyStateCostUsd?.warnings.find((w) => w.startsWith(NO_STEADY_STATE)) ?? null;
  return none(a) !== null && none(b) !== null ? none(a) : null;
}
