/**
 * Pure layout helpers for the offset lanes and the sequence lane (tested like d3 modules):
 * the offsets axis, the markers and where their labels go, the lanes' vertical plan (wide
 * and compact), the request lane's columns, arrows and labels, and the diagrams'
 * accessible names. Text widths are estimated, not measured (no DOM in a frame); the
 * browser specs (test/e2e/lanes.spec.ts) check the real boxes. D3 supplies the scales;
 * Svelte draws.
 */
import { scaleLinear } from 'd3';
import type { NetFlowView, PartitionView, ReplicaView } from '../../core/session/view.js';
import { offsetExtent } from '../../core/session/view.js';
import { formatRate, formatRateShort } from '../../core/sim/world/bandwidth.js';
import type { TraceEntry } from '../../core/sim/state/trace.js';
import { formatBytes } from '../../core/util/format.js';

export const MARKERS = [
  { field: 'logStartOffset', short: 'LSO', name: 'Log-Start-Offset' },
  { field: 'localLogStartOffset', short: 'LLSO', name: 'Local-Log-Start-Offset' },
  { field: 'highestOffsetInRemoteStorage', short: 'Ry', name: 'highest offset in remote storage (last tiered)' },
  { field: 'earliestPendingUploadOffset', short: 'EPUO', name: 'Earliest-Pending-Upload-Offset' },
  { field: 'highWatermark', short: 'HW', name: 'high watermark' },
  { field: 'logEndOffset', short: 'LEO', name: 'Log-End-Offset' },
  { field: 'fetchOffset', short: 'fetch', name: "the follower's fetch offset" },
] as const;

export type MarkerField = (typeof MARKERS)[number]['field'];

export interface MarkerLayout {
  field: MarkerField;
  short: string;
  name: string;
  offset: number;
  x: number;
  /** Labels above the lane (log start, local log start, tiered offsets) or below it (HW, LEO, fetch). */
  side: 'top' | 'bottom';
  /** Label row on its side (0 = nearest the lane), so labels never overlap. */
  row: number;
  /** The label's text (`LSO 10`; `next fetch 150` for a pending fetch offset). */
  label: string;
  /** The label's left edge and estimated width, px: centred on `x` unless that would cross `minX` or `maxX`. */
  labelX: number;
  labelWidth: number;
  /** The tooltip: the marker's full name and value, and what is pending. */
  title: string;
  /**
   * Only for `fetchOffset` while the follower builds the remote auxiliary state after
   * truncating its log: the marker stands at the pending offset (`ReplicaView.pendingFetchOffset`)
   * and this is the offset its fetch state still holds.
   */
  heldFetchOffset?: number;
}

const TOP: ReadonlySet<MarkerField> = new Set(['logStartOffset', 'localLogStartOffset', 'highestOffsetInRemoteStorage', 'earliestPendingUploadOffset']);

/**
 * The offsets axis. Its domain starts at 0 and its upper end is `stableUpperBound(0, hi)`
 * for the largest offset drawn: offset 0 is always on the axis, and since a partition's
 * offsets only grow, the axis only grows in a run (in a few round steps), so stops of a
 * chapter compare at a glance. It used to start at the smallest log start offset, which
 * moved the whole picture (and dropped 0) whenever retention or a truncation moved it.
 * The domain is a function of the view alone, so stepping back draws the same axis as
 * stepping forward did.
 */
export function xScale(p: PartitionView, left: number, right: number) {
  const [, hi] = offsetExtent(p);
  return scaleLinear().domain([0, stableUpperBound(0, hi)]).range([left, Math.max(left + 1, right)]);
}

/** The axis' ticks: whole offsets only (an empty log's scale spans [0, 1], whose ticks are tenths). */
export function offsetTicks(x: { ticks(n: number): number[] }, count: number): number[] {
  return x.ticks(count).filter(Number.isInteger);
}

/**
 * The scale's upper end grows in steps (the next of 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k
 * above `hi`), so while a log grows the picture does not rescale at every step: segments
 * keep their places and only new ones are drawn.
 */
