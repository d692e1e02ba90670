/**
 * A standalone SVG picture of a run, for a design doc or an issue: above, each
 * partition's offset lanes at one step (a lane per replica with its Log-Start-Offset,
 * Local-Log-Start-Offset, high watermark, Log-End-Offset and its segments by tier, and the
 * remote tier with each segment's state); below, a compact sequence diagram of the key
 * events (a chapter's stops, or the first of each kind of event).
 *
 * Built as a plain string (no DOM), every text XML-escaped. Colour is never the only
 * signal: tiers differ by pattern and are named in a legend, responses are dashed,
 * failures are marked with a cross and the word in the label.
 *
 * Leaves out the walkthrough's animation, the machine states and the fast store's
 * objects (counted in one line).
 */
import { offsetExtent, type PartitionView, type ReplicaView } from '../session/view.js';
import { participantsOf, sequenceEvent, type SeqEvent } from './mermaid.js';
import { type Report, runBrokers } from './types.js';
import { findingById } from '../check/findings.js';
import { knownFindingsOf } from './findings.js';
import { wholeMs } from '../sim/state/trace.js';

const W = 960;
const PAD = 20;
const LABEL_W = 170;
const X0 = PAD + LABEL_W + 10;
const X1 = W - PAD - 10;
const FONT = "font-family=\"system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif\"";

/** The most partitions drawn, and the most rows of the sequence diagram. */
export const SVG_MAX_PARTITIONS = 4;
export const SVG_MAX_ROWS = 48;

