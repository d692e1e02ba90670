/**
 * Whether a scenario's sizes are scaled: it sets `internal.segment.bytes`, Kafka's internal
 * test override of `segment.bytes` (LogConfig.INTERNAL_SEGMENT_BYTES_CONFIG, Kafka 4.1+), to
 * roll segments Kafka would refuse as `segment.bytes` (below 1 MiB, LogConfig's
 * atLeast(1024 * 1024)). A production cluster does not run so; the run shows the rules at a
 * small scale. The CLI, the JSON (`sizesScaled`), the Markdown report and the page say so
 * wherever sizes show (docs/scenario-format.md, "Segment sizes").
 */
import { INTERNAL_SEGMENT_BYTES, SEGMENT_BYTES_MIN } from '../domain/config.js';
import type { Scenario } from './types.js';

/** One value of `internal.segment.bytes` a scenario sets. */
export interface ScaledSize {
  /** The topic it applies to; undefined for a setConfig without `topic` (every topic). */
  topic?: string;
  value: number;
  /** The time of the setConfig that sets it; undefined when the topic's config sets it. */
  atMs?: number;
}

/** Every value of `internal.segment.bytes` the scenario sets, topics' configs first, then the timeline's. */
export function scaledSizes(s: Scenario): ScaledSize[] {
  const out: ScaledSize[] = [];
  for (const t of s.topics) {
    const v = t.config[INTERNAL_SEGMENT_BYTES];
    if (typeof v === 'number') out.push({ topic: t.name, value: v });
  }
  for (const e of s.timeline) {
    if (e.action.kind !== 'setConfig') continue;
    const v = e.action.values[INTERNAL_SEGMENT_BYTES];
    if (typeof v === 'number') out.push({ ...(e.action.topic !== undefined ? { topic: e.action.topic } : {}), value: v, atMs: e.at });
  }
  return out;
}

/**
 * One line saying why the run's sizes are scaled, or null when they are not, e.g.
 * "internal.segment.bytes 51200 on topic orders (below Kafka's 1 MiB minimum of
 * segment.bytes; Kafka accepts it only as an internal test override)".
 */
export function scaledSizesReason(s: Scenario): string | null {
  const uses = scaledSizes(s);
  if (uses.length === 0) return null;
  const where = uses
    .map((u) => `${u.value} ${u.topic !== undefined ? `on topic ${u.topic}` : 'on every topic'}${u.atMs !== undefined ? ` from t=${u.atMs}ms` : ''}`)
    .join(', ');
  const below = uses.some((u) => u.value < SEGMENT_BYTES_MIN);
  return `${INTERNAL_SEGMENT_BYTES} ${where} (${below ? "below Kafka's 1 MiB minimum of segment.bytes; " : ''}Kafka accepts it only as an internal test override)`;
}
