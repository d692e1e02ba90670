/**
 * The two rules of the steady-state cost (core/study/steady-cost.ts) that are processes, not
 * formulas, replayed in plain arithmetic: the KIP-1176 WAL combiner's flush rule (objects a
 * second, bytes an object) and the remote log manager's copy, retention and expiry loop (what
 * the tiered store holds and deletes). Pure; the model's own rules are in core/sim/world/wal.ts and
 * core/sim/world/tiering.ts.
 */
import { MS_PER_MONTH } from '../domain/prices.js';

/** The shortest window the combiner's rule is replayed over (simulated ms), and the most arrivals it replays. */
const COMBINER_WINDOW_MS = 60_000;
const COMBINER_MAX_ARRIVALS = 2_000_000;

// ------------------------------------------------------------------ the WAL combiner's rule

export interface CombinerResult {
  /** Per month. */
  objects: number;
  objectBytes: number;
  /** Bytes of PUTs above the fast store's free part of each request. */
  billablePutBytes: number;
  /** Per partition key, per month: chunks, their bytes, and their bytes above the free part of a request. */
  chunks: Record<string, { count: number; bytes: number; billableBytes: number }>;
  /** Produce requests per object, on average. */
  requestsPerObject: number;
  /** How many objects were flushed for each reason (over the window). */
  byReason: { maxBytes: number; interval: number };
  windowMs: number;
}

function gcd(a: number, b: number): number {
  while (b > 0) [a, b] = [b, a % b];
  return a;
}

/**
 * The WAL combiner of one broker (core/machines/wal-combiner.ts) replayed on its led WAL
 * partitions' produce arrivals: idle until bytes are appended; then an object is PUT
 * wal.combine.interval.ms later, or at once when the pending bytes reach
 * wal.combine.max.bytes; one PUT at a time (its latency: model.walPutLatencyMs +
 * bytes / model.walPutBytesPerMs, core/sim/world/store.ts); appends during a PUT wait for the
 * next object, flushed at once when they are full, else after another interval. Events at
 * one time go in the order they were scheduled, as in the kernel's queue.
 */
