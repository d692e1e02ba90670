/**
 * The side-by-side view's state: two runs of one workload in two designs, resolved once
 * (core/study/compare-timeline.ts), held in step by a shared cursor over simulated time.
 * Each side shows its latest visible step at or before the cursor; stepping moves the
 * cursor to the next step time of either run. Svelte owns the DOM; this module owns time
 * and the URL (`?compare=<id>&modes=a,b&t=<ms>`, or `?compare=&src=<base64url>` for a
 * scenario loaded or pasted in the walkthrough; params.ts), and keeps the way back to where
 * the walkthrough was (its chapter and stop, or its step and recorded actions).
 */
import type { WhatIfForm } from '../lib/whatif-form.js';
import { isErrorEntry, narrated } from '../lib/narration.js';
import { Ticker } from '../lib/ticker.js';
import { findChapter } from '../../core/report/chapters.js';
import { parseScenarioText } from '../../core/scenario/parse.js';
import type { InputProblem, Scenario } from '../../core/scenario/types.js';
import type { RecordedAction } from '../../core/session/session.js';
import { buildView, type RunView } from '../../core/session/view.js';
import { type CompareRow, MODES, type Mode } from '../../core/study/compare.js';
import {
  cursorAt,
  mergeStepTimes,
  pointAt,
  resolveSide,
  type ResolvedSide,
  type Sample,
  type SeriesMetric,
  type SidePoint,
  sampleSeries,
  stepsAt,
} from '../../core/study/compare-timeline.js';
import type { TraceEntry } from '../../core/sim/state/trace.js';
import { inSequence, share } from '../lib/layout.js';
import { BUNDLED } from '../lib/scenarios.js';
import { encodePageLink } from '../lib/url.js';
import { type WalHop, walHops } from '../lib/wal-layout.js';
import { MODE_LABEL, runsAsWritten } from './figures.js';
import { type CompareLink, defaultModes, encodeCompareQuery, parseCompareQuery, walkthroughHref } from './params.js';

/** Cursor positions per second while playing. */
export const SPEEDS = [1, 2, 5, 10, 30] as const;
export type Speed = (typeof SPEEDS)[number];

/** The pairs `m` cycles through. */
export const PAIRS: ReadonlyArray<[Mode, Mode]> = [
  ['classic', 'wal'],
  ['classic', 'kip1023'],
  ['kip1023', 'wal'],
];

/** Samples per chart line (plus the end). */
export const SAMPLES = 100;

export const CHART_METRICS = ['bytesFromLeader', 'crossZoneBytes', 'requests', 'costUsd'] as const satisfies readonly SeriesMetric[];
export type ChartMetric = (typeof CHART_METRICS)[number];

export interface MomentLine {
  text: string;
  error: boolean;
}

/** What one side draws at the cursor. */
export interface SideView {
  mode: Mode;
  label: string;
  step: number;
  totalSteps: number;
  /** The time of the side's step (at or before the cursor). */
  stepMs: number;
  view: RunView;
  /** The latest requests, each with the cursor position it happened at (the lane lights the current one). */
  traceWindow: Array<{ entry: TraceEntry; step: number }>;
  walHops: WalHop[];
  /** Narration of what this run did at the cursor time. */
  lines: MomentLine[];
  point: SidePoint;
  /** The walkthrough at this step, when the scenario file runs in this design as written. */
  walkthroughHref: string | null;
}

const scenarioCache = new Map<string, Scenario | null>();
function bundledScenario(id: string): Scenario | null {
  if (!scenarioCache.has(id)) {
    const text = BUNDLED.find((b) => b.id === id)?.text;
    const r = text === undefined ? null : parseScenarioText(text, id);
    scenarioCache.set(id, r?.ok ? r.scenario : null);
  }
  return scenarioCache.get(id) ?? null;
}

/** Where the walkthrough was when it opened this view (the way back), beyond the scenario and seed. */
export interface Origin {
  chapter?: string;
  stop?: number;
  step?: number;
  actions: RecordedAction[];
}