export function xmlEscape(s: string): string {
  // Control characters other than tab and newline are not allowed in XML 1.0.
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Rough width of text in px at `size` (no font metrics without a DOM). */
function textWidth(s: string, size: number): number {
  return s.length * size * 0.56;
}

function clip(s: string, maxPx: number, size: number): string {
  const max = Math.max(4, Math.floor(maxPx / (size * 0.56)));
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

function text(x: number, y: number, s: string, attrs = ''): string {
  return `<text x="${r1(x)}" y="${r1(y)}"${attrs ? ` ${attrs}` : ''}>${xmlEscape(s)}</text>`;
}

function r1(n: number): string {
  return String(Math.round(n * 10) / 10);
}

const DEFS = `<defs>
<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#cfe3f7"/><line x1="0" y1="0" x2="0" y2="6" stroke="#2b6cb0" stroke-width="2"/></pattern>
<pattern id="dots" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#f4f4f4"/><circle cx="3" cy="3" r="1.1" fill="#777"/></pattern>
<pattern id="cross" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="#e9def7"/><path d="M0 0L8 8M8 0L0 8" stroke="#6b46c1" stroke-width="1"/></pattern>
<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="#222"/></marker>
<marker id="fail" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="9" markerHeight="9" orient="auto"><path d="M1 1L9 9M9 1L1 9" stroke="#c53030" stroke-width="2"/></marker>
</defs>`;

interface Scale {
  lo: number;
  hi: number;
  x: (offset: number) => number;
}

function scaleOf(p: PartitionView): Scale {
  const [lo, hi] = offsetExtent(p);
  return { lo, hi, x: (o) => X0 + ((Math.min(Math.max(o, lo), hi) - lo) / (hi - lo)) * (X1 - X0) };
}

/**
 * Marker labels under a lane: offsets that coincide share one label (`HW = LEO 200`), and
 * a label that would overlap the one before goes one row lower.
 */
function markerLabels(r: ReplicaView, sc: Scale, y: number): { svg: string[]; rows: number } {
  const named: Array<[string, number]> = [
    ['LSO', r.logStartOffset],
    ['LLSO', r.localLogStartOffset],
    ['HW', r.highWatermark],
    ['LEO', r.logEndOffset],
  ];
  const byOffset = new Map<number, string[]>();
  for (const [n, o] of named) byOffset.set(o, [...(byOffset.get(o) ?? []), n]);
  const groups = [...byOffset.entries()].sort((a, b) => a[0] - b[0]);
  const rowEnds: number[] = [];
  const svg: string[] = [];
  for (const [o, names] of groups) {
    const label = `${names.join(' = ')} ${o}`;
    const x = sc.x(o);
    const w = textWidth(label, 10);
    const left = Math.min(Math.max(x - w / 2, X0 - 20), X1 + 20 - w);
    let row = rowEnds.findIndex((end) => end + 6 <= left);
    if (row === -1) {
      row = rowEnds.length;
      rowEnds.push(0);
    }
    rowEnds[row] = left + w;
    const ly = y + 12 + row * 12;
    svg.push(`<line x1="${r1(x)}" y1="${r1(y - 24)}" x2="${r1(x)}" y2="${r1(ly - 9)}" stroke="#111" stroke-width="1.2"/>`);
    svg.push(text(left, ly, label, 'font-size="10"'));
  }
  return { svg, rows: rowEnds.length };
}

function partitionLanes(p: PartitionView, y0: number): { svg: string[]; height: number } {
  const sc = scaleOf(p);
  const svg: string[] = [];
  let y = y0;
  svg.push(text(PAD, y + 14, `${p.topic}-${p.partition}: leader broker ${p.leader}, epoch ${p.leaderEpoch}, ISR [${p.isr.join(', ')}]${p.tiered ? ', tiered' : ', not tiered'}${p.walEnabled ? ', WAL on' : ''}`, 'font-size="13" font-weight="600"'));
  svg.push(text(X1, y + 14, `offsets ${sc.lo} to ${sc.hi}`, 'font-size="10" fill="#555" text-anchor="end"'));
  y += 26;
  for (const r of p.replicas) {
    const barY = y + 4;
    const role = r.role === 'offline' ? 'offline' : `${r.role}${r.inIsr ? ', in ISR' : ', not in ISR'}`;
    svg.push(`<g aria-label="${xmlEscape(`broker ${r.broker} lane`)}">`);
    svg.push(text(PAD, barY + 10, `Broker ${r.broker}`, 'font-size="12" font-weight="600"'));
    svg.push(text(PAD, barY + 23, role, 'font-size="10" fill="#444"'));
    // What this replica holds only in remote storage: [LSO, LLSO).
    if (r.localLogStartOffset > r.logStartOffset) {
      const a = sc.x(r.logStartOffset);
      const b = sc.x(r.localLogStartOffset);
      svg.push(`<rect x="${r1(a)}" y="${r1(barY)}" width="${r1(Math.max(1, b - a))}" height="20" fill="url(#dots)" stroke="#555" stroke-dasharray="4 3"/>`);
      if (b - a > 70) svg.push(text(a + 4, barY + 14, 'remote only', 'font-size="10" fill="#333"'));
    }
    for (const s of r.segments) {
      if (s.endOffset < s.baseOffset) continue;
      const a = sc.x(s.baseOffset);
      const b = sc.x(s.endOffset + 1);
      const fill = s.tier === 'both' ? 'url(#hatch)' : '#cfe3f7';
      svg.push(`<rect x="${r1(a)}" y="${r1(barY)}" width="${r1(Math.max(1, b - a))}" height="20" fill="${fill}" stroke="#2b6cb0"${s.active ? ' stroke-width="2"' : ''}/>`);
      const label = `[${s.baseOffset}, ${s.endOffset}]`;
      if (b - a > textWidth(label, 10) + 8) svg.push(`<rect x="${r1(a + 2)}" y="${r1(barY + 4)}" width="${r1(textWidth(label, 10) + 4)}" height="12" fill="#fff" opacity="0.85"/>` + text(a + 4, barY + 14, label, 'font-size="10"'));
    }
    const marks = markerLabels(r, sc, barY + 24);
    svg.push(...marks.svg, '</g>');
    y = barY + 24 + 6 + marks.rows * 12 + 8;
  }
  // The remote tier.
  const segs = p.remoteSegments.filter((s) => s.state !== 'DELETE_SEGMENT_FINISHED');
  svg.push(text(PAD, y + 14, 'Remote tier', 'font-size="12" font-weight="600"'));
  svg.push(text(PAD, y + 27, `${segs.length} segment${segs.length === 1 ? '' : 's'}`, 'font-size="10" fill="#444"'));
  if (segs.length === 0) svg.push(text(X0, y + 14, p.tiered ? 'nothing uploaded yet' : 'the topic is not tiered', 'font-size="11" fill="#444"'));
  for (const s of segs) {
    const a = sc.x(s.baseOffset);
    const b = sc.x(s.endOffset + 1);
    const done = s.state === 'COPY_SEGMENT_FINISHED';
    svg.push(`<rect x="${r1(a)}" y="${r1(y + 4)}" width="${r1(Math.max(1, b - a))}" height="20" fill="url(#cross)" stroke="#6b46c1"${done ? '' : ' stroke-dasharray="4 3"'}/>`);
    const label = `[${s.baseOffset}, ${s.endOffset}]`;
    const state = done ? '' : s.state.replace(/_SEGMENT_/, ' ').toLowerCase();
    if (b - a > textWidth(label, 10) + 8) svg.push(`<rect x="${r1(a + 2)}" y="${r1(y + 8)}" width="${r1(textWidth(label, 10) + 4)}" height="12" fill="#fff" opacity="0.85"/>` + text(a + 4, y + 18, label, 'font-size="10"'));
    if (state !== '') svg.push(text(a + 2, y + 36, clip(state, Math.max(120, b - a), 9), 'font-size="9"'));
  }
  y += 44;
  return { svg, height: y - y0 };
}

function legend(y: number): { svg: string[]; height: number } {
  const items: Array<[string, string]> = [
    ['fill="#cfe3f7" stroke="#2b6cb0"', 'local only'],
    ['fill="url(#hatch)" stroke="#2b6cb0"', 'local and uploaded'],
    ['fill="url(#dots)" stroke="#555" stroke-dasharray="4 3"', 'remote only (below this replica\'s LLSO)'],
    ['fill="url(#cross)" stroke="#6b46c1"', 'remote segment (dashed: not finished)'],
  ];
  const svg: string[] = [];
  let x = PAD;
  for (const [style, label] of items) {
    svg.push(`<rect x="${x}" y="${y}" width="22" height="12" ${style}/>`);
    svg.push(text(x + 28, y + 10, label, 'font-size="11"'));
    x += 28 + textWidth(label, 11) + 22;
  }
  svg.push(text(PAD, y + 28, 'LSO Log-Start-Offset · LLSO Local-Log-Start-Offset · HW high watermark · LEO Log-End-Offset · thick outline: the active segment', 'font-size="10" fill="#333"'));
  return { svg, height: 40 };
}

interface Row {
  event?: SeqEvent;
  mark?: string;
  step: number;
  times?: number;
}

/** The rows of the compact sequence diagram: a chapter's stops with their steps, or the key events. */
function sequenceRows(r: Report): { rows: Row[]; leftOut: number } {
  const brokers = runBrokers(r);
  const rows: Row[] = [];
  if (r.chapter) {
    const byStep = new Map<number, number[]>();
    r.stepOf.forEach((s, i) => {
      if (r.lines[i] !== null) byStep.set(s, [...(byStep.get(s) ?? []), i]);
    });
    const stops = r.chapter.stops;
    stops.forEach((stop, k) => {
      rows.push({ mark: `${stop.index + 1}. ${stop.title}`, step: stop.step });
      // Stops that share a step show its entries once, under the last of them.
      if (k + 1 < stops.length && stops[k + 1].step === stop.step) return;
      for (const i of byStep.get(stop.step) ?? []) rows.push({ event: sequenceEvent(r.run.trace[i], i, r.lines[i]!, brokers), step: stop.step });
    });
  } else {
    for (const ev of r.keyEvents) rows.push({ event: sequenceEvent(r.run.trace[ev.index], ev.index, ev.line, brokers), step: ev.step, times: ev.repeats + 1 });
  }
  const leftOut = Math.max(0, rows.length - SVG_MAX_ROWS) + (r.chapter ? 0 : r.keyEventsLeftOut);
  return { rows: rows.slice(0, SVG_MAX_ROWS), leftOut };
}

function sequenceDiagram(r: Report, y0: number): { svg: string[]; height: number } {
  const { rows, leftOut } = sequenceRows(r);
  const svg: string[] = [];
  let y = y0;
  const title = r.chapter ? `What happens at the chapter's stops` : 'Key events (the first of each kind; ×N: how often it happened)';
  svg.push(text(PAD, y + 14, title, 'font-size="14" font-weight="600"'));
  y += 24;
  const used = new Set<string>();
  for (const row of rows) if (row.event) (used.add(row.event.from), used.add(row.event.to));
  if (used.size === 0) {
    svg.push(text(PAD, y + 14, 'Nothing narrated in this range.', 'font-size="11"'));
    return { svg, height: y + 24 - y0 };
  }
  const parts = participantsOf(used);
  const left = PAD + 70;
  const colW = (W - PAD - left) / parts.length;
  const cx = new Map(parts.map((p, i) => [p.id, left + colW * (i + 0.5)]));
  // Participant heads.
  for (const p of parts) {
    const x = cx.get(p.id)!;
    const w = Math.min(colW - 8, textWidth(p.name, 11) + 16);
    svg.push(`<rect x="${r1(x - w / 2)}" y="${r1(y)}" width="${r1(w)}" height="22" rx="3" fill="#f2f2f2" stroke="#333"/>`);
    svg.push(text(x, y + 15, clip(p.name, w - 6, 11), 'font-size="11" text-anchor="middle" font-weight="600"'));
  }
  const top = y + 22;
  y += 30;
  const body: string[] = [];
  const rowH = 26;
  for (const row of rows) {
    if (row.mark !== undefined) {
      body.push(`<rect x="${PAD}" y="${r1(y + 2)}" width="${W - 2 * PAD}" height="18" fill="#fff8db" stroke="#b7791f"/>`);
      body.push(text(PAD + 6, y + 15, clip(row.mark, W - 2 * PAD - 80, 11), 'font-size="11" font-weight="600"'));
      body.push(text(W - PAD - 6, y + 15, `step ${row.step}`, 'font-size="10" text-anchor="end" fill="#555"'));
      y += 24;
      continue;
    }
    const ev = row.event!;
    body.push(text(PAD, y + 15, `t=${ev.atMs}ms`, 'font-size="10" fill="#555"'));
    const times = row.times !== undefined && row.times > 1 ? ` ×${row.times}` : '';
    const label = `${ev.failed ? '✗ ' : ''}${ev.label}${times}`;
    const a = cx.get(ev.from)!;
    const b = cx.get(ev.to)!;
    if (ev.kind === 'note') {
      const lo = Math.min(a, b) - colW / 2 + 6;
      const hi = Math.max(a, b) + colW / 2 - 6;
      const w = Math.max(hi - lo, Math.min(textWidth(label, 10) + 12, W - PAD - left));
      const x = Math.min(Math.max(lo, left), W - PAD - w);
      body.push(`<rect x="${r1(x)}" y="${r1(y + 3)}" width="${r1(w)}" height="18" fill="#fffde7" stroke="#8a7a00" stroke-dasharray="2 2"/>`);
      body.push(text(x + 5, y + 16, clip(label, w - 10, 10), 'font-size="10"'));
    } else if (a === b) {
      body.push(`<path d="M${r1(a)} ${r1(y + 10)}h24v10h-22" fill="none" stroke="#222" marker-end="url(#arrow)"/>`);
      body.push(text(a + 30, y + 18, clip(label, W - PAD - a - 34, 10), 'font-size="10"'));
    } else {
      const dash = ev.kind === 'response' ? ' stroke-dasharray="5 3"' : '';
      const end = ev.failed && ev.kind === 'store' ? 'url(#fail)' : 'url(#arrow)';
      const stroke = ev.failed ? '#c53030' : '#222';
      body.push(`<line x1="${r1(a)}" y1="${r1(y + 18)}" x2="${r1(b)}" y2="${r1(y + 18)}" stroke="${stroke}" stroke-width="1.3"${dash} marker-end="${end}"/>`);
      const mid = (a + b) / 2;
      const room = Math.max(Math.abs(b - a) + colW * 0.8, 200);
      const shown = clip(label, room, 10);
      const lx = Math.min(Math.max(mid - textWidth(shown, 10) / 2, left - 20), W - PAD - textWidth(shown, 10));
      body.push(text(lx, y + 13, shown, 'font-size="10"'));
    }
    y += rowH;
  }
  if (leftOut > 0) {
    body.push(text(PAD, y + 14, `${leftOut} more left out; the Mermaid and Markdown formats have them.`, 'font-size="10" fill="#555"'));
    y += 22;
  }
  // Lifelines behind the rows.
  for (const p of parts) svg.push(`<line x1="${r1(cx.get(p.id)!)}" y1="${r1(top)}" x2="${r1(cx.get(p.id)!)}" y2="${r1(y)}" stroke="#999" stroke-dasharray="3 3"/>`);
  svg.push(...body);
  return { svg, height: y + 8 - y0 };
}

/** Words of `s` in lines of at most `maxPx` at `size`. */
function wrap(s: string, maxPx: number, size: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const w of s.split(/\s+/)) {
    const next = line === '' ? w : `${line} ${w}`;
    if (line !== '' && textWidth(next, size) > maxPx) {
      lines.push(line);
      line = w;
    } else line = next;
  }
  if (line !== '') lines.push(line);
  return lines.flatMap((l) => (textWidth(l, size) > maxPx ? [clip(l, maxPx, size)] : [l]));
}

/** The colour of a known finding (Kafka's behaviour), apart from a violation's red. */
export const FINDING_COLOUR = '#6941c6';

/**
 * The run's violations under the diagrams: a new one in red; a known finding (Kafka's own
 * behaviour, core/sim/checks/findings.ts) in its own colour with its paragraph and where
 * docs/protocol.md explains it.
 */
function violationsBlock(r: Report, y0: number): { svg: string[]; height: number } {
  const v = r.run.violations;
  if (v.length === 0) return { svg: [], height: 0 };
  const svg: string[] = [];
  let y = y0;
  const maxPx = W - 2 * PAD - 12;
  for (const x of v.filter((x) => findingById(x.finding) === undefined)) {
    for (const l of wrap(`✗ VIOLATION at t=${x.atMs}ms ${x.invariant}: ${x.message}`, maxPx, 11)) {
      svg.push(text(PAD, y + 13, l, 'font-size="11" fill="#b42318"'));
      y += 16;
    }
  }
  const known = v.filter((x) => findingById(x.finding) !== undefined);
  for (const x of known) {
    for (const l of wrap(`KNOWN FINDING at t=${x.atMs}ms ${x.invariant}: ${x.message}`, maxPx, 11)) {
      svg.push(text(PAD, y + 13, l, `font-size="11" fill="${FINDING_COLOUR}"`));
      y += 16;
    }
  }
  for (const f of knownFindingsOf(known)) {
    y += 4;
    const lines = [...wrap(`${f.title}: ${f.note}.`, maxPx, 11), ...wrap(f.summary, maxPx, 11), ...wrap(`See ${f.docs}.`, maxPx, 11)];
    svg.push(`<rect x="${PAD}" y="${r1(y)}" width="${W - 2 * PAD}" height="${lines.length * 16 + 8}" fill="#f4f0ff" stroke="${FINDING_COLOUR}"/>`);
    lines.forEach((l, i) => svg.push(text(PAD + 6, y + 17 + i * 16, l, `font-size="11"${i === 0 ? ' font-weight="600"' : ''} fill="#1d232a"`)));
    y += lines.length * 16 + 12;
  }
  return { svg, height: y - y0 + 6 };
}

export function renderSvg(r: Report): string {
  const v = r.view;
  const body: string[] = [];
  let y = PAD;
  const title = r.chapter ? `Chapter ${r.chapter.chapter.title}` : r.scenario.name;
  body.push(text(PAD, y + 16, clip(title, W - 2 * PAD, 17), 'font-size="17" font-weight="700"'));
  const atEnd = r.range.toStep >= r.totalSteps;
  const scenario = r.chapter ? `${r.scenario.name} · ` : '';
  body.push(text(PAD, y + 34, `${scenario}offsets ${atEnd ? 'at the end of the run' : `at step ${r.range.toStep} of ${r.totalSteps}`}, t=${wholeMs(v.nowMs)}ms · seed ${r.seed} · TierScope model`, 'font-size="11" fill="#444"'));
  y += 48;
  const lg = legend(y);
  body.push(...lg.svg);
  y += lg.height + 6;
  for (const p of v.partitions.slice(0, SVG_MAX_PARTITIONS)) {
    const lanes = partitionLanes(p, y);
    body.push(...lanes.svg);
    y += lanes.height + 6;
  }
  if (v.partitions.length > SVG_MAX_PARTITIONS) {
    body.push(text(PAD, y + 12, `${v.partitions.length - SVG_MAX_PARTITIONS} more partitions not drawn.`, 'font-size="11"'));
    y += 20;
  }
  if (v.wal.topics.length > 0) {
    body.push(text(PAD, y + 12, `Fast store (WAL): ${v.wal.objects.length + v.wal.hiddenObjects} objects now, ${v.wal.metadata.records} metadata records written, ${v.wal.pending.length} partition${v.wal.pending.length === 1 ? '' : 's'} with records not yet in an object.`, 'font-size="11"'));
    y += 22;
  }
  y += 10;
  const seq = sequenceDiagram(r, y);
  body.push(...seq.svg);
  y += seq.height;
  const vb = violationsBlock(r, y);
  body.push(...vb.svg);
  y += vb.height + PAD;
  const h = Math.ceil(y);
  const desc = `Offset lanes of each replica and the remote tier, and a sequence diagram of the key events, from TierScope's model run with seed ${r.seed}.`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${h}" viewBox="0 0 ${W} ${h}" role="img" ${FONT}>`,
    `<title>${xmlEscape(title)}</title>`,
    `<desc>${xmlEscape(desc)}</desc>`,
    DEFS,
    `<rect width="${W}" height="${h}" fill="#fff"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
