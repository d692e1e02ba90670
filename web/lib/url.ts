/**
 * The URL holds the whole view: scenario (bundled id, or the scenario text itself), seed,
 * recorded actions and step, so opening a link reproduces the exact picture.
 *
 * The page writes the long parts (`src`, the scenario's text, and `actions`) in the URL's
 * fragment (`#src=...&actions=...`), which the browser never sends to a server, and the rest
 * in the query; it reads both, so links with everything in the query (older ones, and the
 * CLI's) still open. A server refuses a request line past its limit (HTTP 431 or 414: 8 KB
 * in nginx's and Apache's defaults, 16 KB in Node's and so in the dev server), and a link is
 * also pasted into chats and trackers that cut long ones: so a link the page makes stays under
 * MAX_LINK_CHARS in all, and past it the page says so and offers the view as a file
 * (session-link.ts).
 */
import type { RecordedAction } from '../../core/session/session.js';
import { type WhatIfForm, formArgs, parseFormArgs } from './whatif-form.js';

export interface UrlState {
  scenario?: string;
  /** A scenario that is not bundled: its YAML/JSON text. */
  source?: string;
  seed?: number;
  step?: number;
  actions: RecordedAction[];
  partition?: string;
  /** A guided chapter (core/report/chapters.ts) and its stop, counted from 1. */
  chapter?: string;
  stop?: number;
  /** Presenter mode: full screen, large type, controls hidden. */
  present?: boolean;
  /**
   * A scenario built by the "Your partition" form (whatif-form.ts): its options, written as
   * whatif's flags (`whatif=--tiered 1TiB --local 50GiB ...`), instead of its text.
   */
  whatif?: WhatIfForm;
}

/** The longest link (query and fragment) the page makes: under the 8 KB request line every common server accepts. */
export const MAX_LINK_CHARS = 8000;

/** Parameters the page writes in the fragment (long ones); the rest go in the query. */
export const FRAGMENT_KEYS: ReadonlySet<string> = new Set(['src', 'actions']);

/**
 * The link the page writes: `?query#fragment` (either part may be empty), how long it is,
 * and whether that is past MAX_LINK_CHARS.
 */
export function encodePageLink(s: UrlState): { link: string; query: string; chars: number; tooLong: boolean } {
  const all = new URLSearchParams(encodeUrlState(s));
  const query = new URLSearchParams();
  const fragment = new URLSearchParams();
  for (const [k, v] of all) (FRAGMENT_KEYS.has(k) ? fragment : query).append(k, v);
  const readable = (p: URLSearchParams) => p.toString().replace(/%2C/g, ',').replace(/%2F/g, '/');
  const q = readable(query);
  const f = readable(fragment);
  const link = `${q === '' ? '' : `?${q}`}${f === '' ? '' : `#${f}`}`;
  return { link, query: q, chars: link.length, tooLong: link.length > MAX_LINK_CHARS };
}

/** Recorded actions a link may carry (each is also checked, and counted in the work budget). */
export const MAX_URL_ACTIONS = 1000;

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

export function encodeUrlState(s: UrlState): string {
  const p = new URLSearchParams();
  if (s.chapter !== undefined) {
    p.set('chapter', s.chapter);
    if (s.stop !== undefined) p.set('stop', String(s.stop));
  } else if (s.whatif !== undefined) p.set('whatif', formArgs(s.whatif).join(' '));
  else if (s.source !== undefined) p.set('src', toBase64Url(s.source));
  else if (s.scenario) p.set('scenario', s.scenario);
  if (s.seed !== undefined) p.set('seed', String(s.seed));
  if (s.partition) p.set('partition', s.partition);
  if (s.actions.length > 0) p.set('actions', toBase64Url(JSON.stringify(s.actions)));
  if (s.step !== undefined) p.set('step', String(s.step));
  if (s.present) p.set('present', '1');
  // Commas and slashes read better than %2C and %2F in a link people share (--modes classic,kip1023, --produce 10MB/s).
  return p.toString().replace(/%2C/g, ',').replace(/%2F/g, '/');
}

/**
 * Reads the URL, its query and (given) its fragment, a parameter of the fragment winning;
 * anything malformed is reported in `problems` and left out.
 */
export function decodeUrlState(search: string, hash = ''): { state: UrlState; problems: string[] } {
  const p = new URLSearchParams(search);
  for (const [k, v] of new URLSearchParams(hash.replace(/^#/, ''))) p.set(k, v);
  const problems: string[] = [];
  const state: UrlState = { actions: [] };
  const scenario = p.get('scenario');
  if (scenario) state.scenario = scenario;
  const src = p.get('src');
  if (src) {
    try {
      state.source = fromBase64Url(src);
    } catch {
      problems.push('src: not a readable scenario');
    }
  }
  const whatif = p.get('whatif');
  if (whatif !== null) {
    const read = parseFormArgs(whatif.slice(0, 2000));
    state.whatif = read.form;
    problems.push(...read.problems);
  }
  const chapter = p.get('chapter');
  if (chapter) state.chapter = chapter;
  const present = p.get('present');
  if (present !== null) {
    if (present === '1' || present === 'true') state.present = true;
    else if (present !== '0' && present !== 'false') problems.push(`present: expected 1 or 0, got "${present}"`);
  }
  const stop = p.get('stop');
  if (stop !== null) {
    if (/^\d+$/.test(stop) && Number(stop) >= 1 && Number(stop) <= 1000) state.stop = Number(stop);
    else problems.push(`stop: expected a stop number from 1, got "${stop}"`);
  }
  for (const key of ['seed', 'step'] as const) {
    const v = p.get(key);
    if (v === null) continue;
    if (/^\d+$/.test(v) && Number(v) <= 0xffffffff) state[key] = Number(v);
    else problems.push(`${key}: expected a whole number, got "${v}"`);
  }
  const partition = p.get('partition');
  if (partition) state.partition = partition;
  const actions = p.get('actions');
  if (actions) {
    try {
      const parsed = JSON.parse(fromBase64Url(actions)) as unknown;
      if (!Array.isArray(parsed)) throw new Error('not a list');
      if (parsed.length > MAX_URL_ACTIONS) {
        problems.push(`actions: at most ${MAX_URL_ACTIONS} recorded actions, got ${parsed.length}; none were used`);
        parsed.length = 0;
      }
      for (const a of parsed) {
        if (a && typeof a === 'object' && Number.isInteger((a as RecordedAction).step) && typeof (a as RecordedAction).action?.kind === 'string') {
          state.actions.push({ step: (a as RecordedAction).step, action: (a as RecordedAction).action });
        } else problems.push('actions: an entry is not a recorded action');
      }
    } catch {
      problems.push('actions: not readable');
    }
  }
  return { state, problems };
}
