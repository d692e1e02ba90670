/**
 * The Markdown report: a document a reviewer pastes as is into a KIP discussion or a
 * design doc. It says what the scenario sets up, the configs that matter, what happens
 * step by step in the model's own narration (a chapter's stops, or the run's key events),
 * the run's figures, the same workload in each design side by side, the invariants, and
 * how to reproduce it. Valid GFM (pipes escaped in tables), no dates, so the same command
 * prints the same document.
 *
 * Leaves out the full trace (the JSON format has it) and pictures (the Mermaid and SVG
 * formats draw them).
 */
import { KNOWN_FINDING_NOTE, findingById } from '../check/findings.js';
import { knownFindingsOf } from './findings.js';
import { BROKER_CONFIGS, INTERNAL_TOPIC_CONFIGS, MODEL_KNOBS, TOPIC_CONFIGS, UNLIMITED_BYTES_PER_SECOND } from '../domain/config.js';
import { describeJitter } from '../domain/jitter.js';
import { INVARIANTS } from '../sim/checks/invariants.js';
import { FIGURE_BYTES, FIGURE_ROWS, type Mode } from '../study/compare.js';
import { DESIGN_MODES, MODES, modeSwitches } from '../study/modes.js';
import { formatBytes, formatMs } from '../util/format.js';
import type { InitialPartitionState, Scenario, TimelineAction } from '../scenario/types.js';
import { CHAPTERS } from './chapters.js';
import type { Report } from './types.js';
import { code, mdHeading, mdInline, mdParagraph, safeUrl } from './md-inline.js';
import { wholeMs } from '../sim/state/trace.js';

// ---------------------------------------------------------------------------------
// Markdown text (md-inline.ts: escaping, code spans, identifiers as code)

export { mdInline };

/** A table cell: one line, pipes escaped (GFM needs that inside code spans too). */
export function mdCell(s: string): string {
  return s.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
}

export function mdTable(header: string[], rows: string[][], align?: Array<'left' | 'right'>): string {
  const line = (cells: string[]) => `| ${cells.map(mdCell).join(' | ')} |`;
  const rule = `| ${header.map((_, i) => ((align?.[i] ?? 'left') === 'right' ? '---:' : '---')).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

// ---------------------------------------------------------------------------------
// Figures (the same wording as `compare`)

/** The rows of both tables: the CLI's figures, capitalised as table rows. */
const FIGURES = FIGURE_ROWS.map(([label, f]) => [label[0].toUpperCase() + label.slice(1), f] as const);

/** The designs' names and switches, from their one table (core/study/modes.ts). */
const MODE_TITLES = Object.fromEntries(MODES.map((m) => [m, DESIGN_MODES[m].title])) as Record<Mode, string>;

const MODE_MEANING = Object.fromEntries(
  MODES.map((m) => {
    const d = DESIGN_MODES[m];
    return [m, `${d.design}: ${modeSwitches(m, true)}${d.note ? ` (${d.note.replace(/wal\.\*/g, '`wal.*`')})` : ''}`];
  }),
) as Record<Mode, string>;

// ---------------------------------------------------------------------------------
// Sections

function initialOffsets(p: InitialPartitionState): string {
  const segs = p.segments;
  const lso = segs[0].baseOffset;
  const local = segs.find((s) => s.tier !== 'remote');
  const llso = local ? local.baseOffset : segs[segs.length - 1].endOffset + 1;
  const leo = segs[segs.length - 1].endOffset + 1;
  const uploaded = segs.filter((s) => s.tier !== 'local');
  const ry = p.highestOffsetInRemoteStorage ?? (uploaded.length > 0 ? uploaded[uploaded.length - 1].endOffset : -1);
  const tier = { remote: 'remote only', both: 'local and remote', local: 'local only' } as const;
  const list = segs.map((s) => `[${s.baseOffset}, ${s.endOffset}] ${tier[s.tier]}`).join(', ');
  return `segments ${list}; Log-Start-Offset ${lso}, Local-Log-Start-Offset ${llso}, Log-End-Offset ${leo}, highest offset in remote storage ${ry}${ry === -1 && p.highestOffsetInRemoteStorage === -1 ? ' (not known to the leader yet)' : ''}; leader epoch ${p.leaderEpoch}`;
}

function actionText(a: TimelineAction): string {
  switch (a.kind) {
    case 'addReplica':
      return `broker ${a.broker} joins ${a.topic}-${a.partition} as an empty replica`;
    case 'produce':
      return `produce ${a.records} records to ${a.topic}-${a.partition}, acks=${a.acks}${a.everyMs !== undefined ? `, every ${a.everyMs} ms${a.untilMs !== undefined ? ` until t=${a.untilMs}ms` : ''}` : ''}`;
    case 'consume':
      return `a consumer${a.zone !== undefined ? ` in zone ${a.zone}` : ''} reads ${a.records} records of ${a.topic}-${a.partition} from offset ${a.fromOffset}${a.broker !== undefined ? ` on broker ${a.broker}` : ''}${a.config !== undefined ? ` (${Object.entries(a.config).map(([k, v]) => `${k}=${v}`).join(', ')})` : ''}`;
    case 'crash':
      return `broker ${a.broker} crashes`;
    case 'restart':
      return `broker ${a.broker} restarts`;
    case 'electLeader':
      return `broker ${a.broker} is elected leader of ${a.topic}-${a.partition}`;
    case 'setConfig':
      return `set ${Object.entries(a.values).map(([k, v]) => `${k} = ${String(v)}`).join(', ')}${a.topic ? ` on topic ${a.topic}` : ''}`;
    case 'objectStore': {
      const which = a.store === 'wal' ? 'the fast store (WAL)' : a.store === 'tiered' ? 'the tiered store' : 'the object stores';
      const plural = a.store === undefined;
      if (a.extraLatencyMs !== undefined) return `${which} ${a.extraLatencyMs > 0 ? `slow${plural ? '' : 's'} down by ${a.extraLatencyMs} ms a request` : `answer${plural ? '' : 's'} at normal speed again`}`;
      return `${which} ${plural ? 'become' : 'becomes'} ${a.available ? 'available again' : 'unavailable'}`;
    }
    case 'isolate':
      return `broker ${a.broker} is cut off from the other brokers (network partition)`;
    case 'heal':
      return `broker ${a.broker}'s network partition ends`;
    case 'addBroker':
      return `broker ${a.broker} starts and joins the cluster (it hosts no replica until one is added)`;
  }
}

