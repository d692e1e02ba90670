/**
 * The trace as a Mermaid `sequenceDiagram`, for design docs and KIP discussions that
 * render Mermaid (GitHub, GitLab, Confluence plugins, the Mermaid live editor).
 * Participants are the clients, the brokers and the stores that appear in the range:
 * requests are solid arrows, responses dashed, object-store operations arrows to the
 * store (a failed one ends in a cross), and the steps that change a replica's state are
 * notes over its broker. The same `sequenceEvent` labels feed the SVG's compact diagram.
 *
 * Leaves out what the narration leaves out (the repeated long-poll Fetch of an in-sync
 * follower, empty Fetch answers, machine state changes), and everything past
 * `maxMessages`, which a final note counts.
 */
import { LIST_OFFSETS_NAMES } from '../domain/protocol.js';
import { Narrator, RULES } from '../narrate/narrate.js';
import type { ObjectStoreEntry, RequestEntry, ResponseEntry, TraceEntry } from '../sim/state/trace.js';

/** A participant of the diagram: `P`, `C`, `B0`.., `MD`, `FS`, `TS`. */
export interface Participant {
  id: string;
  name: string;
}

/** One message or note of a sequence diagram, independent of how it is drawn. */
export interface SeqEvent {
  kind: 'request' | 'response' | 'store' | 'note';
  /** Sender (arrows) or the first participant the note spans. */
  from: string;
  /** Receiver (arrows) or the last participant the note spans (same as `from` for one). */
  to: string;
  label: string;
  /** An object-store operation that failed, or an error answer. */
  failed: boolean;
  atMs: number;
  /** Index of the trace entry. */
  index: number;
}

const PRODUCER: Participant = { id: 'P', name: 'Producer' };
const CONSUMER: Participant = { id: 'C', name: 'Consumer' };
const WAL_METADATA: Participant = { id: 'MD', name: 'WAL metadata topic' };
const FAST_STORE: Participant = { id: 'FS', name: 'Fast store (WAL)' };
const TIERED_STORE: Participant = { id: 'TS', name: 'Tiered store' };

export function brokerId(b: number): string {
  return `B${b}`;
}

/** Participants in drawing order, keeping only the ids used. */
export function participantsOf(ids: ReadonlySet<string>): Participant[] {
  const brokers = [...ids].filter((id) => /^B\d+$/.test(id)).map((id) => Number(id.slice(1))).sort((a, b) => a - b);
  const out: Participant[] = [];
  for (const p of [PRODUCER, CONSUMER]) if (ids.has(p.id)) out.push(p);
  for (const b of brokers) out.push({ id: brokerId(b), name: `Broker ${b}` });
  for (const p of [WAL_METADATA, FAST_STORE, TIERED_STORE]) if (ids.has(p.id)) out.push(p);
  return out;
}

function endpoint(e: unknown): string {
  if (e === 'consumer') return CONSUMER.id;
  if (e === 'producer') return PRODUCER.id;
  return brokerId(Number(e));
}

/** Kafka's zero-padded offsets in object keys, shortened: `00000000000000000100-x.log` is `100-x.log`. */
export function shortKey(key: string): string {
  return key.replace(/(^|[/-])0{4,}(\d+)/g, '$1$2');
}

