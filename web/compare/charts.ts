/**
 * Layout of the side-by-side view's small charts, as d3 modules do it: scales, ticks and
 * path strings from data, no DOM. Svelte draws what these return (web/compare/LineChart.svelte,
 * BarChart.svelte). A line chart holds the two designs' cumulative figures over simulated
 * time (told apart by dash pattern and label, not only colour); a bar chart holds one
 * whole-run figure per design.
 */
import { curveStepAfter, line, scaleBand, scaleLinear, tickStep } from 'd3';
import type { Sample } from '../../core/study/compare-timeline.js';
import { FIGURE_USD } from '../../core/study/compare.js';
import { byteUnit, formatBytes, formatCount, formatMs, formatUsd } from '../../core/util/format.js';

export type ValueKind = 'bytes' | 'count' | 'usd' | 'ms';

export interface ChartBox {
  width: number;
  height: number;
  margin: { top: number; right: number; bottom: number; left: number };
}

export const DASH: readonly [string, string] = ['none', '5 3'];

export interface Tick {
  at: number;
  label: string;
}

export interface LineChartLayout {
  paths: [string, string];
  xTicks: Tick[];
  yTicks: Tick[];
  /** Plot area in SVG units. */
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  cursorX: number;
  /** The value of each line at the cursor, placed. */
  dots: Array<{ x: number; y: number }>;
  /** Short names at the lines' ends, moved apart so they do not overlap. */
  ends: Array<{ x: number; y: number; label: string }>;
  /** Every value of both lines is 0 (the chart says so instead of drawing an empty scale). */
  allZero: boolean;
  /** The y axis's unit for the title (a cost chart: USD, or µ$ for a tiny cost), else null. */
  yUnit: string | null;
}

/**
 * Below this many dollars a cost axis counts in millionths of a dollar ("1.5 µ$"): a tick
 * in dollars would need six zeros after the point ("$0.0000015"), too wide for the margin
 * and hard to read.
 */
export const MICRO_USD_BELOW = 0.001;

/** A cost axis's unit, as the chart's title names it. */
export function usdAxisUnit(max: number): string {
  return max < MICRO_USD_BELOW ? 'µ$ = $0.000001' : 'USD';
}

/** Digits after the point that a tick step needs (0.25 -> 2, 5 -> 0), at most 12. */
function decimalsFor(step: number): number {
  if (!(step > 0)) return 0;
  for (let d = 0; d < 12; d++) if (Math.abs(Math.round(step * 10 ** d) - step * 10 ** d) < 1e-9 * 10 ** d) return d;
  return 12;
}

/**
 * The label of an axis tick. Counts are whole ("1.5k" from a thousand); bytes are in the
 * unit of the largest value; dollars carry the decimals their step needs, and below
 * MICRO_USD_BELOW they count in µ$ ("0.5 µ$"), never a leading dot.
 */
export function tickFormat(kind: ValueKind, max: number, step = 0): (v: number) => string {
  if (kind === 'bytes') {
    // Every tick in the unit of the largest value, so ticks land on round numbers of that unit.
    const { unit } = byteUnit(max, 'MiB');
    return (v) => (v === 0 ? '0' : formatBytes(v, { unit, decimals: 2 }));
  }
  if (kind === 'usd') {
    if (max < MICRO_USD_BELOW) {
      const d = decimalsFor(step * 1e6);
      return (v) => (v === 0 ? '0' : `${+(v * 1e6).toFixed(d)} µ$`);
    }
    // Cents as money is written ($0.50, not $0.5); finer steps as many digits as they need.
    const d = step >= 1 ? 0 : Math.max(2, decimalsFor(step));
    return (v) => (v === 0 ? '$0' : `$${v.toFixed(d)}`);
  }
  if (kind === 'ms') return (v) => formatMs(v);
  return (v) => formatCount(v, { compact: true });
}

/**
 * Whole-number ticks from 0 to at least `top` (counts: requests, bytes in B, offsets,
 * milliseconds): about `count` of them, a step of 1, 2 or 5 times a power of ten and never
 * below 1, so an axis of 1 request reads 0, 1 and not 0, 0.5, 1.
 */
export function integerTicks(top: number, count = 3): { ticks: number[]; top: number } {
  const t = Math.max(1, Math.ceil(top));
  // The domain ends on a round number (as d3's nice(4)); the ticks step through it.
  const domainStep = Math.max(1, tickStep(0, t, count + 1));
  const end = Math.ceil(t / domainStep) * domainStep;
  const step = Math.max(1, tickStep(0, end, count));
  const ticks: number[] = [];
  for (let v = 0; v <= end; v += step) ticks.push(v);
  return { ticks, top: end };
}

/** Nice y ticks in the display unit (bytes scale by their unit so 1, 2, 4 MiB come out round); whole numbers for counts and bytes in B. */
export function yScaleFor(kind: ValueKind, max: number, y0: number, y1: number) {
  const u = kind === 'bytes' ? byteUnit(max, 'MiB').bytes : 1;
  if (kind === 'count' || (kind === 'bytes' && u === 1)) {
    const { ticks, top } = integerTicks(max, 3);
    return { y: scaleLinear().domain([0, top]).range([y0, y1]), ticks };
  }
  const top = Math.max(max / u, kind === 'usd' ? 1e-6 : 1);
  const inUnit = scaleLinear().domain([0, top]).range([y0, y1]).nice(4);
  const domain = inUnit.domain();
  const y = scaleLinear().domain([domain[0] * u, domain[1] * u]).range([y0, y1]);
  const ticks = inUnit.ticks(3).map((t) => t * u);
  return { y, ticks };
}

