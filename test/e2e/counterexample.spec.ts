/**
 * A counterexample of the exhaustive checker (docs/checking.md) animates in the walkthrough:
 * its URL holds the saved scenario, whose pinned `choices` make the page take the path the
 * checker found. Here the follower's read of the leader-epoch checkpoint fails (a pinned
 * storeFault) and the run ends with the known finding's violation, as `run` shows it.
 */
import { join } from 'node:path';
import { exhaustive } from '../../core/check/exhaustive.js';
import { toScenarioFile } from '../../core/scenario/serialize.js';
import { parseScenarioText } from '../../core/scenario/parse.js';
import { encodeUrlState } from '../../web/lib/url.js';
import { readFileSync } from 'node:fs';
import { ROOT, SHOTS, expect, test } from './fixtures.js';

test('a counterexample with a failed store request replays step by step in the walkthrough', async ({ page }) => {
  const parsed = parseScenarioText(readFileSync(join(ROOT, 'scenarios', 'kip1023-bootstrap.yaml'), 'utf8'), 'kip1023-bootstrap.yaml');
  if (!parsed.ok) throw new Error('bundled scenario invalid');
  const r = exhaustive(parsed.scenario, 'kip1023-bootstrap', { bounds: { crashes: 0, storeFaults: 1 } });
  const v = r.violations.find((x) => x.known === 'auxStateIncomplete')!;
  expect(v.scenario.choices).toEqual([expect.objectContaining({ kind: 'storeFault', pick: 1, what: expect.stringContaining('leader_epoch_checkpoint') })]);
  const text = JSON.stringify(toScenarioFile(v.scenario), null, 2);
  await page.goto(`/?${encodeUrlState({ source: text, seed: 1, actions: [] })}`);
  await expect(page.getByTestId('step')).toHaveText('0');
  const forward = page.getByTestId('step-forward');
  // Step until the failed read shows, then to the end.
  let seenAt = -1;
  for (let i = 0; i < 40 && seenAt < 0; i++) {
    await forward.click();
    if ((await page.getByText(/leader_epoch_checkpoint.*InternalError/).count()) > 0) seenAt = Number(await page.getByTestId('step').textContent());
  }
  expect(seenAt).toBeGreaterThan(0);
  await page.screenshot({ path: join(SHOTS, 'counterexample-store-fault.png') });
  while (!(await forward.isDisabled())) await forward.click();
  await expect(page.getByText(/followerEpochsMatchLeader: in-sync follower 1 orders-0: committed offset 10 is in epoch -1 there/).filter({ visible: true }).first()).toBeVisible();
  await page.screenshot({ path: join(SHOTS, 'counterexample-end.png') });
});