/** Short words for the notes of state steps; the narration's full sentence is in the Markdown report. */
const SHORT: Record<string, string> = {
  kip1023Eligible: 'KIP-1023 path: ask ListOffsets -2, -6, -4',
  kip1023Start: 'start = max(EPUO, LLSO)',
  kip1023StartAtLogStart: 'start at the Log-Start-Offset, nothing to rebuild',
  kip1023PendingUploadUnknown: 'EPUO unknown (-1): back off and retry',
  classicOutOfRange: 'classic path: ask ListOffsets -1, then -2',
  classicOutOfRangeNotEmpty: 'classic path (follower not empty)',
  classicTieredOffset: 'classic path: ask ListOffsets -4, then build aux state',
  classicTieredOffsetNotEmpty: 'classic tiered-offset path (follower not empty)',
  auxStateBuilt: 'remote aux state built, no records copied',
  auxStateContinuesAcrossLeaderChange: 'aux state build finishes across the leader change',
  leaderEndBelowFollowerEnd: 'truncate to the leader LEO',
  resumeAtFollowerEnd: 'fetch again from max(leader LSO, own LEO)',
  remoteSegmentNotFound: 'remote segment metadata not found: back off',
  remoteMetadataLoading: 'remote log metadata loading: back off',
  fencedLeaderEpoch: 'FENCED_LEADER_EPOCH: partition marked failed',
  backoff: 'back off replica.fetch.backoff.ms',
  rlmMetadataLoading: 'RLM: remote log metadata still loading, Ry unknown',
  copyCandidate: 'RLM: copy candidate',
  copyFinished: 'RLM: copy finished',
  copyFailed: 'RLM: copy failed, cleaned up',
  followerCaughtUp: 'follower caught up',
  followerLagging: 'follower lagging',
  brokerDown: 'broker down',
  initialLeader: 'initial leader',
  leaderCrashed: 'leader crashed, clean election',
  electLeader: 'elected on request',
  lastInSyncReplicaReturned: 'last in-sync replica returned',
  walChunkStaleEpoch: 'WAL chunk of an older epoch ignored',
  walTailSync: 'elected: sync the WAL tail first',
  walTailSynced: 'WAL tail applied, election completes',
};

const DETAIL_NAMES: Record<string, string> = {
  start: 'start',
  earliestPendingUploadOffset: 'EPUO',
  localLogStartOffset: 'LLSO',
  logStartOffset: 'LSO',
  offset: 'offset',
  error: '',
};