function setupSection(r: Report): string[] {
  const s = r.scenario;
  const out: string[] = ['## Setup', ''];
  // The run's zones name every broker at its end; those past `brokers` joined during the run (addBroker).
  const all = (r.run.config.zones as string[] | undefined) ?? [];
  const zones = all.slice(0, s.brokers);
  const distinct = [...new Set(zones)];
  const zoneText = distinct.length <= 1 ? `all in zone ${distinct[0] ?? 'a'}` : zones.map((z, i) => `broker ${i} in zone ${z}`).join(', ');
  out.push(`- ${s.brokers} brokers, ${mdInline(zoneText)}.`);
  if (all.length > s.brokers) {
    const joined = all.slice(s.brokers).map((z, i) => `broker ${s.brokers + i} in zone ${z}`).join(', ');
    out.push(`- Joining during the run: ${mdInline(joined)}.`);
  }
  for (const t of s.topics) {
    const reps = t.replicas.map((rs, p) => `${t.name}-${p} on [${rs.join(', ')}], leader ${rs[0]}`).join('; ');
    out.push(`- Topic ${code(t.name)}: ${t.partitions} partition${t.partitions === 1 ? '' : 's'} (${mdInline(reps)}).`);
    for (const p of t.initial) {
      out.push(`- ${code(`${t.name}-${p.partition}`)} at t=0 on the leader: ${mdInline(initialOffsets(p))}. The other replicas start empty.`);
    }
  }
  if (s.timeline.length > 0) {
    out.push('- Timeline:');
    for (const e of s.timeline) out.push(`  - ${code(`t=${e.at}ms`)} ${mdInline(actionText(e.action))}`);
  }
  if (r.actions.length > 0) {
    out.push(`- Actions taken in the walkthrough (the walkthrough link below replays them; the comparison across designs runs the scenario as written):`);
    for (const a of r.actions) out.push(`  - after step ${a.step}: ${mdInline(actionText(a.action))}`);
  }
  out.push(`- The run ends at t=${s.until}ms of simulated time.`);
  out.push('');
  return out;
}

function value(v: unknown): string {
  // The byte-rate quotas' default, Kafka's Long.MAX_VALUE (core/domain/config.ts).
  if (v === UNLIMITED_BYTES_PER_SECOND) return `${code('Long.MAX_VALUE')} (no limit)`;
  return code(String(v));
}

