/**
 * The page's state: one Session (core), what it shows now, the play loop and the URL.
 * Svelte owns the DOM; this module owns time. Everything drawn is a function of the
 * session's state, so stepping, scrubbing and replay draw the same picture.
 */
import { isErrorEntry, isFindingEntry, narrated } from './narration.js';
import { Ticker } from './ticker.js';
import { flushSync } from 'svelte';
import { RULES } from '../../core/narrate/narrate.js';
import { toMermaid } from '../../core/report/mermaid.js';
import { type Chapter, CHAPTERS, findChapter, type ResolvedChapter, StopFinder } from '../../core/report/chapters.js';
import { parseScenarioText, workProblems } from '../../core/scenario/parse.js';
import { actionContext, contextAfter, readTimelineAction } from '../../core/scenario/timeline.js';
import type { InputProblem, Scenario, TimelineAction } from '../../core/scenario/types.js';
import { type RecordedAction, Session } from '../../core/session/session.js';
import { buildView, type RunView } from '../../core/session/view.js';
import type { Delivery } from '../../core/sim/loop/kernel.js';
import { buildRunJson } from '../../core/sim/loop/output.js';
import { type TraceEntry, wholeMs } from '../../core/sim/state/trace.js';
import { BUNDLED, DEFAULT_SCENARIO } from './scenarios.js';
import { InspectionLog, type LogEntry } from './inspect.js';
import { inSequence, share } from './layout.js';
import { type WalHop, walHops } from './wal-layout.js';
import { type UrlState, decodeUrlState, encodePageLink } from './url.js';
import { MISSING_VIEW, readSessionFile, sessionFileText, stashView, viewOf } from './session-link.js';
import { type FormBuild, type WhatIfForm, defaultForm } from './whatif-form.js';
import { type Job, pastDeadline, runSliced } from './jobs.js';
import type { ReportReply, ReportRequest } from './report-worker.js';

export const SPEEDS = [1, 2, 5, 10, 30, 0] as const; // steps per second; 0 = full speed, one step every frame
export type Speed = (typeof SPEEDS)[number];

export type ExportFormat = 'md' | 'mermaid' | 'json';

/** Visible steps the page counts at most (the scrubber's range). */
export const MAX_COUNTED_STEPS = 200000;

/** Long work in progress (counting the run's steps, a jump), shown with a Cancel button. */
export interface Progress {
  label: string;
  /** 0 .. 1, or null when it cannot be told (a report being built). */
  fraction: number | null;
  detail: string;
}

export interface NarrationLine {
  step: number;
  text: string;
  rule?: string;
  error: boolean;
  /** A known finding: Kafka's own behaviour, not an error of the model. */
  finding: boolean;
}

export class RunState {
  scenarioId = $state<string | null>(DEFAULT_SCENARIO);
  source = $state<string>('');
  scenario = $state.raw<Scenario | null>(null);
  problems = $state.raw<InputProblem[]>([]);
  urlProblems = $state.raw<string[]>([]);
  /** The view's link length when it is over MAX_LINK_CHARS (the address bar then holds `#view=ID`), else null. */
  linkTooLong = $state<number | null>(null);
  view = $state.raw<RunView | null>(null);
  step = $state(0);
  totalSteps = $state(0);
  done = $state(false);
  nowMs = $state(0);
  playing = $state(false);
  /** The last move was a jump (scrub, End, restart, a link): draw it at once, without transitions. */
  instant = $state(true);
  speed = $state<Speed>(5);
  partitionKey = $state<string | null>(null);
  narration = $state.raw<NarrationLine[]>([]);
  traceWindow = $state.raw<Array<{ entry: TraceEntry; step: number }>>([]);
  /** KIP-1176: the chunk hops (PUT, metadata record, ranged GET, append) of the current step. */
  walHops = $state.raw<WalHop[]>([]);
  actions = $state.raw<RecordedAction[]>([]);
  inspection = $state.raw<LogEntry[]>([]);
  /** The inspection log runs only while it is shown. */
  logEnabled = $state(false);
  /** The statechart view is open: the machine deliveries of each step are recorded (chartDeliveries). */
  chartEnabled = $state(false);
  /** The machine deliveries of the current step (while the statechart view is open; the view finds the transitions they took). */
  chartDeliveries = $state.raw<Delivery[]>([]);
  /** Deliveries seen since the last step began: the step they belong to is the one being taken. */
  private chartPending: Array<{ step: number; d: Delivery }> = [];
  readonly log = new InspectionLog();
  /** A guided chapter being played (null in a free run), and the stop shown. */
  chapter = $state.raw<ResolvedChapter | null>(null);
  stopIndex = $state(0);
  /** Set when an action took the run off the chapter's script. */
  leftChapter = $state<string | null>(null);
  /** Presenter mode: full screen, large type, controls hidden. */
  presenter = $state(false);
  /** Counting the run's steps, and a jump, while they take long (null otherwise). */
  countProgress = $state.raw<Progress | null>(null);
  seekProgress = $state.raw<Progress | null>(null);
  /** The Markdown report being built in a worker (report-worker.ts). */
  exportProgress = $state.raw<Progress | null>(null);
  private exportCancel: (() => void) | null = null;
  /** Counting the steps was cancelled: `totalSteps` is what was counted by then. */
  countCancelled = $state(false);

