/**
 * The monthly cost at steady state against the producer's linger.ms (issue 29, part 3: "the
 * KIP-1176 figure states the batching it assumed, and the what-if can sweep it"). Each value
 * builds the what-if's scenario again with that linger.ms (core/scenario/whatif.ts: a
 * produce per partition each linger.ms, of the records that arrived meanwhile) and prices it
 * in every design (core/study/steady-cost.ts). Nothing is run: the steady state is computed
 * from the scenario's rates, so a sweep of ten values costs ten builds.
 *
 * Why it moves KIP-1176 and not classic: the WAL combiner writes one fast-store object per
 * flush (wal.combine.interval.ms after bytes arrive, or at once past wal.combine.max.bytes),
 * and each follower GETs every object, so the same bytes in fewer, larger produce requests
 * make fewer billed requests; classic's lines are per byte and per segment.
 */
import { parseScenarioText } from '../scenario/parse.js';
import { type WhatIfInput, buildWhatIf } from '../scenario/whatif.js';
import { type Mode, scenarioForMode } from './compare.js';
import { steadyStateCost } from './steady-cost.js';

/** At most this many linger.ms values in one sweep. */
export const MAX_LINGER_SWEEP = 12;

export interface LingerPoint {
  lingerMs: number;
  /** The produce each partition gets: records, every so many ms (the batching priced). */
  recordsPerProduce: number;
  everyMs: number;
  /** The month at steady state, per design. */
  usdPerMonth: Partial<Record<Mode, number>>;
  /** KIP-1176's fast-store request lines (PUT and GET), when `wal` is among the designs. */
  walRequestsUsdPerMonth: number | null;
}

export type LingerSweep = { ok: true; points: LingerPoint[] } | { ok: false; problem: string };

export function lingerSweep(input: WhatIfInput, lingers: readonly number[], modes: readonly Mode[]): LingerSweep {
  const points: LingerPoint[] = [];
  for (const lingerMs of lingers) {
    const built = buildWhatIf({ ...input, lingerMs });
    if (!built.ok) return { ok: false, problem: `--linger-ms ${lingerMs}: ${built.problem}` };
    const produce = built.whatIf.produce;
    if (produce === null) return { ok: false, problem: '--linger-ms with several values sweeps the producer; give a --produce above 0' };
    const parsed = parseScenarioText(built.whatIf.body, 'whatif.yaml', { checkWork: false });
    if (!parsed.ok) return { ok: false, problem: `--linger-ms ${lingerMs}: ${parsed.problems[0].path}: ${parsed.problems[0].message}` };
    const usdPerMonth: Partial<Record<Mode, number>> = {};
    let walRequests: number | null = null;
    for (const mode of modes) {
      const cost = steadyStateCost(scenarioForMode(parsed.scenario, mode), mode);
      usdPerMonth[mode] = cost.month;
      if (mode === 'wal') walRequests = cost.lines.filter((l) => l.id === 'walPut' || l.id === 'walGet').reduce((n, l) => n + l.usdPerMonth, 0);
    }
    points.push({ lingerMs, recordsPerProduce: produce.records, everyMs: produce.everyMs, usdPerMonth, walRequestsUsdPerMonth: walRequests });
  }
  return { ok: true, points };
}
