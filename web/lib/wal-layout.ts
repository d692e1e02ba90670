/**
 * Pure layout helpers for KIP-1176's fast-store lane (tested like d3 modules): WAL objects
 * as boxes sized by bytes, oldest to newest in rows, each cut into its chunks' byte
 * ranges; the partition of a chunk as a pattern and a label (never colour alone); and the
 * hops of the current step (leader -> fast store -> followers) read from its trace entries.
 * D3 supplies the byte scale; Svelte draws.
 */
import { scaleLinear } from 'd3';
import type { WalChunkView, WalObjectView, WalView } from '../../core/session/view.js';
import type { ObjectStoreEntry, TraceEntry } from '../../core/sim/state/trace.js';
import { byteUnit, formatBytes, formatMs } from '../../core/util/format.js';
import { stableUpperBound } from './layout.js';

/** Patterns for partitions, in the order partitions are listed (ids of <pattern> in WalLane.svelte). */
export const CHUNK_PATTERNS = ['stripes', 'dots', 'grid', 'bars', 'zigzag', 'solid'] as const;
export type ChunkPattern = (typeof CHUNK_PATTERNS)[number];

/** A short name for a WAL object: its sequence number in the cluster (`wal#12`). */
export function walObjectName(seq: number): string {
  return `wal#${seq}`;
}

/** The sequence number in a WAL object key (`broker-0/00000000000000000012.wal` -> 12), or null. */
export function walSeqOfKey(key: string): number | null {
  const m = /(\d+)\.wal$/.exec(key);
  return m === null ? null : Number(m[1]);
}

/** The partition of each `topic-partition` key as a pattern, in the order given. */
export function chunkPatterns(keys: readonly string[]): Record<string, ChunkPattern> {
  const out: Record<string, ChunkPattern> = {};
  keys.forEach((k, i) => (out[k] = CHUNK_PATTERNS[i % CHUNK_PATTERNS.length]));
  return out;
}

/** Text width estimate for the lane's 10 px labels (no DOM measuring in a frame). */
const CHAR_PX = 6.2;

/**
 * The fullest label of a chunk that fits `width` px, as lines: partition, offsets and
 * epoch on one line when there is room, the offsets alone, or the offsets on two lines in
 * a narrow chunk; none when not even that fits (the chunk's tooltip and the details
 * table still say everything).
 */
export function chunkLabel(c: Pick<WalChunkView, 'key' | 'baseOffset' | 'lastOffset' | 'leaderEpoch'>, width: number): string[] {
  const fits = (t: string) => t.length * CHAR_PX + 6 <= width;
  const one = [`${c.key} [${c.baseOffset}, ${c.lastOffset}] e${c.leaderEpoch}`, `[${c.baseOffset}, ${c.lastOffset}] e${c.leaderEpoch}`, `[${c.baseOffset}, ${c.lastOffset}]`];
  for (const t of one) if (fits(t)) return [t];
  const two = [`${c.baseOffset}–`, `${c.lastOffset}`];
  return two.every(fits) ? two : [];
}

export interface ChunkBox {
  chunk: WalChunkView;
  /** Left edge, px from the object box's left edge. */
  x: number;
  w: number;
  /** Label lines (none when the chunk is too narrow). */
  label: string[];
}

export interface ObjectBox {
  object: WalObjectView;
  x: number;
  /** Row of the box (0 = first row). */
  row: number;
  w: number;
  chunks: ChunkBox[];
}

export interface WalLayout {
  boxes: ObjectBox[];
  rows: number;
  /** The byte scale's upper end (drawn as the scale bar) and its width in px. */
  scaleBytes: number;
  scaleWidth: number;
}

/**
 * The byte scale's upper end: the next of 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k in the
 * largest binary unit below `bytes` (100 KiB stays 100 KiB), so it reads as a round figure.
 */
export function stableBytesBound(bytes: number): number {
  const n = Math.max(1, bytes);
  const unit = byteUnit(n).bytes;
  return stableUpperBound(0, n / unit) * unit;
}