  /** The "Your partition" form as typed (whatif-form.ts), its last build, and the form of the what-if running (null: the scenario running is not the form's). */
  whatifDraft = $state<WhatIfForm>(defaultForm());
  whatifBuild = $state.raw<FormBuild | null>(null);
  whatifLoaded = $state.raw<WhatIfForm | null>(null);

  private session: Session | null = null;
  /** Counting the run's steps (a probe run), and a jump of the session, each in slices (jobs.ts). */
  private counting: Job | null = null;
  private seeking: Job | null = null;
  /** What to do once counting ends (a jump the link asks for, End pressed while counting). */
  private afterCount: Array<() => void> = [];

  /** The long work to show: a jump the user asked for before counting in the background. */
  get progress(): Progress | null {
    return this.seekProgress ?? this.exportProgress ?? this.countProgress;
  }
  /** The play loop; full speed (0) is one visible step every frame, so every step is drawn. */
  private readonly ticker = new Ticker();
  /** Frame durations (ms) while playing, for the performance check. */
  frameTimes: number[] = [];
  /** Per frame: [stepping, state refresh, DOM update, layout] in ms. */
  refreshTimes: number[][] = [];

  /** Loads from the URL (its query and fragment, or the view a `#view=ID` names), or the default scenario. */
  init(search: string, hash = ''): void {
    const view = viewOf(search, hash);
    const { state, problems } = decodeUrlState(view.search, view.hash);
    if (view.missing) problems.push(MISSING_VIEW);
    this.urlProblems = problems;
    this.presenter = state.present === true;
    if (state.chapter !== undefined) {
      if (findChapter(state.chapter) === undefined) {
        this.urlProblems = [...problems, `chapter: no chapter "${state.chapter}" (chapters: ${CHAPTERS.map((c) => c.id).join(', ')})`];
      } else {
        const step = state.step;
        this.loadChapter(state.chapter, (state.stop ?? 1) - 1, step === undefined ? undefined : () => this.goTo(step));
        return;
      }
    }
    if (state.whatif !== undefined && state.source === undefined && state.scenario === undefined) {
      // The form's options: the form refilled, the scenario built again and run.
      this.whatifDraft = state.whatif;
      const step = state.step;
      void this.loadWhatIf(state.whatif, state.seed, state.actions, step === undefined ? undefined : () => this.goTo(step)).then((b) => {
        if (!b.ok || b.refused !== null) this.loadBundled(DEFAULT_SCENARIO);
        else if (state.partition && this.view?.partitions.some((p) => p.key === state.partition)) this.partitionKey = state.partition;
      });
      return;
    }
    const id = state.scenario ?? (state.source === undefined ? DEFAULT_SCENARIO : null);
    const text = state.source ?? BUNDLED.find((b) => b.id === id)?.text;
    if (text === undefined) {
      this.urlProblems = [...problems, `scenario: no bundled scenario "${id}"`];
      this.loadBundled(DEFAULT_SCENARIO);
      return;
    }
    const step = state.step;
    if (!this.load(text, id, state.seed, state.actions, null, step === undefined ? undefined : () => this.goTo(step))) {
      // The link's scenario is not shown: the picker says so rather than naming the default.
      this.scenarioId = id;
      return;
    }
    if (state.partition && this.view?.partitions.some((p) => p.key === state.partition)) this.partitionKey = state.partition;
  }

