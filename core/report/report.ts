/**
 * Design-review exports: one run of a scenario (or of a guided chapter) gathered once,
 * then rendered as Markdown for a KIP discussion or design doc, a Mermaid sequence
 * diagram, a standalone SVG picture, or JSON (the `run --json` document plus the chapter
 * and the comparison across modes).
 *
 * The run is stepped as the walkthrough steps it (a `Session`), so step numbers here are
 * the walkthrough's visible steps and a chapter's stops line up with them. Everything is
 * a pure function of (scenario, seed, options): no dates, so the same command prints the
 * same bytes.
 *
 * Leaves out user actions (a report is the scenario as written) and non-memory stores.
 */
import { knownFindingsOf } from './findings.js';
import { Narrator } from '../narrate/narrate.js';
import type { Scenario } from '../scenario/types.js';
import { type RecordedAction, Session } from '../session/session.js';
import { buildView, type RunView } from '../session/view.js';
import { MODES, compare, rowOf, type Mode } from '../study/compare.js';
import { buildRunJson, type RunJson } from '../sim/loop/output.js';
import type { TraceEntry } from '../sim/state/trace.js';
import { assert } from '../util/assert.js';
import { resolveChapter, StopFinder, type Chapter, type ResolvedChapter } from './chapters.js';
import { renderMarkdown } from './markdown.js';
import { toMermaid } from './mermaid.js';
import { renderSvg } from './svg.js';
import { type KeyEvent, type Report, runBrokers } from './types.js';