export interface WalLayoutOptions {
  left: number;
  right: number;
  /** Gap between boxes, px. */
  gap?: number;
  /** Narrowest box, px (room for its name). */
  minWidth?: number;
  /** Most boxes of the largest size in one row. */
  perRow?: number;
}

/**
 * Boxes for the objects, oldest first, in rows from `left` to `right`. A box's width is
 * proportional to its bytes: the scale's upper end grows in steps above the largest object
 * shown (as the offset scale does), so boxes keep their size while objects come and go.
 */
export function layoutWalObjects(objects: readonly WalObjectView[], o: WalLayoutOptions): WalLayout {
  const gap = o.gap ?? 8;
  const minWidth = o.minWidth ?? 44;
  const area = Math.max(minWidth, o.right - o.left);
  const perRow = Math.max(1, Math.min(o.perRow ?? 8, objects.length));
  const maxBytes = objects.reduce((m, x) => Math.max(m, x.bytes), 0);
  const scaleBytes = stableBytesBound(maxBytes);
  const maxBox = Math.max(minWidth, Math.min(320, area / perRow - gap));
  const width = scaleLinear().domain([0, scaleBytes]).range([0, maxBox]);
  const boxes: ObjectBox[] = [];
  let x = o.left;
  let row = 0;
  for (const object of objects) {
    const w = Math.max(minWidth, width(object.bytes));
    if (x > o.left && x + w > o.left + area) {
      row++;
      x = o.left;
    }
    boxes.push({ object, x, row, w, chunks: chunkBoxes(object, w) });
    x += w + gap;
  }
  return { boxes, rows: objects.length === 0 ? 0 : row + 1, scaleBytes, scaleWidth: maxBox };
}

/** The chunks of an object `w` px wide, by byte range (x from the box's left edge); one too thin to see still gets 2 px. */
export function chunkBoxes(object: WalObjectView, w: number): ChunkBox[] {
  const px = object.bytes > 0 ? w / object.bytes : 0;
  return object.chunks.map((chunk) => {
    const cw = Math.max(2, (chunk.range[1] - chunk.range[0] + 1) * px);
    return { chunk, x: chunk.range[0] * px, w: cw, label: chunkLabel(chunk, cw) };
  });
}

/**
 * The fast-store diagram's accessible name: the store's state, the objects shown (name,
 * size, state, writer, chunks' partitions and offsets) and the metadata records retained.
 */
export function walDescription(wal: Pick<WalView, 'objects' | 'hiddenObjects' | 'topics' | 'metadata'>, available: boolean): string {
  const head = `KIP-1176 fast store (${available ? 'up' : 'down'})`;
  if (wal.objects.length === 0) return `${head}: ${wal.topics.length === 0 ? 'WAL is off on every topic' : 'no WAL objects now'}; ${wal.metadata.retainedRecords} metadata records retained.`;
  const objs = wal.objects.map((o) => {
    const chunks = o.chunks.map((c) => `${c.key} [${c.baseOffset}, ${c.lastOffset}] e${c.leaderEpoch}`).join(', ');
    const state = o.state === 'live' ? 'live' : o.state === 'putting' ? 'being put' : 'being deleted';
    return `${walObjectName(o.seq)} ${formatBytes(o.bytes)} ${state} by broker ${o.broker}${chunks === '' ? '' : ` (${chunks})`}`;
  });
  const older = wal.hiddenObjects > 0 ? ` and ${wal.hiddenObjects} older` : '';
  return `${head}: ${wal.objects.length} WAL object${wal.objects.length === 1 ? '' : 's'}${older}, oldest first: ${objs.join('; ')}. ${wal.metadata.retainedRecords} metadata records retained (${wal.metadata.records} written).`;
}

