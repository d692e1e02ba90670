/**
 * What a design-review export holds: one run gathered once (report.ts builds it), read by
 * each renderer (markdown.ts, svg.ts, mermaid.ts).
 */
import type { Scenario } from '../scenario/types.js';
import type { RecordedAction } from '../session/session.js';
import type { RunView } from '../session/view.js';
import type { RunJson } from '../sim/loop/output.js';
import type { CompareResult, CompareRow } from '../study/compare.js';
import type { ResolvedChapter } from './chapters.js';

/** A kind of event the Markdown lists once, with how often it happened again. */
export interface KeyEvent {
  /** Index of its first entry in the trace. */
  index: number;
  step: number;
  atMs: number;
  line: string;
  /** Later entries of the same kind in the range. */
  repeats: number;
  lastAtMs: number;
}

export interface Report {
  scenario: Scenario;
  scenarioRef: string;
  seed: number;
  run: RunJson;
  /** Visible step of each trace entry (0: before the first step). */
  stepOf: number[];
  /** Narrated line of each trace entry (the run's Narrator: repeated long polls are null). */
  lines: Array<string | null>;
  totalSteps: number;
  chapter: ResolvedChapter | null;
  /** This run's figures, as `compare` computes them. */
  thisRun: CompareRow;
  comparison: CompareResult | null;
  keyEvents: KeyEvent[];
  /** Kinds of event past the list's limit. */
  keyEventsLeftOut: number;
  /** Visible steps covered, inclusive. */
  range: { fromStep: number; toStep: number };
  /** The picture at `range.toStep`. */
  view: RunView;
  maxMessages: number;
  /** `npm run sim -- run ... --seed N`. */
  command: string;
  /** The report command that prints this document as Markdown. */
  reportCommand: string;
  walkthroughUrl: string | null;
  /** The walkthrough actions in this run (empty for the scenario as written). */
  actions: readonly RecordedAction[];
}

/** Brokers in the run at its end: the scenario's and those addBroker added (each has a zone in `config.zones`). */
export function runBrokers(r: Report): number {
  return Math.max(r.scenario.brokers, ((r.run.config.zones as string[] | undefined) ?? []).length);
}
