/**
 * The inline Markdown of the report (core/report/md-inline.ts) and Mermaid's text
 * (core/report/mermaid.ts) scan their input once: the identifiers shown as code are the
 * spans the regular expression they replace matched (compared on every narrated line of
 * the bundled chapters and on 20,000 random strings), the escaping is the old escaping
 * except where that let markup through, code spans hold any text, and inputs of 300,000
 * characters of the shapes that made the expressions quadratic finish well inside the test
 * timeout (60 s): a fraction of a second each here, where the old expressions took 30 s
 * for 100,000 characters, so about 4.5 minutes for these.
 *
 * No timing is asserted: the structural check is that md-inline.ts holds no regular
 * expression, and the large inputs run into the timeout if a quadratic scan comes back.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { CHAPTERS } from '../core/report/chapters.js';
import { code, codeSpans, escapeProse, mdHeading, mdInline, mdParagraph, oneLine, safeUrl } from '../core/report/md-inline.js';
import { mermaidText } from '../core/report/mermaid.js';
import { buildReport, renderReport } from '../core/report/report.js';
import { loadBundled, ROOT } from './support/run.js';

/** The expression codeSpans replaces, as markdown.ts had it. */
const CODE = /(\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b(?:LATEST|EARLIEST)\b|\b[a-z][a-z0-9]*(?:\.[a-z0-9]+){2,}\b|(?<![\w])__[a-z][a-z_]*|[\w.-]+\/[\w.-]+\.[A-Za-z_]+\b|\b[a-z]+[A-Z][A-Za-z]*\([^()\s]*\))/g;
const regexSpans = (s: string) => [...s.matchAll(CODE)].map((m) => [m.index, m.index + m[0].length]);

/** The escaping markdown.ts had. */
const oldEscape = (s: string) =>
  s.replace(/([\\`*~])/g, '\\$1').replace(/(^|[^A-Za-z0-9])_/g, '$1\\_').replace(/&(?=#?\w+;)/g, '&amp;').replace(/<(?=[A-Za-z/!?])/g, '&lt;');

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces that reach every branch of the expression: letters of each case, digits, `_ . - / ( )`, names it knows. */
const PIECES = ['a', 'z', 'b', 'A', 'Z', 'B', '0', '9', '_', '__', '.', '-', '/', '(', ')', ' ', '\t', '`', ']', '[', '&', ';', '#', '<', '!', '*', 'é', 'LATEST', 'EARLIEST', 'OFFSET_OUT', 'x.y.z', 'aB(', 'docs/p.md', 'L', 'E'];

function randomStrings(count: number, seed: number): string[] {
  const next = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = '';
    const len = Math.floor(next() * 16);
    for (let k = 0; k < len; k++) s += PIECES[Math.floor(next() * PIECES.length)];
    out.push(s);
  }
  return out;
}

/** Every narrated line and stop text of the bundled chapters: the text the report really renders. */
function bundledLines(): string[] {
  const lines: string[] = [];
  for (const c of CHAPTERS) {
    const r = buildReport(loadBundled(c.scenario), { chapter: c, modes: [] });
    for (const l of r.lines) if (l !== null) lines.push(oneLine(l));
    lines.push(c.summary, ...c.stops.map((s) => s.text), r.scenario.description);
  }
  return lines;
}

/** What a CommonMark reader takes from a code span (spec 6.1), or null if `md` is not exactly one. */
function readCodeSpan(md: string): string | null {
  let n = 0;
  while (md[n] === '`') n++;
  if (n === 0) return null;
  // The closing run: the first later run of exactly n backticks.
  for (let k = n; k < md.length; ) {
    if (md[k] !== '`') {
      k++;
      continue;
    }
    let e = k;
    while (md[e] === '`') e++;
    if (e - k === n) {
      if (e !== md.length) return null;
      let inner = md.slice(n, k).replace(/\n/g, ' ');
      if (inner.length >= 2 && inner.startsWith(' ') && inner.endsWith(' ') && inner.trim() !== '') inner = inner.slice(1, -1);
      return inner;
    }
    k = e;
  }
  return null;
}

describe('identifiers as code, in one pass', () => {
  test('the same spans as the old expression on every bundled chapter line', () => {
    const lines = bundledLines();
    expect(lines.length).toBeGreaterThan(200);
    for (const l of lines) expect(codeSpans(l), l).toEqual(regexSpans(l));
  });

  test('the same spans as the old expression on 20,000 random strings', () => {
    for (const s of randomStrings(20_000, 17)) expect(codeSpans(s), JSON.stringify(s)).toEqual(regexSpans(s));
  });

  test('md-inline.ts holds no regular expression (every function there is a scan)', () => {
    const file = join(ROOT, 'core', 'report', 'md-inline.ts');
    const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const found: string[] = [];
    const visit = (node: ts.Node) => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) found.push(node.getText());
      if (ts.isNewExpression(node) || ts.isCallExpression(node)) {
        if (node.expression.getText() === 'RegExp') found.push(node.getText());
      }
      ts.forEachChild(node, visit);
    };
    visit(src);
    expect(found).toEqual([]);
  });
});