export class CompareState {
  /** The bundled scenario's id; null for a scenario from the link's text (`src`). */
  scenarioId = $state<string | null>('');
  /** The text of a scenario that is not bundled (what `src` carries). */
  source = $state<string | undefined>(undefined);
  /** Problems of the link's scenario text (`src`): shown instead of the runs. */
  sourceProblems = $state.raw<InputProblem[]>([]);
  /** The walkthrough form's what-if the scenario was built from (its link carries these options instead of `src`). */
  whatif: WhatIfForm | undefined = undefined;
  origin = $state.raw<Origin>({ actions: [] });
  scenario = $state.raw<Scenario | null>(null);
  modes = $state.raw<[Mode, Mode]>(['classic', 'wal']);
  seed = $state(1);
  notes = $state.raw<string[]>([]);
  /** Resolving the two runs (shown while it takes). */
  busy = $state(true);
  /** Wall-clock ms the last resolve of both runs took. */
  resolveMs = $state(0);
  times = $state.raw<number[]>([]);
  cursor = $state(0);
  endMs = $state(0);
  rows = $state.raw<[CompareRow, CompareRow] | null>(null);
  /** Each run's counters at its end (the breakdown under the table). */
  counters = $state.raw<[ResolvedSide['endCounters'], ResolvedSide['endCounters']] | null>(null);
  series = $state.raw<Record<ChartMetric, [Sample[], Sample[]]> | null>(null);
  sides = $state.raw<[SideView, SideView] | null>(null);
  partitionKey = $state<string | null>(null);
  /** Presenter mode from the link: the page puts `presenter` on <body>. */
  present = $state(false);
  partitionKeys = $state.raw<string[]>([]);
  playing = $state(false);
  speed = $state<Speed>(5);
  /** The last move was a jump: draw it without transitions. */
  instant = $state(true);

  private resolved: [ResolvedSide, ResolvedSide] | null = null;
  private readonly ticker = new Ticker();
  private urlTimer: ReturnType<typeof setTimeout> | null = null;

  get tMs(): number {
    return this.times[this.cursor] ?? 0;
  }

  get atEnd(): boolean {
    return this.cursor >= this.times.length - 1;
  }

  /** Reads the link and resolves both runs. */
  init(search: string, hash = ''): void {
    const q = parseCompareQuery(search, BUNDLED.map((b) => b.id), bundledScenario, hash);
    const notes = [...q.problems];
    this.origin = { chapter: q.chapter, stop: q.stop, step: q.step, actions: q.actions };
    this.present = q.present;
    this.modes = q.modes;
    if (q.scenario === null) {
      // A loaded or pasted scenario: the same validator and work budget as the walkthrough
      // and the CLI (core/scenario/parse.ts, budget.ts); a bad one shows its problems.
      this.scenarioId = null;
      this.source = q.source;
      this.whatif = q.whatif;
      const r = q.source === undefined ? null : parseScenarioText(q.source, 'scenario in the link');
      if (r === null || !r.ok) {
        const unread = q.whatif !== undefined
          ? { path: 'whatif', message: `the what-if could not be built: ${q.whatifProblem ?? 'no scenario'}` }
          : { path: 'src', message: 'not a readable scenario (expected the scenario text in base64url, as the walkthrough writes it)' };
        this.sourceProblems = r === null ? [unread] : r.problems;
        this.scenario = null;
        this.notes = notes;
        this.busy = false;
        return;
      }
      this.scenario = r.scenario;
      if (!q.modesGiven) this.modes = defaultModes('', r.scenario);
      this.seed = q.seed ?? r.scenario.seed;
      this.notes = notes;
      this.resolve(q.tMs, q.partition);
      return;
    }
    let scenario = bundledScenario(q.scenario);
    let id = q.scenario;
    if (scenario === null) {
      notes.push(`compare: scenario "${id}" does not parse; showing wal-steady-state`);
      id = 'wal-steady-state';
      scenario = bundledScenario(id);
    }
    this.scenarioId = id;
    this.scenario = scenario;
    this.seed = q.seed ?? scenario?.seed ?? 1;
    this.notes = notes;
    if (scenario === null) {
      this.busy = false;
      return;
    }
    this.resolve(q.tMs, q.partition);
  }

  /** The chapter the walkthrough was playing, and its stop, when it opened this view. */
  get originChapter(): { title: string; stop: number } | null {
    const c = this.origin.chapter === undefined ? undefined : findChapter(this.origin.chapter);
    return c === undefined ? null : { title: c.title, stop: this.origin.stop ?? 1 };
  }

  /**
   * The user's recorded actions the walkthrough had, which this view does not replay: both
   * designs run the scenario as written (a step of one design is not the same moment in
   * the other). The page says so; the way back keeps them.
   */
  get actionsNote(): string | null {
    const a = this.origin.actions;
    if (a.length === 0) return null;
    const listed = a.slice(0, 5).map((x) => `${x.action.kind} after step ${x.step}`).join(', ');
    const more = a.length > 5 ? ` and ${a.length - 5} more` : '';
    return `The walkthrough's ${a.length} recorded action${a.length === 1 ? '' : 's'} (${listed}${more}) ${a.length === 1 ? 'is' : 'are'} not replayed here: both designs run the scenario as written, since a step of one design is not the same moment in the other. "Back to the walkthrough" keeps ${a.length === 1 ? 'it' : 'them'}.`;
  }

