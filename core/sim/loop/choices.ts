/**
 * The kernel's nondeterministic choices, as data. A normal run takes the default of each
 * (the queue's order, the modelled latency, every store request served); the exhaustive
 * checker (core/check/exhaustive.ts) asks for every other answer within its bounds, and a
 * counterexample it saves pins the answers it took (`Scenario.choices`), so `run` and the
 * walkthrough replay exactly that path.
 *
 * Three kinds of choice point (docs/scenario-format.md, "Pinned choices"):
 * - `order`: more than one event is due at the same simulated millisecond and their order
 *   is not forced: which runs first. Options: the due events in queue order (the first is
 *   the default). A scenario's timeline events at one time keep their written order: only
 *   the first of them is a candidate.
 * - `delay`: a broker sends a request or response to another broker: whether it arrives
 *   late. The answer is the extra milliseconds (0, the default: on time). A late message
 *   can be overtaken by messages on other links; on its own link the fetch protocol has
 *   one request in flight, so the link's order holds.
 * - `storeFault`: a broker sends a request to an available object store: whether the
 *   store fails it (1) or serves it (0, the default). A failed request is not executed and
 *   not billed; the broker sees S3's `InternalError` after the modelled latency.
 *
 * Points are numbered within their step (`n` from 0, in the order the step meets them), so
 * a pinned answer names its step and point, and says what it chose (`what`), which a
 * replay checks.
 */
import type { ChoiceKind, PinnedChoice, TimelineAction, TimelineEvent } from '../../scenario/types.js';
import type { KernelEvent } from '../state/state.js';

export { CHOICE_KINDS, type ChoiceKind, type PinnedChoice } from '../../scenario/types.js';

export interface ChoicePoint {
  kind: ChoiceKind;
  /** The step (1-based, the `stepCount` the step ends with). */
  step: number;
  /** Its place among the step's choice points, from 0. */
  n: number;
  /** How many answers there are: the due events (`order`), or 2 (`delay`, `storeFault`). */
  options: number;
  /** What each answer picks (`order`: one per due event) or what the point is about (one entry). */
  what: () => string[];
}

/** The answer to a point: the due event's index (`order`), extra ms (`delay`), 1 to fail (`storeFault`). */
export type Chooser = (p: ChoicePoint) => number;

/** A pinned answer a replay could not apply, and why. */
export interface ChoiceMismatch {
  choice: PinnedChoice;
  reason: string;
}

/** The chooser of a run with pinned choices: their answers where they apply, the default elsewhere. */
export class PinnedChooser {
  private readonly byPoint = new Map<string, PinnedChoice>();
  private readonly used = new Set<PinnedChoice>();
  readonly mismatches: ChoiceMismatch[] = [];

  constructor(choices: readonly PinnedChoice[]) {
    for (const c of choices) this.byPoint.set(`${c.step}|${c.n}`, c);
  }

  readonly choose: Chooser = (p) => {
    const c = this.byPoint.get(`${p.step}|${p.n}`);
    if (c === undefined) return 0;
    this.used.add(c);
    const miss = (reason: string) => (this.mismatches.push({ choice: c, reason }), 0);
    if (c.kind !== p.kind) return miss(`step ${p.step} point ${p.n} is a ${p.kind} choice, not ${c.kind}`);
    if (p.kind === 'order' && c.pick >= p.options) return miss(`step ${p.step} has ${p.options} due events, not ${c.pick + 1}`);
    if (c.what !== undefined) {
      const what = p.what();
      const actual = p.kind === 'order' ? what[c.pick] : what[0];
      if (actual !== c.what) return miss(`step ${p.step} point ${p.n} is "${actual}", not "${c.what}"`);
    }
    return c.pick;
  };

  /** Pinned answers the run never reached (it ended first, or took another path). */
  unused(): PinnedChoice[] {
    return [...this.byPoint.values()].filter((c) => !this.used.has(c));
  }
}

/**
 * One line naming a queued event (the `what` of an order choice). A timeline event is named
 * by its action, so a fault the checker injected and the same fault written in a timeline
 * read alike.
 */
export function describeEvent(ev: KernelEvent, timeline: readonly TimelineEvent[]): string {
  switch (ev.kind) {
    case 'timeline':
      return describeAction(timeline[ev.index].action);
    case 'injected':
      return describeAction(ev.action);
    case 'deliver': {
      const m = ev.msg;
      return `${m.api} ${m.dir} ${m.source}→${m.target} ${m.key}`;
    }
    case 'machineTimer':
      return `${ev.machine} timer on broker ${ev.broker} ${ev.key}`;
    case 'walChunkDelivered':
      return `WAL chunk ${ev.chunkId} to broker ${ev.broker} ${ev.key}`;
    case 'walLogChanged':
      return `WAL log changed on broker ${ev.broker} ${ev.key}`;
    case 'fetchWaitExpired':
      return `Fetch wait expired ${ev.key}`;
    case 'remoteFetchExpired':
      return `remote fetch wait expired on broker ${ev.broker} ${ev.key}`;
    case 'remoteSegmentLookedUp':
      return `remote segment looked up on broker ${ev.broker} ${ev.key}`;
    case 'storeDone':
      return `${ev.store} ${ev.objectKey} answered to broker ${ev.broker}`;
    case 'consumerFetch':
      return `consumer ${ev.consumerId} fetches`;
    case 'transferDone':
      return `transfer ${ev.transferId} sent its last byte`;
    case 'rlmStep':
      return `remote log manager step on broker ${ev.broker} ${ev.key}`;
    case 'isrCheck':
      return `ISR check on broker ${ev.broker} ${ev.key}`;
    case 'quotaWait':
      return ev.what.wait === 'remoteFetch' ? `remote fetch quota wait on broker ${ev.what.broker} ${ev.what.msg.key}` : `${ev.what.wait} quota wait on broker ${ev.what.broker} ${ev.what.key}`;
  }
}

function describeAction(a: TimelineAction): string {
  if (a.kind === 'setConfig') return `setConfig ${Object.keys(a.values).join(', ')}`;
  const where = 'topic' in a ? ` ${a.topic}-${a.partition}` : '';
  return `${a.kind}${'broker' in a && a.broker !== undefined ? ` broker ${a.broker}` : ''}${where}`;
}

/** Timeline events (a scenario's, or a checker's injected faults) keep their order among themselves. */
export function isTimelineEvent(ev: KernelEvent): boolean {
  return ev.kind === 'timeline' || ev.kind === 'injected';
}
