/**
 * whatif --linger-ms with several values (core/study/linger-sweep.ts): each value's month at
 * steady state in every design, the same figure steady-cost.ts gives the scenario whatif
 * builds with that linger.ms; KIP-1176's fast-store request lines fall as the produce
 * requests grow, classic's do not depend on the batching.
 */
import { describe, expect, test } from 'vitest';
import { parseScenarioText } from '../core/scenario/parse.js';
import { WHATIF_DEFAULTS, buildWhatIf } from '../core/scenario/whatif.js';
import { scenarioForMode } from '../core/study/compare.js';
import { lingerSweep } from '../core/study/linger-sweep.js';
import { steadyStateCost } from '../core/study/steady-cost.js';
import { main } from '../src/cli/main.js';

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

const input = { ...WHATIF_DEFAULTS, tieredBytes: 1024 ** 3, localBytes: 40 * 1024 ** 2, segmentBytes: 16 * 1024 ** 2, produceBytesPerSec: 10_000_000 };

describe('the linger.ms sweep', () => {
  test("each point is steady-cost's month of the scenario whatif builds with that linger.ms", () => {
    const r = lingerSweep(input, [5, 100], ['classic', 'wal']);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    for (const p of r.points) {
      const w = buildWhatIf({ ...input, lingerMs: p.lingerMs });
      if (!w.ok) throw new Error(w.problem);
      const s = parseScenarioText(w.whatIf.body, 'w.yaml', { checkWork: false });
      if (!s.ok) throw new Error('parse');
      for (const m of ['classic', 'wal'] as const) expect(p.usdPerMonth[m]).toBe(steadyStateCost(scenarioForMode(s.scenario, m), m).month);
      expect(p.recordsPerProduce).toBe(w.whatIf.produce!.records);
    }
    // 10 MB/s of 1 KiB records: 9,766 a second; 49 records each 5 ms, 977 each 100 ms.
    expect(r.points.map((p) => [p.recordsPerProduce, p.everyMs])).toEqual([[49, 5], [977, 100]]);
    // Larger produce requests, fewer combiner objects: KIP-1176's requests cost less.
    expect(r.points[1].walRequestsUsdPerMonth!).toBeLessThan(r.points[0].walRequestsUsdPerMonth!);
  });

  test('the CLI prints the table after the compare, and --json gives lingerSweep', async () => {
    const args = ['whatif', '--tiered', '1GiB', '--local', '40MiB', '--segment-bytes', '16MiB', '--produce', '10MB/s', '--modes', 'classic,wal', '--until', '3000', '--linger-ms', '5,100'];
    const r = await cli(...args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("The month at steady state against the producer's linger.ms (--linger-ms 5,100; the figures above are for 5):");
    expect(r.stdout).toMatch(/\n {2}linger\.ms {2}each partition gets {7,}classic \/ month {2}wal \/ month {2}wal fast-store requests\n/);
    expect(r.stdout).toMatch(/\n {2}5 {10}49 records every 5 ms /);
    expect(r.stdout).toMatch(/\n {2}100 {8}977 records every 100 ms /);
    const j = await cli(...args, '--json');
    const doc = JSON.parse(j.stdout);
    expect(doc.lingerSweep.map((p: { lingerMs: number }) => p.lingerMs)).toEqual([5, 100]);
    expect(doc.whatif.assumed.produce.lingerMs).toBe(5);
  });

  test('refusals name the option', async () => {
    for (const [v, msg] of [
      ['5,x', '--linger-ms expects a whole number of ms, or a comma-separated list of them to sweep (5,50,200), got "5,x"'],
      ['1,2,3,4,5,6,7,8,9,10,11,12,13', '--linger-ms sweeps at most 12 values, got 13'],
    ]) {
      const r = await cli('whatif', '--linger-ms', v);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(msg);
    }
    const none = await cli('whatif', '--tiered', '1GiB', '--local', '40MiB', '--segment-bytes', '16MiB', '--produce', '0', '--linger-ms', '5,50', '--modes', 'classic', '--until', '2000');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--linger-ms with several values sweeps the producer; give a --produce above 0');
  });
});
