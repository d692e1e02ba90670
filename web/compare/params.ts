/**
 * The side-by-side view's URL: `?compare=<bundled scenario id>&modes=classic,wal`, with
 * optional `t` (the cursor, simulated ms), `seed` and `partition`. A scenario that is not
 * bundled (loaded or pasted in the walkthrough) travels as its text, `?compare=#src=<base64url>`
 * (in the fragment, as the walkthrough's links; an old `?compare=&src=` link still opens),
 * encoded as the walkthrough's own links encode it (web/lib/url.ts).
 *
 * The link also carries where the walkthrough was, for the way back: a guided chapter and
 * its stop (`chapter`, `stop`), or the walkthrough's step and recorded actions (`step`,
 * `actions`, as in the walkthrough's URL). The view itself does not use them: it runs the
 * scenario as written in both designs, since a step of one design is not the same moment
 * in the other.
 *
 * URL input is untrusted: every part that cannot be used is named in `problems` and
 * replaced by a sensible default, so a bad link still opens a page.
 */
import { findChapter } from '../../core/report/chapters.js';
import type { RecordedAction } from '../../core/session/session.js';
import { MODES, type Mode } from '../../core/study/modes.js';
import type { Scenario } from '../../core/scenario/types.js';
import { decodeUrlState, type UrlState } from '../lib/url.js';
import { type WhatIfForm, readForm } from '../lib/whatif-form.js';
import { buildWhatIf } from '../../core/scenario/whatif.js';

/** The scenario the view falls back to: the design-review demo of KIP-1176. */
export const FALLBACK_SCENARIO = 'wal-steady-state';

export interface CompareQuery {
  /** A bundled scenario's id; null when the link carries the scenario's text (`source`). */
  scenario: string | null;
  /** The scenario's text from `src` (loaded or pasted in the walkthrough), not yet validated. */
  source?: string;
  /** `src` was given but could not be decoded: the page shows this instead of a run. */
  sourceUnreadable?: boolean;
  /**
   * A what-if of the walkthrough's "Your partition" form (`whatif=`, its options as whatif's
   * flags, web/lib/whatif-form.ts): `source` is the scenario built from it, so the link stays
   * short (a built scenario can be 128 KiB, past what a server takes in a URL).
   */
  whatif?: WhatIfForm;
  /** Why the what-if could not be built (shown instead of the runs). */
  whatifProblem?: string;
  modes: [Mode, Mode];
  /** True when the modes came from the link (not the scenario's default pair). */
  modesGiven: boolean;
  tMs?: number;
  seed?: number;
  partition?: string;
  /** Presenter mode (`present=1`, as in the walkthrough): large type, controls hidden. */
  present: boolean;
  /** Where the walkthrough was (the way back): a chapter and its stop, or a step and the user's actions. */
  chapter?: string;
  stop?: number;
  step?: number;
  actions: RecordedAction[];
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
export function parseCompareQuery(search: string, ids: readonly string[], scenarioOf: (id: string) => Scenario | null, hash = ''): CompareQuery {
  const p = new URLSearchParams(search);
  // The fragment's parameters (a pasted scenario, recorded actions) as if in the query.
  for (const [k, v] of new URLSearchParams(hash.replace(/^#/, ''))) p.set(k, v);
  // The parts the walkthrough's URL has (src, chapter, stop, seed, step, actions,
  // partition, present) are read as the walkthrough reads them.
  const { state, problems } = decodeUrlState(search, hash);
  const asked = (p.get('compare') ?? '').trim();
  let chapter = state.chapter;
  if (chapter !== undefined && findChapter(chapter) === undefined) {
    problems.push(`chapter: no chapter "${chapter}"; the way back opens the scenario`);
    chapter = undefined;
  }
  let scenario: string | null;
  let source: string | undefined;
  let sourceUnreadable = false;
  let whatif: WhatIfForm | undefined;
  let whatifProblem: string | undefined;
  if (p.has('src')) {
    // A loaded or pasted scenario: its text, validated by the page as the walkthrough does.
    scenario = null;
    source = state.source;
    sourceUnreadable = source === undefined;
    chapter = undefined;
  } else if (state.whatif !== undefined) {
    // A what-if from the form: built again from its options, as the walkthrough builds it.
    scenario = null;
    chapter = undefined;
    const read = readForm(state.whatif);
    const problem = Object.values(read.errors)[0];
    const built = problem === undefined ? buildWhatIf(read.input) : null;
    if (built !== null && built.ok) source = built.whatIf.body;
    else sourceUnreadable = true;
    whatifProblem = problem ?? (built !== null && !built.ok ? built.problem : undefined);
    whatif = state.whatif;
  } else {
    scenario = asked === '' ? (chapter !== undefined ? findChapter(chapter)!.scenario : FALLBACK_SCENARIO) : asked;
    if (!ids.includes(scenario)) {
      problems.push(`compare: no bundled scenario "${asked}"; showing ${FALLBACK_SCENARIO}`);
      scenario = FALLBACK_SCENARIO;
    }
    if (chapter !== undefined && findChapter(chapter)!.scenario !== scenario) {
      problems.push(`chapter: "${chapter}" plays ${findChapter(chapter)!.scenario}, not ${scenario}; the way back opens ${scenario}`);
      chapter = undefined;
    }
  }
  const fallback = defaultModes(scenario ?? '', scenario === null ? null : scenarioOf(scenario));
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
  const out: CompareQuery = { scenario, modes, modesGiven, present: state.present === true, actions: state.actions, problems };
  if (source !== undefined) out.source = source;
  if (sourceUnreadable) out.sourceUnreadable = true;
  if (whatif !== undefined) out.whatif = whatif;
  if (whatifProblem !== undefined) out.whatifProblem = whatifProblem;
  if (state.seed !== undefined) out.seed = state.seed;
  if (state.partition) out.partition = state.partition;
  if (chapter !== undefined) {
    out.chapter = chapter;
    if (state.stop !== undefined) out.stop = state.stop;
  }
  if (state.step !== undefined) out.step = state.step;
  const t = p.get('t');
  if (t !== null) {
    if (whole(t)) out.tMs = Number(t);
    else problems.push(`t: expected a whole number of milliseconds, got "${t}"`);
  }
  if (state.step !== undefined && t === null && chapter === undefined) {
    problems.push('step: kept for the way back to the walkthrough; the side-by-side cursor is a simulated time, t=<ms>');
  }
  return out;
}

export { type CompareLink, encodeCompareQuery, walkthroughHref, walkthroughState } from './link.js';
