/** A scenario written back to the file format reads as the same scenario (swarm runs save theirs). */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseScenarioText } from '../core/scenario/parse.js';
import { toScenarioFile } from '../core/scenario/serialize.js';
import { ROOT, loadBundled } from './support/run.js';

const bundled = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));

describe('scenario serialization', () => {
  test.each(bundled)('%s round-trips', (name) => {
    const s = loadBundled(name);
    const r = parseScenarioText(JSON.stringify(toScenarioFile(s)), `${name}.json`);
    expect(r.ok ? r.scenario : r.problems).toEqual(s);
  });
});
