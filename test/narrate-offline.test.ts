/**
 * Narration around a crashed leader (docs/protocol.md, "Brokers"): a request to a broker that
 * is down is told as a network error only (the ISR change is told by its own entry, and the
 * last in-sync replica stays in the ISR), and a partition with no live in-sync replica is
 * told as having no leader, never as "broker -1".
 */
import { describe, expect, test } from 'vitest';
import { Narrator } from '../core/narrate/narrate.js';
import { parseScenarioText } from '../core/scenario/parse.js';
import { Kernel } from '../core/sim/loop/kernel.js';

function narrate(text: string): string[] {
  const r = parseScenarioText(text, 'offline.yaml');
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const k = new Kernel(r.scenario);
  k.runToEnd();
  const n = new Narrator(false);
  return k.trace.map((e) => n.line(e)).filter((l): l is string => l !== null);
}

const BASE = 'until: 3000\nbrokers: 3\ntopics:\n  - name: orders\n    partitions: 1\n    replicas: [[0, 1, 2]]\ntimeline:\n';

describe('narration when the leader goes down', () => {
  test('a fetch in flight to the crashed leader: a network error, not an ISR removal', () => {
    const lines = narrate(`name: in flight\n${BASE}  - at: 1\n    crash: { broker: 0 }\n`);
    const answered = lines.filter((l) => l.includes('answered NETWORK_EXCEPTION'));
    expect(answered).toHaveLength(2);
    for (const l of answered) {
      expect(l).toMatch(/the request gets no answer, only a network error/);
      expect(l).not.toMatch(/ISR/);
      expect(l).not.toMatch(/undefined/);
    }
    expect(lines).toContain('t=1ms orders-0: ISR is now [1, 2]: the broker is down: connections to it fail, and the controller removes it from the ISR');
  });

  test('every in-sync replica down: "no leader", the last one stays in the ISR', () => {
    const crashes = [0, 1, 2].map((b, i) => `  - at: ${100 * (i + 1)}\n    crash: { broker: ${b} }\n`).join('');
    const lines = narrate(`name: all down\n${BASE}${crashes}`);
    expect(lines.filter((l) => /broker -1/.test(l))).toEqual([]);
    expect(lines).toContain('t=300ms orders-0: no leader at epoch 2: no live in-sync replica is left: the partition is offline');
    expect(lines.filter((l) => l.startsWith('t=300ms') && l.includes('ISR is now'))).toEqual([]);
  });
});

describe('narration of a consumer read', () => {
  test('no "high watermark -" where the response carries no high watermark', () => {
    const lines = narrate(
      `name: consumer\n${BASE}  - at: 0\n    produce: { topic: orders, partition: 0, records: 10 }\n  - at: 100\n    consume: { topic: orders, partition: 0, fromOffset: 0, records: 10 }\n`,
    );
    const reads = lines.filter((l) => l.includes('-> consumer: Fetch'));
    expect(reads.length).toBeGreaterThan(0);
    for (const l of [...reads, ...lines]) expect(l).not.toMatch(/high watermark -/);
  });
});
