/**
 * Latency jitter (`model.jitter`, core/domain/jitter.ts; docs/scenario-format.md, "Jitter"):
 * the latency of a network hop or of an object-store request, with extra milliseconds drawn
 * from the run's seeded generator (`state.prng`) when the scenario asks for them.
 *
 * A latency is drawn once, when its message or request is scheduled, so the draws follow
 * the order of the kernel's steps and a run stays a function of (scenario, seed). Without
 * `model.jitter`, or for a hop or store it gives no distribution, nothing is drawn and the
 * generator is never advanced: such a run is the one the model made before jitter existed.
 * Integer maths only (`nextInt`): every JavaScript engine draws the same values.
 */
import { type JitterDistribution, type JitterStore, jitterLinkKey } from '../../domain/jitter.js';
import { latencyMs } from '../state/facts.js';
import { type PrngState, nextInt } from '../state/prng.js';
import type { JitterCounters, JitterMetrics, KernelState } from '../state/state.js';
import type { Endpoint } from '../state/trace.js';

/**
 * Extra milliseconds from one distribution: 0 .. uniformMs, then with tailPercent %
 * probability 0 .. tailMs more. Never negative. A part that cannot add anything
 * (uniformMs 0; tailPercent or tailMs 0) draws nothing.
 */
export function drawJitterMs(prng: PrngState, d: JitterDistribution): number {
  let extra = d.uniformMs > 0 ? nextInt(prng, d.uniformMs + 1) : 0;
  if (d.tailPercent > 0 && d.tailMs > 0 && (d.tailPercent >= 100 || nextInt(prng, 100) < d.tailPercent)) {
    extra += nextInt(prng, d.tailMs + 1);
  }
  return extra;
}

/** Zeroed counters for a run with `model.jitter`. */
export function newJitterMetrics(): JitterMetrics {
  const zero = (): JitterCounters => ({ count: 0, addedMs: 0, maxMs: 0 });
  return { network: zero(), tiered: zero(), wal: zero() };
}

function draw(state: KernelState, d: JitterDistribution, counters: keyof JitterMetrics): number {
  const extra = drawJitterMs(state.prng, d);
  const m = state.metrics.jitter;
  if (m !== undefined) {
    const c = m[counters];
    c.count++;
    c.addedMs += extra;
    if (extra > c.maxMs) c.maxMs = extra;
  }
  return extra;
}

/** The distribution of a hop: the link's between two brokers, else `network`'s (undefined: none). */
function hopDistribution(state: KernelState, a: Endpoint, b: Endpoint): JitterDistribution | undefined {
  const j = state.model.jitter;
  if (j === undefined) return undefined;
  if (j.links !== undefined && typeof a === 'number' && typeof b === 'number' && a !== b) {
    const link = j.links[jitterLinkKey(a, b)];
    if (link !== undefined) return link;
  }
  return j.network;
}

/** True when some network hop may be jittered. */
export function networkJittered(state: KernelState): boolean {
  const j = state.model.jitter;
  return j !== undefined && (j.network !== undefined || (j.links !== undefined && Object.keys(j.links).length > 0));
}

/**
 * One network hop scheduled now: the zone latency (`latencyMs`), plus the hop's jitter.
 * Call it once per message, when the message is scheduled.
 */
export function hopMs(state: KernelState, a: Endpoint, b: Endpoint, key: string, clientZone?: string): number {
  const base = latencyMs(state, a, b, key, clientZone);
  const d = hopDistribution(state, a, b);
  return d === undefined ? base : base + draw(state, d, 'network');
}

/** The jitter of one request to a store, drawn now (0, drawing nothing, when the store has none). */
export function storeJitterMs(state: KernelState, store: JitterStore): number {
  const d = state.model.jitter?.stores?.[store];
  return d === undefined ? 0 : draw(state, d, store);
}