export const REPORT_FORMATS = ['md', 'mermaid', 'svg', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface ReportOptions {
  /** Overrides the scenario's seed. */
  seed?: number;
  /** Report this chapter's stops (its scenario must be the one given). */
  chapter?: Chapter;
  /** Modes of the side-by-side comparison (default all three); empty: no comparison. */
  modes?: readonly Mode[];
  /** First visible step covered (default: the step before a chapter's first stop, else 0). */
  fromStep?: number;
  /** Last visible step covered, and the step the SVG's lanes show (default: a chapter's last stop, else the end). */
  toStep?: number;
  /** The most messages of the sequence diagrams (default 200). */
  maxMessages?: number;
  /** How the reproduce command names the scenario: a bundled name or a path (default the scenario's name). */
  scenarioRef?: string;
  /** The walkthrough link, made by the caller (the URL format belongs to the web shell). */
  walkthroughUrl?: string;
  /** Bound on visible steps, for scenarios that would run for very long. Default 1,000,000. */
  maxSteps?: number;
  /** Actions a user took in the walkthrough (the report of a run shared by link); the comparison still runs the scenario as written. */
  actions?: readonly RecordedAction[];
}

// The renderers (markdown.ts, svg.ts) read a Report and this file calls them: the types
// live in types.ts so the renderers need not import this file back.
export type { KeyEvent, Report };

/** The most kinds of event the Markdown lists for a run without a chapter. */
export const KEY_EVENTS_MAX = 60;

/** Types whose every occurrence is listed: they change who leads, who is in sync, or the conditions. */
const ALWAYS_LISTED = new Set(['leader', 'isr', 'broker', 'config', 'timeline', 'violation', 'consume']);

/** What makes two entries the same kind of event, for collapsing repeats. */
function kindOf(e: TraceEntry): string {
  const x = e as unknown as Record<string, unknown>;
  const f = (k: string) => (x[k] === undefined || x[k] === null ? '' : typeof x[k] === 'object' ? 'o' : String(x[k]));
  const client = (k: string) => (typeof x[k] === 'string' ? String(x[k]) : '');
  return [e.type, e.rule ?? '', f('api'), f('error'), f('op'), f('store'), f('purpose'), f('action'), f('timestamp'), f('servedFrom'), client('source'), client('target'), f('divergingEpoch')].join('|');
}

/**
 * The run's key events in the range: every narrated entry except requests (their answer
 * says more), the first of each kind listed and its repeats counted, except the kinds in
 * ALWAYS_LISTED which are listed every time.
 */
export function keyEvents(trace: readonly TraceEntry[], lines: ReadonlyArray<string | null>, stepOf: readonly number[], range: { fromStep: number; toStep: number }, max = KEY_EVENTS_MAX): { events: KeyEvent[]; leftOut: number } {
  const events: KeyEvent[] = [];
  const byKind = new Map<string, KeyEvent>();
  let leftOut = 0;
  for (let i = 0; i < trace.length; i++) {
    const e = trace[i];
    const line = lines[i];
    if (line === null || e.type === 'request') continue;
    const step = stepOf[i];
    if (step < range.fromStep || step > range.toStep) continue;
    const kind = kindOf(e);
    const seen = ALWAYS_LISTED.has(e.type) ? undefined : byKind.get(kind);
    if (seen !== undefined) {
      seen.repeats++;
      seen.lastAtMs = e.atMs;
      continue;
    }
    if (events.length >= max) {
      // A kind first met past the limit: counted once, its repeats not at all.
      if (!byKind.has(kind)) leftOut++;
      byKind.set(kind, { index: i, step, atMs: e.atMs, line, repeats: 0, lastAtMs: e.atMs });
      continue;
    }
    const ev: KeyEvent = { index: i, step, atMs: e.atMs, line, repeats: 0, lastAtMs: e.atMs };
    events.push(ev);
    byKind.set(kind, ev);
  }
  return { events, leftOut };
}

/** The design the run's final configs describe, for labelling its own figures. */
function modeOf(run: RunJson): Mode {
  const topics = (run.config.topics ?? {}) as Record<string, Record<string, unknown>>;
  if (Object.values(topics).some((t) => t['wal.enable'] === true)) return 'wal';
  return run.config['follower.fetch.last.tiered.offset.enable'] === true ? 'kip1023' : 'classic';
}

function shellWord(s: string): string {
  return /^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Runs the scenario once (and once per compared mode) and gathers what every format needs. */
export function buildReport(scenario: Scenario, opts: ReportOptions = {}): Report {
  const seed = opts.seed ?? scenario.seed;
  const maxSteps = opts.maxSteps ?? 1_000_000;
  const actions = opts.actions ?? [];
  // A chapter's stops are found on this run; with walkthrough actions on a run of the
  // scenario as written (what the stops describe), before this one.
  const apart = opts.chapter && actions.length > 0 ? resolveChapter(opts.chapter, scenario, seed, maxSteps) : null;
  const finder = opts.chapter && apart === null ? new StopFinder(opts.chapter) : null;
  const lastOf = (c: ResolvedChapter | null) => (c && c.stops.length > 0 ? c.stops[c.stops.length - 1].step : undefined);
  // The picture at `toStep`, by default a chapter's last stop (found on the way, here).
  const wanted = opts.toStep ?? lastOf(apart);
  const session = new Session(scenario, seed, [...actions]);
  const stepOf: number[] = new Array<number>(session.kernel.trace.length).fill(0);
  let view: RunView | null = wanted === 0 ? buildView(session.kernel) : null;
  while (session.step < maxSteps && session.forward()) {
    for (let i = stepOf.length; i < session.kernel.trace.length; i++) stepOf.push(session.step);
    if (finder && !finder.done) {
      finder.observe(session);
      if (wanted === undefined && finder.done) view = buildView(session.kernel);
    }
    if (session.step === wanted) view = buildView(session.kernel);
  }
  const totalSteps = session.step;
  const chapter = finder ? finder.resolved(totalSteps) : apart;
  const lastStop = lastOf(chapter);
  // As in `run`: the last step() finds no event before `until` and moves the clock there.
  if (!session.kernel.hasNext()) session.kernel.step();
  view ??= buildView(session.kernel);
  const run = buildRunJson(session.kernel);
  assert(stepOf.length === run.trace.length, 'every trace entry has a step');
  const narrator = new Narrator();
  const lines = run.trace.map((e) => narrator.line(e));
  // A chapter's range starts one step before its first stop: the request that stop answers.
  const firstStop = chapter && chapter.stops.length > 0 ? chapter.stops[0].step - 1 : 0;
  const fromStep = Math.max(0, Math.min(opts.fromStep ?? firstStop, totalSteps));
  const toStep = Math.max(fromStep, Math.min(opts.toStep ?? lastStop ?? totalSteps, totalSteps));
  const range = { fromStep, toStep };
  const key = keyEvents(run.trace, lines, stepOf, range);
  const modes = opts.modes ?? MODES;
  const comparison = modes.length > 0 ? compare(scenario, modes, seed) : null;
  const scenarioRef = opts.scenarioRef ?? scenario.name;
  const reportRef = opts.chapter ? opts.chapter.id : scenarioRef;
  return {
    scenario,
    scenarioRef,
    seed,
    run,
    stepOf,
    lines,
    totalSteps,
    chapter,
    thisRun: rowOf(modeOf(run), run, session.kernel),
    comparison,
    keyEvents: key.events,
    keyEventsLeftOut: key.leftOut,
    range,
    view,
    maxMessages: opts.maxMessages ?? 200,
    command: `npm run sim -- run ${shellWord(scenarioRef)} --seed ${seed}`,
    reportCommand: `npm run sim -- report ${shellWord(reportRef)} --format md --seed ${seed}`,
    walkthroughUrl: opts.walkthroughUrl ?? null,
    actions,
  };
}

/**
 * The `--format json` document: `run --json`'s fields unchanged, plus `chapter`,
 * `comparison` and `knownFindings` (each violation that is a known finding names it in
 * its `finding`; this list explains each).
 */
export function reportJson(r: Report): Record<string, unknown> {
  const chapter = r.chapter
    ? {
        id: r.chapter.chapter.id,
        title: r.chapter.chapter.title,
        scenario: r.chapter.chapter.scenario,
        summary: r.chapter.chapter.summary,
        stops: r.chapter.stops,
        missing: r.chapter.missing,
        totalSteps: r.chapter.totalSteps,
      }
    : null;
  return { ...r.run, chapter, comparison: r.comparison, knownFindings: knownFindingsOf(r.run.violations) };
}

export function renderReport(r: Report, format: ReportFormat): string {
  switch (format) {
    case 'md':
      return renderMarkdown(r);
    case 'mermaid':
      return toMermaid(r.run.trace, {
        stepOf: r.stepOf,
        brokers: runBrokers(r),
        fromStep: r.range.fromStep,
        toStep: r.range.toStep,
        maxMessages: r.maxMessages,
        marks: r.chapter?.stops.map((s) => ({ step: s.step, title: `${s.index + 1}. ${s.title}` })) ?? [],
      });
    case 'svg':
      return renderSvg(r);
    case 'json':
      return JSON.stringify(reportJson(r), null, 2) + '\n';
  }
}
