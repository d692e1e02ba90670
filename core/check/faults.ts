/**
 * Random fault schedules for swarm runs (model-based tests, item 3). A schedule is made
 * from the seed alone, with its own random stream (not the run's), and added to the
 * scenario's timeline as ordinary events, so the failing run is an ordinary scenario file:
 * it replays with `run`, and opens in the walkthrough.
 */
import { type PrngState, nextInt, seedPrng } from '../sim/state/prng.js';
import type { Scenario, TimelineAction, TimelineEvent } from '../scenario/types.js';

export const FAULT_KINDS = ['crash', 'partition', 'store', 'slow', 'config'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The seed's fault schedule: 1 to 4 faults, each with its end (restart, heal, recovery). */
export function faultSchedule(s: Scenario, seed: number, kinds: readonly FaultKind[]): TimelineEvent[] {
  if (kinds.length === 0) return [];
  // A stream of its own: the schedule never shifts the run's random choices.
  const rng: PrngState = seedPrng((seed ^ 0x5f3759df) >>> 0);
  const pick = <T>(xs: readonly T[]): T => xs[nextInt(rng, xs.length)];
  const window = Math.max(1, Math.floor(s.until * 0.8));
  const out: TimelineEvent[] = [];
  const n = 1 + nextInt(rng, 4);
  const add = (at: number, action: TimelineAction) => out.push({ at: Math.min(at, s.until), action });
  for (let i = 0; i < n; i++) {
    const kind = pick(kinds);
    const at = nextInt(rng, window);
    const lasts = 200 + nextInt(rng, Math.max(1, Math.floor(s.until / 3)));
    const broker = nextInt(rng, s.brokers);
    switch (kind) {
      case 'crash':
        add(at, { kind: 'crash', broker });
        add(at + lasts, { kind: 'restart', broker });
        break;
      case 'partition':
        add(at, { kind: 'isolate', broker });
        add(at + lasts, { kind: 'heal', broker });
        break;
      case 'store': {
        const store = pick(['tiered', 'wal'] as const);
        add(at, { kind: 'objectStore', available: false, store });
        add(at + lasts, { kind: 'objectStore', available: true, store });
        break;
      }
      case 'slow': {
        const store = pick(['tiered', 'wal'] as const);
        add(at, { kind: 'objectStore', available: true, store, extraLatencyMs: 50 + nextInt(rng, 500) });
        add(at + lasts, { kind: 'objectStore', available: true, store, extraLatencyMs: 0 });
        break;
      }
      case 'config': {
        const key = pick(['follower.fetch.last.tiered.offset.enable', 'remote.log.copy.disable'] as const);
        add(at, { kind: 'setConfig', values: { [key]: true } });
        add(at + lasts, { kind: 'setConfig', values: { [key]: false } });
        break;
      }
      default:
        return unknownFault(kind);
    }
  }
  return out;
}

/** Every fault kind has a case in faultSchedule: a new kind fails to compile until it does. */
function unknownFault(kind: never): never {
  throw new Error(`unknown fault kind ${String(kind)}`);
}

/** The scenario with the seed's faults merged into its timeline (stable order: time, then the scenario's events first). */
export function withFaults(s: Scenario, seed: number, kinds: readonly FaultKind[]): Scenario {
  const faults = faultSchedule(s, seed, kinds);
  if (faults.length === 0) return { ...s, seed };
  const timeline = [...s.timeline.map((e, i) => ({ e, k: 0, i })), ...faults.map((e, i) => ({ e, k: 1, i }))]
    .sort((a, b) => a.e.at - b.e.at || a.k - b.k || a.i - b.i)
    .map((x) => x.e);
  return { ...s, seed, timeline, name: `${s.name} (seed ${seed}, faults)` };
}
