/**
 * The options of `import` that the CLI (src/cli/import.ts) and the page's "From your
 * cluster" panel read alike: `--tiered SIZE` (every partition of every tiered topic) or
 * `--tiered TOPIC=SIZE` (one topic's), and `--topic NAME` (repeated, or NAME,NAME).
 */
import { parseSize } from '../../util/size.js';

export type TieredOption = { ok: true; tieredBytes: number | null; tieredByTopic: Record<string, number> } | { ok: false; problem: string };

/** Each value of `--tiered` (a value may also list several, separated by commas). */
export function readTiered(values: readonly string[]): TieredOption {
  let tieredBytes: number | null = null;
  const tieredByTopic: Record<string, number> = {};
  for (const item of values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '')) {
    const m = /^([A-Za-z0-9._-]+)=(.*)$/.exec(item);
    const size = parseSize(m === null ? item : m[2]);
    if (!size.ok) return { ok: false, problem: `--tiered ${item}: ${size.why}` };
    if (m === null) {
      if (tieredBytes !== null) return { ok: false, problem: `--tiered SIZE is given twice (--tiered TOPIC=SIZE sets one topic's)` };
      tieredBytes = size.value;
    } else {
      if (Object.hasOwn(tieredByTopic, m[1])) return { ok: false, problem: `--tiered ${m[1]}=... is given twice` };
      tieredByTopic[m[1]] = size.value;
    }
  }
  return { ok: true, tieredBytes, tieredByTopic };
}

/** The topics of `--topic` (null: none named). */
export function readTopics(values: readonly string[]): string[] | null {
  const names = values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
  return names.length > 0 ? names : null;
}
