/** `npm run coverage:machines [-- --json]`: see core/check/machine-coverage.ts. Exit 1 unless complete. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { formatMachineCoverage, machineCoverage } from '../core/check/machine-coverage.js';
import { parseScenarioText } from '../core/scenario/parse.js';
import type { Scenario } from '../core/scenario/types.js';

const dir = join(import.meta.dirname, '..', 'scenarios');
const scenarios: Scenario[] = [];
for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml')).sort()) {
  const r = parseScenarioText(readFileSync(join(dir, f), 'utf8'), f);
  if (r.ok) scenarios.push(r.scenario);
}
const result = machineCoverage(scenarios);
if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
else console.log(formatMachineCoverage(result));
process.exitCode = result.complete ? 0 : 1;
