/**
 * Links that always open (issue 33 item 5): the page writes the long parts of its state in the
 * URL's fragment, reads old links with everything in the query, keeps a link under
 * MAX_LINK_CHARS, and past it keeps the view for the tab (`#view=ID`) and as a session file.
 */
import { describe, expect, test } from 'vitest';
import { MAX_LINK_CHARS, type UrlState, decodeUrlState, encodePageLink, encodeUrlState } from '../web/lib/url.js';
import { MISSING_VIEW, readSessionFile, sessionFileText, stashView, viewOf } from '../web/lib/session-link.js';

const toggles = (n: number) => Array.from({ length: n }, (_, i) => ({ step: i + 1, action: { kind: 'setConfig' as const, values: { 'follower.fetch.last.tiered.offset.enable': i % 2 === 0 } } }));

function memoryStorage() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
}

/** How the page reads a link it wrote. */
function reopen(link: string, storage = memoryStorage()) {
  const at = link.indexOf('#');
  const v = viewOf(at < 0 ? link : link.slice(0, at), at < 0 ? '' : link.slice(at), storage);
  return { ...decodeUrlState(v.search, v.hash), missing: v.missing };
}

describe('the page link', () => {
  const state: UrlState = { source: 'name: mine\nbrokers: 3\n', seed: 7, step: 12, actions: toggles(3), partition: 'orders-1' };

  test('the scenario text and the actions go in the fragment, the rest in the query; reading it gives the state back', () => {
    const l = encodePageLink(state);
    expect(l.link).toMatch(/^\?seed=7&partition=orders-1&step=12#src=[\w-]+&actions=[\w-]+$/);
    expect(l.tooLong).toBe(false);
    expect(reopen(l.link)).toEqual({ state, problems: [], missing: false });
  });

  test('old links, with everything in the query, still open', () => {
    expect(decodeUrlState(`?${encodeUrlState(state)}`).state).toEqual(state);
    expect(decodeUrlState(`?${encodeUrlState(state)}`, '').state).toEqual(state);
  });

  test('a bundled scenario with no actions is a query alone', () => {
    expect(encodePageLink({ scenario: 'kip1023-bootstrap', actions: [] }).link).toBe('?scenario=kip1023-bootstrap');
  });

  test('a 96 KiB scenario or 130 toggles is past the limit; the tab keeps the view and the short link reopens it', () => {
    for (const long of [{ source: `name: big\n# ${'x'.repeat(96 * 1024)}\n`, actions: [] }, { scenario: 'kip1023-bootstrap', actions: toggles(130) }] as UrlState[]) {
      const l = encodePageLink(long);
      expect(l.tooLong).toBe(true);
      expect(l.chars).toBeGreaterThan(MAX_LINK_CHARS);
      const storage = memoryStorage();
      const short = stashView(l.link, l.query, storage)!;
      expect(short).toMatch(/#view=\w+$/);
      expect(short.length).toBeLessThan(MAX_LINK_CHARS);
      expect(reopen(short, storage)).toEqual({ state: long, problems: [], missing: false });
      // Opened where the view was not kept: the page says so (and shows what the query holds).
      expect(reopen(short, memoryStorage()).missing).toBe(true);
    }
    expect(MISSING_VIEW).toContain('Save session');
  });

  test('a tab that cannot keep the view (no storage, or full) gives null: the page writes the query alone', () => {
    expect(stashView('?a=1#src=x', 'a=1', null)).toBeNull();
    const full = { getItem: () => null, setItem: () => { throw new Error('QuotaExceededError'); } };
    expect(stashView('?a=1#src=x', 'a=1', full)).toBeNull();
  });

  test('a session file holds the whole link and is told apart from a scenario', () => {
    const link = encodePageLink({ source: 'x'.repeat(20_000), actions: toggles(200) }).link;
    const text = sessionFileText(link, 'big');
    expect(readSessionFile(text)).toBe(link);
    expect(readSessionFile('name: mine\nbrokers: 3\n')).toBeNull();
    expect(readSessionFile('{"name": "a scenario in JSON", "brokers": 3}')).toBeNull();
    expect(readSessionFile('{ not json')).toBeNull();
  });
});
