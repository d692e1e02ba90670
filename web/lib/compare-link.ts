/**
 * The walkthrough's "Side by side" link: the side-by-side view of this workload at this
 * moment (its own page: ?compare=, for a bundled scenario by its id, for a loaded or pasted
 * one by its text as `src`), carrying where the walkthrough is (chapter and stop, or step and
 * recorded actions) for the way back. Null while there is nothing to compare.
 */
import { encodeCompareQuery } from '../compare/link.js';
import type { RunState } from './run.svelte.js';

export function sideBySideHref(run: RunState): string | null {
  if (run.scenario === null || (run.scenarioId === null && run.source === '')) return null;
  const c = run.chapter;
  return `?${encodeCompareQuery({
    scenario: run.scenarioId,
    source: run.scenarioId === null && run.whatifLoaded === null ? run.source : undefined,
    whatif: run.scenarioId === null ? run.whatifLoaded ?? undefined : undefined,
    seed: run.seed !== run.scenario.seed ? run.seed : undefined,
    partition: run.partitionKey !== (run.view?.partitions[0]?.key ?? null) ? run.partitionKey ?? undefined : undefined,
    chapter: c?.chapter.id,
    stop: c ? run.stopIndex + 1 : undefined,
    step: c && c.stops[run.stopIndex]?.step === run.step ? undefined : run.step,
    actions: run.actions,
    tMs: run.nowMs,
    present: run.presenter,
  })}`;
}