/** Width of a tick label in px at the charts' 10 px type (generous: digits are about 5.6 px). */
export function labelWidth(text: string, fontPx = 10): number {
  return Math.ceil(text.length * 0.62 * fontPx);
}

/**
 * A chart's message ("no new follower joined the ISR") broken into lines that fit `widthPx`
 * at `fontPx`, word by word (a word longer than a line stays whole on its own line).
 */
export function wrapLabel(text: string, widthPx: number, fontPx = 11.5): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line === '' ? word : `${line} ${word}`;
    if (line !== '' && labelWidth(next, fontPx) > widthPx) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/**
 * The two designs' cumulative series over [0, endMs], with a vertical cursor at `cursorMs`
 * and each line's value there (`atCursor`).
 */
export function lineChartLayout(
  series: readonly [readonly Sample[], readonly Sample[]],
  endMs: number,
  cursorMs: number,
  atCursor: readonly [number, number],
  names: readonly [string, string],
  kind: ValueKind,
  box: ChartBox,
): LineChartLayout {
  const { width, height, margin } = box;
  const y0 = height - margin.bottom;
  const y1 = margin.top;
  let max = 0;
  for (const s of series) for (const p of s) max = Math.max(max, p.value);
  const { y, ticks } = yScaleFor(kind, max, y0, y1);
  const fmt = tickFormat(kind, max, ticks.length > 1 ? ticks[1] - ticks[0] : 0);
  const yLabels = ticks.map(fmt);
  // The plot starts right of the widest y label (4 px gap, 2 px to spare), so no label is cut.
  const x0 = Math.max(margin.left, Math.max(0, ...yLabels.map((l) => labelWidth(l))) + 6);
  const x1 = Math.max(x0 + 10, width - margin.right);
  const x = scaleLinear().domain([0, Math.max(1, endMs)]).range([x0, x1]);
  const path = line<Sample>()
    .x((p) => x(p.atMs))
    .y((p) => y(p.value))
    .curve(curveStepAfter);
  // About one x tick per 60 px, so labels never run into each other; simulated time is whole ms.
  const xt = x.ticks(Math.max(2, Math.min(5, Math.floor((x1 - x0) / 60)))).filter(Number.isInteger);
  const cx = x(Math.min(Math.max(0, cursorMs), endMs));
  // End labels: the higher line's label above its end, the other below when they would collide.
  const endsRaw = series.map((s, i) => ({ x: x1, y: y(s.length ? s[s.length - 1].value : 0), label: names[i] }));
  const ends = endsRaw.map((e) => ({ ...e, y: e.y - 4 }));
  if (Math.abs(ends[0].y - ends[1].y) < 11) {
    const [hi, lo] = ends[0].y <= ends[1].y ? [ends[0], ends[1]] : [ends[1], ends[0]];
    lo.y = Math.min(y0 - 2, hi.y + 12);
    if (lo.y - hi.y < 11) hi.y = lo.y - 12;
  }
  return {
    paths: [path(series[0] as Sample[]) ?? '', path(series[1] as Sample[]) ?? ''],
    xTicks: xt.map((t) => ({ at: x(t), label: t === 0 ? '0' : formatMs(t, { unit: 'auto' }) })),
    yTicks: ticks.map((t, i) => ({ at: y(t), label: yLabels[i] })),
    yUnit: kind === 'usd' ? usdAxisUnit(max) : null,
    x0,
    x1,
    y0,
    y1,
    cursorX: cx,
    dots: atCursor.map((v) => ({ x: cx, y: y(v) })),
    ends,
    allZero: max === 0,
  };
}

export interface BarLayout {
  x: number;
  width: number;
  /** Top of the bar; equals `base` for zero or a missing value. */
  y: number;
  base: number;
  label: string;
  value: string;
  missing: boolean;
}

/** Two bars, one per design, from 0; a missing value (null) draws no bar and reads "—". */
export function barChartLayout(values: readonly [number | null, number | null], names: readonly [string, string], kind: ValueKind, box: ChartBox): BarLayout[] {
  const { width, height, margin } = box;
  const band = scaleBand<number>().domain([0, 1]).range([margin.left, width - margin.right]).paddingInner(0.35).paddingOuter(0.25);
  const max = Math.max(0, ...values.map((v) => v ?? 0));
  const base = height - margin.bottom;
  const y = scaleLinear().domain([0, max > 0 ? max : 1]).range([base, margin.top + 12]);
  const fmt = kind === 'ms' ? (v: number) => formatMs(v) : kind === 'usd' ? (v: number) => formatUsd(v, FIGURE_USD) : (v: number) => formatCount(v);
  return values.map((v, i) => ({
    x: band(i) ?? 0,
    width: band.bandwidth(),
    y: v === null ? base : y(v),
    base,
    label: names[i],
    value: v === null ? '—' : fmt(v),
    missing: v === null,
  }));
}
