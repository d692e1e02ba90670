/**
 * Pure layout helpers for the offset lanes and the sequence lane (tested like d3 modules).
 * D3 supplies the scales; Svelte draws.
 */
import { scaleLinear } from 'd3';
import type { PartitionView, ReplicaView } from '../../core/session/view.js';
import { offsetExtent } from '../../core/session/view.js';
import type { TraceEntry } from '../../core/sim/trace.js';

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
}

const TOP: ReadonlySet<MarkerField> = new Set(['logStartOffset', 'localLogStartOffset', 'highestOffsetInRemoteStorage', 'earliestPendingUploadOffset']);

export function xScale(p: PartitionView, left: number, right: number) {
  const [lo, hi] = offsetExtent(p);
  return scaleLinear().domain([lo, stableUpperBound(lo, hi)]).range([left, Math.max(left + 1, right)]);
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

/** The markers of one replica with known offsets (-1 and null are left out), labels in rows. */
export function replicaMarkers(r: ReplicaView, x: (o: number) => number, labelWidth = 64): MarkerLayout[] {
  const out: MarkerLayout[] = [];
  for (const m of MARKERS) {
    let offset: number | null | undefined;
    if (m.field === 'fetchOffset') offset = r.fetcher?.fetchOffset;
    else if (m.field === 'earliestPendingUploadOffset') offset = r.earliestPendingUploadOffset;
    else offset = r[m.field];
    if (offset === null || offset === undefined || offset < 0) continue;
    out.push({ field: m.field, short: m.short, name: m.name, offset, x: x(offset), side: TOP.has(m.field) ? 'top' : 'bottom', row: 0 });
  }
  assignRows(out.filter((m) => m.side === 'top'), labelWidth);
  assignRows(out.filter((m) => m.side === 'bottom'), labelWidth);
  return out;
}

/** Greedy rows: a label goes to the first row where it does not overlap the previous one. */
export function assignRows<T extends { x: number; row: number }>(items: T[], width: number): T[] {
  const sorted = [...items].sort((a, b) => a.x - b.x);
  const rowEnds: number[] = [];
  for (const it of sorted) {
    let row = 0;
    while (row < rowEnds.length && rowEnds[row] > it.x - width / 2) row++;
    rowEnds[row] = it.x + width / 2;
    it.row = row;
  }
  return items;
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