  /**
   * Builds the form's what-if (whatif-form.ts) and runs it, unless the form has a problem or
   * the page's work budget refuses it; the result (shown by the form) either way.
   */
  async loadWhatIf(form: WhatIfForm, seed?: number, actions: RecordedAction[] = [], then?: () => void): Promise<FormBuild> {
    const copy: WhatIfForm = { values: { ...form.values }, modes: [...form.modes] };
    // The builder loads with the first build (web/lib/whatif-build.ts), not with the page.
    const { buildForm } = await import('./whatif-build.js');
    const b = buildForm(copy);
    this.whatifBuild = b;
    if (b.ok && b.refused === null && this.load(b.whatIf.body, null, seed, actions, null, then)) {
      this.whatifLoaded = copy;
      this.syncUrl(true);
    }
    return b;
  }

  loadBundled(id: string): boolean {
    const b = BUNDLED.find((x) => x.id === id);
    if (!b) return false;
    return this.load(b.text, id);
  }

  /**
   * Parses and starts a scenario; on bad input (a scenario or recorded actions past the
   * limits of docs/scenario-format.md included) shows every problem and changes nothing.
   * `then` runs once the run's steps are counted (at once for a short run).
   */
  load(text: string, id: string | null, seed?: number, actions: RecordedAction[] = [], chapter: Chapter | null = null, then?: () => void): boolean {
    const r = parseScenarioText(text, id ?? 'pasted scenario');
    if (!r.ok) {
      this.problems = r.problems;
      return false;
    }
    // URL input is untrusted: each action is read by the scenario file's timeline rules,
    // and the session gets the action as read (fresh, only known keys, defaults applied).
    const okActions: RecordedAction[] = [];
    const bad: string[] = [];
    // An addBroker among them adds a broker the actions after it may name.
    let ctx = actionContext(r.scenario);
    actions.forEach((a, i) => {
      const read = readTimelineAction(ctx, a.action, `actions[${i}].action`);
      if (read.ok) {
        okActions.push({ step: a.step, action: read.action });
        ctx = contextAfter(ctx, read.action);
      } else bad.push(...read.problems.map((p) => `${p.path}: ${p.message}`));
    });
    // The actions a link carries count towards the same work budget as the scenario's timeline.
    const work = workProblems(r.scenario, okActions.map((a) => a.action), { traceKept: true });
    if (work.length > 0) {
      this.problems = work;
      return false;
    }
    if (bad.length) this.urlProblems = [...this.urlProblems, ...bad];
    this.stop();
    this.cancelSeek(false);
    this.chapter = null;
    this.leftChapter = null;
    this.problems = [];
    this.whatifLoaded = null;
    this.scenario = r.scenario;
    this.scenarioId = id;
    this.source = text;
    this.session = new Session(r.scenario, seed ?? r.scenario.seed, okActions);
    this.log.reset();
    this.log.entries = [];
    this.inspection = [];
    this.wireLog();
    this.partitionKey = this.session.kernel.state.partitionOrder[0] ?? null;
    this.step = 0;
    this.totalSteps = 0;
    this.countSteps(chapter && new StopFinder(chapter), then);
    this.refresh();
    return true;
  }

  get seed(): number {
    return this.session?.seed ?? 1;
  }

