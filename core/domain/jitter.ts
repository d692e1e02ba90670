/**
 * Latency jitter (`model.jitter` in a scenario, docs/scenario-format.md, "Jitter"): extra
 * milliseconds drawn from the run's seeded generator and added to a network hop or to an
 * object-store request. Off unless the scenario gives `model.jitter`; then the same seed
 * gives the same run, and another seed other timings.
 *
 * A distribution is integers only, so every JavaScript engine draws the same values: a
 * uniform part, 0 .. `uniformMs` ms, and a tail: with `tailPercent` % probability,
 * 0 .. `tailMs` ms more. Plain data (it round-trips through JSON).
 */

/** One jitter distribution; every field an integer (ms, or percent). */
export interface JitterDistribution {
  /** Every latency gets 0 .. uniformMs ms more (each value equally likely). */
  uniformMs: number;
  /** With this probability (0 .. 100 %), a latency gets the tail on top. */
  tailPercent: number;
  /** The tail: 0 .. tailMs ms more (each value equally likely). */
  tailMs: number;
}

export const JITTER_STORES = ['tiered', 'wal'] as const;
export type JitterStore = (typeof JITTER_STORES)[number];

/** `model.jitter`: what jitters, each with its distribution. */
export interface Jitter {
  /** Every network hop (between brokers, and between a broker and a producer or consumer). */
  network?: JitterDistribution;
  /**
   * Hops between two brokers, either direction, instead of `network`; keyed `A-B` with
   * A < B (broker ids).
   */
  links?: Record<string, JitterDistribution>;
  /** Every request to the store: the tiered store (KIP-405) or the fast store (KIP-1176's WAL). */
  stores?: Partial<Record<JitterStore, JitterDistribution>>;
}

export const JITTER_KEYS = ['network', 'links', 'stores'] as const;
export const JITTER_DISTRIBUTION_KEYS = ['uniformMs', 'tailPercent', 'tailMs'] as const;
/** Largest `uniformMs` or `tailMs`: ten minutes (as a timeline objectStore's extraLatencyMs). */
export const MAX_JITTER_MS = 600_000;

/** The `links` key of the link between brokers a and b: the lower id first. */
export function jitterLinkKey(a: number, b: number): string {
  return a < b ? `${a}-${b}` : `${b}-${a}`;
}

/** One distribution in words: `+0..20 ms, 1% +0..200 ms more`. */
export function describeDistribution(d: JitterDistribution): string {
  const parts = [`+0..${d.uniformMs} ms`];
  if (d.tailPercent > 0 && d.tailMs > 0) parts.push(`${d.tailPercent}% +0..${d.tailMs} ms more`);
  return parts.join(', ');
}

/** What jitters, in words: `network +0..2 ms; link 1-2 +0..20 ms, 1% +0..200 ms more; tiered store +0..30 ms`. */
export function describeJitter(j: Jitter): string {
  const out: string[] = [];
  if (j.network !== undefined) out.push(`network ${describeDistribution(j.network)}`);
  for (const [link, d] of Object.entries(j.links ?? {})) out.push(`link ${link} ${describeDistribution(d)}`);
  for (const store of JITTER_STORES) {
    const d = j.stores?.[store];
    if (d !== undefined) out.push(`${store} store ${describeDistribution(d)}`);
  }
  return out.length === 0 ? 'nothing' : out.join('; ');
}
