/**
 * Kafka's sampled byte rate as plain data: the `SampledStat` (a `WindowedSum`) behind the
 * `SimpleRate` that ReplicationQuotaManager (KIP-73) and RLMQuotaManager (KIP-956) measure
 * their quota with (Kafka 4.3, clients/.../metrics/stats). Integer maths throughout: a rate
 * is a byte sum over a window in ms, and every comparison is made on `sum * 1000` against
 * `bound * windowMs`, which Kafka's doubles give too (exact below 2^53).
 *
 * - `SampledStat.record`: the current sample takes the bytes unless it is complete (its
 *   window, `window.size.seconds`, has passed since it started); then the next sample of the
 *   ring of `window.num + 1` slots (one "overlapping" placeholder) is started at that moment.
 * - `SampledStat.purgeObsoleteSamples`, before every measurement: a sample whose last
 *   record is `window.num * window` ms old or more is reset to start now, empty.
 * - `SampledStat.oldest`: the sample that started first (an empty stat gets one, started
 *   now; measuring mutates, as in Kafka).
 * - `SimpleRate.windowSize`: `max(now - oldest.start, window)`, so a burst in a quiet
 *   stat is spread over at least one whole window, never less.
 * - `Sensor.checkQuotas` / `Quota.acceptable`: exceeded when rate > bound.
 * - `QuotaUtils.throttleTime`: `round((rate - bound) / bound * windowSize)` ms, which is
 *   `round((sum * 1000 - bound * windowSize) / bound)`.
 */

/** One sample: [start ms, last record ms, bytes]. */
export type RateSample = [number, number, number];

export interface RateStat {
  samples: RateSample[];
  /** Index of the current sample. */
  current: number;
}

export interface RateConfig {
  /** `*.quota.window.num`: samples kept (the ring holds one more). */
  samples: number;
  /** `*.quota.window.size.seconds`, in ms. */
  windowMs: number;
  /** The quota, bytes per second. */
  bound: number;
}

export function newRateStat(): RateStat {
  return { samples: [], current: 0 };
}

/** SampledStat.record(value, now): bytes added to the current sample, or to a new one. */
export function recordBytes(stat: RateStat, cfg: RateConfig, bytes: number, nowMs: number): void {
  if (stat.samples.length === 0) stat.samples.push([nowMs, nowMs, 0]);
  let sample = stat.samples[stat.current];
  if (nowMs - sample[0] >= cfg.windowMs) {
    // advance: the next slot of a ring of samples + 1 (Kafka keeps one overlapping sample).
    stat.current = (stat.current + 1) % (cfg.samples + 1);
    if (stat.current >= stat.samples.length) {
      sample = [nowMs, nowMs, 0];
      stat.samples.push(sample);
    } else {
      sample = stat.samples[stat.current];
      sample[0] = nowMs;
      sample[1] = nowMs;
      sample[2] = 0;
    }
  }
  sample[2] += bytes;
  sample[1] = nowMs;
}

function purge(stat: RateStat, cfg: RateConfig, nowMs: number): void {
  const expireAge = cfg.samples * cfg.windowMs;
  for (const sample of stat.samples) {
    if (nowMs - sample[1] >= expireAge) {
      sample[0] = nowMs;
      sample[1] = nowMs;
      sample[2] = 0;
    }
  }
}

/** The measured window: bytes in it and its length (SimpleRate.measure's parts). */
export function measure(stat: RateStat, cfg: RateConfig, nowMs: number): { sum: number; windowMs: number } {
  purge(stat, cfg, nowMs);
  let sum = 0;
  for (const sample of stat.samples) sum += sample[2];
  // SimpleRate.windowSize purges again (a no-op now), then takes the oldest sample.
  if (stat.samples.length === 0) stat.samples.push([nowMs, nowMs, 0]);
  let oldest = stat.samples[0][0];
  for (const sample of stat.samples) if (sample[0] < oldest) oldest = sample[0];
  return { sum, windowMs: Math.max(nowMs - oldest, cfg.windowMs) };
}

/** Bytes per second, as Kafka's gauge shows it (for the trace). */
export function ratePerSecond(m: { sum: number; windowMs: number }): number {
  return Math.round((m.sum * 1000) / m.windowMs);
}

/** ReplicationQuotaManager.isQuotaExceeded: the measured rate is above the bound. */
export function isQuotaExceeded(stat: RateStat, cfg: RateConfig, nowMs: number): boolean {
  const m = measure(stat, cfg, nowMs);
  return m.sum * 1000 > cfg.bound * m.windowMs;
}

/** RLMQuotaManager.getThrottleTimeMs: 0 within the quota, else QuotaUtils.throttleTime. */
export function throttleTimeMs(stat: RateStat, cfg: RateConfig, nowMs: number): number {
  const m = measure(stat, cfg, nowMs);
  if (m.sum * 1000 <= cfg.bound * m.windowMs) return 0;
  return Math.round((m.sum * 1000 - cfg.bound * m.windowMs) / cfg.bound);
}