  /**
   * Total visible steps of the run with the current actions (for the scrubber). A chapter's
   * stops are found on the same probe run. A long run is counted in slices with progress
   * shown (the page stays usable meanwhile); `then` runs once counting ends, or is cancelled.
   */
  private countSteps(finder: StopFinder | null = null, then?: () => void): void {
    this.counting?.drop();
    this.counting = null;
    this.countCancelled = false;
    this.countProgress = null;
    if (!this.session || !this.scenario) return;
    const scenario = this.scenario;
    const probe = new Session(scenario, this.session.seed, [...this.session.actions], { lean: true });
    this.afterCount = then ? [then] : [];
    const finish = (cancelled: boolean) => {
      this.counting = null;
      this.countCancelled = cancelled;
      this.countProgress = null;
      this.totalSteps = Math.max(probe.step, this.step);
      if (finder) this.chapter = finder.resolved(probe.step);
      const after = this.afterCount;
      this.afterCount = [];
      for (const f of after) f();
    };
    const job = runSliced(
      (deadline) => {
        const late = pastDeadline(deadline);
        while (probe.step < MAX_COUNTED_STEPS) {
          if (late()) return false;
          if (!probe.forward()) return true;
          finder?.observe(probe);
        }
        return true;
      },
      {
        onSlice: () => {
          this.totalSteps = Math.max(probe.step, this.step);
          const now = probe.kernel.state.nowMs;
          this.countProgress = {
            label: 'Counting steps',
            fraction: Math.min(1, now / scenario.until),
            detail: `t = ${now.toLocaleString('en-US')} of ${scenario.until.toLocaleString('en-US')} ms, ${probe.step.toLocaleString('en-US')} steps so far`,
          };
        },
        onDone: () => finish(false),
        onCancel: () => finish(true),
      },
    );
    if (job.running) this.counting = job;
  }

  /**
   * Cancel, for the work shown: a jump stops at the step it reached (counting, if it goes
   * on, shows next); counting stops with the steps counted so far, and what was to follow it
   * (a jump to the end, a link's step) is not done.
   */
  cancelWork(): void {
    if (this.seeking) {
      this.cancelSeek(true);
      return;
    }
    if (this.exportCancel) {
      this.exportCancel();
      return;
    }
    this.afterCount = [];
    this.counting?.cancel();
  }

  /** Stops a jump in progress; `refresh` shows the step it reached. */
  private cancelSeek(refresh: boolean): void {
    const job = this.seeking;
    if (!job) return;
    this.seeking = null;
    job.drop();
    this.seekProgress = null;
    if (refresh) this.refresh();
  }

  forward(): void {
    this.cancelSeek(false);
    this.instant = false;
    if (this.session?.forward()) this.refresh();
    else if (this.session) this.stop();
  }

  back(): void {
    this.stop();
    this.cancelSeek(false);
    this.instant = false;
    this.session?.back();
    this.refresh();
  }

  /**
   * Jump to step `n` (at most the end of the run). A long jump (replaying many steps from the
   * nearest checkpoint) goes on in slices with progress shown; `then` runs when it arrives.
   */
  goTo(n: number, then?: () => void): void {
    const session = this.session;
    if (!session) return;
    this.cancelSeek(false);
    this.instant = true;
    const target = this.counting || this.countCancelled ? n : Math.min(n, this.totalSteps);
    // Declared first: a short jump ends inside runSliced, before its result is assigned.
    let job: Job | null = null;
    job = runSliced(
      (deadline) => session.seek(target, pastDeadline(deadline, 4)),
      {
        onSlice: () => {
          // The numbers follow; the picture is drawn when the jump arrives (or is cancelled).
          this.step = session.step;
          this.nowMs = wholeMs(session.kernel.state.nowMs);
          this.seekProgress = {
            label: `Going to step ${target.toLocaleString('en-US')}`,
            fraction: target === 0 ? 1 : Math.min(1, session.step / target),
            detail: `step ${session.step.toLocaleString('en-US')}, t = ${wholeMs(session.kernel.state.nowMs).toLocaleString('en-US')} ms`,
          };
        },
        onDone: () => {
          if (this.seeking === job) this.seeking = null;
          this.seekProgress = null;
          this.refresh();
          then?.();
        },
      },
    );
    if (job.running) this.seeking = job;
  }

  /** End: the last step; while the steps are still being counted, once they are. */
  goToEnd(): void {
    this.stop();
    if (this.counting) this.afterCount.push(() => this.goTo(this.totalSteps));
    else this.goTo(this.totalSteps);
  }

  restart(): void {
    this.stop();
    this.goTo(0);
  }

