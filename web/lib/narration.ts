/**
 * The narration as the page shows it: each trace entry narrated once (entries never
 * change, and restores copy the trace array, not its entries), and which lines are errors.
 */
import { narrate } from '../../core/narrate/narrate.js';
import type { TraceEntry } from '../../core/sim/state/trace.js';

const narrationCache = new WeakMap<TraceEntry, string | null>();

export function narrated(e: TraceEntry): string | null {
  let t = narrationCache.get(e);
  if (t === undefined) {
    t = narrate(e);
    narrationCache.set(e, t);
  }
  return t;
}

/** An error answer, a failed store operation or an invariant violation: drawn in red (a known finding is not one). */
export function isErrorEntry(e: TraceEntry): boolean {
  const x = e as { error?: unknown; ok?: unknown; type: string };
  return (x.error !== undefined && x.error !== null) || x.ok === false || (e.type === 'violation' && !isFindingEntry(e));
}

/** A violation that is a known finding (Kafka's own behaviour, core/sim/checks/findings.ts): drawn in its own colour. */
export function isFindingEntry(e: TraceEntry): boolean {
  return e.type === 'violation' && typeof (e as { finding?: unknown }).finding === 'string';
}