function configSection(r: Report): string[] {
  const s: Scenario = r.scenario;
  const rows: string[][] = [];
  const changes = new Map<string, Array<{ at: number; value: string }>>();
  for (const e of s.timeline) {
    if (e.action.kind !== 'setConfig') continue;
    for (const [k, v] of Object.entries(e.action.values)) {
      const id = `${e.action.topic ?? ''}|${k}`;
      changes.set(id, [...(changes.get(id) ?? []), { at: e.at, value: String(v) }]);
    }
  }
  // A topic's change that Kafka's controller refused (docs/protocol.md §5.2) is marked so.
  const refused = new Set<string>();
  for (const e of r.run.trace) {
    if (e.type === 'config' && (e as { action?: unknown }).action === 'refused') {
      for (const k of (e as { keys?: string[] }).keys ?? []) refused.add(`${String(e.topic)}|${k}|${e.atMs}`);
    }
  }
  const changed = (topic: string, k: string) => {
    const list = [...(changes.get(`${topic}|${k}`) ?? []), ...(topic !== '' ? (changes.get(`|${k}`) ?? []) : [])]
      .map((c) => `${c.value} at t=${c.at}ms${refused.has(`${topic}|${k}|${c.at}`) ? ' (refused by Kafka: INVALID_CONFIG)' : ''}`);
    return list.length > 0 ? mdInline(`, then ${list.join(', then ')}`) : '';
  };
  // The KIP-1023 switch always shows: whether it is on is the first question a reviewer asks.
  for (const [k, spec] of Object.entries(BROKER_CONFIGS)) {
    const start = (s.config as Record<string, unknown>)[k] ?? spec.default;
    const then = changed('', k);
    if (start === spec.default && then === '' && k !== 'follower.fetch.last.tiered.offset.enable') continue;
    rows.push([code(k), 'broker', value(start) + then, value(spec.default)]);
  }
  for (const t of s.topics) {
    for (const [k, spec] of Object.entries(TOPIC_CONFIGS)) {
      const start = (t.config as Record<string, unknown>)[k] ?? spec.default;
      const then = changed(t.name, k);
      if (start === spec.default && then === '' && k !== 'remote.storage.enable') continue;
      rows.push([code(k), `topic ${code(t.name)}`, value(start) + then, value(spec.default)]);
    }
    // Internal configs (no default) show when given.
    for (const k of Object.keys(INTERNAL_TOPIC_CONFIGS)) {
      const start = (t.config as Record<string, unknown>)[k];
      const then = changed(t.name, k);
      if (start === undefined && then === '') continue;
      rows.push([code(k), `topic ${code(t.name)} (Kafka's internal test override)`, (start === undefined ? 'not set' : value(start)) + then, 'not set']);
    }
  }
  for (const [k, spec] of Object.entries(MODEL_KNOBS)) {
    const given = (s.model as Record<string, unknown>)[k];
    if (given === undefined || given === spec.default) continue;
    rows.push([code(k), 'model knob (not a Kafka config)', value(given), value(spec.default)]);
  }
  if (s.model.jitter !== undefined) rows.push([code('jitter'), 'model knob: latencies drawn from the seed', mdInline(describeJitter(s.model.jitter)), 'off']);
  return [
    '### Configs that matter',
    '',
    mdTable(['Config', 'Applies to', 'Value', 'Default'], rows),
    '',
    'Every other config has its default (Kafka\'s, except `remote.log.storage.system.enable`, which the model turns on). The JSON format lists every value used.',
    '',
  ];
}

/** `t=2ms broker 0 -> broker 1: ...` as a list item: the time as code, the rest as inline text. */
function narrationItem(line: string, step?: number): string {
  const m = /^(t=\d+ms) (.*)$/.exec(line);
  const at = step === undefined ? '' : `step ${step}, `;
  return m ? `${code(at + m[1])} ${mdInline(m[2])}` : mdInline(line);
}

function chapterSection(r: Report): string[] {
  const c = r.chapter!;
  const out: string[] = ['## What happens', ''];
  out.push(`The chapter stops at ${c.stops.length} moments of the run (${r.totalSteps} steps in all, numbered as in the walkthrough). Each stop says what to look at; below it is the model's own narration of that step, with the rule it applied.`, '');
  for (const stop of c.stops) {
    out.push(`### ${stop.index + 1}. ${mdInline(stop.title)}`, '');
    out.push(`*Step ${stop.step}, t=${stop.atMs}ms.*`, '');
    out.push(mdParagraph(stop.text), '');
    if (stop.lines.length > 0) {
      out.push('The model narrates:', '');
      for (const l of stop.lines) out.push(`- ${narrationItem(l)}`);
      out.push('');
    }
  }
  if (c.missing.length > 0) {
    out.push(`> **Not reached in this run:** ${c.missing.map(mdInline).join('; ')}. The chapter was written for the scenario's own seed; another seed or a change in the model can move or remove a stop.`, '');
  }
  return out;
}

