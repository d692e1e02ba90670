/**
 * An interactive run: the kernel plus the user's recorded actions, stepped one visible
 * step at a time, with step back and jump to any step by restoring a checkpoint and
 * replaying. A session is a pure function of (scenario, seed, actions), so a share link
 * (scenario + seed + actions + step) reproduces the exact picture.
 *
 * A "step" is what a person sees: the kernel runs until the trace gains at least one
 * entry the narration shows (internal timers and machine bookkeeping are folded into the
 * step that follows them).
 */
import { narrate } from '../narrate/narrate.js';
import type { Scenario, TimelineAction } from '../scenario/types.js';
import { type Delivery, Kernel } from '../sim/loop/kernel.js';
import type { Checkpoint } from '../sim/state/state.js';
import type { TraceEntry } from '../sim/state/trace.js';
import { firstNotBefore } from '../util/bisect.js';

export interface RecordedAction {
  /** Applied right after this step was reached. */
  step: number;
  action: TimelineAction;
}

/**
 * Checkpoint spacing: a checkpoint is taken once at least this many visible steps and this
 * many kernel events have passed since the last one, so a step back or a jump replays at
 * most about that much. Counting events too keeps the number of checkpoints (each a copy
 * of the cluster's state) in proportion to the work of the run: on a 100,000-event run of
 * 50 partitions a checkpoint holds about 400 KB.
 */
const CHECKPOINT_STEPS = 64;
const CHECKPOINT_EVENTS = 512;
/**
 * Checkpoints kept at most. A long run (up to the work budget of docs/scenario-format.md,
 * "Limits") would otherwise keep thousands, each a copy of a state that grows with the run
 * (a KIP-1176 run at the budget held 1.1 GB of them); past this many every other one goes
 * and the spacing doubles, so a jump replays at most about twice as far.
 */
export const MAX_CHECKPOINTS = 256;

export interface SessionOptions {
  /**
   * Forward only, holding no more than the current step: no checkpoints, and only the
   * current step's trace entries (`currentEntries`). For a probe that counts a run's steps
   * (the page's scrubber, a chapter's stops) without holding a second copy of the run;
   * `back` and `goTo` are not available.
   */
  lean?: boolean;
}

export class Session {
  readonly scenario: Scenario;
  readonly seed: number;
  kernel: Kernel;
  /** Visible steps taken. */
  step = 0;
  /** Trace length at the end of each visible step (index = step). */
  private traceEnds: number[] = [];
  private checkpoints = new Map<number, Checkpoint>();
  /** The checkpoint spacing is CHECKPOINT_STEPS and CHECKPOINT_EVENTS times this (doubled by thinning). */
  private spacing = 1;
  /** The last checkpoint at or before the current step: its visible step and kernel events. */
  private lastCheckpoint = { step: 0, events: 0 };
  private recorded: RecordedAction[];
  private deliveryObserver: ((d: Delivery) => void) | null = null;
  /** Called after the kernel is replaced by a restore (observers start over). */
  onRestore: (() => void) | null = null;
  private readonly lean: boolean;
  /** Lean: the trace entries of the current step (the kernel keeps none). */
  private stepEntries: TraceEntry[] = [];

  /** Observe every machine delivery (survives restores). */
  observe(fn: ((d: Delivery) => void) | null): void {
    this.deliveryObserver = fn;
    this.kernel.onDeliver = fn;
  }

  constructor(scenario: Scenario, seed: number = scenario.seed, actions: RecordedAction[] = [], options: SessionOptions = {}) {
    this.scenario = scenario;
    this.seed = seed;
    this.lean = options.lean === true;
    this.recorded = actions.map((a) => ({ step: a.step, action: a.action }));
    this.kernel = this.lean
      ? new Kernel(scenario, { seed, keepTrace: false, onTrace: (e) => this.stepEntries.push(e) })
      : new Kernel(scenario, { seed });
    this.applyRecordedAt(0);
    this.traceEnds = [this.kernel.trace.length];
    if (!this.lean) this.checkpoints.set(0, this.kernel.checkpoint());
    this.lastCheckpoint = { step: 0, events: this.kernel.state.stepCount };
  }

  get actions(): readonly RecordedAction[] {
    return this.recorded;
  }

  get done(): boolean {
    return !this.kernel.hasNext();
  }

  /** Trace entries of the current step (what the narration shows for it). */
  get currentEntries(): TraceEntry[] {
    if (this.lean) return this.stepEntries.slice();
    const from = this.step === 0 ? 0 : this.traceEnds[this.step - 1];
    return this.kernel.trace.slice(from, this.traceEnds[this.step]);
  }

  /** The visible step that produced trace entry `i` (entries before step 1 belong to step 0). */
  stepOfEntry(i: number): number {
    const ends = this.traceEnds;
    return firstNotBefore(ends, (end) => end <= i, 0, Math.max(0, ends.length - 1));
  }

