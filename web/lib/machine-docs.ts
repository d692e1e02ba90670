/**
 * The machines' doc comments, for the statechart view: the sources of core/machines/ read
 * at build time (Vite's `?raw`; only the lazily loaded view imports this, so the text loads
 * with it). Each `/** ... *\/` right before a `name:` (a state, a guard, an effect, an
 * action) is that name's doc in its file; the comment that opens the file is the machine's.
 */
import type { MachineName } from '../../core/sim/runtime/machines.js';

const SOURCES = import.meta.glob('../../core/machines/*.ts', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

export const MACHINE_FILES: Record<MachineName, string> = {
  fetcher: 'follower-fetcher.ts',
  leader: 'leader-partition.ts',
  rlm: 'remote-log-manager.ts',
  rlmExpiration: 'rlm-expiration.ts',
  logRetention: 'log-retention.ts',
  walReplica: 'wal-replica.ts',
  walCombiner: 'wal-combiner.ts',
};

export interface MachineDocs {
  file: string;
  /** The file's opening comment. */
  machine: string;
  /** Name (state key, guard, action) -> its doc comment (the first one in the file). */
  names: Map<string, string>;
}

const clean = (c: string) =>
  c
    .split('\n')
    .map((l) => l.replace(/^\s*\*\s?/, '').trim())
    .join('\n')
    .replace(/([^\n])\n(?=[^\n])/g, '$1 ')
    .trim();

export function parseDocs(file: string, src: string): MachineDocs {
  const head = /^\s*\/\*\*([\s\S]*?)\*\//.exec(src);
  const names = new Map<string, string>();
  for (const m of src.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*\n\s*['"]?([A-Za-z0-9_.]+)['"]?\s*[:(]/g)) {
    if (!names.has(m[2])) names.set(m[2], clean(m[1]));
  }
  for (const m of src.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*\n\s*(?:export\s+)?(?:const|function)\s+([A-Za-z0-9_]+)/g)) {
    if (!names.has(m[2])) names.set(m[2], clean(m[1]));
  }
  return { file: `core/machines/${file}`, machine: head ? clean(head[1]) : '', names };
}

const cache = new Map<MachineName, MachineDocs>();

export function docsOf(name: MachineName): MachineDocs {
  let d = cache.get(name);
  if (d === undefined) {
    const file = MACHINE_FILES[name];
    const src = Object.entries(SOURCES).find(([k]) => k.endsWith(`/${file}`))?.[1] ?? '';
    d = parseDocs(file, src);
    cache.set(name, d);
  }
  return d;
}