  /** A user action now; several (a new broker, then its replica) are recorded at this step in order. */
  act(action: TimelineAction | readonly TimelineAction[]): void {
    if (!this.session) return;
    const list: readonly TimelineAction[] = Array.isArray(action) ? action : [action];
    // The same work budget as the scenario file: an action past it is refused, nothing changes.
    const work = workProblems(this.session.scenario, [...this.session.actions.map((a) => a.action), ...list], { traceKept: true });
    if (work.length > 0) {
      this.problems = work;
      return;
    }
    this.problems = [];
    this.cancelSeek(false);
    if (this.chapter) {
      // The chapter's stops describe the scenario as written; an action changes the run.
      this.leftChapter = this.chapter.chapter.title;
      this.chapter = null;
    }
    for (const a of list) this.session.act(a);
    this.countSteps();
    this.refresh();
  }

  /**
   * Plays a guided chapter: its bundled scenario, its stops resolved by running it, and
   * the stop `index` (clamped) shown.
   */
  loadChapter(id: string, index = 0, then?: () => void): boolean {
    const c = findChapter(id);
    const b = c && BUNDLED.find((x) => x.id === c.scenario);
    if (!c || !b) return false;
    return this.load(b.text, c.scenario, undefined, [], c, () => {
      if (this.chapter !== null && this.chapter.stops.length > 0) this.goToStop(index);
      then?.();
    });
  }

  goToStop(index: number): void {
    const c = this.chapter;
    if (!c || c.stops.length === 0) return;
    this.stop();
    this.stopIndex = Math.max(0, Math.min(c.stops.length - 1, index));
    this.goTo(c.stops[this.stopIndex].step);
    this.instant = false;
  }

  /**
   * A text export of this run: `json` is the run so far (the CLI's `run --json` document,
   * plus the step); `mermaid` the requests so far as a sequence diagram; `md` the report
   * of the whole run (with the chapter's stops in a chapter), as the CLI's `report` prints.
   */
  async exportText(format: ExportFormat): Promise<{ text: string; extension: string; type: string }> {
    const s = this.session!;
    if (format === 'json') return { text: JSON.stringify({ ...buildRunJson(s.kernel), step: this.step }, null, 2), extension: 'json', type: 'application/json' };
    if (format === 'mermaid') {
      const trace = s.kernel.trace;
      const text = toMermaid(trace, {
        stepOf: trace.map((_, i) => s.stepOfEntry(i)),
        brokers: s.kernel.state.brokers.length,
        toStep: this.step,
        marks: this.chapter?.stops.filter((x) => x.step <= this.step).map((x) => ({ step: x.step, title: `${x.index + 1}. ${x.title}` })) ?? [],
      });
      return { text, extension: 'mmd', type: 'text/plain' };
    }
    // The report of the whole run, with the chapter's stops in a chapter and the user's
    // actions. It runs the scenario again in each design: off the page's thread, with
    // progress and Cancel (report-worker.ts, loaded on first use: most visits never export one).
    const request: ReportRequest = {
      scenario: s.scenario,
      seed: s.seed,
      ...(this.chapter ? { chapterId: this.chapter.chapter.id } : {}),
      actions: s.actions.map((a) => ({ step: a.step, action: a.action })),
      scenarioRef: this.scenarioId ?? s.scenario.name,
      ...(typeof location === 'undefined' ? {} : { walkthroughUrl: location.href }),
    };
    return { text: await this.reportInWorker(request), extension: 'md', type: 'text/markdown' };
  }

  private reportInWorker(request: ReportRequest): Promise<string> {
    if (typeof Worker === 'undefined') return import('./report-worker.js').then((m) => m.reportText(request));
    this.exportCancel?.();
    return new Promise<string>((resolve, reject) => {
      const worker = new Worker(new URL('./report-worker.ts', import.meta.url), { type: 'module' });
      const end = () => {
        worker.terminate();
        this.exportCancel = null;
        this.exportProgress = null;
      };
      this.exportCancel = () => {
        end();
        reject(new Error('cancelled'));
      };
      this.exportProgress = { label: 'Building the report', fraction: null, detail: 'the run in each design, off the page' };
      worker.onmessage = (e: MessageEvent<ReportReply>) => {
        end();
        if (e.data.ok) resolve(e.data.text);
        else reject(new Error(e.data.message));
      };
      worker.onerror = (e) => {
        end();
        reject(new Error(e.message || 'the report could not be built'));
      };
      worker.postMessage(request);
    });
  }

