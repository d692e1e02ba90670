/**
 * Inline Markdown for text the report did not write itself: a scenario's name,
 * description, zone names and config values, and the narration that quotes topic names
 * and object keys. Such text is plain text, never Markdown: everything GFM would read as
 * structure is escaped, so a string cannot open emphasis, a link, an image, raw HTML, an
 * entity or a block. Kafka identifiers in it are still shown as code.
 *
 * Every function here scans its input once, with no regular expression that could
 * backtrack, so the time is linear in the length of the text (test/md-inline.test.ts runs
 * 300,000-character inputs of the shapes that were quadratic).
 */

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlpha = (c: number) => isUpper(c) || isLower(c);
const isAlnum = (c: number) => isAlpha(c) || isDigit(c);
/** `\w` of a regular expression without the `u` flag: [A-Za-z0-9_]. */
const isWord = (c: number) => isAlnum(c) || c === 95;
/** `\s` of a regular expression: WhiteSpace and LineTerminator of ECMAScript. */
function isSpace(c: number): boolean {
  return (c >= 9 && c <= 13) || c === 32 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

const DOT = 46;
const DASH = 45;
const SLASH = 47;
const UNDERSCORE = 95;

/**
 * The spans [start, end) of the Kafka identifiers in `s` that the report shows as code:
 * error and state names (`OFFSET_OUT_OF_RANGE`), `LATEST` and `EARLIEST`, dotted config
 * names (`remote.log.storage.system.enable`), internal topics (`__remote_log_metadata`),
 * paths and object keys (`docs/protocol.md`), method calls (`truncateFullyAndStartAt(150)`).
 *
 * The same spans as this regular expression's matches, left to right (test/md-inline.test.ts
 * compares the two), found in one pass instead: the expression's path alternative began a
 * scan at every character of a long word and took 30 s on a 100,000-character one.
 *
 *     /(\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b(?:LATEST|EARLIEST)\b|\b[a-z][a-z0-9]*(?:\.[a-z0-9]+){2,}\b
 *      |(?<![\w])__[a-z][a-z_]*|[\w.-]+\/[\w.-]+\.[A-Za-z_]+\b|\b[a-z]+[A-Z][A-Za-z]*\([^()\s]*\))/g
 */
export function codeSpans(s: string): Array<[number, number]> {
  const n = s.length;
  const at = (i: number) => (i >= 0 && i < n ? s.charCodeAt(i) : -1);
  const word = (i: number) => isWord(at(i));
  const upperOrDigit = (i: number) => isUpper(at(i)) || isDigit(at(i));
  const lowerOrDigit = (i: number) => isLower(at(i)) || isDigit(at(i));
  const pathChar = (i: number) => word(i) || at(i) === DOT || at(i) === DASH;

  // `[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+` from a word start, then a word boundary. Greedy, and
  // backing off never helps: every shorter end is followed by a word character.
  const errorName = (i: number): number => {
    let j = i + 1;
    while (upperOrDigit(j)) j++;
    let groups = 0;
    while (at(j) === UNDERSCORE && upperOrDigit(j + 1)) {
      j += 2;
      while (upperOrDigit(j)) j++;
      groups++;
    }
    return groups > 0 && !word(j) ? j : -1;
  };
  const offsetSpec = (i: number): number => {
    for (const w of ['LATEST', 'EARLIEST']) if (s.startsWith(w, i) && !word(i + w.length)) return i + w.length;
    return -1;
  };
  // `[a-z][a-z0-9]*(?:\.[a-z0-9]+){2,}` from a word start, then a word boundary: all the
  // groups if a non-word character follows, else all but the last (which ends at its dot).
  const dottedName = (i: number): number => {
    let j = i + 1;
    while (lowerOrDigit(j)) j++;
    let groups = 0;
    let lastDot = -1;
    while (at(j) === DOT && lowerOrDigit(j + 1)) {
      lastDot = j;
      j += 2;
      while (lowerOrDigit(j)) j++;
      groups++;
    }
    if (!word(j)) return groups >= 2 ? j : -1;
    return groups >= 3 ? lastDot : -1;
  };
  const internalTopic = (i: number): number => {
    if (word(i - 1) || at(i + 1) !== UNDERSCORE || !isLower(at(i + 2))) return -1;
    let j = i + 3;
    while (isLower(at(j)) || at(j) === UNDERSCORE) j++;
    return j;
  };
  // `[\w.-]+\/[\w.-]+\.[A-Za-z_]+\b`: the first part is the whole run of path characters
  // from i, so the answer is the same for every i of a run and is worked out once per run.
  let runEnd = -1;
  let runAnswer = -1;
  const path = (i: number): number => {
    if (i < runEnd) return runAnswer;
    let e1 = i;
    while (pathChar(e1)) e1++;
    runEnd = e1;
    runAnswer = -1;
    if (at(e1) !== SLASH) return -1;
    const j = e1 + 1;
    let e2 = j;
    while (pathChar(e2)) e2++;
    // The last dot (after at least one character) followed by letters that end the word.
    for (let k = e2 - 1; k > j; k--) {
      if (at(k) !== DOT) continue;
      let p = k + 1;
      while (p < e2 && (isAlpha(at(p)) || at(p) === UNDERSCORE)) p++;
      if (p > k + 1 && !word(p)) return (runAnswer = p);
    }
    return -1;
  };
  // `[a-z]+[A-Z][A-Za-z]*\([^()\s]*\)` from a word start; every part is forced.
  const call = (i: number): number => {
    let j = i + 1;
    while (isLower(at(j))) j++;
    if (!isUpper(at(j))) return -1;
    j++;
    while (isAlpha(at(j))) j++;
    if (at(j) !== 40 /* ( */) return -1;
    j++;
    while (j < n && at(j) !== 40 && at(j) !== 41 && !isSpace(at(j))) j++;
    return at(j) === 41 /* ) */ ? j + 1 : -1;
  };

  const spans: Array<[number, number]> = [];
  let i = 0;
  while (i < n) {
    const c = at(i);
    const wordStart = isWord(c) && !word(i - 1);
    let end = -1;
    if (wordStart && isUpper(c)) end = errorName(i);
    if (end < 0 && wordStart && (c === 76 || c === 69) /* L, E */) end = offsetSpec(i);
    if (end < 0 && wordStart && isLower(c)) end = dottedName(i);
    if (end < 0 && c === UNDERSCORE) end = internalTopic(i);
    if (end < 0 && pathChar(i)) end = path(i);
    if (end < 0 && wordStart && isLower(c)) end = call(i);
    if (end < 0) i++;
    else {
      spans.push([i, end]);
      i = end;
    }
  }
  return spans;
}

/**
 * Prose outside code: the characters GFM would read as markup, escaped. Backslash,
 * backtick, `*` and `~` always; `_` where it could open emphasis (not inside a word);
 * `&` that would start an entity; `<` that would start HTML or an autolink; `]` that would
 * close a link's text (before `(` or `[`). Brackets elsewhere stay as they are (`[0, 99]`
 * is a range): without `](` or `][` they make no link, and the report defines no labels.
 */
export function escapeProse(s: string): string {
  let out = '';
  const n = s.length;
  for (let k = 0; k < n; k++) {
    const ch = s[k];
    if (ch === '\\' || ch === '`' || ch === '*' || ch === '~') out += '\\' + ch;
    else if (ch === '_') out += k === 0 || !isAlnum(s.charCodeAt(k - 1)) ? '\\_' : '_';
    else if (ch === ']') out += s[k + 1] === '(' || s[k + 1] === '[' ? '\\]' : ']';
    else if (ch === '&') {
      let p = k + 1;
      if (s[p] === '#') p++;
      // Letters, digits and the `_` that stays unescaped (after a letter or digit).
      let q = p;
      while (q < n && (isAlnum(s.charCodeAt(q)) || (s[q] === '_' && q > p && isAlnum(s.charCodeAt(q - 1))))) q++;
      out += q > p && s[q] === ';' ? '&amp;' : '&';
    } else if (ch === '<') {
      const d = k + 1 < n ? s.charCodeAt(k + 1) : -1;
      out += isAlpha(d) || d === SLASH || d === 33 /* ! */ || d === 63 /* ? */ ? '&lt;' : '<';
    } else out += ch;
  }
  return out;
}

/** Runs of whitespace as one space, trimmed: the text on one line. */
export function oneLine(text: string): string {
  let out = '';
  let space = false;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (isSpace(c)) space = out !== '';
    else {
      if (space) out += ' ';
      space = false;
      out += text[k];
    }
  }
  return out;
}

