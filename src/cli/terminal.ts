/**
 * Text made safe to print on a terminal. A scenario's name, description, zone names and
 * keys reach stdout and stderr (narration, `list`, problems, reports); a string holding
 * `ESC ] 0 ; ... BEL` would retitle the window, `ESC [ 2 J` clear the screen, a C1 CSI
 * (U+009B) do the same on terminals that read 8-bit controls, and a bidi override
 * (U+202E) reorder what the line shows. Each such character is printed as a visible
 * escape instead: `\u001b`, `\u009b`, `\u202e`.
 *
 * Replaced: C0 controls except line feed and tab, DEL, C1 controls (U+0080 to U+009F),
 * the bidi embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069), the
 * bidi marks (U+200E, U+200F, U+061C), and the line and paragraph separators (U+2028,
 * U+2029), which some terminals and viewers show as a line break.
 *
 * The escape is JSON's own (`\u` and four hex digits), on purpose: `JSON.stringify`
 * escapes C0 controls but leaves DEL, C1, bidi controls and U+2028/2029 raw, and those
 * can only stand inside a JSON string, where `\u009b` means the same character. So a JSON
 * document passed through here stays valid JSON with the same value, and the CLI can
 * make everything it prints safe the same way (main.ts).
 */

function unsafe(c: number): boolean {
  if (c < 0x20) return c !== 0x0a && c !== 0x09;
  if (c < 0x7f) return false;
  if (c <= 0x9f) return true; // DEL and C1
  return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c === 0x200e || c === 0x200f || c === 0x061c || c === 0x2028 || c === 0x2029;
}

/** `s` with every character a terminal would act on (see above) as a `\uXXXX` escape. */
export function terminalSafe(s: string): string {
  let out = '';
  let from = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (!unsafe(c)) continue;
    out += s.slice(from, k) + '\\u' + c.toString(16).padStart(4, '0');
    from = k + 1;
  }
  return from === 0 ? s : out + s.slice(from);
}
