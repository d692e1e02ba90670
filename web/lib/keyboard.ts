/**
 * The walkthrough's keyboard: one table from which both the key handler (`handleKey`) and
 * the help dialog's list (`HELP_ROWS`) are made, so the two cannot disagree. Each row is
 * one line of the help; its keys are the `KeyboardEvent.key` values it handles, shown in
 * the help by their labels, and what each does to the page (through `KeyActions`).
 * test/keyboard.test.ts checks every key of the table is handled and listed.
 */

/** What the keys do: the page passes its own commands and the state they depend on. */
export interface KeyActions {
  /** The help dialog is open (it is modal: only `?` works, to close it; Esc is the dialog's own). */
  readonly helpOpen: boolean;
  /** A guided chapter is open: the arrows move stop by stop. */
  readonly inChapter: boolean;
  readonly presenter: boolean;
  togglePlay(): void;
  stepForward(): void;
  stepBack(): void;
  nextStop(): void;
  prevStop(): void;
  restart(): void;
  goToEnd(): void;
  faster(): void;
  slower(): void;
  setPresenter(on: boolean): void;
  openHelp(): void;
  closeHelp(): void;
  closeEditor(): void;
  toggleKip1023(): void;
  toggleTiering(): void;
  toggleWal(): void;
  toggleStore(): void;
  toggleFastStore(): void;
  produce(): void;
}

/** The part of a keyboard event the handler reads (a DOM `KeyboardEvent` is one). */
export interface KeyEventLike {
  readonly key: string;
  readonly shiftKey: boolean;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly altKey: boolean;
  readonly target: EventTarget | { closest(selector: string): unknown } | null;
  preventDefault(): void;
}

export interface KeyBinding {
  /** The `KeyboardEvent.key` value. */
  readonly key: string;
  /** Other `key` values that do the same and are not listed (`=` is `+` without Shift). */
  readonly also?: readonly string[];
  /** The browser's own use of the key (scrolling, a button's press) is prevented. */
  readonly prevent?: true;
  readonly act: (a: KeyActions, e: KeyEventLike) => void;
}

export interface KeyRow {
  readonly keys: readonly KeyBinding[];
  /** What the row does, as the help says it; text between backquotes is drawn as a key. */
  readonly does: string;
}

export const KEY_TABLE: readonly KeyRow[] = [
  { keys: [{ key: ' ', prevent: true, act: (a) => a.togglePlay() }], does: 'play / pause (on a focused button, presses it)' },
  {
    keys: [
      // In a chapter the arrows move stop by stop; Shift moves one step.
      { key: 'ArrowRight', prevent: true, act: (a, e) => (a.inChapter && !e.shiftKey ? a.nextStop() : a.stepForward()) },
      { key: 'ArrowLeft', prevent: true, act: (a, e) => (a.inChapter && !e.shiftKey ? a.prevStop() : a.stepBack()) },
    ],
    does: 'step forward / back; in a chapter, next / previous stop (`Shift` for one step)',
  },
  {
    keys: [
      { key: 'Home', prevent: true, act: (a) => a.restart() },
      { key: 'End', prevent: true, act: (a) => a.goToEnd() },
    ],
    does: 'restart / jump to the end',
  },
  {
    keys: [
      { key: '+', also: ['='], act: (a) => a.faster() },
      { key: '-', act: (a) => a.slower() },
    ],
    does: 'faster / slower',
  },
  { keys: [{ key: 'k', act: (a) => a.toggleKip1023() }], does: 'toggle follower.fetch.last.tiered.offset.enable (KIP-1023)' },
  { keys: [{ key: 't', act: (a) => a.toggleTiering() }], does: 'toggle remote.storage.enable on the topic' },
  { keys: [{ key: 'w', act: (a) => a.toggleWal() }], does: 'toggle wal.enable (KIP-1176 WAL) on the topic' },
  { keys: [{ key: 'o', act: (a) => a.toggleStore() }], does: 'tiered object store up / down' },
  { keys: [{ key: 'f', act: (a) => a.toggleFastStore() }], does: 'fast store (the WAL\'s) up / down' },
  { keys: [{ key: 'p', act: (a) => a.produce() }], does: 'produce a burst' },
  { keys: [{ key: 'P', act: (a) => a.setPresenter(!a.presenter) }], does: 'presenter mode: full screen, large type, controls hidden (`Esc` leaves)' },
  {
    keys: [
      { key: '?', act: (a) => a.openHelp() },
      // Esc leaves presenter mode, else closes the scenario editor (the open help dialog closes on its own).
      { key: 'Escape', act: (a) => (a.presenter ? a.setPresenter(false) : a.closeEditor()) },
    ],
    does: 'this help / close',
  },
];

/** How the help and `aria-keyshortcuts` name a key: the parts joined by `+` (Shift+P). */
export function keyLabel(key: string): string[] {
  switch (key) {
    case ' ': return ['Space'];
    case 'ArrowRight': return ['→'];
    case 'ArrowLeft': return ['←'];
    case 'Escape': return ['Esc'];
    default: return key.length === 1 && key !== key.toLowerCase() ? ['Shift', key] : [key];
  }
}

/** A key's name in `aria-keyshortcuts` (WAI-ARIA's names: Space, ArrowRight, Shift+P). */
export function ariaKey(key: string): string {
  if (key === ' ') return 'Space';
  return key.length === 1 && key !== key.toLowerCase() ? `Shift+${key}` : key;
}

/** One line of the help dialog: its keys (each a list of parts) and its text in runs, odd runs drawn as keys. */
export interface HelpRow {
  readonly keys: readonly string[][];
  readonly does: readonly string[];
}

export const HELP_ROWS: readonly HelpRow[] = KEY_TABLE.map((row) => ({
  keys: row.keys.map((b) => keyLabel(b.key)),
  does: row.does.split('`'),
}));

const BY_KEY = new Map<string, KeyBinding>();
for (const row of KEY_TABLE) {
  for (const b of row.keys) {
    for (const k of [b.key, ...(b.also ?? [])]) {
      if (BY_KEY.has(k)) throw new Error(`key ${JSON.stringify(k)} is in the keyboard table twice`);
      BY_KEY.set(k, b);
    }
  }
}

/** Every key value the handler acts on, aliases included. */
export const HANDLED_KEYS: readonly string[] = [...BY_KEY.keys()];

const closest = (t: KeyEventLike['target'], selector: string): boolean =>
  t !== null && typeof (t as { closest?: unknown }).closest === 'function' && Boolean((t as { closest(s: string): unknown }).closest(selector));

/** The page's key handler: the table's action for the key, unless a field or a modifier has it. */
export function handleKey(e: KeyEventLike, a: KeyActions): void {
  if (closest(e.target, 'input, textarea, select')) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  // The help dialog is modal: only its own keys work while it is open.
  if (a.helpOpen) {
    if (e.key === '?') { e.preventDefault(); a.closeHelp(); }
    return;
  }
  // Space presses a focused button, link or disclosure, as everywhere else on the web.
  if (e.key === ' ' && closest(e.target, 'button, a[href], summary, [role="button"], [tabindex]:not([tabindex="-1"])')) return;
  const b = BY_KEY.get(e.key);
  if (b === undefined) return;
  if (b.prevent) e.preventDefault();
  b.act(a, e);
}