/**
 * A code span of any text: fenced with one backtick more than the longest run inside
 * (padded with a space if it starts or ends with one), line breaks as spaces, so the text
 * cannot end the span early or the paragraph it is in.
 */
export function code(text: string): string {
  let s = '';
  let longest = 0;
  let run = 0;
  for (let k = 0; k < text.length; k++) {
    const ch = text[k];
    run = ch === '`' ? run + 1 : 0;
    if (run > longest) longest = run;
    s += ch === '\n' || ch === '\r' ? ' ' : ch;
  }
  // An empty span would be two backticks, which a later pair on the line could close.
  if (s === '') return '` `';
  const fence = '`'.repeat(longest + 1);
  const pad = s.startsWith('`') || s.endsWith('`') || (s.length > 1 && s.startsWith(' ') && s.endsWith(' ') && s.trim() !== '') ? ' ' : '';
  return fence + pad + s + pad + fence;
}

/** Inline Markdown for a line of model text: identifiers as code, the rest escaped, one line. */
export function mdInline(text: string): string {
  const s = oneLine(text);
  let out = '';
  let at = 0;
  for (const [start, end] of codeSpans(s)) {
    out += escapeProse(s.slice(at, start));
    out += code(s.slice(start, end));
    at = end;
  }
  out += escapeProse(s.slice(at));
  return out;
}

/**
 * A paragraph of prose: inline, and a first character that would start a block escaped
 * (a heading, quote, list item, thematic break or setext underline, or `[`: a link
 * reference definition or a footnote).
 */
export function mdParagraph(text: string): string {
  const s = mdInline(text);
  const c = s[0];
  if (c === '#' || c === '>' || c === '+' || c === '=' || c === '-' || c === '[') return '\\' + s;
  let d = 0;
  while (d < s.length && isDigit(s.charCodeAt(d))) d++;
  if (d > 0 && (s[d] === '.' || s[d] === ')')) return s.slice(0, d) + '\\' + s.slice(d);
  return s;
}

/** The text of an ATX heading: inline, and a trailing run of `#` (a closing sequence) escaped. */
export function mdHeading(text: string): string {
  const s = mdInline(text);
  let k = s.length;
  while (k > 0 && s[k - 1] === '#') k--;
  if (k === s.length || (k > 0 && s[k - 1] !== ' ')) return s;
  return s.slice(0, k) + '\\' + s.slice(k);
}

/** A link target the report may print as an autolink: http or https, nothing that ends it. */
export function safeUrl(url: string): boolean {
  if (!url.startsWith('http://') && !url.startsWith('https://')) return false;
  for (let k = 0; k < url.length; k++) {
    const c = url.charCodeAt(k);
    if (c <= 32 || c === 127 || c === 60 /* < */ || c === 62 /* > */) return false;
  }
  return true;
}
