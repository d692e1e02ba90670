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
import { type Checkpoint, type Delivery, Kernel } from '../sim/kernel.js';

export interface RecordedAction {
  /** Applied right after this step was reached. */
  step: number;
  action: TimelineAction;
}

/** Kernel steps per checkpoint: step back costs at most this many kernel steps of replay. */
const CHECKPOINT_EVERY = 64;

export class Session {
  readonly scenario: Scenario;
  readonly seed: number;
  kernel: Kernel;
  /** Visible steps taken. */
  step = 0;
  /** Trace length at the end of each visible step (index = step). */
  private traceEnds: number[] = [];
  private checkpoints = new Map<number, Checkpoint>();
  private recorded: RecordedAction[];
  private deliveryObserver: ((d: Delivery) => void) | null = null;
  /** Called after the kernel is replaced by a restore (observers start over). */
  onRestore: (() => void) | null = null;

  /** Observe every machine delivery (survives restores). */
  observe(fn: ((d: Delivery) => void) | null): void {
    this.deliveryObserver = fn;
    this.kernel.onDeliver = fn;
  }

  constructor(scenario: Scenario, seed: number = scenario.seed, actions: RecordedAction[] = []) {
    this.scenario = scenario;
    this.seed = seed;
    this.recorded = actions.map((a) => ({ step: a.step, action: a.action }));
    this.kernel = new Kernel(scenario, { seed });
    this.applyRecordedAt(0);
    this.traceEnds = [this.kernel.trace.length];
    this.checkpoints.set(0, this.kernel.checkpoint());
  }

  get actions(): readonly RecordedAction[] {
    return this.recorded;
  }

  get done(): boolean {
    return !this.kernel.hasNext();
  }

  /** Trace entries of the current step (what the narration shows for it). */
  get currentEntries() {
    const from = this.step === 0 ? 0 : this.traceEnds[this.step - 1];
    return this.kernel.trace.slice(from, this.traceEnds[this.step]);
  }

  /** The visible step that produced trace entry `i` (entries before step 1 belong to step 0). */
  stepOfEntry(i: number): number {
    const ends = this.traceEnds;
    let lo = 0;
    let hi = ends.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid] > i) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** One visible step forward. Returns false at the end of the run. */
  forward(): boolean {
    if (!this.kernel.hasNext()) return false;
    const before = this.kernel.trace.length;
    for (;;) {
      if (!this.kernel.step()) break;
      let visible = false;
      for (let i = before; i < this.kernel.trace.length && !visible; i++) visible = narrate(this.kernel.trace[i]) !== null;
      if (visible || !this.kernel.hasNext()) break;
    }
    this.step++;
    this.applyRecordedAt(this.step);
    this.traceEnds[this.step] = this.kernel.trace.length;
    if (this.step % CHECKPOINT_EVERY === 0 && !this.checkpoints.has(this.step)) this.checkpoints.set(this.step, this.kernel.checkpoint());
    return true;
  }

  back(): void {
    if (this.step > 0) this.goTo(this.step - 1);
  }

  /** Jump to visible step `n` (clamped to the run), restoring the nearest checkpoint and replaying. */
  goTo(n: number): void {
    const target = Math.max(0, Math.floor(n));
    if (target === this.step) return;
    if (target < this.step) {
      let base = 0;
      for (const s of this.checkpoints.keys()) if (s <= target && s > base) base = s;
      this.kernel = Kernel.restore(this.scenario, this.checkpoints.get(base)!);
      this.kernel.onDeliver = this.deliveryObserver;
      this.onRestore?.();
      this.step = base;
      this.traceEnds.length = base + 1;
    }
    while (this.step < target && this.forward()) {
      /* replay */
    }
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
    if (this.step === 0) {
      // The step-0 checkpoint must include actions taken at step 0.
      this.kernel.applyAction(action);
      this.checkpoints.set(0, this.kernel.checkpoint());
    } else {
      this.kernel.applyAction(action);
    }
    this.traceEnds[this.step] = this.kernel.trace.length;
  }

  private applyRecordedAt(step: number): void {
    for (const a of this.recorded) if (a.step === step) this.kernel.applyAction(a.action);
  }
}
