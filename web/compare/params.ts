/**
 * The side-by-side view's URL: `?compare=<bundled scenario id>&modes=classic,wal`, with
 * optional `t` (the cursor, simulated ms), `seed` and `partition`. URL input is untrusted:
 * every part that cannot be used is named in `problems` and replaced by a sensible default,
 * so a bad link still opens a page.
 */
import { MODES, type Mode } from '../../core/study/compare.js';
import type { Scenario } from '../../core/scenario/types.js';

/** The scenario the view falls back to: the design-review demo of KIP-1176. */
export const FALLBACK_SCENARIO = 'wal-steady-state';

export interface CompareQuery {
  scenario: string;
  modes: [Mode, Mode];
  /** True when the modes came from the link (not the scenario's default pair). */
  modesGiven: boolean;
  tMs?: number;
  seed?: number;
  partition?: string;
  /** Presenter mode (`present=1`, as in the walkthrough): large type, controls hidden. */
  present: boolean;
  problems: string[];
}

/**
 * The pair a scenario is compared in by default: classic against KIP-1176's WAL when the
 * scenario is about the WAL (WAL on a topic, or an id starting `wal-`), else classic
 * against KIP-1023.
 */
export function defaultModes(id: string, s: Scenario | null): [Mode, Mode] {
  const wal = id.startsWith('wal-') || (s?.topics.some((t) => (t.config as Record<string, unknown>)['wal.enable'] === true) ?? false);
  return wal ? ['classic', 'wal'] : ['classic', 'kip1023'];
}

const isMode = (m: string): m is Mode => (MODES as readonly string[]).includes(m);
const whole = (v: string) => /^\d+$/.test(v) && Number(v) <= 0xffffffff;

/** Reads the link. `ids` are the bundled scenarios; `scenarioOf` parses one (null if it does not parse). */
export function parseCompareQuery(search: string, ids: readonly string[], scenarioOf: (id: string) => Scenario | null): CompareQuery {
  const p = new URLSearchParams(search);
  const problems: string[] = [];
  const asked = (p.get('compare') ?? '').trim();
  let scenario = asked === '' ? FALLBACK_SCENARIO : asked;
  if (!ids.includes(scenario)) {
    problems.push(`compare: no bundled scenario "${asked}"; showing ${FALLBACK_SCENARIO}`);
    scenario = FALLBACK_SCENARIO;
  }
  const fallback = defaultModes(scenario, scenarioOf(scenario));
  let modes = fallback;
  let modesGiven = false;
  const m = p.get('modes');
  if (m !== null) {
    const parts = m.split(',').map((x) => x.trim());
    if (parts.length === 2 && isMode(parts[0]) && isMode(parts[1]) && parts[0] !== parts[1]) {
      modes = [parts[0], parts[1]];
      modesGiven = true;
    } else {
      problems.push(`modes: expected two different designs of ${MODES.join(', ')} (e.g. modes=classic,wal), got "${m}"; showing ${fallback.join(', ')}`);
    }
  }
  const out: CompareQuery = { scenario, modes, modesGiven, present: false, problems };
  const present = p.get('present');
  if (present !== null) {
    if (present === '1' || present === 'true') out.present = true;
    else if (present !== '0' && present !== 'false') problems.push(`present: expected 1 or 0, got "${present}"`);
  }
  for (const key of ['t', 'seed'] as const) {
    const v = p.get(key);
    if (v === null) continue;
    if (whole(v)) {
      if (key === 't') out.tMs = Number(v);
      else out.seed = Number(v);
    } else problems.push(`${key}: expected a whole number${key === 't' ? ' of milliseconds' : ''}, got "${v}"`);
  }
  if (p.has('step')) problems.push('step: the side-by-side cursor is a simulated time; use t=<ms>');
  const partition = p.get('partition');
  if (partition) out.partition = partition;
  return out;
}

export function encodeCompareQuery(q: { scenario: string; modes: readonly Mode[]; tMs?: number; seed?: number; partition?: string; present?: boolean }): string {
  const p = new URLSearchParams();
  p.set('compare', q.scenario);
  p.set('modes', q.modes.join(','));
  if (q.seed !== undefined) p.set('seed', String(q.seed));
  if (q.partition) p.set('partition', q.partition);
  if (q.tMs !== undefined) p.set('t', String(q.tMs));
  if (q.present) p.set('present', '1');
  // Commas read better than %2C in a link people share.
  return p.toString().replace(/%2C/g, ',');
}