  setPresenter(on: boolean): void {
    this.presenter = on;
    this.syncUrl(true);
  }

  /** Continue: the next stop, or at the last one the next chapter. */
  nextStop(): void {
    const c = this.chapter;
    if (!c) return;
    if (this.stopIndex < c.stops.length - 1) this.goToStop(this.stopIndex + 1);
    else {
      const i = CHAPTERS.findIndex((x) => x.id === c.chapter.id);
      if (i >= 0 && i < CHAPTERS.length - 1) this.loadChapter(CHAPTERS[i + 1].id);
    }
  }

  prevStop(): void {
    if (this.chapter) this.goToStop(this.stopIndex - 1);
  }

  /** After free stepping inside a chapter, the stop shown is the last one at or before the step. */
  private followStops(): void {
    const c = this.chapter;
    if (!c || c.stops[this.stopIndex]?.step === this.step) return;
    let i = 0;
    for (let j = 0; j < c.stops.length; j++) if (c.stops[j].step <= this.step) i = j;
    this.stopIndex = i;
  }

  toggle(): void {
    if (this.playing) this.stop();
    else this.play();
  }

  play(): void {
    if (this.playing || !this.session) return;
    this.cancelSeek(false);
    if (this.session.done) this.goTo(0);
    this.playing = true;
    this.instant = false;
    this.ticker.start(() => this.speed, (due) => {
      const started = performance.now();
      let steps = 0;
      while (steps < due && this.session!.forward()) steps++;
      if (steps > 0) {
        const r0 = performance.now();
        this.refresh();
        const r1 = performance.now();
        // Frame time = stepping + DOM update + layout, measured inside the frame.
        flushSync();
        const r2 = performance.now();
        void document.body.offsetHeight;
        this.refreshTimes.push([r0 - started, r1 - r0, r2 - r1, performance.now() - r2]);
      }
      this.frameTimes.push(performance.now() - started);
      if (this.session!.done) {
        this.stop();
        return null;
      }
      return steps;
    });
  }

  stop(): void {
    const was = this.playing;
    this.playing = false;
    this.ticker.stop();
    if (was) this.syncUrl(true);
  }

  private refresh(): void {
    const s = this.session;
    if (!s) return;
    const k = s.kernel;
    // Unchanged parts keep their identity, so panels fed them skip their update.
    this.view = this.view === null ? buildView(k) : share(this.view, buildView(k));
    this.step = s.step;
    // Past the steps counted (counting cancelled or still going): the scrubber follows.
    if (this.step > this.totalSteps) this.totalSteps = this.step;
    this.followStops();
    this.done = s.done;
    this.nowMs = wholeMs(k.state.nowMs);
    this.actions = [...s.actions];
    // Narration: the current step's lines and a few before, newest last.
    const lines: NarrationLine[] = [];
    const trace = k.trace;
    const fromIndex = Math.max(0, trace.length - 400);
    const stepOf = (i: number) => s.stepOfEntry(i);
    for (let i = fromIndex; i < trace.length; i++) {
      const text = narrated(trace[i]);
      if (text === null) continue;
      lines.push({ step: stepOf(i), text, rule: trace[i].rule, error: isErrorEntry(trace[i]), finding: isFindingEntry(trace[i]) });
    }
    this.narration = lines.slice(-40);
    const window: Array<{ entry: TraceEntry; step: number }> = [];
    for (let i = trace.length - 1; i >= 0 && window.length < 16; i--) {
      const e = trace[i];
      if (inSequence(e)) window.unshift({ entry: e, step: stepOf(i) });
    }
    this.traceWindow = window;
    const hops = walHops(s.currentEntries);
    this.walHops = hops.length === 0 && this.walHops.length === 0 ? this.walHops : hops;
    this.inspection = this.logEnabled ? this.log.entries.slice(-120) : [];
    if (this.chartEnabled) this.chartDeliveries = this.chartPending.filter((p) => p.step === this.step).map((p) => p.d);
    this.syncUrl();
  }