export function replayCombiner(
  arrivals: ReadonlyArray<{ key: string; at: number; everyMs: number; bytes: number }>,
  c: { intervalMs: number; maxBytes: number; putLatencyMs: number; putBytesPerMs: number; freeBytes: number },
): CombinerResult {
  const empty: CombinerResult = { objects: 0, objectBytes: 0, billablePutBytes: 0, chunks: {}, requestsPerObject: 0, byReason: { maxBytes: 0, interval: 0 }, windowMs: 0 };
  if (arrivals.length === 0) return empty;
  // A window of whole hyperperiods of the produce periods, at least COMBINER_WINDOW_MS, after a warm-up.
  let hyper = 1;
  for (const a of arrivals) {
    hyper = (hyper / gcd(hyper, a.everyMs)) * a.everyMs;
    if (hyper > 600_000) {
      hyper = 600_000;
      break;
    }
  }
  const perMs = arrivals.reduce((n, a) => n + 1 / a.everyMs, 0);
  let windowMs = hyper * Math.max(1, Math.ceil(COMBINER_WINDOW_MS / hyper));
  while (windowMs > hyper && windowMs * perMs > COMBINER_MAX_ARRIVALS) windowMs -= hyper;
  const start = Math.max(...arrivals.map((a) => a.at)) + Math.max(hyper, 1000);
  const end = start + windowMs;
  let seq = 0;
  const next = arrivals.map((a, i) => ({ at: a.at, seq: i }));
  seq = arrivals.length;
  // Held in an object: the flush below sets the PUT's completion from a closure.
  const ev: { timer: { at: number; seq: number } | null; put: { at: number; seq: number } | null } = { timer: null, put: null };
  let state: 'idle' | 'waiting' | 'flushing' = 'idle';
  const pending = new Map<string, number>();
  let pendingTotal = 0;
  const out = { ...empty, chunks: {} as CombinerResult['chunks'], byReason: { maxBytes: 0, interval: 0 } };
  const flush = (t: number, reason: 'maxBytes' | 'interval') => {
    if (t >= start && t < end) {
      out.objects++;
      out.objectBytes += pendingTotal;
      out.billablePutBytes += Math.max(0, pendingTotal - c.freeBytes);
      out.byReason[reason]++;
      for (const [key, bytes] of pending) {
        const ch = (out.chunks[key] ??= { count: 0, bytes: 0, billableBytes: 0 });
        ch.count++;
        ch.bytes += bytes;
        ch.billableBytes += Math.max(0, bytes - c.freeBytes);
      }
    }
    ev.put = { at: t + c.putLatencyMs + Math.floor(pendingTotal / c.putBytesPerMs), seq: seq++ };
    pending.clear();
    pendingTotal = 0;
    state = 'flushing';
  };
  for (;;) {
    // The earliest event, ties by the order scheduled.
    let kind: 'arrival' | 'timer' | 'put' = 'arrival';
    let best = 0;
    for (let i = 1; i < next.length; i++) if (next[i].at < next[best].at || (next[i].at === next[best].at && next[i].seq < next[best].seq)) best = i;
    let at = next[best].at;
    let bestSeq = next[best].seq;
    if (ev.timer !== null && (ev.timer.at < at || (ev.timer.at === at && ev.timer.seq < bestSeq))) {
      kind = 'timer';
      at = ev.timer.at;
      bestSeq = ev.timer.seq;
    }
    if (ev.put !== null && (ev.put.at < at || (ev.put.at === at && ev.put.seq < bestSeq))) {
      kind = 'put';
      at = ev.put.at;
    }
    if (at >= end) break;
    if (kind === 'arrival') {
      const a = arrivals[best];
      next[best] = { at: at + a.everyMs, seq: seq++ };
      pending.set(a.key, (pending.get(a.key) ?? 0) + a.bytes);
      pendingTotal += a.bytes;
      if (state === 'idle' || state === 'waiting') {
        if (pendingTotal >= c.maxBytes) {
          ev.timer = null;
          flush(at, 'maxBytes');
        } else if (state === 'idle') {
          state = 'waiting';
          ev.timer = { at: at + c.intervalMs, seq: seq++ };
        }
      }
    } else if (kind === 'timer') {
      ev.timer = null;
      if (state === 'waiting') {
        if (pendingTotal > 0) flush(at, 'interval');
        else state = 'idle';
      }
    } else {
      ev.put = null;
      if (pendingTotal >= c.maxBytes) flush(at, 'maxBytes');
      else if (pendingTotal > 0) {
        state = 'waiting';
        ev.timer = { at: at + c.intervalMs, seq: seq++ };
      } else state = 'idle';
    }
  }
  // Per month: every produced byte is PUT once, so the objects are the month's bytes over the
  // window's average object (exact when the objects repeat, whatever the window's edges).
  const monthBytes = (key?: string) => arrivals.filter((a) => key === undefined || a.key === key).reduce((n, a) => n + (a.bytes * MS_PER_MONTH) / a.everyMs, 0);
  const objects = out.objects > 0 ? monthBytes() / (out.objectBytes / out.objects) : 0;
  const chunks: CombinerResult['chunks'] = {};
  for (const [k, v] of Object.entries(out.chunks)) {
    const count = monthBytes(k) / (v.bytes / v.count);
    chunks[k] = { count, bytes: monthBytes(k), billableBytes: (v.billableBytes / v.count) * count };
  }
  return {
    objects,
    objectBytes: out.objects > 0 ? monthBytes() : 0,
    billablePutBytes: out.objects > 0 ? (out.billablePutBytes / out.objects) * objects : 0,
    chunks,
    // Requests a month over objects a month (the window's count of requests would carry its edges).
    requestsPerObject: objects > 0 ? arrivals.reduce((n, a) => n + MS_PER_MONTH / a.everyMs, 0) / objects : 0,
    byReason: out.byReason,
    windowMs,
  };
}

// ------------------------------------------------------------------ the remote log manager's rule

/** What a partition's replicas hold on disk and how long an upload takes, at steady state. */
export interface TieringResult {
  /** From a segment's roll until Ry covers it (its copy finished), on average (ms). */
  uploadDelayMs: number;
  /** Bytes the leader's and a follower's local log hold, averaged over time. */
  leaderHeld: number;
  followerHeld: number;
  /** Bytes the tiered store holds for the partition, averaged over time; null when the replay did not reach remote retention. */
  remoteHeld: number | null;
  /** From one leader task run's start to the next, on average (ms). */
  cycleMs: number;
  /** How it was found: replayed, or in closed form (retention far longer than a task run). */
  how: 'replayed' | 'closed';
}

export interface TieringInput {
  /** How long a segment takes to fill (ms) and its bytes. */
  fillMs: number;
  segBytes: number;
  /** Bytes produced per second. */
  rate: number;
  /** remote.log.manager.task.interval.ms (the copy, follower and expiration tasks) */
  intervalMs: number;
  /** log.retention.check.interval.ms and log.initial.task.delay.ms (the log retention task, brokers started at 0) */
  retentionCheckMs: number;
  retentionInitialDelayMs: number;
  /** One segment's copy (its .log PUT) and one remote segment's delete (ms). */
  copyMs: number;
  deleteMs: number;
  /** Local retention (local.retention.* where uploads are required, else retention.*); -1 none. */
  retentionMs: number;
  retentionBytes: number;
  /** Remote retention (retention.ms / retention.bytes); -1 none. */
  remoteRetentionMs: number;
  remoteRetentionBytes: number;
  /** Rolled segments are copied to the tiered store (remote.storage.enable, copy not disabled). */
  uploads: boolean;
}