function eventsSection(r: Report): string[] {
  const out: string[] = ['## What happens', ''];
  const whole = r.range.fromStep === 0 && r.range.toStep === r.totalSteps;
  const where = whole ? `over the whole run (${r.totalSteps} steps)` : `from step ${r.range.fromStep} to step ${r.range.toStep} of ${r.totalSteps}`;
  out.push(`The model's narration of the key events ${where}, in order. Each kind of event is listed the first time it happens, with how often it happened again; leader, ISR, broker, config and timeline changes are listed every time.`, '');
  if (r.keyEvents.length === 0) out.push('Nothing is narrated in this range.');
  r.keyEvents.forEach((ev, i) => {
    const again = ev.repeats > 0 ? ` *(and ${ev.repeats} more time${ev.repeats === 1 ? '' : 's'}, the last at t=${ev.lastAtMs}ms)*` : '';
    out.push(`${i + 1}. ${narrationItem(ev.line, ev.step)}${again}`);
  });
  if (r.keyEventsLeftOut > 0) out.push('', `${r.keyEventsLeftOut} more kinds of event are left out; ${code(r.command)} narrates every step.`);
  out.push('');
  return out;
}

/** A row that says nothing (no produce, no costs): every value '-' or 'n/a'. */
const isEmptyRow = (row: string[]) => row.slice(1).every((v) => v === '-' || v === 'n/a');

/** The offsets of every replica at the end of the range, as the JSON names them. */
function offsetsSection(r: Report): string[] {
  const v = r.view;
  const atEnd = r.range.toStep >= r.totalSteps;
  const when = atEnd ? `At the end of the run (t=${wholeMs(v.nowMs)}ms)` : `At step ${r.range.toStep} (t=${wholeMs(v.nowMs)}ms)${r.chapter ? ', the last stop' : ''}`;
  const out: string[] = ['## Where it ends', ''];
  const shown = v.partitions.slice(0, 8);
  for (const p of shown) {
    out.push(`${when}, ${code(`${p.topic}-${p.partition}`)} has leader broker ${p.leader} at epoch ${p.leaderEpoch} and ISR [${p.isr.join(', ')}]:`, '');
    const rows = p.replicas.map((x) => [
      `broker ${x.broker}`,
      x.role === 'offline' ? 'offline' : `${x.role}${x.inIsr ? ', in ISR' : ''}`,
      String(x.logStartOffset),
      String(x.localLogStartOffset),
      String(x.highWatermark),
      String(x.logEndOffset),
      String(x.highestOffsetInRemoteStorage),
    ]);
    out.push(mdTable(['Replica', 'Role', 'Log-Start-Offset', 'Local-Log-Start-Offset', 'High watermark', 'Log-End-Offset', 'Highest offset in remote storage'], rows, ['left', 'left', 'right', 'right', 'right', 'right', 'right']), '');
    const segs = p.remoteSegments.filter((x) => x.state !== 'DELETE_SEGMENT_FINISHED');
    if (p.tiered || segs.length > 0) {
      const list = segs.length === 0 ? 'none' : segs.length <= 12 ? segs.map((x) => `[${x.baseOffset}, ${x.endOffset}] ${code(x.state)}`).join(', ') : `${segs.length}, from ${segs[0].baseOffset} to ${segs[segs.length - 1].endOffset}`;
      out.push(`Remote segments: ${list}.`, '');
    }
  }
  if (v.partitions.length > shown.length) out.push(`${v.partitions.length - shown.length} more partitions are in the JSON format.`, '');
  return out;
}

function figuresSection(r: Report): string[] {
  const rows = FIGURES.map(([label, f]) => [label, f(r.thisRun)]).filter((row) => !isEmptyRow(row));
  const zone = r.thisRun.crossZone;
  if (zone) {
    const kinds = Object.entries(zone).filter(([, v]) => v > 0);
    if (kinds.length > 0) rows.splice(3, 0, ['Cross-zone bytes by kind', kinds.map(([k, v]) => `${k} ${formatBytes(v, FIGURE_BYTES)}`).join(', ')]);
  }
  return [
    '## Figures of this run',
    '',
    `Over the whole run, t=0 to t=${r.run.endMs}ms of simulated time.`,
    '',
    mdTable(['Figure', 'Value'], rows, ['left', 'right']),
    '',
  ];
}