  /** Runs both designs to their end once; keeps the cursor time (or goes to `tMs`). */
  resolve(tMs: number | undefined = this.times.length ? this.tMs : undefined, partition?: string): void {
    const s = this.scenario;
    if (s === null) return;
    this.stop();
    this.busy = true;
    const started = performance.now();
    let pair: [ResolvedSide, ResolvedSide];
    try {
      pair = [resolveSide(s, this.modes[0], this.seed), resolveSide(s, this.modes[1], this.seed)];
    } catch (e) {
      this.notes = [...this.notes, `the run could not be resolved: ${e instanceof Error ? e.message : String(e)}`];
      this.busy = false;
      this.resolved = null;
      this.sides = null;
      return;
    }
    this.resolveMs = Math.round(performance.now() - started);
    this.resolved = pair;
    this.endMs = Math.max(pair[0].endMs, pair[1].endMs);
    this.times = mergeStepTimes(pair[0].stepTimes, pair[1].stepTimes, [pair[0].endMs, pair[1].endMs]);
    this.rows = [pair[0].row, pair[1].row];
    this.counters = [pair[0].endCounters, pair[1].endCounters];
    const series = {} as Record<ChartMetric, [Sample[], Sample[]]>;
    for (const m of CHART_METRICS) series[m] = [sampleSeries(pair[0], m, SAMPLES), sampleSeries(pair[1], m, SAMPLES)];
    this.series = series;
    const keys = pair[0].session.kernel.state.partitionOrder;
    this.partitionKeys = [...keys];
    if (partition !== undefined && !keys.includes(partition)) this.notes = [...this.notes, `partition: no partition "${partition}"; showing ${keys[0]}`];
    if (partition !== undefined && keys.includes(partition)) this.partitionKey = partition;
    else if (this.partitionKey === null || !keys.includes(this.partitionKey)) this.partitionKey = keys[0] ?? null;
    let c = 0;
    if (tMs !== undefined) {
      if (tMs > this.endMs) this.notes = [...this.notes, `t: ${tMs} ms is past the end of the run (${this.endMs} ms); showing the end`];
      c = cursorAt(this.times, Math.min(tMs, this.endMs));
    }
    this.sides = null;
    this.busy = false;
    this.instant = true;
    this.setCursor(c);
  }

  setModes(modes: [Mode, Mode]): void {
    if (modes[0] === modes[1] || (modes[0] === this.modes[0] && modes[1] === this.modes[1])) return;
    this.modes = modes;
    this.resolve();
  }

  /** The next pair of designs (the `m` key). */
  cyclePair(): void {
    const i = PAIRS.findIndex((p) => p[0] === this.modes[0] && p[1] === this.modes[1]);
    this.setModes([...PAIRS[(i + 1) % PAIRS.length]] as [Mode, Mode]);
  }

  /** Moves the shared cursor to position `c` and brings both sides there. */
  setCursor(c: number): void {
    const pair = this.resolved;
    if (pair === null || this.times.length === 0) return;
    this.cursor = Math.max(0, Math.min(this.times.length - 1, Math.floor(c)));
    const prev = this.sides;
    this.sides = [this.sideAt(pair[0], prev?.[0] ?? null), this.sideAt(pair[1], prev?.[1] ?? null)];
    this.syncUrl();
  }

  forward(): boolean {
    if (this.atEnd) return false;
    this.instant = false;
    this.setCursor(this.cursor + 1);
    return true;
  }

  back(): void {
    this.stop();
    this.instant = false;
    this.setCursor(this.cursor - 1);
  }

  home(): void {
    this.stop();
    this.instant = true;
    this.setCursor(0);
  }

  end(): void {
    this.stop();
    this.instant = true;
    this.setCursor(this.times.length - 1);
  }

  scrub(c: number): void {
    this.stop();
    this.instant = true;
    this.setCursor(c);
  }

  toggle(): void {
    if (this.playing) this.stop();
    else this.play();
  }

  play(): void {
    if (this.playing || this.resolved === null) return;
    if (this.atEnd) this.setCursor(0);
    this.playing = true;
    this.instant = false;
    this.ticker.start(() => this.speed, (due) => {
      if (due > 0) this.setCursor(this.cursor + due);
      if (this.atEnd) {
        this.stop();
        return null;
      }
      return due;
    });
  }

