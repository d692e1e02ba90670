/**
 * The README's layout section matches the tree: every folder it names exists, and every
 * top-level folder of the repository (but the installed and generated ones) is named in it.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '..');
/** Folders a run or an install makes: git's own and what .gitignore names as a folder. */
const GENERATED = new Set([
  '.git',
  ...readFileSync(join(ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.endsWith('/'))
    .map((l) => l.slice(0, -1)),
]);

function layoutBlock(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf('## Layout');
  expect(at, 'README has a "## Layout" section').toBeGreaterThanOrEqual(0);
  const open = readme.indexOf('```', at);
  const close = readme.indexOf('```', open + 3);
  return readme.slice(readme.indexOf('\n', open) + 1, close).split('\n');
}

/** The folders the block names: a top-level `name/` at the line start, each child indented deeper under its parent. */
function namedFolders(lines: string[]): string[] {
  const out: string[] = [];
  const parents: Array<{ indent: number; name: string }> = [];
  for (const line of lines) {
    const m = /^( *)(\.?[a-z0-9-]+)\//.exec(line);
    if (m === null) continue;
    const indent = m[1].length;
    while (parents.length > 0 && parents[parents.length - 1].indent >= indent) parents.pop();
    parents.push({ indent, name: m[2] });
    out.push(parents.map((p) => p.name).join('/'));
  }
  return out;
}

describe("the README's layout", () => {
  const named = namedFolders(layoutBlock());

  it('names only folders that exist', () => {
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((f) => !existsSync(join(ROOT, f)) || !statSync(join(ROOT, f)).isDirectory())).toEqual([]);
  });

  it('reads a folder indented under a child as a grandchild', () => {
    expect(namedFolders(['core/  x', '  sim/  y', '    loop/ z', '              continued', '  util/ w', 'web/'])).toEqual(['core', 'core/sim', 'core/sim/loop', 'core/util', 'web']);
  });

  it('names every top-level folder of the repository, and every folder of core/, core/sim/, src/ and web/', () => {
    const top = readdirSync(ROOT).filter((f) => statSync(join(ROOT, f)).isDirectory() && !GENERATED.has(f));
    const inner = ['core', 'core/sim', 'src', 'web'].flatMap((d) => readdirSync(join(ROOT, d)).filter((f) => statSync(join(ROOT, d, f)).isDirectory()).map((f) => `${d}/${f}`));
    expect([...top, ...inner].filter((f) => !named.includes(f))).toEqual([]);
  });
});
