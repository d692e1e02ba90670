/**
 * Reading the text of a scenario file: YAML (JSON is YAML) with safe options, into the
 * plain value that validation checks. Syntax errors, duplicate keys and unsupported tags
 * are problems with a line and column (and the path, where one can be found).
 */
import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';
import type { DocumentOptions, ParseOptions, SchemaOptions, YAMLError } from 'yaml';
import { MAX_PROBLEMS, MAX_YAML_ALIASES, indexPath, keyPath, q, truncate } from './checks.js';
import type { InputProblem } from './types.js';

/** Safe options: YAML 1.2 core schema only (no custom or YAML 1.1 tags, no merge keys). */
const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.2',
  schema: 'core',
  customTags: [],
  resolveKnownTags: false,
  merge: false,
  // Duplicate keys are found by duplicateKeys() below: the reader's own check compares
  // each key with every earlier one of its map (minutes for a map of 100,000 keys).
  uniqueKeys: false,
  stringKeys: true,
  strict: true,
  intAsBigInt: false,
  prettyErrors: false,
  // 'silent' would also hide the multiple-documents error; 'error' only hides warnings
  // that the yaml package would print on the console.
  logLevel: 'error',
};

/**
 * The path (as in problems) of the node at `pos` in a parsed document, or '', and the
 * last map key on the way.
 */
function pathAt(root: unknown, pos: number): { path: string; key: string } {
  let node: unknown = root;
  let path = '';
  let lastKey = '';
  const done = () => ({ path, key: lastKey });
  for (let depth = 0; depth < 1000 && node; depth++) {
    if (isMap(node)) {
      let found: { key: string; keyRange?: readonly number[] | null; value: unknown } | undefined;
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = pair.key;
        const start = isScalar(key) && key.range ? key.range[0] : undefined;
        if (start === undefined || start > pos) break;
        found = { key: isScalar(key) ? String(key.value) : '', keyRange: isScalar(key) ? key.range : undefined, value: pair.value };
      }
      if (!found) return done();
      path = keyPath(path, found.key);
      lastKey = found.key;
      if (found.keyRange && pos < found.keyRange[1]) return done();
      node = found.value;
    } else if (isSeq(node)) {
      let index = -1;
      node.items.forEach((item, i) => {
        const range = (item as { range?: readonly number[] | null }).range;
        if (range && range[0] <= pos) index = i;
      });
      if (index < 0) return done();
      path = indexPath(path, index);
      node = node.items[index];
    } else {
      return done();
    }
  }
  return done();
}

function yamlMessage(e: YAMLError): string {
  const first = e.message.split('\n')[0];
  // The parser's own recursion limit: say what it means for the file.
  if (/Maximum call stack size exceeded/.test(first)) return 'the document is nested too deeply to read (a scenario needs a few levels)';
  return truncate(first, 300);
}

/**
 * Reads a scenario from YAML or JSON text and validates it. A YAML syntax error is
 * reported as a problem at path '' with its line and column; never throws.

/**
 * What reading gave: the plain value (null or undefined for an empty document) with the
 * problems that still let it be checked (duplicate keys, warnings), or only problems.
 * `total` counts every problem found; only the first MAX_PROBLEMS are in `problems`.
 */
export type YamlRead =
  | { ok: true; value: unknown; problems: InputProblem[]; total: number }
  | { ok: false; problems: InputProblem[]; total: number };

/**
 * Every key that appears again in its map, with its path and position, in document order
 * (at most `max`; `count` is all of them). Walks the node tree with a stack (no recursion
 * limit) and does not follow aliases.
 */
function duplicateKeys(root: unknown, max: number): { found: Array<{ path: string; key: string; pos: number }>; count: number } {
  const found: Array<{ path: string; key: string; pos: number }> = [];
  let count = 0;
  const stack: Array<{ node: unknown; path: string }> = [{ node: root, path: '' }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    const children: Array<{ node: unknown; path: string }> = [];
    if (isMap(node)) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const k = pair.key;
        const key = isScalar(k) ? String(k.value) : undefined;
        if (isScalar(k) && key !== undefined) {
          if (seen.has(key)) {
            count++;
            if (found.length < max) found.push({ path: keyPath(path, key), key, pos: k.range?.[0] ?? 0 });
          } else seen.add(key);
        }
        children.push({ node: pair.value, path: keyPath(path, key ?? '') });
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => children.push({ node: item, path: indexPath(path, i) }));
    }
    // Pushed in reverse, popped in document order.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  found.sort((a, b) => a.pos - b.pos);
  return { found, count };
}

/** Reads YAML or JSON text into a plain value; `fileName` is named in line and column references. */
export function readYaml(text: string, fileName?: string): YamlRead {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
  const where = (pos: number): string => {
    const { line, col } = lineCounter.linePos(pos);
    return `${fileName ? `${fileName}, ` : ''}line ${line}, column ${col}`;
  };
  // Messages are made for the first MAX_PROBLEMS only (each costs a walk to its path); the rest are counted.
  const ordered: Array<{ pos: number; problem: InputProblem }> = [];
  let total = 0;
  let fatal = false;
  for (const e of doc.errors) {
    fatal = true;
    total++;
    if (ordered.length < MAX_PROBLEMS) ordered.push({ pos: e.pos[0], problem: { path: '', message: `YAML syntax error (${where(e.pos[0])}): ${yamlMessage(e)}` } });
  }
  const dups = duplicateKeys(doc.contents, MAX_PROBLEMS);
  total += dups.count;
  for (const d of dups.found) {
    ordered.push({ pos: d.pos, problem: { path: d.path, message: `duplicate key ${q(d.key)} (${where(d.pos)}); a key may appear only once in a map` } });
  }
  ordered.sort((a, b) => a.pos - b.pos);
  const problems = ordered.slice(0, MAX_PROBLEMS).map((x) => x.problem);
  for (const w of doc.warnings) {
    total++;
    if (problems.length >= MAX_PROBLEMS) continue;
    const { path } = pathAt(doc.contents, w.pos[0]);
    const message = w.code === 'TAG_RESOLVE_FAILED'
      ? `unsupported YAML tag (${where(w.pos[0])}): ${yamlMessage(w)}; tags are not allowed in scenario files`
      : `YAML problem (${where(w.pos[0])}): ${yamlMessage(w)}`;
    problems.push({ path, message });
  }
  if (fatal) return { ok: false, problems, total };

  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }), problems, total };
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    const hint = /alias/i.test(detail) ? ` (at most ${MAX_YAML_ALIASES} aliases are allowed)` : '';
    problems.push({ path: '', message: `YAML could not be read${fileName ? ` (${fileName})` : ''}: ${truncate(detail, 200)}${hint}` });
    return { ok: false, problems, total: total + 1 };
  }
}