function fetcherNote(x: Record<string, unknown>): string {
  if (x.action === 'delayed') return `fetcher delayed ${String(x.delayMs)} ms (${String(x.reason)})`;
  const rule = typeof x.rule === 'string' ? x.rule : '';
  const parts: string[] = [];
  for (const [k, name] of Object.entries(DETAIL_NAMES)) {
    if (x[k] !== undefined && x[k] !== null) parts.push(name === '' ? String(x[k]) : `${name} ${String(x[k])}`);
  }
  return `${SHORT[rule] ?? rule}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/**
 * The narration line without its time, subject and rule explanation: the head that says
 * what happened (`truncateFullyAndStartAt(150), log start 10`).
 */
function headOf(e: TraceEntry, line: string, broker: number | undefined): string {
  let s = line.replace(/^t=\d+ms /, '');
  if (broker !== undefined) {
    for (const p of [`broker ${broker}: `, `broker ${broker} `]) if (s.startsWith(p)) s = s.slice(p.length);
  }
  if (e.topic !== undefined) {
    const tp = `${e.topic}-${e.partition}`;
    if (s.startsWith(`${tp}: `)) s = s.slice(tp.length + 2);
    else if (s === tp) s = '';
  }
  const why = e.rule !== undefined ? RULES[e.rule] : undefined;
  if (why !== undefined) {
    if (s.endsWith(`: ${why}`)) s = s.slice(0, -why.length - 2);
    if (s.startsWith(why)) s = '';
  }
  if (s === '' && e.rule !== undefined) return SHORT[e.rule] ?? e.rule;
  return s === '' ? e.type : shortKey(s);
}

function tpPrefix(e: TraceEntry, multiPartition: boolean): string {
  return multiPartition && e.topic !== undefined ? `${e.topic}-${e.partition} ` : '';
}

/**
 * The message or note for one narrated trace entry. `brokers` is the number of brokers
 * (a note about the whole cluster spans them); `multiPartition` names the partition in
 * every label.
 */
export function sequenceEvent(e: TraceEntry, index: number, line: string, brokers: number, multiPartition = false): SeqEvent {
  const x = e as unknown as Record<string, unknown>;
  const tp = tpPrefix(e, multiPartition);
  const base = { atMs: e.atMs, index, failed: false };
  const allBrokers = (label: string): SeqEvent => ({ ...base, kind: 'note', from: brokerId(0), to: brokerId(Math.max(0, brokers - 1)), label });
  const note = (b: unknown, label: string): SeqEvent =>
    typeof b === 'number' ? { ...base, kind: 'note', from: brokerId(b), to: brokerId(b), label } : allBrokers(label);
  switch (e.type) {
    case 'request': {
      const r = e as RequestEntry;
      let label: string;
      if (r.api === 'Fetch') label = `Fetch(${tp}${r.fetchOffset})`;
      else if (r.api === 'ListOffsets') label = `ListOffsets ${tp}${r.timestamp} (${r.timestamp === undefined ? '' : LIST_OFFSETS_NAMES[r.timestamp]})`;
      else label = `OffsetsForLeaderEpoch(${tp}epoch ${r.leaderEpoch})`;
      return { ...base, kind: 'request', from: endpoint(r.source), to: endpoint(r.target), label };
    }
    case 'response': {
      const r = e as ResponseEntry;
      let label: string;
      if (r.api === 'Fetch') {
        const head = `Fetch(${tp}${r.fetchOffset ?? '?'})`;
        if (r.error !== null) label = `${head} = ${r.error}`;
        else if (r.divergingEpoch) label = `${head} = diverging epoch ${r.divergingEpoch.epoch}, end ${r.divergingEpoch.endOffset}`;
        else if (x.wal === true) label = `${head} = no records (WAL), HW ${r.highWatermark ?? '-'}`;
        else {
          const hw = r.highWatermark !== undefined ? `, HW ${r.highWatermark}` : '';
          const remote = r.servedFrom === 'remote' ? ', from remote storage' : '';
          label = `${head} = ${r.records ?? 0} records, ${r.bytes ?? 0} B${remote}${hw}`;
        }
      } else if (r.api === 'ListOffsets') {
        label = `ListOffsets ${tp}${r.timestamp ?? ''} = ${r.error !== null ? r.error : String(r.offset)}`;
      } else {
        label = r.error !== null ? `OffsetsForLeaderEpoch = ${r.error}` : `OffsetsForLeaderEpoch = epoch ${r.leaderEpoch}, end ${r.endOffset}`;
      }
      return { ...base, kind: 'response', from: endpoint(r.source), to: endpoint(r.target), label, failed: r.error !== null };
    }
    case 'objectStore': {
      const o = e as ObjectStoreEntry;
      const range = o.range ? ` bytes ${o.range[0]}-${o.range[1]}` : '';
      const result = o.ok ? (o.op === 'delete' || o.op === 'list' ? '' : ` (${o.bytes} B)`) : `: ${o.error ?? 'failed'}`;
      const label = `${o.op.toUpperCase()} ${shortKey(o.key)}${range}${result}`;
      return { ...base, kind: 'store', from: brokerId(o.broker), to: o.store === 'wal' ? FAST_STORE.id : TIERED_STORE.id, label, failed: !o.ok };
    }
    case 'wal':
      if (x.action === 'chunkPublished') {
        const range = x.range as number[];
        const label = `${tp}chunk [${String(x.baseOffset)}, ${String(x.lastOffset)}] of ${shortKey(String(x.objectKey))}, bytes ${range.join('-')}, epoch ${String(x.leaderEpoch)}`;
        return { ...base, kind: 'request', from: brokerId(Number(x.broker)), to: WAL_METADATA.id, label };
      }
      return note(x.broker, headOf(e, line, x.broker as number | undefined));
    case 'produce':
      if (x.action === 'appended') {
        return { ...base, kind: 'request', from: PRODUCER.id, to: brokerId(Number(x.broker)), label: `Produce ${tp}${String(x.records)} records [${String(x.baseOffset)}, ${String(x.lastOffset)}] acks=${String(x.acks)}` };
      }
      if (x.action === 'acknowledged' && typeof x.broker === 'number') {
        return { ...base, kind: 'response', from: brokerId(x.broker), to: PRODUCER.id, label: `${tp}acknowledged up to ${String(x.lastOffset)} after ${String(x.latencyMs)} ms` };
      }
      if (typeof x.broker === 'number') return { ...base, kind: 'response', from: brokerId(x.broker), to: PRODUCER.id, label: `Produce ${tp}= ${String(x.error)}`, failed: true };
      return allBrokers(headOf(e, line, undefined));
    case 'fetcher':
      return note(x.broker, `${tp}${fetcherNote(x)}`);
    case 'isr': {
      const members = [...((x.isr as number[]) ?? []), ...((x.removed as number[]) ?? []), ...((x.added as number[]) ?? [])];
      const rule = e.rule !== undefined ? ` (${SHORT[e.rule] ?? e.rule})` : '';
      const label = `${tp}ISR [${((x.isr as number[]) ?? []).join(', ')}]${rule}`;
      if (members.length === 0) return allBrokers(label);
      return { ...base, kind: 'note', from: brokerId(Math.min(...members)), to: brokerId(Math.max(...members)), label };
    }
    case 'leader': {
      const rule = e.rule !== undefined ? ` (${SHORT[e.rule] ?? e.rule})` : '';
      return note(x.broker, `leads ${e.topic}-${e.partition} at epoch ${String(x.leaderEpoch)}${rule}`);
    }
    case 'config':
      return allBrokers(`config ${String(x.key)} = ${String(x.value)}${x.topic ? ` on ${String(x.topic)}` : ''}`);
    case 'timeline':
      if (x.action === 'objectStore') {
        const stores = (x.stores as string[]) ?? [];
        const ids = stores.map((s) => (s === 'wal' ? FAST_STORE.id : TIERED_STORE.id));
        const label = x.available ? 'available again' : 'unavailable';
        if (ids.length === 1) return { ...base, kind: 'note', from: ids[0], to: ids[0], label: `store ${label}` };
        return { ...base, kind: 'note', from: FAST_STORE.id, to: TIERED_STORE.id, label: `stores ${label}` };
      }
      return note(x.broker, headOf(e, line, x.broker as number | undefined));
    case 'violation':
      // A known finding is Kafka's own behaviour (core/sim/checks/findings.ts), not a model error.
      return allBrokers(x.finding ? `KNOWN FINDING ${String(x.invariant)} (Kafka's behaviour, ${String(x.finding)})` : `VIOLATION ${String(x.invariant)}`);
    default:
      return note(x.broker, headOf(e, line, typeof x.broker === 'number' ? x.broker : undefined));
  }
}

