/**
 * A view too long for a link (url.ts, MAX_LINK_CHARS). The page keeps it for this browser tab
 * in sessionStorage under an id the link it writes carries (`#view=ID`), so reloading that
 * link reopens it; another tab or browser has no such entry, and the page says so. The view
 * is also offered as a session file (JSON holding the whole link), to keep or share and to
 * open again with "Load file".
 */

/** The session file's format name: a file without it is read as a scenario. */
export const SESSION_FORMAT = 'tierscope-session/1';

const VIEW_KEY = 'tierscope-view:';
const ID_KEY = 'tierscope-view-id';

type Store = Pick<Storage, 'getItem' | 'setItem'>;

function tabStorage(): Store | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null;
  }
}

/**
 * Keeps `link` (a whole `?query#fragment`) for this tab and returns the short link to write
 * instead: the query and `#view=ID`; or null when the tab cannot keep it (no storage, full).
 */
export function stashView(link: string, query: string, storage: Store | null = tabStorage()): string | null {
  if (storage === null) return null;
  try {
    let id = storage.getItem(ID_KEY);
    if (id === null) {
      id = Math.random().toString(36).slice(2, 10);
      storage.setItem(ID_KEY, id);
    }
    storage.setItem(VIEW_KEY + id, link);
    return `${query === '' ? '' : `?${query}`}#view=${id}`;
  } catch {
    return null;
  }
}

/**
 * The link to read for a location: its own query and fragment, or the view a `#view=ID`
 * names, kept by this tab; `missing` when the tab has no such view (a link copied elsewhere).
 */
export function viewOf(search: string, hash: string, storage: Store | null = tabStorage()): { search: string; hash: string; missing: boolean } {
  const id = new URLSearchParams(hash.replace(/^#/, '')).get('view');
  if (id === null) return { search, hash, missing: false };
  const link = storage?.getItem(VIEW_KEY + id) ?? null;
  if (link === null) return { search, hash: '', missing: true };
  const at = link.indexOf('#');
  return at < 0 ? { search: link, hash: '', missing: false } : { search: link.slice(0, at), hash: link.slice(at), missing: false };
}

/** What the page says when a `#view=ID` link is opened where its view was not kept. */
export const MISSING_VIEW =
  'view: this link was made for a view too long for a link (over 8 KB), which only the browser tab that made it keeps; open the session file saved there ("Save session", then "Load file")';

/** The session file of a view: its whole link and a name to show. */
export function sessionFileText(link: string, name: string): string {
  return JSON.stringify({ format: SESSION_FORMAT, name, link }, null, 2) + '\n';
}

/** The link a session file holds, or null when the text is not a session file. */
export function readSessionFile(text: string): string | null {
  if (!text.trimStart().startsWith('{')) return null;
  try {
    const doc = JSON.parse(text) as { format?: unknown; link?: unknown };
    return doc.format === SESSION_FORMAT && typeof doc.link === 'string' ? doc.link : null;
  } catch {
    return null;
  }
}