  private urlTimer: ReturnType<typeof setTimeout> | null = null;

  /**
   * The URL follows the view, written at most every 200 ms (browsers make history updates
   * slow and throttle them); `force` writes it at once (pause, load).
   */
  private syncUrl(force = false): void {
    if (typeof history === 'undefined' || !this.session) return;
    if (!force) {
      if (this.urlTimer === null) this.urlTimer = setTimeout(() => { this.urlTimer = null; this.syncUrl(true); }, 200);
      return;
    }
    if (this.urlTimer !== null) { clearTimeout(this.urlTimer); this.urlTimer = null; }
    const l = encodePageLink(this.urlState());
    // Too long for a link: this tab keeps the view, the address bar names it (session-link.ts).
    const href = l.tooLong ? (stashView(l.link, l.query) ?? (l.query === '' ? '' : `?${l.query}`)) : l.link;
    this.linkTooLong = l.tooLong ? l.chars : null;
    history.replaceState(null, '', `${location.pathname}${href}`);
  }

  /** The view as the URL holds it. */
  private urlState(): UrlState {
    const c = this.chapter;
    return {
      chapter: c?.chapter.id,
      stop: c ? this.stopIndex + 1 : undefined,
      present: this.presenter,
      scenario: this.scenarioId ?? undefined,
      source: this.scenarioId === null && this.whatifLoaded === null ? this.source : undefined,
      whatif: this.whatifLoaded ?? undefined,
      seed: this.session !== null && this.session.seed !== this.scenario?.seed ? this.session.seed : undefined,
      step: c && c.stops[this.stopIndex]?.step === this.step ? undefined : this.step,
      actions: [...(this.session?.actions ?? [])],
      partition: this.partitionKey !== this.view?.partitions[0]?.key ? this.partitionKey ?? undefined : undefined,
    };
  }

  /** The view as a session file (its whole link), to keep a view too long for a link. */
  sessionFile(): string {
    return sessionFileText(encodePageLink(this.urlState()).link, this.scenario?.name ?? '');
  }

  /** Opens a session file's view; false when the text is not a session file (it may be a scenario). */
  openSessionFile(text: string): boolean {
    const link = readSessionFile(text);
    if (link === null) return false;
    const at = link.indexOf('#');
    this.init(at < 0 ? link : link.slice(0, at), at < 0 ? '' : link.slice(at));
    this.syncUrl(true);
    return true;
  }

  /** Writes a pending URL update now. */
  flushUrl(): void {
    if (this.urlTimer !== null) this.syncUrl(true);
  }

  setLogEnabled(on: boolean): void {
    this.logEnabled = on;
    this.wireLog();
    this.inspection = on ? this.log.entries.slice(-120) : [];
  }

  /** The statechart view opened or closed: record the steps' machine deliveries while it is open. */
  setChartEnabled(on: boolean): void {
    this.chartEnabled = on;
    this.chartPending = [];
    this.chartDeliveries = [];
    this.wireLog();
    // Opened at a step already taken: take it again (back, then forward: the same state, the
    // session is deterministic) so the view sees the transitions it took.
    const s = this.session;
    if (on && s && s.step > 0 && !this.playing && !this.seeking) {
      s.back();
      s.forward();
      this.refresh();
    }
  }

  /** One observer of the session's machine deliveries, for the event log and the statechart view. */
  private wireLog(): void {
    if (!this.session) return;
    if (!this.logEnabled) this.log.reset();
    if (!this.logEnabled && !this.chartEnabled) {
      this.session.observe(null);
      this.session.onRestore = null;
      return;
    }
    const session = this.session;
    this.session.observe((d) => {
      if (this.logEnabled) this.log.deliver(d);
      if (this.chartEnabled) {
        // A delivery during a step belongs to the step being taken (session.step + 1).
        const step = session.step + 1;
        if (this.chartPending.length > 0 && this.chartPending[this.chartPending.length - 1].step !== step) this.chartPending = [];
        this.chartPending.push({ step, d });
      }
    });
    this.session.onRestore = () => {
      if (this.logEnabled) this.log.reset();
    };
  }

  ruleText(rule: string | undefined): string | undefined {
    return rule ? RULES[rule] : undefined;
  }
}