/** One hop of a chunk in the current step. */
export interface WalHop {
  kind: 'put' | 'publish' | 'get' | 'append' | 'delete' | 'putFailed' | 'readDelayed';
  /** The broker that acted: the writer (put, publish, delete) or the reader (get, append). */
  broker: number;
  objectKey: string | null;
  seq: number | null;
  ok: boolean;
  /** `topic-partition`, when the entry names one. */
  partition: string | null;
  /** Bytes of the object read (get) or written (put). */
  range: [number, number] | null;
  bytes: number | null;
  offsets: [number, number] | null;
  leaderEpoch: number | null;
  metadataOffset: number | null;
  error: string | null;
  /** One sentence: who moved what where. */
  text: string;
}

/** The hops of a chunk in these trace entries (the current step's), in trace order. */
export function walHops(entries: readonly TraceEntry[]): WalHop[] {
  const out: WalHop[] = [];
  for (const e of entries) {
    const x = e as Record<string, unknown>;
    const tp = e.topic !== undefined ? `${e.topic}-${e.partition}` : null;
    const key = typeof x.key === 'string' ? x.key : typeof x.objectKey === 'string' ? x.objectKey : null;
    const seq = key === null ? null : walSeqOfKey(key);
    const name = seq === null ? String(key) : walObjectName(seq);
    const base = { broker: Number(x.broker), objectKey: key, seq, partition: tp, range: null, bytes: null, offsets: null, leaderEpoch: null, metadataOffset: null, error: null, ok: true };
    const offsets = typeof x.baseOffset === 'number' && typeof x.lastOffset === 'number' ? ([x.baseOffset, x.lastOffset] as [number, number]) : null;
    if (e.type === 'objectStore' && x.store === 'wal') {
      const o = e as ObjectStoreEntry;
      const ok = o.ok;
      const error = o.error ?? null;
      const err = ok ? '' : `: failed, ${error}`;
      if (o.op === 'put') {
        out.push({ ...base, kind: 'put', ok, bytes: o.bytes, error, text: `broker ${o.broker} → fast store: PUT ${name}${ok ? ` (${formatBytes(o.bytes)})` : ''}${err}` });
      } else if (o.op === 'get') {
        const range = o.range ? ([o.range[0], o.range[1]] as [number, number]) : null;
        const bytes = range ? `bytes ${range[0]}–${range[1]}` : formatBytes(o.bytes);
        out.push({ ...base, kind: 'get', ok, range, bytes: o.bytes, error, text: `fast store → broker ${o.broker}: ranged GET ${name} ${bytes}${tp ? ` (${tp})` : ''}${err}` });
      } else if (o.op === 'delete') {
        out.push({ ...base, kind: 'delete', ok, error, text: `broker ${o.broker} → fast store: DELETE ${name}${err}` });
      }
    } else if (e.type === 'wal' && x.action === 'chunkPublished') {
      const range = x.range as [number, number];
      out.push({
        ...base,
        kind: 'publish',
        range: [range[0], range[1]],
        offsets,
        leaderEpoch: x.leaderEpoch as number,
        metadataOffset: x.metadataOffset as number,
        text: `broker ${x.broker} → __remote_wal_log_metadata: ${tp} [${offsets?.[0]}, ${offsets?.[1]}] epoch ${x.leaderEpoch} is in ${name} bytes ${range[0]}–${range[1]} (record ${x.metadataOffset}); the followers will read it`,
      });
    } else if (e.type === 'wal' && x.action === 'putFailed') {
      out.push({ ...base, kind: 'putFailed', ok: false, error: (x.error as string | null) ?? null, text: `broker ${x.broker}: ${name} not written (${x.error}); its chunks wait for the next object` });
    } else if (e.type === 'wal' && x.action === 'readDelayed') {
      out.push({ ...base, kind: 'readDelayed', ok: false, text: `broker ${x.broker} ${tp}: WAL read retried in ${formatMs(x.delayMs as number)} (${x.reason})` });
    } else if (e.type === 'log' && x.action === 'walChunkAppended') {
      out.push({
        ...base,
        kind: 'append',
        offsets,
        leaderEpoch: x.leaderEpoch as number,
        text: `broker ${x.broker} appended ${tp} [${offsets?.[0]}, ${offsets?.[1]}] from ${name} as follower (${x.records} records)`,
      });
    }
  }
  return out;
}