  stop(): void {
    const was = this.playing;
    this.playing = false;
    this.ticker.stop();
    if (was) this.syncUrl(true);
  }

  faster(d: 1 | -1): void {
    const i = SPEEDS.indexOf(this.speed);
    this.speed = SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, i + d))];
  }

  setPartition(key: string): void {
    if (!this.partitionKeys.includes(key)) return;
    this.partitionKey = key;
    this.syncUrl(true);
  }

  /** What the link holds beyond the designs and the cursor: the scenario, seed, partition and the way back. */
  private link(): CompareLink {
    return {
      scenario: this.scenarioId,
      source: this.scenarioId === null && this.whatif === undefined ? this.source : undefined,
      whatif: this.scenarioId === null ? this.whatif : undefined,
      seed: this.scenario !== null && this.seed !== this.scenario.seed ? this.seed : undefined,
      partition: this.partitionKey !== null && this.partitionKey !== this.partitionKeys[0] ? this.partitionKey : undefined,
      present: this.present,
      ...this.origin,
    };
  }

  /** The way back: the walkthrough where it was (the same chapter and stop, or scenario, seed, actions and step). */
  get walkthroughHref(): string {
    return walkthroughHref(this.link());
  }

  private sideAt(r: ResolvedSide, prev: SideView | null): SideView {
    const c = this.cursor;
    const { from, to } = stepsAt(r.stepTimes, this.times, c);
    const session = r.session;
    session.goTo(to);
    const k = session.kernel;
    // At the end both runs have run out the clock to `until`, as compare() does (storage
    // is priced over time); there are no events left to process.
    if (this.tMs >= r.endMs && session.done) k.runUntil(r.endMs);
    const view = prev === null ? buildView(k) : share(prev.view, buildView(k));
    const start = from < 0 ? 0 : r.traceEnds[from];
    const stop = r.traceEnds[to];
    const trace = k.trace;
    const moment = trace.slice(start, stop);
    const lines: MomentLine[] = [];
    for (const e of moment) {
      const text = narrated(e);
      if (text !== null) lines.push({ text, error: isErrorEntry(e) });
    }
    // The request lane: the 16 latest requests up to this step, each tagged with the
    // cursor position it happened at, so the lane lights those of the current position.
    const window: Array<{ entry: TraceEntry; step: number }> = [];
    for (let i = stop - 1; i >= 0 && window.length < 16; i--) {
      const e = trace[i];
      if (!inSequence(e)) continue;
      const step = session.stepOfEntry(i);
      window.unshift({ entry: e, step: i >= start ? c : cursorAt(this.times, r.stepTimes[step]) });
    }
    const hops = walHops(moment);
    const scenario = this.scenario;
    const walkthroughHref =
      scenario !== null && runsAsWritten(scenario, r.mode)
        ? `./${encodePageLink({
            scenario: this.scenarioId ?? undefined,
            source: this.scenarioId === null && this.whatif === undefined ? this.source : undefined,
            whatif: this.scenarioId === null ? this.whatif : undefined,
            seed: this.seed !== scenario.seed ? this.seed : undefined,
            step: to,
            actions: [],
          }).link}`
        : null;
    return {
      mode: r.mode,
      label: MODE_LABEL[r.mode],
      step: to,
      totalSteps: r.stepTimes.length - 1,
      stepMs: r.stepTimes[to],
      view,
      traceWindow: window,
      walHops: hops.length === 0 && prev !== null && prev.walHops.length === 0 ? prev.walHops : hops,
      lines: lines.slice(-40),
      point: pointAt(r, this.tMs),
      walkthroughHref,
    };
  }

  /** The URL follows the cursor, written at most every 200 ms; `force` writes it now. */
  private syncUrl(force = false): void {
    if (typeof history === 'undefined' || this.scenario === null) return;
    if (!force) {
      if (this.urlTimer === null) this.urlTimer = setTimeout(() => { this.urlTimer = null; this.syncUrl(true); }, 200);
      return;
    }
    if (this.urlTimer !== null) { clearTimeout(this.urlTimer); this.urlTimer = null; }
    const q = encodeCompareQuery({ ...this.link(), modes: this.modes, tMs: this.tMs });
    history.replaceState(null, '', `${location.pathname}?${q}`);
  }

  /** Writes a pending URL update now. */
  flushUrl(): void {
    if (this.urlTimer !== null) this.syncUrl(true);
  }
}



export { MODES };
