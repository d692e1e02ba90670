/**
 * The layers of core/: every folder has a layer, and a file imports only from its own
 * folder, from a folder of a lower layer, or from another folder of the same layer, and the
 * imports form no cycle. The layers, bottom first, are below (LAYERS): the small helpers,
 * the Kafka domain and its formats, the scenario, the state machines, the simulation
 * kernel, what reads a run (narration, checks), the interactive session, whole-run studies
 * and the reports. A lower layer that reached up would make it impossible to use (or test)
 * it without what sits above it.
 *
 * Method: every .ts file under core/ (not tests) is parsed with the TypeScript parser; its
 * `import ... from`, `import type ... from` and `export ... from` specifiers that start with
 * a dot are resolved to files (`.js` as written, `.ts` on disk). Package imports (xstate,
 * yaml) are left out.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { ROOT } from './support/run.js';

/** Layer of each folder of core/, bottom first. */
const LAYERS: Record<string, number> = {
  util: 0,
  domain: 1,
  format: 1,
  ports: 1,
  scenario: 2,
  machines: 3,
  sim: 4,
  narrate: 5,
  check: 5,
  session: 6,
  study: 7,
  report: 8,
};

/** Layer of each subfolder of core/sim/, bottom first (README, "The kernel"). */
const SIM_LAYERS: Record<string, number> = {
  runtime: 0,
  checks: 0,
  state: 1,
  world: 2,
  loop: 3,
};

interface Edge {
  from: string;
  to: string;
  specifier: string;
}

function coreFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) out.push(relative(ROOT, p).split('\\').join('/'));
    }
  };
  walk(join(ROOT, 'core'));
  return out.sort();
}

/** The relative specifiers of a file's static imports and re-exports, type-only ones included. */
function specifiers(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const s of source.statements) {
    if (!ts.isImportDeclaration(s) && !ts.isExportDeclaration(s)) continue;
    if (s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier) && s.moduleSpecifier.text.startsWith('.')) out.push(s.moduleSpecifier.text);
  }
  return out;
}

/** core/<folder>/...: the folder that gives a file its layer. */
const folderOf = (file: string) => file.split('/')[1];
/** core/sim/<subfolder>/...: the subfolder that gives a file of core/sim its layer there. */
const simFolderOf = (file: string) => file.split('/')[2];
const inSim = (file: string) => file.startsWith('core/sim/');

/** The edges that import from a higher layer than their own, one line each. */
function upward(edges: readonly Edge[], folder: (file: string) => string, layers: Record<string, number>): string[] {
  return edges
    .filter((e) => layers[folder(e.to)] > layers[folder(e.from)])
    .map((e) => `${e.from} (${folder(e.from)}, layer ${layers[folder(e.from)]}) imports ${e.to} (${folder(e.to)}, layer ${layers[folder(e.to)]})`);
}

const FILES = coreFiles();
const EDGES: Edge[] = FILES.flatMap((from) =>
  specifiers(from, readFileSync(join(ROOT, from), 'utf8')).map((specifier) => {
    const target = resolve(ROOT, dirname(from), specifier.replace(/\.js$/, '.ts'));
    return { from, to: relative(ROOT, target).split('\\').join('/'), specifier };
  }),
);

/** The first cycle found in the graph, as a path that ends where it starts; null when there is none. */
function findCycle(nodes: readonly string[], edges: ReadonlyArray<{ from: string; to: string }>): string[] | null {
  const next = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const e of edges) next.get(e.from)?.push(e.to);
  // Depth-first: 1 while a node is on the current path, 2 once all below it is done.
  const mark = new Map<string, 1 | 2>();
  const path: string[] = [];
  const visit = (n: string): string[] | null => {
    mark.set(n, 1);
    path.push(n);
    for (const m of next.get(n) ?? []) {
      if (mark.get(m) === 1) return [...path.slice(path.indexOf(m)), m];
      if (mark.get(m) === undefined) {
        const found = visit(m);
        if (found) return found;
      }
    }
    path.pop();
    mark.set(n, 2);
    return null;
  };
  for (const n of nodes) {
    if (mark.get(n) !== undefined) continue;
    const found = visit(n);
    if (found) return found;
  }
  return null;
}

