/**
 * A run `explore` found (a swarm seed, or an exhaustive counterexample), saved as a scenario
 * file in explore-failures/, with the `run` command that replays it and the walkthrough URL
 * that animates it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BugName } from '../../core/util/bugs.js';
import { encodePageLink } from '../../web/lib/url.js';
import { writeWhole } from './output-file.js';

export interface Replay {
  file: string;
  command: string;
  /** '' when there is none to give (a path that needs a planted bug the walkthrough never plants). */
  url: string;
}

/**
 * Writes explore-failures/NAME.json; returns how to replay it, and why it could not be
 * written (null when it was). `seed` is passed to `run` when given, and to the walkthrough.
 */
export function saveReplay(
  name: string,
  scenarioFile: Record<string, unknown>,
  o: { seed?: number; urlSeed: number; plantBug: BugName | null; url: boolean },
): { replay: Replay; problem: string | null } {
  const file = join('explore-failures', `${name}.json`);
  const text = JSON.stringify(scenarioFile, null, 2);
  let problem: string | null;
  try {
    mkdirSync('explore-failures', { recursive: true });
    problem = writeWhole(file, text + '\n');
  } catch (e) {
    problem = `explore-failures cannot be made (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  const command = `npm run sim -- run ${file}${o.seed !== undefined ? ` --seed ${o.seed}` : ''}${o.plantBug !== null ? ` --plant-bug ${o.plantBug}` : ''}`;
  // The scenario in the fragment, as the page writes it (web/lib/url.ts): no server sees it.
  const url = o.url ? `http://localhost:5173/${encodePageLink({ source: text, seed: o.urlSeed, actions: [] }).link}` : '';
  return { replay: { file, command, url }, problem };
}