/** The most events the tiering replay runs (segments rolled plus task runs). */
const TIERING_MAX_EVENTS = 400_000;

/**
 * A partition's tasks (docs/protocol.md §5) replayed on its segments, which roll every
 * `fillMs`, each on its own schedule:
 * - the leader's copy task (core/machines/remote-log-manager.ts) runs at once, then
 *   remote.log.manager.task.interval.ms after its previous run ENDED; a run copies the copy
 *   candidates it listed at its start one after another (each `copyMs`, the .log object's
 *   PUT), then ends;
 * - a follower's task learns Ry at each run, on the same fixed delay;
 * - the leader's expiration task (core/machines/rlm-expiration.ts), on its own fixed delay:
 *   one pass a run, deleting the expiring remote segments one after another (each
 *   `deleteMs`); remote retention (remoteRetentionExpired): its time inclusive, its size
 *   counting the local-only bytes too;
 * - the log retention task (core/machines/log-retention.ts) on every replica, at
 *   log.initial.task.delay.ms and then every log.retention.check.interval.ms: local retention
 *   (domain/retention.ts localRetentionDeletable) deletes the oldest segments past its time,
 *   or while the log less that segment still holds its bytes, uploaded ones only (up to the
 *   Ry the replica knows) where uploads are required.
 * Averages are over the second half of a horizon long enough to reach retention. When local
 * retention would take more than TIERING_MAX_EVENTS to reach, the closed form: retention +
 * half a segment + half a retention check interval's bytes, at least half a segment plus what
 * is produced while a segment waits for its upload (half a task interval plus one copy), for
 * the Ry a follower learns (half a task interval more) and for the next retention check (half
 * its interval); when only remote retention would, `remoteHeld` is null and the caller uses
 * its closed form.
 */