describe('escaping', () => {
  test('the old escaping, except for a ] that would close a link and a second _ of a run', () => {
    for (const s of [...randomStrings(20_000, 23), ...bundledLines()]) {
      if (/\]\(|\]\[|__/.test(s)) continue;
      expect(escapeProse(s), JSON.stringify(s)).toBe(oldEscape(s));
    }
  });

  test.each([
    ['[click](javascript:alert(1))', '[click\\](javascript:alert(1))'],
    ['![i](data:text/html,x)', '![i\\](data:text/html,x)'],
    ['[y][d] and [y][]', '[y\\][d] and [y\\][]'],
    ['[0, 99] remote only', '[0, 99] remote only'],
    ['(__a_)', '(\\_\\_a_)'],
    ['<script>alert(1)</script>', '&lt;script>alert(1)&lt;/script>'],
    ['<!-- c --> <?x?> <javascript:x>', '&lt;!-- c --> &lt;?x?> &lt;javascript:x>'],
    ['&#x3C; &lt; & x', '&amp;#x3C; &amp;lt; & x'],
    ['\\] and \\`', '\\\\] and \\\\\\`'],
  ])('escapeProse(%j)', (input, out) => expect(escapeProse(input)).toBe(out));

  test('a paragraph cannot start a block, a link definition or a footnote', () => {
    expect(mdParagraph('[d]: javascript:alert(1)')).toBe('\\[d]: javascript:alert(1)');
    expect(mdParagraph('[^1]: note')).toBe('\\[^1]: note');
    expect(mdParagraph('# not a heading')).toBe('\\# not a heading');
    expect(mdParagraph('> quote')).toBe('\\> quote');
    expect(mdParagraph('12. item')).toBe('12\\. item');
    expect(mdParagraph('3) item')).toBe('3\\) item');
    expect(mdParagraph('- item')).toBe('\\- item');
    expect(mdParagraph('plain')).toBe('plain');
  });

  test("a heading's trailing # is text, not a closing sequence", () => {
    expect(mdHeading('Evil #')).toBe('Evil \\#');
    expect(mdHeading('###')).toBe('\\###');
    expect(mdHeading('C# and F#')).toBe('C# and F#');
    expect(mdHeading('plain')).toBe('plain');
  });

  test('only http and https links become autolinks', () => {
    expect(safeUrl('http://localhost:5173/?chapter=x')).toBe(true);
    expect(safeUrl('https://example.com/a?b=c#d')).toBe(true);
    for (const u of ['javascript:alert(1)', 'data:text/html,x', 'vbscript:x', 'file:///etc/passwd', 'http://x/ y', 'http://x/>y', 'http://x/\u001b']) expect(safeUrl(u), u).toBe(false);
  });
});

describe('code spans hold any text', () => {
  test.each(['x', '', ' ', '`', '``', 'a`b', 'a``b`', '`a', 'a`', ' a ', 'a\nb', '\n\n', 'x | y', ' `` '])('code(%j) reads back as the text', (s) => {
    // The empty text is one space: two backticks alone would be no span, and a later pair could close them.
    expect(readCodeSpan(code(s))).toBe(s === '' ? ' ' : s.replace(/[\r\n]/g, ' '));
  });

  test('on random text with backticks, spaces and line breaks', () => {
    const next = rng(5);
    const alphabet = ['`', '`', ' ', '\n', 'a', '<', '|'];
    for (let i = 0; i < 5_000; i++) {
      let s = '';
      for (let k = Math.floor(next() * 12); k > 0; k--) s += alphabet[Math.floor(next() * alphabet.length)];
      expect(readCodeSpan(code(s)), JSON.stringify(s)).toBe(s === '' ? ' ' : s.replace(/\n/g, ' '));
    }
  });

  test('a Kafka name with no backtick is fenced as before', () => {
    expect(code('OFFSET_OUT_OF_RANGE')).toBe('`OFFSET_OUT_OF_RANGE`');
    expect(mdInline('call fooBar(`x) now')).toBe('call ``fooBar(`x)`` now');
  });
});

describe('300,000 characters of the shapes that were quadratic', () => {
  const N = 300_000;
  const shapes: Record<string, string> = {
    'one long word': 'a'.repeat(N),
    'one long upper-case word with underscores': 'A_'.repeat(N / 2),
    'camel case': 'aB'.repeat(N / 2),
    'dotted words': 'a.'.repeat(N / 2),
    'backticks': '`'.repeat(N),
    'unclosed code spans': '`a'.repeat(N / 2),
    'brackets': '['.repeat(N / 2) + ']('.repeat(N / 4),
    'emphasis and underscores': '*_'.repeat(N / 2),
    'entities and tags': '&#x3C;<a'.repeat(N / 10),
    'calls that never close': 'aB('.repeat(N / 3),
    'paths without an extension': 'a/'.repeat(N / 2),
  };
  test.each(Object.keys(shapes))('mdInline on %s', (name) => {
    const s = shapes[name];
    const md = mdInline(s);
    expect(md.length).toBeGreaterThanOrEqual(s.length);
    expect(md.length).toBeLessThanOrEqual(6 * s.length);
  });

  test('mermaidText on 300,000 spaces, and on spaces around line breaks', () => {
    expect(mermaidText('a' + ' '.repeat(N) + 'b')).toBe('a' + ' '.repeat(N) + 'b');
    expect(mermaidText('a' + ' \n '.repeat(N / 3) + 'b')).toBe('a b');
    expect(mermaidText('a \t\r\n b\tc')).toBe('a b\tc');
  });

  test('a report of a scenario with a 300,000-character description and name', () => {
    const scenario = { ...loadBundled('kip1023-bootstrap'), name: 'aB'.repeat(N / 2), description: 'a'.repeat(N / 2) + '`['.repeat(N / 4) };
    const md = renderReport(buildReport(scenario, { modes: [] }), 'md');
    expect(md).toContain('a'.repeat(N / 2));
  });
});
