/**
 * The Markdown report of a run, built off the page's thread: it runs the scenario again,
 * once in each design, which for a run near the work budget (docs/scenario-format.md,
 * "Limits") takes seconds. The page posts what the report needs (plain data) and gets the
 * text back; Cancel ends the worker.
 */
import { findChapter } from '../../core/report/chapters.js';
import { buildReport, renderReport } from '../../core/report/report.js';
import type { RecordedAction } from '../../core/session/session.js';
import type { Scenario } from '../../core/scenario/types.js';

export interface ReportRequest {
  scenario: Scenario;
  seed: number;
  chapterId?: string;
  actions: RecordedAction[];
  scenarioRef: string;
  walkthroughUrl?: string;
}

export type ReportReply = { ok: true; text: string } | { ok: false; message: string };

/** The report's text for a request (the worker's work; also the fallback where there are no workers). */
export function reportText(r: ReportRequest): string {
  const report = buildReport(r.scenario, {
    seed: r.seed,
    chapter: r.chapterId === undefined ? undefined : findChapter(r.chapterId),
    actions: r.actions,
    scenarioRef: r.scenarioRef,
    walkthroughUrl: r.walkthroughUrl,
  });
  return renderReport(report, 'md');
}

// In a worker (no document): answer each request.
if (typeof document === 'undefined' && typeof self !== 'undefined' && typeof postMessage === 'function') {
  self.onmessage = (e: MessageEvent<ReportRequest>) => {
    let reply: ReportReply;
    try {
      reply = { ok: true, text: reportText(e.data) };
    } catch (err) {
      reply = { ok: false, message: err instanceof Error ? err.message : String(err) };
    }
    postMessage(reply);
  };
}
