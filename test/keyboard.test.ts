/**
 * The walkthrough's keyboard (web/lib/keyboard.ts): one table makes both the key handler and
 * the help dialog's list, so every key in the table is handled and listed, and every key
 * listed is handled; what each key does is pinned here, with the cases where the page keeps
 * its hands off (a field, a modifier, the open help, Space on a focused button). The keys
 * the buttons announce (`aria-keyshortcuts`) are keys of the table.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ariaKey, HANDLED_KEYS, handleKey, HELP_ROWS, KEY_TABLE, type KeyActions, keyLabel } from '../web/lib/keyboard.js';

const ROOT = resolve(__dirname, '..');

interface Pressed { calls: string[]; prevented: boolean }

/** Presses a key on a page in the given state: the commands called (with their arguments) and whether the browser's default was prevented. */
function press(key: string, opts: { shift?: boolean; ctrl?: boolean; meta?: boolean; alt?: boolean; on?: string | null; helpOpen?: boolean; inChapter?: boolean; presenter?: boolean } = {}): Pressed {
  const calls: string[] = [];
  const state = { helpOpen: opts.helpOpen ?? false, inChapter: opts.inChapter ?? false, presenter: opts.presenter ?? false };
  const actions = new Proxy(state, {
    get: (t, name: string) => (name in t ? t[name as keyof typeof t] : (...args: unknown[]) => { calls.push(args.length ? `${name}(${args.join(',')})` : name); }),
  }) as unknown as KeyActions;
  const on = opts.on ?? null;
  let prevented = false;
  handleKey({
    key,
    shiftKey: opts.shift ?? false,
    ctrlKey: opts.ctrl ?? false,
    metaKey: opts.meta ?? false,
    altKey: opts.alt ?? false,
    // A target whose `closest` matches when the selector names the focused element's tag.
    target: { closest: (sel: string) => (on !== null && sel.split(',').some((s) => s.trim().startsWith(on)) ? {} : null) },
    preventDefault: () => { prevented = true; },
  }, actions);
  return { calls, prevented };
}

describe('the keyboard table', () => {
  const bindings = KEY_TABLE.flatMap((row) => row.keys);

  it('handles every key in the table, aliases included, and each key once', () => {
    expect(bindings.length).toBeGreaterThan(10);
    for (const b of bindings) {
      for (const k of [b.key, ...(b.also ?? [])]) expect(press(k).calls, `key ${JSON.stringify(k)}`).toHaveLength(1);
    }
    const all = bindings.flatMap((b) => [b.key, ...(b.also ?? [])]);
    expect(new Set(all).size).toBe(all.length);
    expect([...HANDLED_KEYS].sort()).toEqual([...all].sort());
  });

  it('lists every key in the help, and every key the help lists is handled', () => {
    expect(HELP_ROWS).toHaveLength(KEY_TABLE.length);
    const listed = HELP_ROWS.flatMap((r) => r.keys.map((parts) => parts.join('+')));
    for (const b of bindings) expect(listed, `key ${JSON.stringify(b.key)}`).toContain(keyLabel(b.key).join('+'));
    const byLabel = new Map(HANDLED_KEYS.map((k) => [keyLabel(k).join('+'), k]));
    for (const label of listed) expect(byLabel.has(label), `listed ${label}`).toBe(true);
    // Every row says what it does; a key drawn in the text (`Shift`, `Esc`) is closed.
    for (const r of HELP_ROWS) {
      expect(r.does.join('').length).toBeGreaterThan(5);
      expect(r.does.length % 2).toBe(1);
    }
  });

  it('shows the keys as the help always named them', () => {
    expect(HELP_ROWS.map((r) => r.keys.map((p) => p.join('+')).join(' '))).toEqual([
      'Space', '→ ←', 'Home End', '+ -', 'k', 't', 'w', 'o', 'f', 'p', 'Shift+P', '? Esc',
    ]);
  });

  it('does what each key says', () => {
    const cases: Array<[string, Parameters<typeof press>[1], string[], boolean]> = [
      [' ', {}, ['togglePlay'], true],
      ['ArrowRight', {}, ['stepForward'], true],
      ['ArrowLeft', {}, ['stepBack'], true],
      ['ArrowRight', { inChapter: true }, ['nextStop'], true],
      ['ArrowLeft', { inChapter: true }, ['prevStop'], true],
      ['ArrowRight', { inChapter: true, shift: true }, ['stepForward'], true],
      ['ArrowLeft', { inChapter: true, shift: true }, ['stepBack'], true],
      ['Home', {}, ['restart'], true],
      ['End', {}, ['goToEnd'], true],
      ['+', {}, ['faster'], false],
      ['=', {}, ['faster'], false],
      ['-', {}, ['slower'], false],
      ['k', {}, ['toggleKip1023'], false],
      ['t', {}, ['toggleTiering'], false],
      ['w', {}, ['toggleWal'], false],
      ['o', {}, ['toggleStore'], false],
      ['f', {}, ['toggleFastStore'], false],
      ['p', {}, ['produce'], false],
      ['P', { shift: true }, ['setPresenter(true)'], false],
      ['P', { shift: true, presenter: true }, ['setPresenter(false)'], false],
      ['?', {}, ['openHelp'], false],
      ['Escape', {}, ['closeEditor'], false],
      ['Escape', { presenter: true }, ['setPresenter(false)'], false],
    ];
    for (const [key, opts, calls, prevented] of cases) {
      expect(press(key, opts), `${key} ${JSON.stringify(opts)}`).toEqual({ calls, prevented });
    }
  });

  it('leaves a field, a modified key, an unknown key and Space on a focused control alone', () => {
    for (const on of ['input', 'textarea', 'select']) expect(press('k', { on })).toEqual({ calls: [], prevented: false });
    expect(press('k', { ctrl: true }).calls).toEqual([]);
    expect(press('k', { meta: true }).calls).toEqual([]);
    expect(press('ArrowRight', { alt: true }).calls).toEqual([]);
    expect(press('x')).toEqual({ calls: [], prevented: false });
    for (const on of ['button', 'a[href]', 'summary']) expect(press(' ', { on })).toEqual({ calls: [], prevented: false });
    // Only Space defers to a focused button: the other keys work wherever the focus is.
    expect(press('k', { on: 'button' }).calls).toEqual(['toggleKip1023']);
  });

  it('while the help is open, only ? works (it closes the help)', () => {
    expect(press('?', { helpOpen: true })).toEqual({ calls: ['closeHelp'], prevented: true });
    for (const key of HANDLED_KEYS.filter((k) => k !== '?')) expect(press(key, { helpOpen: true }).calls, key).toEqual([]);
  });

  it('the keys the walkthrough\'s buttons announce (aria-keyshortcuts) are keys of the table', () => {
    const aria = new Set([...HANDLED_KEYS.map(ariaKey)]);
    // The walkthrough's files (the side-by-side view in web/compare/ has keys of its own).
    const files = ['App.svelte', ...readdirSync(join(ROOT, 'web/components')).filter((f) => f.endsWith('.svelte')).map((f) => `components/${f}`)];
    const announced: string[] = [];
    for (const f of files) {
      for (const m of readFileSync(join(ROOT, 'web', f), 'utf8').matchAll(/aria-keyshortcuts="([^"]+)"/g)) announced.push(...m[1].split(' '));
    }
    expect(announced.length).toBeGreaterThan(10);
    for (const k of announced) expect(aria.has(k), `aria-keyshortcuts ${k}`).toBe(true);
  });
});