describe('the layers of core/', () => {
  test('the parser sees the imports (a sanity check of the method)', () => {
    expect(FILES.length).toBeGreaterThan(40);
    expect(EDGES.length).toBeGreaterThan(100);
    expect(EDGES).toContainEqual(expect.objectContaining({ from: 'core/study/compare-timeline.ts', to: 'core/session/session.ts' }));
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b/b.js';",
      'import {\n  c,\n  type D,\n} from "./c.js";',
      "import './side-effect.js';",
      "export { e } from './e.js';",
      "export * from '../f.js';",
      "export type { G } from './g.js';",
      "import { setup } from 'xstate';",
      '// import { h } from "./commented-out.js";',
      "const s = \"import { i } from './in-a-string.js'\";",
    ].join('\n');
    expect(specifiers('x.ts', text)).toEqual(['./a.js', '../b/b.js', './c.js', './side-effect.js', './e.js', '../f.js', './g.js']);
  });

  test('every relative import names a file under core/', () => {
    const broken = EDGES.filter((e) => !e.to.startsWith('core/') || !existsSync(join(ROOT, e.to))).map((e) => `${e.from}: '${e.specifier}'`);
    expect(broken).toEqual([]);
  });

  test('every folder of core/ has a layer', () => {
    const folders = [...new Set(FILES.map(folderOf))].filter((f) => !f.endsWith('.ts'));
    expect(folders.filter((f) => LAYERS[f] === undefined)).toEqual([]);
    expect(FILES.filter((f) => f.split('/').length < 3)).toEqual([]);
  });

  test('no import runs up a layer', () => {
    expect(upward(EDGES, folderOf, LAYERS)).toEqual([]);
  });

  test('the files import each other in no cycle', () => {
    const cycle = findCycle(FILES, EDGES);
    expect(cycle?.join(' -> ') ?? 'no cycle').toBe('no cycle');
  });

  test('the folders import each other in no cycle (folders of one layer may share code one way only)', () => {
    const folders = [...new Set(FILES.map(folderOf))];
    const across = EDGES.filter((e) => folderOf(e.from) !== folderOf(e.to)).map((e) => ({ from: folderOf(e.from), to: folderOf(e.to) }));
    const cycle = findCycle(folders, across);
    expect(cycle?.join(' -> ') ?? 'no cycle').toBe('no cycle');
  });

  test('the cycle finder names the path of a cycle', () => {
    expect(findCycle(['a', 'b', 'c'], [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'b' }])).toEqual(['b', 'c', 'b']);
    expect(findCycle(['a', 'b'], [{ from: 'a', to: 'b' }])).toBeNull();
  });
});

describe('the layers of core/sim/', () => {
  const SIM_FILES = FILES.filter(inSim);
  const SIM_EDGES = EDGES.filter((e) => inSim(e.from) && inSim(e.to));

  test('every file of core/sim/ is in a subfolder that has a layer', () => {
    expect(SIM_FILES.length).toBeGreaterThan(20);
    expect(SIM_FILES.filter((f) => f.split('/').length !== 4 || SIM_LAYERS[simFolderOf(f)] === undefined)).toEqual([]);
    expect(Object.keys(SIM_LAYERS).filter((folder) => !SIM_FILES.some((f) => simFolderOf(f) === folder))).toEqual([]);
  });

  test('no import inside core/sim/ runs up a layer', () => {
    expect(SIM_EDGES.length).toBeGreaterThan(50);
    expect(SIM_EDGES).toContainEqual(expect.objectContaining({ from: 'core/sim/loop/kernel.ts', to: 'core/sim/world/network.ts' }));
    expect(upward(SIM_EDGES, simFolderOf, SIM_LAYERS)).toEqual([]);
  });

  test('the subfolders of core/sim/ import each other in no cycle', () => {
    const across = SIM_EDGES.filter((e) => simFolderOf(e.from) !== simFolderOf(e.to)).map((e) => ({ from: simFolderOf(e.from), to: simFolderOf(e.to) }));
    const cycle = findCycle(Object.keys(SIM_LAYERS), across);
    expect(cycle?.join(' -> ') ?? 'no cycle').toBe('no cycle');
  });

  test('a lower subfolder importing a higher one is named (a check of the rule)', () => {
    const edge = (from: string, to: string): Edge => ({ from, to, specifier: '' });
    const wrong = [edge('core/sim/world/network.ts', 'core/sim/loop/kernel.ts'), edge('core/sim/loop/kernel.ts', 'core/sim/world/network.ts'), edge('core/sim/state/facts.ts', 'core/sim/runtime/machines.ts')];
    expect(upward(wrong, simFolderOf, SIM_LAYERS)).toEqual(['core/sim/world/network.ts (world, layer 2) imports core/sim/loop/kernel.ts (loop, layer 3)']);
  });
});