/** Which trace entries a diagram covers: visible steps and/or simulated time, inclusive. */
export interface SequenceRange {
  fromStep?: number;
  toStep?: number;
  fromMs?: number;
  toMs?: number;
}

export interface SequenceOptions extends SequenceRange {
  /** The visible step of each trace entry (Session steps); needed for a step range and marks. */
  stepOf?: readonly number[];
  /** Number of brokers in the run (notes about the whole cluster span them). */
  brokers: number;
  /** The most messages and notes drawn; the rest are counted in a final note. Default 200. */
  maxMessages?: number;
  /** Headings placed before the first entry of a step (a chapter's stops). */
  marks?: ReadonlyArray<{ step: number; title: string }>;
}

export interface SequenceItem {
  event?: SeqEvent;
  /** A heading before the step's entries. */
  mark?: string;
  step: number;
}

/**
 * The narrated entries of the range as sequence events, in trace order, with marks. The
 * Narrator runs over the whole trace so that a range starting mid-run still drops a
 * long-poll Fetch repeated from before it.
 */
export function sequenceItems(trace: readonly TraceEntry[], opts: SequenceOptions): { items: SequenceItem[]; leftOut: number; lastStepShown: number } {
  const narrator = new Narrator();
  const max = opts.maxMessages ?? 200;
  const parts = new Set(trace.filter((e) => e.topic !== undefined).map((e) => `${e.topic}-${e.partition}`));
  const multi = parts.size > 1;
  const items: SequenceItem[] = [];
  const marked = new Set<number>();
  let messages = 0;
  let leftOut = 0;
  let lastStepShown = -1;
  for (let i = 0; i < trace.length; i++) {
    const e = trace[i];
    const line = narrator.line(e);
    if (line === null) continue;
    const step = opts.stepOf?.[i] ?? 0;
    if (opts.fromStep !== undefined && step < opts.fromStep) continue;
    if (opts.toStep !== undefined && step > opts.toStep) continue;
    if (opts.fromMs !== undefined && e.atMs < opts.fromMs) continue;
    if (opts.toMs !== undefined && e.atMs > opts.toMs) continue;
    if (messages >= max) {
      leftOut++;
      continue;
    }
    (opts.marks ?? []).forEach((m, k) => {
      if (m.step <= step && !marked.has(k)) {
        marked.add(k);
        items.push({ mark: m.title, step: m.step });
      }
    });
    items.push({ event: sequenceEvent(e, i, line, opts.brokers, multi), step });
    lastStepShown = step;
    messages++;
  }
  return { items, leftOut, lastStepShown };
}

