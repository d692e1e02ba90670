import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseScenarioText } from '/work/wt-cfg/core/scenario/parse.js';
import { loadConformance } from '/work/wt-cfg/src/conformance.js';
import { Kernel } from '/work/wt-cfg/core/sim/loop/kernel.js';
import { buildRunJson } from '/work/wt-cfg/core/sim/loop/output.js';
const root = '/work/wt-cfg';
const files: string[] = [];
for (const d of ['scenarios', 'test/fixtures', 'bench']) {
  if (!existsSync(join(root, d))) continue;
  for (const f of readdirSync(join(root, d), { recursive: true }) as string[]) if (/\.ya?ml$/.test(f)) files.push(join(d, f));
}
for (const f of files) {
  const r = parseScenarioText(readFileSync(join(root, f), 'utf8'), f, { checkWork: false });
  if (!r.ok) { const ps = r.problems.filter((p) => p.message.includes('Kafka refuses to create')); if (ps.length) console.log('CREATE', f, ps.map((p) => p.path + ' ' + p.message).join(' | ')); continue; }
  if (process.argv[2] === 'run' && !f.startsWith('bench') && !f.includes('limits')) {
    console.error('run', f); try { const k = new Kernel(r.scenario); k.runToEnd(); for (const e of buildRunJson(k).trace as any[]) if (e.type === 'config' && e.action === 'refused') console.log('ALTER', f, e.atMs, e.topic, e.message); } catch (e) { console.log('ERR', f, String(e).slice(0, 100)); }
  }
}
const { cases, problems } = loadConformance();
for (const p of problems) if (p.includes('Kafka refuses')) console.log('CONF', p);
for (const c of cases) { const k = new Kernel(c.scenario); k.runToEnd(); for (const e of buildRunJson(k).trace as any[]) if (e.type === 'config' && e.action === 'refused') console.log('CONF-ALTER', c.file, e.atMs, e.message); }
