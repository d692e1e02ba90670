/**
 * Model-based tests, item 3: the swarm. Bounded here (a few seeds); `npm run sim -- explore
 * --seeds 2000` is the full run. It finds nothing new on the model as it is, finds a
 * deliberate bug within a bounded number of seeds, and the run it saves replays it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FAULT_KINDS, faultSchedule, withFaults } from '../core/check/faults.js';
import { withBugs } from '../core/util/bugs.js';
import { parseScenarioText } from '../core/scenario/parse.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { explore } from '../src/explore.js';
import { decodeUrlState } from '../web/lib/url.js';
import { ROOT, cliIn, loadBundled } from './support/run.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const small = ['kip1023-bootstrap', 'classic-two-rounds', 'wal-failover-chunks-in-flight', 'failover-during-bootstrap', 'steady-state-upload'].map((file) => ({ file, scenario: loadBundled(file) }));

const cli = (args: string[], cwd: string) => cliIn(args, cwd);

describe('fault schedules', () => {
  test('the same seed gives the same schedule; faults come in pairs that end them', () => {
    const s = loadBundled('steady-state-upload');
    expect(faultSchedule(s, 7, FAULT_KINDS)).toEqual(faultSchedule(s, 7, FAULT_KINDS));
    expect(faultSchedule(s, 7, FAULT_KINDS)).not.toEqual(faultSchedule(s, 8, FAULT_KINDS));
    for (let seed = 1; seed <= 50; seed++) {
      const f = faultSchedule(s, seed, ['crash']);
      expect(f.length % 2).toBe(0);
      expect(f.filter((e) => e.action.kind === 'crash').length).toBe(f.filter((e) => e.action.kind === 'restart').length);
      for (const e of f) expect(e.at).toBeLessThanOrEqual(s.until);
    }
    // The run's own random stream is untouched: the seed is the run's seed.
    expect(withFaults(s, 9, []).seed).toBe(9);
  });
});

describe('explore (swarm)', () => {
  test('bounded swarm on bundled scenarios: no new violation, every core used, throughput reported', async () => {
    const r = await explore({ scenarios: small, seeds: 40, kinds: [...FAULT_KINDS] });
    expect(r.failure?.violations ?? []).toEqual([]);
    expect(r.failure?.error).toBeUndefined();
    expect(r.runs).toBe(40);
    expect(r.workers).toBeGreaterThanOrEqual(Math.min(2, 40));
    expect(r.seedsPerSecond).toBeGreaterThan(0);
  }, 120000);

  test('a deliberate bug is found within 20 seeds, and the saved run replays it', async () => {
    const r = await explore({ scenarios: small, seeds: 20, kinds: ['crash', 'store'], bugs: ['hwWithoutIsr'] });
    expect(r.failure).not.toBeNull();
    expect(r.failure!.violations[0].invariant).toBe('highWatermarkWithinIsr');
    // The scenario it saves (faults in the timeline) shows the same violation with the bug on.
    const k = withBugs(['hwWithoutIsr'], () => {
      const kk = new Kernel(r.failure!.scenarioObject);
      kk.runToEnd();
      return kk;
    });
    expect(k.state.violations.map((v) => v.invariant)).toContain('highWatermarkWithinIsr');
  }, 120000);

  test('the CLI: progress, throughput, and exit codes; bad options exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tierscope-explore-'));
    dirs.push(dir);
    const ok = await cli(['explore', '--seeds', '6', '--scenario', 'kip1023-bootstrap', '--faults', 'crash,store'], dir);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/6 seeds over 1 scenario \(faults: crash, store\) in [\d.]+ s on \d+ workers: [\d.]+ seeds\/s/);
    expect(ok.stdout).toContain('no new violation');
    const json = await cli(['explore', '--seeds', '4', '--scenario', 'classic-two-rounds', '--json'], dir);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ runs: 4, failure: null });
    const bad = await cli(['explore', '--faults', 'crash,meteor'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--faults expects a comma-separated list of crash, partition, store, slow, config, got "crash,meteor"');
  }, 120000);

  test('a saved failing run opens in the walkthrough and replays with run', () => {
    // What the CLI writes for a failure: the scenario file and a URL holding it.
    const s = withFaults(loadBundled('failover-during-bootstrap'), 4, FAULT_KINDS);
    const text = JSON.stringify(s);
    const url = `?src=${Buffer.from(text).toString('base64url')}&seed=4`;
    const decoded = decodeUrlState(url);
    expect(decoded.problems).toEqual([]);
    expect(decoded.state.seed).toBe(4);
    expect(JSON.parse(decoded.state.source!)).toEqual(JSON.parse(text));
    expect(readFileSync(join(ROOT, 'conformance', 'finding-aux-state-skipped-after-retry.yaml'), 'utf8')).toContain('seed 4');
    expect(parseScenarioText(readFileSync(join(ROOT, 'scenarios', 'kip1023-bootstrap.yaml'), 'utf8'), 'x.yaml').ok).toBe(true);
  });
});
