/**
 * Long work on the page in slices, so the tab never freezes for more than a moment: a job
 * runs at once for up to `syncMs` (a short one ends there, as if it were synchronous), then
 * in slices of SLICE_MS with the event loop in between (input, drawing, the Cancel button).
 * The work itself lives in core and knows nothing of time; the page passes it a deadline.
 */

/** Work done at once before a job yields for the first time; a job shorter than this shows no progress. */
export const SYNC_MS = 200;
/** Work done between two yields once a job runs in slices. */
export const SLICE_MS = 16;

export interface Job {
  /** Still running (not done, cancelled or dropped). */
  readonly running: boolean;
  /** Stops after the current slice and calls `onCancel`. */
  cancel(): void;
  /** Stops without calling anything (the job is being replaced). */
  drop(): void;
}

export interface JobHooks {
  /** After each slice that did not finish the work (progress). */
  onSlice?: () => void;
  onDone: () => void;
  onCancel?: () => void;
}

/**
 * A browser test can hold every job between its slices (`globalThis.__tierscopeHoldJobs =
 * true`) to act on one part way (Cancel) at a known point, whatever the machine's speed;
 * nothing else sets it.
 */
function jobsHeld(): boolean {
  return (globalThis as { __tierscopeHoldJobs?: boolean }).__tierscopeHoldJobs === true;
}

/** Runs a task soon, after the browser has had its turn (input, a frame). */
function yieldThen(fn: () => void): void {
  if (typeof MessageChannel === 'undefined') {
    setTimeout(fn, 0);
    return;
  }
  // A message is not clamped to 4 ms as nested timeouts are.
  const ch = new MessageChannel();
  ch.port1.onmessage = () => {
    ch.port1.close();
    fn();
  };
  ch.port2.postMessage(null);
}

/**
 * Runs `work(deadline)` until it returns true (finished). `work` does what it can before
 * `performance.now()` passes `deadline` and returns false if there is more.
 */
export function runSliced(work: (deadline: number) => boolean, hooks: JobHooks, syncMs = SYNC_MS): Job {
  let state: 'running' | 'done' | 'cancelled' | 'dropped' = 'running';
  const job: Job = {
    get running() {
      return state === 'running';
    },
    cancel() {
      if (state !== 'running') return;
      state = 'cancelled';
      hooks.onCancel?.();
    },
    drop() {
      if (state === 'running') state = 'dropped';
    },
  };
  const slice = (ms: number): void => {
    if (state !== 'running') return;
    // Held (a browser test): a moment of work, then wait, so the job is part way when it acts.
    if (work(performance.now() + (jobsHeld() ? 1 : ms))) {
      state = 'done';
      hooks.onDone();
      return;
    }
    hooks.onSlice?.();
    const next = (): void => {
      if (state === 'running' && jobsHeld()) setTimeout(next, 10);
      else slice(SLICE_MS);
    };
    yieldThen(next);
  };
  slice(syncMs);
  return job;
}

/** A deadline check for loops that are cheap per turn: looks at the clock every `every` turns. */
export function pastDeadline(deadline: number, every = 8): () => boolean {
  let n = 0;
  return () => ++n % every === 0 && performance.now() >= deadline;
}