export function replayTiering(x: TieringInput): TieringResult | null {
  const { fillMs: F, segBytes, rate, intervalMs: I, copyMs: C, retentionCheckMs: R, retentionInitialDelayMs: D } = x;
  const limit = retainedLimit(rate, x.retentionMs, x.retentionBytes);
  if (limit === null || !(rate > 0) || !Number.isFinite(F)) return null;
  const closed = (): TieringResult => {
    const uploadDelayMs = x.uploads ? I / 2 + C : 0;
    const byLimit = limit + segBytes / 2 + (rate * R) / 2000;
    const leaderHeld = Math.max(byLimit, segBytes / 2 + (rate * (uploadDelayMs + (x.uploads ? R / 2 : 0))) / 1000);
    const followerHeld = Math.max(byLimit, segBytes / 2 + (rate * (uploadDelayMs + (x.uploads ? I / 2 + R / 2 : 0))) / 1000);
    return { uploadDelayMs, leaderHeld, followerHeld, remoteHeld: null, cycleMs: I + C, how: 'closed' };
  };
  const events = (horizon: number) => horizon / F + (3 * horizon) / Math.max(I, 1) + horizon / Math.max(R, 1);
  const base = Math.max(40 * (I + F + C), 4 * ((limit / rate) * 1000 + F), 8 * (R + D));
  if (events(base) > TIERING_MAX_EVENTS) return closed();
  const remoteLimit = x.uploads ? retainedLimit(rate, x.remoteRetentionMs, x.remoteRetentionBytes) : null;
  const withRemote = remoteLimit !== null && events(Math.max(base, 4 * ((remoteLimit / rate) * 1000 + F))) <= TIERING_MAX_EVENTS;
  const horizon = withRemote ? Math.max(base, 4 * ((remoteLimit / rate) * 1000 + F)) : base;
  const from = horizon / 2;
  // Segment k spans [kF, (k+1)F) and rolls at (k+1)F, its last record then.
  const rolledBy = (t: number) => Math.floor(t / F + 1e-9); // segments 0..rolledBy-1 have rolled
  const held = { leader: 0, follower: 0, remote: 0 };
  const oldest = { leader: 0, follower: 0, remote: 0 };
  let ry = -1; // the last uploaded segment (index)
  let followerRy = -1; // the Ry the follower learned at its last run
  let lastT = 0;
  const integrate = (t: number) => {
    const a = Math.max(lastT, from);
    if (t > a) {
      for (const who of ['leader', 'follower'] as const) {
        const s0 = oldest[who] * F;
        held[who] += (rate / 1000) * (((t - s0) ** 2 - (a - s0) ** 2) / 2);
      }
      held.remote += Math.max(0, ry + 1 - oldest.remote) * segBytes * (t - a);
    }
    lastT = Math.max(lastT, t);
  };
  const retain = (who: 'leader' | 'follower', t: number, known: number) => {
    const top = Math.min(x.uploads ? known : Number.MAX_SAFE_INTEGER, rolledBy(t) - 1);
    while (oldest[who] <= top) {
      const k = oldest[who];
      const bytes = (rate * (t - k * F)) / 1000;
      const byTime = x.retentionMs >= 0 && t - (k + 1) * F > x.retentionMs;
      const bySize = x.retentionBytes >= 0 && bytes - segBytes >= x.retentionBytes;
      if (!byTime && !bySize) break;
      oldest[who]++;
    }
  };
  /** How many remote segments expire now, oldest first. */
  const expiring = (t: number): number => {
    if (!withRemote) return 0;
    let n = 0;
    let total = (rate * (t - (ry + 1) * F)) / 1000 + (ry + 1 - oldest.remote) * segBytes;
    for (let k = oldest.remote; k <= ry; k++) {
      const byTime = x.remoteRetentionMs >= 0 && (k + 1) * F <= t - x.remoteRetentionMs;
      const bySize = x.remoteRetentionBytes >= 0 && total - segBytes >= x.remoteRetentionBytes;
      if (!byTime && !bySize) break;
      total -= segBytes;
      n++;
    }
    return n;
  };
  let copyRun = 0; // the copy task's next run, or Infinity while it copies
  let copyUntil = Infinity; // the copy in flight ends
  let copying = -1;
  let runStarts = 0;
  let firstRun = -1;
  let lastRun = 0;
  let expireRun = 0;
  let deleteUntil = Infinity;
  let toDelete = 0;
  let followerRun = 0;
  let retentionRun = D;
  let delays = 0;
  let delayed = 0;
  // The copy task: the next candidate it listed at the start of its run, or the end of the run.
  let listedUpTo = -1;
  const copyStep = (t: number) => {
    if (x.uploads && ry + 1 <= listedUpTo) {
      copying = ry + 1;
      copyUntil = t + C;
      copyRun = Infinity;
      return;
    }
    copyUntil = Infinity;
    copyRun = t + I;
  };
  for (;;) {
    const t = Math.min(copyRun, copyUntil, expireRun, deleteUntil, followerRun, retentionRun);
    if (t > horizon) break;
    integrate(t);
    if (t === copyUntil) {
      ry = copying;
      if ((copying + 1) * F >= from) {
        delays += t - (copying + 1) * F;
        delayed++;
      }
      copyStep(t);
    } else if (t === copyRun) {
      listedUpTo = rolledBy(t) - 1; // RLMCopyTask lists its candidates once a run
      if (t >= from) {
        if (firstRun < 0) firstRun = t;
        lastRun = t;
        runStarts++;
      }
      copyStep(t);
    } else if (t === deleteUntil) {
      oldest.remote++;
      if (--toDelete > 0) deleteUntil = t + x.deleteMs;
      else {
        deleteUntil = Infinity; // the pass, and the run, are done
        expireRun = t + I;
      }
    } else if (t === expireRun) {
      toDelete = expiring(t);
      if (toDelete > 0) {
        deleteUntil = t + x.deleteMs;
        expireRun = Infinity;
      } else expireRun = t + I;
    } else if (t === followerRun) {
      followerRy = ry;
      followerRun = t + I;
    } else {
      retain('leader', t, ry);
      retain('follower', t, followerRy);
      retentionRun = t + R;
    }
  }
  integrate(horizon);
  const span = horizon - from;
  if (x.uploads && delayed === 0) return closed();
  return {
    uploadDelayMs: x.uploads ? delays / delayed : 0,
    leaderHeld: held.leader / span,
    followerHeld: held.follower / span,
    remoteHeld: withRemote ? held.remote / span : null,
    cycleMs: runStarts > 1 ? (lastRun - firstRun) / (runStarts - 1) : I + C,
    how: 'replayed',
  };
}

/** What retention keeps by time and size, the tighter of the two (null: neither limits). */
export function retainedLimit(rate: number, ms: number, bytes: number): number | null {
  const byTime = ms >= 0 ? (rate * ms) / 1000 : Infinity;
  const bySize = bytes >= 0 ? bytes : Infinity;
  const x = Math.min(byTime, bySize);
  return Number.isFinite(x) ? x : null;
}