/**
 * Every run of whitespace that holds a line break as one space, in one pass. The same as
 * replacing the matches of `\s*[\r\n]+\s*` (flag g) with a space, without that expression's
 * backtracking: from every space of a long run of spaces it scanned to the run's end, and
 * 100,000 spaces took 17 s.
 */
function joinLines(s: string): string {
  let out = '';
  let k = 0;
  while (k < s.length) {
    if (!/\s/.test(s[k])) {
      out += s[k++];
      continue;
    }
    const from = k;
    let lineBreak = false;
    for (; k < s.length && /\s/.test(s[k]); k++) if (s[k] === '\n' || s[k] === '\r') lineBreak = true;
    out += lineBreak ? ' ' : s.slice(from, k);
  }
  return out;
}

/**
 * Text inside a Mermaid message or note: no line breaks, and the characters Mermaid reads
 * as syntax (`;` ends a statement, `#` starts an entity, `<` `>` are HTML) as entity codes.
 */
export function mermaidText(s: string): string {
  let out = '';
  for (const ch of joinLines(s).trim()) {
    if (ch === '#') out += '#35;';
    else if (ch === ';') out += '#59;';
    else if (ch === '<') out += '#lt;';
    else if (ch === '>') out += '#gt;';
    else out += ch;
  }
  return out;
}

/** Words of a long note broken into lines of about `width` characters (Mermaid does not wrap). */
function wrapped(s: string, width = 44): string {
  const words = s.split(' ');
  const lines: string[] = [];
  let cur = '';
  for (const w of words) {
    if (cur !== '' && cur.length + 1 + w.length > width) {
      lines.push(cur);
      cur = w;
    } else cur = cur === '' ? w : `${cur} ${w}`;
  }
  if (cur !== '') lines.push(cur);
  return lines.map(mermaidText).join('<br/>');
}

const ARROW: Record<SeqEvent['kind'], string> = { request: '->>', response: '-->>', store: '->>', note: '' };

/** The Mermaid source of a sequence diagram over the trace (see the module comment). */
export function toMermaid(trace: readonly TraceEntry[], opts: SequenceOptions): string {
  const { items, leftOut } = sequenceItems(trace, opts);
  const used = new Set<string>();
  for (const it of items) {
    if (it.event) {
      used.add(it.event.from);
      used.add(it.event.to);
    }
  }
  if (used.size === 0) used.add(brokerId(0));
  const parts = participantsOf(used);
  const first = parts[0].id;
  const last = parts[parts.length - 1].id;
  const span = first === last ? first : `${first},${last}`;
  const out: string[] = ['sequenceDiagram'];
  out.push('  %% Drawn by TierScope from the model\'s trace. Object keys have their zero padding removed.');
  for (const p of parts) out.push(`  participant ${p.id} as ${mermaidText(p.name)}`);
  let lastStep = -1;
  for (const it of items) {
    if (it.mark !== undefined) {
      out.push(`  Note over ${span}: ${wrapped(it.mark, 72)}`);
      continue;
    }
    const ev = it.event!;
    if (it.step !== lastStep) {
      out.push(`  %% step ${it.step}, t=${ev.atMs}ms`);
      lastStep = it.step;
    }
    if (ev.kind === 'note') {
      const over = ev.from === ev.to ? ev.from : `${ev.from},${ev.to}`;
      out.push(`  Note over ${over}: ${wrapped(ev.label)}`);
    } else {
      const arrow = ev.failed && ev.kind === 'store' ? '-x' : ARROW[ev.kind];
      out.push(`  ${ev.from}${arrow}${ev.to}: ${mermaidText(ev.label)}`);
    }
  }
  if (leftOut > 0) out.push(`  Note over ${span}: ${mermaidText(`${leftOut} more messages left out (raise the limit, or narrow the step range)`)}`);
  if (items.length === 0) out.push(`  Note over ${span}: nothing narrated in this range`);
  return out.join('\n') + '\n';
}