export function stableUpperBound(lo: number, hi: number): number {
  const span = Math.max(1, hi - lo);
  const magnitude = 10 ** Math.floor(Math.log10(span));
  for (const f of [1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
    if (f * magnitude >= span) return lo + f * magnitude;
  }
  return lo + 10 * magnitude;
}

/**
 * Estimated width in px of `text` in the page's sans-serif at `fontPx` (no DOM measuring in
 * a frame), erring on the wide side; the browser specs check the real boxes.
 */
export function textWidth(text: string, fontPx = 11, bold = false): number {
  // Em widths of the widest glyph of each class in DejaVu Sans (what `system-ui` and
  // `sans-serif` fall back to on Linux), measured in Chromium; Arial, Helvetica, Segoe UI
  // and Roboto are all narrower, so the estimate is an upper bound on common systems.
  const w = bold
    ? { space: 0.35, digit: 0.7, narrow: 0.46, wide: 1.1, upper: 0.85, lower: 0.72, under: 0.5, other: 1 }
    : { space: 0.32, digit: 0.64, narrow: 0.4, wide: 0.99, upper: 0.79, lower: 0.64, under: 0.5, other: 1 };
  let em = 0;
  for (const ch of text) {
    if (ch === ' ') em += w.space;
    else if (/[0-9]/.test(ch)) em += w.digit;
    else if (/[ijlI.,:;!|'()[\]]/.test(ch)) em += w.narrow;
    else if (/[mwMW]/.test(ch)) em += w.wide;
    else if (/[A-Z]/.test(ch)) em += w.upper;
    else if (/[a-z]/.test(ch)) em += w.lower;
    else if (ch === '_' || ch === '-' || ch === '–') em += w.under;
    else em += w.other; // arrows, symbols, the ellipsis
  }
  return Math.ceil(em * fontPx);
}

/** Px between two labels in one row. */
export const LABEL_GAP = 4;

/**
 * Rows for labels given as intervals: each label goes to the first row where it overlaps
 * no label already placed there (with `gap` px between them), taking labels left to right.
 */
export function assignIntervalRows<T extends { left: number; width: number; row: number }>(items: T[], gap = LABEL_GAP): T[] {
  const sorted = [...items].sort((a, b) => a.left - b.left);
  const rows: Array<Array<[number, number]>> = [];
  for (const it of sorted) {
    const a = it.left;
    const b = it.left + it.width;
    let row = 0;
    while (row < rows.length && rows[row].some(([l, r]) => a < r + gap && l < b + gap)) row++;
    (rows[row] ??= []).push([a, b]);
    it.row = row;
  }
  return items;
}

/** The left edge of a label `w` px wide centred on `x`, moved inside [minX, maxX] (to `minX` when it cannot fit). */
export function clampLabel(x: number, w: number, minX: number, maxX: number): number {
  return Math.max(minX, Math.min(x - w / 2, maxX - w));
}

/**
 * The markers of one replica with known offsets (-1 and null are left out), labels in rows
 * on their side of the lane: no two labels on a side overlap, and every label lies within
 * [minX, maxX] (the SVG's edges) as long as it is narrower than that.
 *
 * The fetch marker: while a follower builds the remote auxiliary state after
 * `truncateFullyAndStartAt(n)`, its fetch state still holds the offset of the Fetch it sent
 * before (0 for an empty follower), left of its new log start; TierStateMachine.start hands
 * the fetcher `n` when it returns. The marker stands at `n`, labelled `next fetch n`, and its
 * tooltip names the offset still held.
 */
export function replicaMarkers(r: ReplicaView, x: (o: number) => number, minX = Number.NEGATIVE_INFINITY, maxX = Number.POSITIVE_INFINITY): MarkerLayout[] {
  const out: MarkerLayout[] = [];
  for (const m of MARKERS) {
    let offset: number | null | undefined;
    let label: string = m.short;
    let title: string = m.name;
    let held: number | undefined;
    if (m.field === 'fetchOffset') {
      offset = r.fetcher?.fetchOffset;
      const pending = r.pendingFetchOffset;
      if (r.fetcher && pending !== null && pending !== undefined && pending !== offset) {
        held = r.fetcher.fetchOffset;
        offset = pending;
        label = 'next fetch';
        title = `the follower's next fetch offset, once the remote auxiliary state is built (its fetch state holds ${held} until then)`;
      }
    } else if (m.field === 'earliestPendingUploadOffset') offset = r.earliestPendingUploadOffset;
    else offset = r[m.field];
    if (offset === null || offset === undefined || offset < 0) continue;
    const text = `${label} ${offset}`;
    const labelWidth = textWidth(text, 11, true);
    const px = x(offset);
    out.push({
      field: m.field,
      short: m.short,
      name: m.name,
      offset,
      x: px,
      side: TOP.has(m.field) ? 'top' : 'bottom',
      row: 0,
      label: text,
      labelX: clampLabel(px, labelWidth, minX, maxX),
      labelWidth,
      title: `${title}: ${offset}`,
      ...(held === undefined ? {} : { heldFetchOffset: held }),
    });
  }
  const boxes = out.map((m) => ({ side: m.side, left: m.labelX, width: m.labelWidth, row: 0 }));
  for (const side of ['top', 'bottom'] as const) assignIntervalRows(boxes.filter((b) => b.side === side));
  out.forEach((m, i) => (m.row = boxes[i].row));
  return out;
}

/**
 * The offset lanes' vertical plan. Every replica lane reserves as many label rows as it
 * can need (4 markers above the bar, 3 below) and a row under them for the bytes in flight
 * (`laneFlows`), so lanes never move between steps and no label reaches the axis or the
 * next lane.
 */
export const LANES = {
  /** Left column with the broker's name and role, px. */
  label: 150,
  /** Room at the top for the axis' tick labels, px. */
  axis: 24,
  rowPx: 13,
  topRows: 4,
  bottomRows: 3,
  barPx: 22,
  /** The row under the bottom label rows with the bytes in flight, px. */
  flowPx: 15,
  /** Gap between a lane's last row and the next lane, px. */
  gapPx: 6,
} as const;

/** Height of one replica lane, px (wide layout). */
export const LANE_HEIGHT = LANES.topRows * LANES.rowPx + 8 + LANES.barPx + 8 + LANES.bottomRows * LANES.rowPx + LANES.flowPx + LANES.gapPx;

/** Below this width the lanes drop their left column and name each lane above it instead. */
export const COMPACT_BELOW = 440;

/** Where a lane's parts go, for an SVG `width` px wide. */
export interface LanePlan {
  compact: boolean;
  /** The offsets axis runs from `left` to `right`. */
  left: number;
  right: number;
  /** Marker labels stay within [labelMinX, labelMaxX]. */
  labelMinX: number;
  labelMaxX: number;
  laneHeight: number;
  /** Top of replica lane `i` (and of the remote lane, `i` = the number of replicas). */
  laneTop(i: number): number;
  /** The bar's top edge of replica lane `i`. */
  barY(i: number): number;
  /** Baselines of the lane's name and of its role line: beside the bar (wide) or above its label rows (compact). */
  titleY(i: number): number;
  subY(i: number): number;
  /** Baseline of the lane's row of bytes in flight, under its bottom label rows (a fitted lane has it only when something is in flight). */
  flowY(i: number): number;
}

/** What a fitted lane reserves: its label rows a side, and whether it has a row of bytes in flight. */
export interface LaneRows {
  top: number;
  bottom: number;
  flow?: boolean;
}

/**
 * The offset lanes' plan. Wide: a 150 px left column with each broker's name, role and
 * state beside its bar. Compact (narrower than `COMPACT_BELOW`): the axis spans nearly the
 * whole width and each lane's name and role go in two lines above its label rows.
 */
export function lanePlan(width: number, rows?: ReadonlyArray<LaneRows>): LanePlan {
  const compact = width < COMPACT_BELOW;
  const head = compact ? 30 : 0;
  const laneHeight = LANE_HEIGHT + head;
  // Fitted (presenter mode): each lane reserves only the label rows it uses now, at least
  // one a side and, in the wide layout, room for its name, role and state beside the bar.
  const top = (i: number) => (rows && i < rows.length ? Math.max(1, rows[i].top) : LANES.topRows);
  const bottom = (i: number) => (rows && i < rows.length ? Math.max(compact ? 1 : 2, rows[i].bottom) : LANES.bottomRows);
  const flow = (i: number) => (rows && i < rows.length ? (rows[i].flow ? LANES.flowPx : 0) : LANES.flowPx);
  const heightOf = (i: number) => head + top(i) * LANES.rowPx + 8 + LANES.barPx + 8 + bottom(i) * LANES.rowPx + flow(i) + LANES.gapPx;
  const tops: number[] = [LANES.axis];
  const laneTop = (i: number) => {
    if (!rows) return LANES.axis + i * laneHeight;
    for (let j = tops.length; j <= i; j++) tops[j] = tops[j - 1] + heightOf(j - 1);
    return tops[i];
  };
  const barY = (i: number) => laneTop(i) + head + top(i) * LANES.rowPx + 8;
  const left = compact ? 12 : LANES.label;
  return {
    compact,
    left,
    right: width - (compact ? 14 : 44),
    // Wide: labels may reach 16 px into the left column, short of its texts (the longest
    // state ends near x = 125), which are level with the bar and never with a label row.
    labelMinX: compact ? 4 : LANES.label - 16,
    labelMaxX: width - 4,
    laneHeight,
    laneTop,
    barY,
    titleY: (i) => (compact ? laneTop(i) + 12 : barY(i) + 6),
    subY: (i) => (compact ? laneTop(i) + 26 : barY(i) + 21),
    flowY: (i) => barY(i) + LANES.barPx + 8 + bottom(i) * LANES.rowPx + 12,
  };
}

/** Height of the remote-storage lane under the replica lanes, px. */
export const REMOTE_LANE_PX = 64;

/** Height of the offset lanes' SVG with the fixed label rows, for `replicas` lanes `width` px wide. */
export function fixedLanesHeight(width: number, replicas: number): number {
  return lanePlan(width).laneTop(replicas) + REMOTE_LANE_PX;
}

/**
 * The offset lanes' layout `width` px wide: the offsets scale, each replica's markers, and
 * the vertical plan, with the fixed label rows or (`fit`) only the rows the markers use now.
 */
export function lanesLayout(p: PartitionView, width: number, fit: boolean) {
  const wide = lanePlan(width);
  const x = xScale(p, wide.left, wide.right);
  const markers = p.replicas.map((r) => replicaMarkers(r, (o) => x(o), wide.labelMinX, wide.labelMaxX));
  const flows = p.replicas.map((r) => laneFlows(r));
  const plan = fit ? lanePlan(width, markers.map((m, i) => ({ ...rowsUsed(m), flow: flows[i].length > 0 }))) : wide;
  const flowRows = flows.map((f) => flowRow(f, plan.left, plan.labelMaxX));
  return { x, markers, flows: flowRows, plan, height: plan.laneTop(p.replicas.length) + REMOTE_LANE_PX };
}

/** One thing in flight on a lane (`ReplicaView.inFlight`), as the lane writes it. */
export interface LaneFlow {
  /** `receiving` and `sending`: the network; `tiered` and `wal`: GETs from that store. */
  kind: 'receiving' | 'sending' | 'tiered' | 'wal';
  /** The lane's short text: `↓ 536 KiB in flight · 62.5 MB/s from broker 0`. */
  text: string;
  /** The rate now against one link's capacity (the broker's interface, or the store's per-request throughput), 0 to 1: the gauge's fill. */
  share: number;
  /** In full, for the tooltip and the diagram's description: `receiving 536 KiB of 1 MiB ...`. */
  sentence: string;
  bytesLeft: number;
  bytesPerSec: number;
}

/** `brokers 1, 2` / `broker 1 and 2 consumers` / `a consumer`. */
function peersText(f: NetFlowView): string {
  const brokers = f.peers.length === 0 ? '' : `broker${f.peers.length === 1 ? '' : 's'} ${f.peers.join(', ')}`;
  const clients = f.clients === 0 ? '' : f.clients === 1 ? 'a consumer' : `${f.clients} consumers`;
  return brokers !== '' && clients !== '' ? `${brokers} and ${clients}` : brokers + clients;
}

/** The part of one broker's interface a rate is, in words: `all of a broker's 125 MB/s interface`, `1/2 of ...`, `37% of ...`. */
function shareText(bytesPerSec: number, cap: number): string {
  if (cap <= 0) return '';
  const f = bytesPerSec / cap;
  const of = `of a broker's ${formatRateShort(cap)} interface`;
  if (f >= 0.9995) return `all ${of}`;
  for (const n of [2, 3, 4]) if (Math.abs(f * n - 1) < 0.0005) return `1/${n} ${of}`;
  return `${Math.round(f * 100)}% ${of}`;
}

const STORE_NAME = { tiered: 'the tiered store', wal: 'the fast store' } as const;

/**
 * What a replica's lane says is in flight now: its partition's transfers in (`↓`) and out
 * (`↑`) and its GETs from the stores, each with its bytes left and rate; nothing when
 * nothing is in flight. Bytes in powers of 2 (as the model counts them), rates in decimal
 * MB/s (as links are sold).
 */
export function laneFlows(r: ReplicaView): LaneFlow[] {
  const f = r.inFlight;
  const out: LaneFlow[] = [];
  const net = (kind: 'receiving' | 'sending', v: NetFlowView | null) => {
    if (v === null) return;
    const rate = formatRateShort(v.bytesPerSec);
    const dir = kind === 'receiving' ? 'from' : 'to';
    const who = peersText(v);
    const n = v.transfers === 1 ? '1 transfer' : `${v.transfers} transfers`;
    const part = shareText(v.bytesPerSec, v.linkBytesPerSec);
    out.push({
      kind,
      text: `${kind === 'receiving' ? '↓' : '↑'} ${formatBytes(v.bytesLeft)} in flight · ${rate} ${dir} ${who}`,
      share: v.linkBytesPerSec > 0 ? Math.min(1, v.bytesPerSec / v.linkBytesPerSec) : 1,
      sentence: `${kind} ${formatBytes(v.bytesLeft)} of ${formatBytes(v.bytes)} ${dir} ${who} at ${formatRate(v.bytesPerSec)}${part === '' ? '' : `, ${part}`} (${n})`,
      bytesLeft: v.bytesLeft,
      bytesPerSec: v.bytesPerSec,
    });
  };
  net('receiving', f.receiving);
  net('sending', f.sending);
  for (const v of f.fromStore) {
    const flowing = v.gets - v.waiting;
    const rate = flowing === 0 ? 'waiting for the first byte' : `${formatRateShort(v.bytesPerSec)}${v.waiting > 0 ? `, ${v.waiting} waiting` : ''}`;
    const n = v.gets === 1 ? '1 GET' : `${v.gets} GETs`;
    out.push({
      kind: v.store,
      text: `↓ ${formatBytes(v.bytesLeft)} from ${STORE_NAME[v.store]} · ${rate}`,
      share: v.getBytesPerSec > 0 ? Math.min(1, v.bytesPerSec / v.getBytesPerSec) : 0,
      sentence:
        `reading ${formatBytes(v.bytesLeft)} of ${formatBytes(v.bytes)} from ${STORE_NAME[v.store]} (${n}` +
        `${flowing === 0 ? ', waiting for the first byte' : `, ${formatRate(v.bytesPerSec)}${v.waiting > 0 ? `; ${v.waiting} waiting for the first byte` : ''}`})`,
      bytesLeft: v.bytesLeft,
      bytesPerSec: v.bytesPerSec,
    });
  }
  return out;
}

/** The gauge in front of each flow's text: its track, px. */
export const FLOW_GAUGE = { width: 28, height: 6, gap: 5, between: 16 } as const;

/** A lane's flows placed left to right from `left`, each text cut to the room left before `maxX`; what does not fit is left out (the description has it). */
export function flowRow(flows: readonly LaneFlow[], left: number, maxX: number): Array<LaneFlow & { x: number; textX: number; label: string }> {
  const out: Array<LaneFlow & { x: number; textX: number; label: string }> = [];
  let x = left;
  for (const f of flows) {
    const textX = x + FLOW_GAUGE.width + FLOW_GAUGE.gap;
    const room = maxX - textX;
    if (room < 60) break;
    const label = fitText(f.text, room, 11, false);
    out.push({ ...f, x, textX, label });
    x = textX + textWidth(label, 11, false) + FLOW_GAUGE.between;
  }
  return out;
}

/** The label rows a lane's markers use on each side (for a fitted plan). */
export function rowsUsed(markers: ReadonlyArray<{ side: 'top' | 'bottom'; row: number }>): { top: number; bottom: number } {
  let top = 0;
  let bottom = 0;
  for (const m of markers) {
    if (m.side === 'top') top = Math.max(top, m.row + 1);
    else bottom = Math.max(bottom, m.row + 1);
  }
  return { top, bottom };
}

/** The bar's top edge of replica lane `i` (wide layout). */
export function laneBarY(i: number): number {
  return lanePlan(COMPACT_BELOW).barY(i);
}

/** Baseline of a marker label in `row` on `side` of a bar whose top edge is at `barY`. */
export function markerLabelY(barY: number, side: 'top' | 'bottom', row: number): number {
  return side === 'top' ? barY - 9 - row * LANES.rowPx : barY + LANES.barPx + 18 + row * LANES.rowPx;
}

/** How many ticks fit the axis: one per 70 px, at least 2 (labels up to 6 digits never touch). */
export function tickCount(left: number, right: number): number {
  return Math.max(2, Math.floor((right - left) / 70));
}

/** A short state of a replica for the lane's left column and the diagram's description. */
export function replicaStatus(r: ReplicaView): string {
  if (!r.alive || r.role === 'offline') return 'offline';
  if (r.fetcher?.failed) return 'fetcher failed';
  if (r.fetcher?.delayed) return 'backoff';
  if (r.pendingFetchOffset !== null && r.pendingFetchOffset !== undefined) return 'building aux state';
  const m = r.fetcher?.machineState ?? '';
  if (m.startsWith('buildingAuxState')) return 'building aux state';
  if (m.startsWith('kip1023')) return 'KIP-1023 ListOffsets';
  if (m.startsWith('outOfRange') || m.startsWith('tieredOffset')) return 'ListOffsets';
  return '';
}

/**
 * One sentence per replica and one for remote storage, naming the offsets and what the
 * follower is doing: the diagram's accessible name (the page's table says the rest).
 */
export function lanesDescription(p: PartitionView): string {
  const parts = [`${p.topic}-${p.partition}, leader ${p.leader < 0 ? 'none' : `broker ${p.leader}`}, leader epoch ${p.leaderEpoch}`];
  for (const r of p.replicas) {
    const bits = [`broker ${r.broker} ${r.role}${r.role === 'offline' ? '' : r.inIsr ? ' in the ISR' : ' not in the ISR'}`];
    bits.push(`log [${r.logStartOffset}, ${r.logEndOffset}), local from ${r.localLogStartOffset}, high watermark ${r.highWatermark}`);
    if (r.highestOffsetInRemoteStorage >= 0) bits.push(`highest offset in remote storage ${r.highestOffsetInRemoteStorage}`);
    if (r.earliestPendingUploadOffset !== null && r.earliestPendingUploadOffset >= 0) bits.push(`Earliest-Pending-Upload-Offset ${r.earliestPendingUploadOffset}`);
    if (r.fetcher) {
      if (r.pendingFetchOffset !== null && r.pendingFetchOffset !== undefined && r.pendingFetchOffset !== r.fetcher.fetchOffset) {
        bits.push(`building the remote auxiliary state: next fetch offset ${r.pendingFetchOffset} (fetch state still ${r.fetcher.fetchOffset})`);
      } else bits.push(`fetch offset ${r.fetcher.fetchOffset}`);
      const st = replicaStatus(r);
      if (st !== '' && st !== 'building aux state') bits.push(st);
    }
    for (const f of laneFlows(r)) bits.push(f.sentence);
    parts.push(bits.join(', '));
  }
  const live = p.remoteSegments.filter((s) => s.state !== 'DELETE_SEGMENT_FINISHED');
  if (live.length === 0) parts.push('remote storage: no segments');
  else {
    const byState = new Map<string, number>();
    for (const s of live) byState.set(s.state, (byState.get(s.state) ?? 0) + 1);
    const lo = Math.min(...live.map((s) => s.baseOffset));
    const hi = Math.max(...live.map((s) => s.endOffset));
    parts.push(`remote storage: ${live.length} segment${live.length === 1 ? '' : 's'} over [${lo}, ${hi}] (${[...byState].map(([st, n]) => `${n} ${st}`).join(', ')})`);
  }
  return `${parts.join('. ')}.`;
}

export interface Column {
  id: string;
  label: string;
  x: number;
}

/**
 * Sequence lane columns: one per broker, then the tiered store, the fast store (KIP-1176's
 * WAL, only when `fastStore`) and the clients.
 */
export function sequenceColumns(brokers: number, width: number, left = 10, fastStore = false): Column[] {
  const ids = [...Array.from({ length: brokers }, (_, i) => `broker-${i}`), 'tiered', ...(fastStore ? ['wal'] : []), 'consumer'];
  const labels = [...Array.from({ length: brokers }, (_, i) => `broker ${i}`), 'tiered store', ...(fastStore ? ['fast store'] : []), 'consumer'];
  const step = (width - 2 * left) / Math.max(1, ids.length - 1);
  return ids.map((id, i) => ({ id, label: labels[i], x: left + i * step }));
}

export interface Arrow {
  from: string;
  to: string;
  label: string;
  error: boolean;
  /** `walChunk`: a chunk read from the fast store reaching a follower's log; `note`: a step on one broker. */
  kind: 'request' | 'response' | 'objectStore' | 'backoff' | 'walChunk' | 'note';
  atMs: number;
}

const ts = (t: unknown) => (typeof t === 'number' ? `${t}` : '');

/** True for the trace entries the sequence lane draws (those `arrowFor` answers), without building the arrow. */
export function inSequence(e: TraceEntry): boolean {
  const a = (e as { action?: unknown }).action;
  return (
    e.type === 'request' ||
    e.type === 'response' ||
    e.type === 'objectStore' ||
    (e.type === 'fetcher' && a === 'delayed') ||
    (e.type === 'log' && a === 'walChunkAppended') ||
    (e.type === 'wal' && (a === 'chunkPublished' || a === 'readDelayed'))
  );
}

/** One arrow (or backoff bar) per trace entry of the sequence lane. */
export function arrowFor(e: TraceEntry): Arrow | null {
  const x = e as Record<string, unknown>;
  const col = (v: unknown) => (v === 'consumer' || v === 'producer' ? 'consumer' : `broker-${String(v)}`);
  if (e.type === 'request') {
    const label = x.api === 'Fetch' ? `Fetch(${x.fetchOffset})` : x.api === 'ListOffsets' ? `ListOffsets(${ts(x.timestamp)})` : `OffsetsForLeaderEpoch(${x.leaderEpoch})`;
    return { from: col(x.source), to: col(x.target), label, error: false, kind: 'request', atMs: e.atMs };
  }
  if (e.type === 'response') {
    let label: string;
    if (x.error) label = String(x.error);
    else if (x.api === 'Fetch' && x.wal === true) label = 'no records, HW only';
    else if (x.api === 'Fetch') label = `${x.records} records${x.servedFrom === 'remote' ? ' (remote)' : ''}`;
    else if (x.api === 'ListOffsets') label = `offset ${x.offset}`;
    else label = `epoch ${x.leaderEpoch} ends ${x.endOffset}`;
    return { from: col(x.source), to: col(x.target), label, error: Boolean(x.error), kind: 'response', atMs: e.atMs };
  }
  if (e.type === 'objectStore' && x.store === 'wal') {
    // KIP-1176: a WAL object by its short name; a chunk read by its byte range.
    const seq = /(\d+)\.wal$/.exec(String(x.key));
    const name = seq ? `wal#${Number(seq[1])}` : String(x.key);
    const range = Array.isArray(x.range) ? ` bytes ${x.range[0]}–${x.range[1]}` : '';
    const label = `${String(x.op).toUpperCase()} ${name}${x.op === 'get' ? range : ''}${x.ok ? '' : ` ✖ ${x.error}`}`;
    return { from: col(x.broker), to: 'wal', label, error: !x.ok, kind: 'objectStore', atMs: e.atMs };
  }
  if (e.type === 'objectStore') {
    const file = String(x.key).split('.').pop();
    const label = `${String(x.op).toUpperCase()} .${file}${x.ok ? '' : ` ✖ ${x.error}`}`;
    return { from: col(x.broker), to: 'tiered', label, error: !x.ok, kind: 'objectStore', atMs: e.atMs };
  }
  if (e.type === 'log' && x.action === 'walChunkAppended') {
    return { from: 'wal', to: col(x.broker), label: `chunk [${x.baseOffset}, ${x.lastOffset}] appended`, error: false, kind: 'walChunk', atMs: e.atMs };
  }
  if (e.type === 'wal' && x.action === 'chunkPublished') {
    return { from: col(x.broker), to: col(x.broker), label: `metadata record ${x.metadataOffset}: ${x.topic}-${x.partition} [${x.baseOffset}, ${x.lastOffset}] e${x.leaderEpoch}`, error: false, kind: 'note', atMs: e.atMs };
  }
  if (e.type === 'wal' && x.action === 'readDelayed') {
    return { from: col(x.broker), to: col(x.broker), label: `WAL read backoff ${x.delayMs} ms`, error: false, kind: 'backoff', atMs: e.atMs };
  }
  if (e.type === 'fetcher' && x.action === 'delayed') {
    return { from: col(x.broker), to: col(x.broker), label: `backoff ${x.delayMs} ms → retry at ${x.retryAtMs} ms`, error: false, kind: 'backoff', atMs: e.atMs };
  }
  return null;
}

/** The sequence lane's sizes, px. */
export const SEQ = {
  row: 22,
  /** Time column: the current row's bar at 0, times from `timeX` in 10 px type. */
  timeX: 7,
  timePx: 10,
  /** Arrow labels and column names: 11 px. */
  labelPx: 11,
  /** Px kept clear between the time column and any label, and at the right edge. */
  pad: 6,
  /** The backoff's pause shape: two bars from x + 5 to x + 13, then the label. */
  pauseLabelDx: 18,
} as const;

export interface SequenceRow {
  a: Arrow;
  step: number;
  /** Baseline of the arrow (the label sits above it, at `labelY`). */
  y: number;
  x1: number;
  x2: number;
  /** The label as drawn: the full text, or shortened with `…` when the row has no room for it. */
  text: string;
  /** The full label (the row's tooltip). */
  full: string;
  /** Left edge of the label (drawn with text-anchor start) and its estimated width. */
  labelX: number;
  labelWidth: number;
  labelY: number;
}

export interface SequenceLayout {
  /** Right edge of the widest time: no label starts left of `timeRight + SEQ.pad`. */
  timeRight: number;
  /** `label` as drawn (short when the columns are tight), `full` the column's name. */
  cols: Array<Column & { labelY: number; full: string }>;
  /** y of the first row's top. */
  top: number;
  rows: SequenceRow[];
  height: number;
}

/** `text` cut at the end with `…` until it is at most `maxPx` wide (at least one character and the ellipsis). */
export function fitText(text: string, maxPx: number, fontPx = SEQ.labelPx, bold = true): string {
  if (textWidth(text, fontPx, bold) <= maxPx) return text;
  const chars = [...text];
  for (let n = chars.length - 1; n > 1; n--) {
    const t = `${chars.slice(0, n).join('').trimEnd()}…`;
    if (textWidth(t, fontPx, bold) <= maxPx) return t;
  }
  return `${chars[0]}…`;
}

/**
 * The sequence lane: the time column (wide enough for the longest time), the columns
 * (names in two staggered rows when neighbours would touch), and for each row where its
 * label goes. An arrow's label is centred over the arrow but kept right of the time column
 * and inside the SVG; a backoff's or a note's label goes on the side of its column with
 * room. A label that is wider than the room left is cut with `…` (the row's tooltip has it
 * in full). Labels are estimated bold, the widest they are drawn.
 */
export function sequenceLayout(items: ReadonlyArray<{ a: Arrow; step: number }>, brokers: number, width: number, fastStore = false): SequenceLayout {
  const timeW = items.reduce((n, r) => Math.max(n, textWidth(String(r.a.atMs), SEQ.timePx)), textWidth('0000', SEQ.timePx));
  const timeRight = SEQ.timeX + timeW;
  const minX = timeRight + SEQ.pad;
  const maxX = width - SEQ.pad;
  const named = sequenceColumns(brokers, width, 0, fastStore);
  // Column names: in one row; in two staggered rows when neighbours would touch; short
  // (`b0`, `tiered`, `fast`, `client`) in as many staggered rows as it takes when even
  // that is too tight (each column's full name is its tooltip).
  const shortName = (c: Column) => (c.id.startsWith('broker-') ? `b${c.id.slice(7)}` : c.id === 'tiered' ? 'tiered' : c.id === 'wal' ? 'fast' : 'client');
  const plan = (names: string[], rows: number) => {
    const w = names.map((n) => textWidth(n, SEQ.labelPx, true));
    const margin = Math.max(minX + 2, w[0] / 2 + 2, w[w.length - 1] / 2 + 2);
    const at = sequenceColumns(brokers, width, margin, fastStore);
    const fits = at.every((c, i) => i < rows || c.x - at[i - rows].x >= (w[i] + w[i - rows]) / 2 + SEQ.pad);
    return { at, fits, names, rows };
  };
  const full = named.map((c) => c.label);
  const short = named.map(shortName);
  const tries = [plan(full, 1), plan(full, 2), ...named.map((_, i) => plan(short, i + 2))];
  const chosen = tries.find((t) => t.fits) ?? tries[tries.length - 1];
  const cols = chosen.at.map((c, i) => ({ ...c, label: chosen.names[i], full: named[i].label, labelY: 13 + (i % chosen.rows) * 13 }));
  const top = 30 + (chosen.rows - 1) * 13;
  const colX = Object.fromEntries(cols.map((c) => [c.id, c.x])) as Record<string, number>;
  const rows = items.map(({ a, step }, i): SequenceRow => {
    const y = top + i * SEQ.row + 8;
    const x1 = colX[a.from] ?? 0;
    const x2 = colX[a.to] ?? 0;
    const full = a.label;
    const drawn = a.error ? `⚠ ${full}` : full;
    let labelX: number;
    let text: string;
    let labelY = y - 4;
    if (a.kind === 'backoff' || a.kind === 'note') {
      labelY = y + 4;
      const rightStart = x1 + (a.kind === 'backoff' ? SEQ.pauseLabelDx : 9);
      const w = textWidth(drawn, SEQ.labelPx, true);
      const rightRoom = maxX - rightStart;
      const leftRoom = x1 - 9 - minX;
      if (w <= rightRoom || rightRoom >= leftRoom) {
        text = fitText(drawn, rightRoom);
        labelX = rightStart;
      } else {
        text = fitText(drawn, leftRoom);
        labelX = x1 - 9 - textWidth(text, SEQ.labelPx, true);
      }
    } else {
      text = fitText(drawn, maxX - minX);
      labelX = clampLabel((x1 + x2) / 2, textWidth(text, SEQ.labelPx, true), minX, maxX);
    }
    return { a, step, y, x1, x2, text, full, labelX, labelWidth: textWidth(text, SEQ.labelPx, true), labelY };
  });
  return { timeRight, cols, top, rows, height: top + Math.max(rows.length, 6) * SEQ.row + 10 };
}

const columnName = (id: string) => (id.startsWith('broker-') ? `broker ${id.slice(7)}` : id === 'tiered' ? 'tiered store' : id === 'wal' ? 'fast store' : id);

/** The request lane's accessible name: what it shows, and the rows of the current step in words. */
export function sequenceDescription(rows: ReadonlyArray<{ a: Arrow; step: number }>, currentStep: number): string {
  const head = 'Requests between brokers, the object stores and clients, newest at the bottom';
  if (rows.length === 0) return `${head}: none yet.`;
  const span = `${rows.length} shown, from ${rows[0].a.atMs} ms to ${rows[rows.length - 1].a.atMs} ms`;
  const now = rows.filter((r) => r.step === currentStep).map(({ a }) => {
    const who = a.from === a.to ? columnName(a.from) : `${columnName(a.from)} to ${columnName(a.to)}`;
    return `${who}: ${a.label}${a.error ? ' (error)' : ''}`;
  });
  return `${head}; ${span}. ${now.length === 0 ? 'No request in this step.' : `This step: ${now.join('; ')}.`}`;
}

/**
 * Structural sharing: returns `next`, but with every part that equals the same part of
 * `prev` replaced by `prev`'s object, so components fed unchanged parts do no work.
 */
export function share<T>(prev: T, next: T): T {
  if (prev === next) return prev;
  if (typeof prev !== 'object' || typeof next !== 'object' || prev === null || next === null) return next;
  if (Array.isArray(prev) !== Array.isArray(next)) return next;
  let same = true;
  if (Array.isArray(next)) {
    const p = prev as unknown as unknown[];
    const out = next.map((v, i) => (i < p.length ? share(p[i], v) : v));
    if (out.length !== p.length || out.some((v, i) => v !== p[i])) same = false;
    return (same ? prev : out) as T;
  }
  const p = prev as Record<string, unknown>;
  const n = next as Record<string, unknown>;
  const keys = Object.keys(n);
  if (keys.length !== Object.keys(p).length) same = false;
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    out[k] = share(p[k], n[k]);
    if (out[k] !== p[k]) same = false;
  }
  return (same ? prev : out) as T;
}