function comparisonSection(r: Report): string[] {
  const c = r.comparison;
  if (c === null) return [];
  const header = ['', ...c.modes.map((m) => MODE_TITLES[m.mode])];
  const rows = FIGURES.map(([label, f]) => [label, ...c.modes.map(f)]).filter((row) => !isEmptyRow(row));
  return [
    '## The same workload in each design',
    '',
    `The scenario's workload, faults and seed (${c.seed}), run once per mode; only the switches differ, and a timeline event that flips a switch is left out:`,
    '',
    ...c.modes.map((m) => `- **${m.mode}**: ${MODE_MEANING[m.mode]}.`),
    '',
    mdTable(header, rows, ['left', ...c.modes.map(() => 'right' as const)]),
    '',
    ...(c.assumed === undefined ? [] : [`Times and bytes assume: ${escapeAssumed(c.assumed)} (docs/protocol.md §10).`, '']),
  ];
}

/** The assumptions line as Markdown text (its config names as code). */
function escapeAssumed(text: string): string {
  return text.replace(/replica\.fetch\.max\.bytes/g, '`replica.fetch.max.bytes`');
}

function invariantsSection(r: Report): string[] {
  const out: string[] = ['## Invariants', ''];
  const v = r.run.violations;
  if (v.length === 0) {
    out.push(`All ${INVARIANTS.length} invariants held throughout the run: ${INVARIANTS.map((i) => i.title).join('; ')}.`);
  } else {
    const known = v.filter((x) => findingById(x.finding) !== undefined);
    const fresh = v.filter((x) => findingById(x.finding) === undefined);
    if (fresh.length > 0) {
      out.push(`${fresh.length} violation${fresh.length === 1 ? '' : 's'} in this run:`, '');
      out.push(mdTable(['t', 'Invariant', 'What failed'], fresh.map((x) => [formatMs(x.atMs), code(x.invariant), mdInline(x.message)])));
    }
    if (known.length > 0) {
      if (fresh.length > 0) out.push('');
      out.push(`${known.length} known finding${known.length === 1 ? '' : 's'} in this run: ${KNOWN_FINDING_NOTE}.`, '');
      out.push(mdTable(['t', 'Invariant', 'What failed', 'Known finding'], known.map((x) => [formatMs(x.atMs), code(x.invariant), mdInline(x.message), code(x.finding!)])));
      for (const f of knownFindingsOf(known)) out.push('', `**${mdInline(f.title)}.** ${mdInline(f.summary)} See [${f.docs}](${f.docs}).`);
    }
  }
  const others = (r.comparison?.modes ?? []).filter((m) => m.violations > 0);
  if (others.length > 0) out.push('', `In the comparison, ${others.map((m) => `${m.mode} had ${m.violations}`).join(', ')}; run ${code(`npm run sim -- compare ${r.scenarioRef} --seed ${r.seed} --json`)} for the details.`);
  out.push('');
  return out;
}

function footer(r: Report): string[] {
  const out = [
    '---',
    '',
    `*Generated by TierScope, an executable model of Kafka tiered-storage replication (KIP-405, KIP-1023, KIP-1176), with seed ${r.seed}. The figures are the model's: simulated time, modelled latencies and list prices, not measurements of a Kafka cluster.*`,
    '',
    r.actions.length > 0 ? `- Reproduce the scenario as written, without the walkthrough actions: ${code(r.command)}` : `- Reproduce the run: ${code(r.command)}`,
    `- This report: ${code(r.reportCommand)}`,
  ];
  if (r.walkthroughUrl !== null) out.push(`- Walkthrough (after ${code('npm start')}): ${safeUrl(r.walkthroughUrl) ? `<${r.walkthroughUrl}>` : code(r.walkthroughUrl)}`);
  out.push('');
  return out;
}

export function renderMarkdown(r: Report): string {
  const out: string[] = [`# ${mdHeading(r.scenario.name)}`, ''];
  if (r.chapter) {
    const c = r.chapter.chapter;
    const n = CHAPTERS.findIndex((x) => x.id === c.id) + 1;
    const title = c.title.replace(/^\d+\.\s*/, '');
    out.push(`**Design-review chapter${n > 0 ? ` ${n} of ${CHAPTERS.length}` : ''}: ${mdInline(title)}** (${code(c.id)})`, '');
    out.push(mdParagraph(r.chapter.chapter.summary), '');
  }
  if (r.scenario.description.trim() !== '') out.push(mdParagraph(r.scenario.description), '');
  // Every size below (segments, bytes moved, costs) is at this scale.
  if (r.run.sizesScaled) out.push(`**Sizes scaled:** ${mdInline(r.run.sizesScaledReason ?? '')}.`, '');
  out.push(...setupSection(r), ...configSection(r));
  out.push(...(r.chapter ? chapterSection(r) : eventsSection(r)));
  out.push(...offsetsSection(r), ...figuresSection(r), ...comparisonSection(r), ...invariantsSection(r), ...footer(r));
  return out.join('\n');
}
