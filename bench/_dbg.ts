import { readFileSync } from 'node:fs';
import { parseScenarioText } from '../core/scenario/parse.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { withBugs } from '../core/util/bugs.js';
import { buildRunJson } from '../core/sim/loop/output.js';
const r = parseScenarioText(readFileSync('/tmp/c1b.yaml', 'utf8'), 'c1');
if (!r.ok) throw new Error(JSON.stringify(r.problems));
withBugs(['followerServesPastHighWatermark'], () => {
  const k = new Kernel(r.scenario);
  k.runToEnd();
  const j = buildRunJson(k);
  for (const e of j.trace as any[]) if ((e.type === 'response' && e.target === 'consumer') || e.type === 'violation') console.log(JSON.stringify(e).slice(0, 300));
  console.log(JSON.stringify((j as any).violations ?? (j as any).invariants).slice(0, 500));
});