  /** One visible step forward. Returns false at the end of the run. */
  forward(): boolean {
    if (!this.kernel.hasNext()) return false;
    if (this.lean) this.stepEntries = [];
    const trace = this.lean ? this.stepEntries : this.kernel.trace;
    let scanned = trace.length;
    for (;;) {
      if (!this.kernel.step()) break;
      const visible = narratedFrom(trace, scanned);
      scanned = trace.length;
      if (visible || !this.kernel.hasNext()) break;
    }
    this.step++;
    this.applyRecordedAt(this.step);
    if (this.lean) return true;
    this.traceEnds[this.step] = this.kernel.trace.length;
    const events = this.kernel.state.stepCount;
    if (this.checkpoints.has(this.step)) this.lastCheckpoint = { step: this.step, events };
    else if (this.step - this.lastCheckpoint.step >= CHECKPOINT_STEPS * this.spacing && events - this.lastCheckpoint.events >= CHECKPOINT_EVENTS * this.spacing) {
      this.checkpoints.set(this.step, this.kernel.checkpoint());
      this.lastCheckpoint = { step: this.step, events };
      if (this.checkpoints.size > MAX_CHECKPOINTS) this.thin();
    }
    return true;
  }

  /** Drops every other checkpoint (step 0 and the newest stay) and doubles the spacing. */
  private thin(): void {
    const steps = [...this.checkpoints.keys()].sort((a, b) => a - b);
    const newest = steps[steps.length - 1];
    steps.forEach((s, i) => {
      if (i % 2 === 1 && s !== newest) this.checkpoints.delete(s);
    });
    this.spacing *= 2;
  }

  /** Checkpoints held now (for tests and the benchmark). */
  get checkpointCount(): number {
    return this.checkpoints.size;
  }

  back(): void {
    if (this.step > 0) this.goTo(this.step - 1);
  }

  /**
   * Jump to visible step `n` (clamped to the run): restore the nearest checkpoint at or
   * before it (behind the current step, or ahead of it when one lies between) and replay.
   * A run is deterministic, so the steps replayed are the steps taken before.
   */
  goTo(n: number): void {
    this.seek(n);
  }

  /**
   * `goTo` that can stop part way: `stop` is asked between steps, and when it answers true
   * the session stays at the step reached. Returns true once at step `n` (or at the end of
   * the run). Called again with the same `n`, it goes on from there.
   */
  seek(n: number, stop: () => boolean = () => false): boolean {
    if (this.lean) throw new Error('a lean session only goes forward');
    const target = Math.max(0, Math.floor(n));
    if (target === this.step) return true;
    let base = 0;
    for (const s of this.checkpoints.keys()) if (s <= target && s > base) base = s;
    if (target < this.step || base > this.step) {
      const cp = this.checkpoints.get(base)!;
      this.kernel = Kernel.restore(this.scenario, cp);
      this.kernel.onDeliver = this.deliveryObserver;
      this.onRestore?.();
      this.step = base;
      this.lastCheckpoint = { step: base, events: this.kernel.state.stepCount };
      // The ends of later steps stay: replaying this branch gives them again.
      this.traceEnds[base] = this.kernel.trace.length;
    }
    while (this.step < target) {
      if (stop()) return false;
      if (!this.forward()) break;
    }
    return true;
  }

  /** Run to the end (or at most `maxSteps` visible steps). */
  runToEnd(maxSteps = Number.MAX_SAFE_INTEGER): void {
    let n = 0;
    while (n++ < maxSteps && this.forward()) {
      /* keep going */
    }
  }

  /**
   * A user action at the current step: later recorded actions are dropped (a new branch),
   * checkpoints after this step no longer hold, and the action applies at once.
   */
  act(action: TimelineAction): void {
    this.recorded = this.recorded.filter((a) => a.step <= this.step);
    this.recorded.push({ step: this.step, action });
    for (const s of [...this.checkpoints.keys()]) if (s >= this.step && s !== 0) this.checkpoints.delete(s);
    // Later steps belong to the branch left behind.
    this.traceEnds.length = this.step + 1;
    let base = 0;
    for (const s of this.checkpoints.keys()) if (s > base) base = s;
    this.lastCheckpoint = { step: base, events: this.checkpoints.get(base)!.state.stepCount };
    if (this.step === 0) {
      // The step-0 checkpoint must include actions taken at step 0.
      this.kernel.applyAction(action);
      this.checkpoints.set(0, this.kernel.checkpoint());
      this.lastCheckpoint = { step: 0, events: this.kernel.state.stepCount };
    } else {
      this.kernel.applyAction(action);
    }
    this.traceEnds[this.step] = this.kernel.trace.length;
  }

  private applyRecordedAt(step: number): void {
    for (const a of this.recorded) if (a.step === step) this.kernel.applyAction(a.action);
  }
}

/**
 * Counts visible steps the way `Session.forward` groups kernel events, for a shell that
 * steps the kernel itself (the CLI), so that its summary and the walkthrough's scrubber
 * give the same number for the same run. Call `after` once for each `kernel.step()` that
 * was taken while `kernel.hasNext()` was true.
 */
export class VisibleStepCounter {
  /** Visible steps completed. */
  count = 0;

  /**
   * @param stepped what `kernel.step()` returned
   * @param trace the kernel's trace, and `from` its length before the step
   * @param hasNext `kernel.hasNext()` after the step
   */
  after(stepped: boolean, trace: readonly TraceEntry[], from: number, hasNext: boolean): void {
    if (!stepped || !hasNext || narratedFrom(trace, from)) this.count++;
  }
}

/** Whether the trace gained, from index `from` on, an entry the narration shows: what ends a visible step. */
function narratedFrom(trace: readonly TraceEntry[], from: number): boolean {
  for (let i = from; i < trace.length; i++) if (narrate(trace[i]) !== null) return true;
  return false;
}
