/**
 * Links to the side-by-side view and back (web/compare/params.ts reads them). Apart from the
 * reading, which builds a what-if, so that the walkthrough can make these links without
 * loading the builder.
 */
import type { RecordedAction } from '../../core/session/session.js';
import type { Mode } from '../../core/study/modes.js';
import { FRAGMENT_KEYS, encodePageLink, encodeUrlState, type UrlState } from '../lib/url.js';
import type { WhatIfForm } from '../lib/whatif-form.js';

/** What a side-by-side link holds (encodeCompareQuery). */
export interface CompareLink {
  /** A bundled scenario's id, or null with `source`. */
  scenario: string | null;
  source?: string;
  /** A what-if of the form: its options travel instead of `source` (whatif=). */
  whatif?: WhatIfForm;
  /** The designs; left out, the page picks the scenario's default pair. */
  modes?: readonly Mode[];
  tMs?: number;
  seed?: number;
  partition?: string;
  present?: boolean;
  chapter?: string;
  stop?: number;
  step?: number;
  actions?: readonly RecordedAction[];
}

/**
 * The link of the side-by-side view: `compare=<id>` (or `compare=&src=<base64url>`), the
 * designs, the way back (chapter and stop, or step and actions), then `t`.
 */
export function encodeCompareQuery(q: CompareLink): string {
  const p = new URLSearchParams();
  const f = new URLSearchParams();
  p.set('compare', q.scenario ?? '');
  if (q.modes) p.set('modes', q.modes.join(','));
  // The walkthrough's own encoding (web/lib/url.ts) for what the two pages share: its long
  // parts (a pasted scenario, recorded actions) in the fragment, which no server sees.
  // `compare=` names the scenario already; `present` goes last.
  const back = new URLSearchParams(encodeUrlState(walkthroughState(q)));
  back.delete('scenario');
  back.delete('present');
  for (const [k, v] of back) (FRAGMENT_KEYS.has(k) ? f : p).set(k, v);
  if (q.tMs !== undefined) p.set('t', String(q.tMs));
  if (q.present) p.set('present', '1');
  // Commas read better than %2C in a link people share.
  const readable = (x: URLSearchParams) => x.toString().replace(/%2C/g, ',');
  const hash = readable(f);
  return `${readable(p)}${hash === '' ? '' : `#${hash}`}`;
}

/**
 * The walkthrough's state a side-by-side link goes back to: the chapter and its stop (and
 * the step, when it is not the stop's), or the scenario (its id, or its text), seed,
 * recorded actions and step.
 */
export function walkthroughState(q: CompareLink): UrlState {
  const s: UrlState = { actions: q.chapter !== undefined ? [] : [...(q.actions ?? [])] };
  if (q.chapter !== undefined) {
    s.chapter = q.chapter;
    if (q.stop !== undefined) s.stop = q.stop;
  } else if (q.scenario === null && q.whatif !== undefined) s.whatif = q.whatif;
  else if (q.scenario === null) s.source = q.source;
  else s.scenario = q.scenario;
  if (q.seed !== undefined) s.seed = q.seed;
  if (q.partition) s.partition = q.partition;
  if (q.step !== undefined) s.step = q.step;
  if (q.present) s.present = true;
  return s;
}

/** The walkthrough's link (relative, `./?...`) for the way back from the side-by-side view. */
export function walkthroughHref(q: CompareLink): string {
  const { link } = encodePageLink(walkthroughState(q));
  return `./${link === '' ? '?' : link}`;
}
