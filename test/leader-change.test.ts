/**
 * Leader changes in the kernel: a follower whose last fetched epoch the new leader never
 * wrote must truncate once and go on fetching, not loop on diverging answers.
 */
import { expect, test } from 'vitest';
import { validateScenario } from '../core/scenario/parse.js';
import { Kernel } from '../core/sim/loop/kernel.js';
import { buildRunJson } from '../core/sim/loop/output.js';
import type { Loose } from './support/run.js';

test('two clean elections in a row: the follower truncates once and catches up', () => {
  // Goal: regression for the diverging-epoch livelock (stale lastFetchedEpoch after truncation).
  // Method: 50 records in epoch 0; elect broker 1 (epoch 1, writes nothing), then broker 0
  // (epoch 2); produce 10 more; the follower must reach the leader's LEO.
  const parsed = validateScenario({
    name: 'two elections',
    brokers: 2,
    topics: [{ name: 't', partitions: 1, replicas: [[0, 1]] }],
    timeline: [
      { at: 0, produce: { topic: 't', partition: 0, records: 50, acks: 1 } },
      { at: 100, electLeader: { topic: 't', partition: 0, broker: 1 } },
      { at: 200, electLeader: { topic: 't', partition: 0, broker: 0 } },
      { at: 300, produce: { topic: 't', partition: 0, records: 10, acks: 'all' } },
    ],
    until: 2000,
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const k = new Kernel(parsed.scenario);
  k.runToEnd();
  const json = buildRunJson(k);
  const p = json.partitions[0];
  expect(p.leader).toBe(0);
  expect(p.leaderEpoch).toBe(2);
  const f = p.replicas.find((r) => r.broker === 1)!;
  expect(f.logEndOffset).toBe(60);
  expect(f.highWatermark).toBe(60);
  const fetches = json.trace.filter((e) => e.type === 'request' && (e as Loose).api === 'Fetch' && (e as Loose).source === 1);
  expect(fetches.length).toBeLessThan(30);
  expect(json.violations).toEqual([]);
});
