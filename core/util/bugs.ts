/**
 * Deliberate bugs, to prove the checks can fail (model-based tests, item 4). Each is a
 * named mistake a real implementation could make; the model's code asks `bugOn(name)` at
 * the one place the mistake would live. They are switched on by tests (`withBugs`) and by
 * one CLI flag, `explore --plant-bug NAME`, which checks the checker: the swarm's workers
 * run every seed with that bug on and should report a violation. No scenario key, URL or
 * other command reaches this module, and every run starts with none active.
 */
export const BUGS = {
  deleteBeforeUpload: 'local retention deletes a segment before it is uploaded (ignores Ry)',
  skipAuxState: 'the follower skips restoring the leader-epoch checkpoint when it builds the remote auxiliary state',
  noEpuoLsoClamp: 'the leader answers ListOffsets -6 with Ry + 1, forgetting the max with Log-Start-Offset',
  hwWithoutIsr: 'the leader advances the high watermark to its own log end, without the ISR',
  kip1023ForNonEmpty: 'the follower takes the KIP-1023 path even when its log is not empty',
  acceptStaleWalChunk: 'a follower appends a WAL chunk written in an older leader epoch',
  followerServesPastHighWatermark: 'a follower serving a KIP-392 consumer reads up to its log end, past its high watermark',
} as const;

export type BugName = keyof typeof BUGS;

/**
 * A small bundled scenario on which the exhaustive checker finds each bug
 * (test/exhaustive.test.ts shows it; bench/checker.ts times it in both modes).
 */
export const BUG_SCENARIOS: Record<BugName, string> = {
  deleteBeforeUpload: 'rlm-upload-and-local-retention',
  skipAuxState: 'kip1023-bootstrap',
  noEpuoLsoClamp: 'kip1023-stale-epuo',
  hwWithoutIsr: 'wal-stale-chunk-dropped',
  kip1023ForNonEmpty: 'kip1023-bootstrap',
  acceptStaleWalChunk: 'wal-stale-chunk-dropped',
  followerServesPastHighWatermark: 'kip392-fetch-from-follower',
};

let active: ReadonlySet<BugName> = new Set();

export function bugOn(name: BugName): boolean {
  return active.size > 0 && active.has(name);
}

/** Runs `fn` with the named bugs switched on, then switches them off again. */
export function withBugs<T>(names: readonly BugName[], fn: () => T): T {
  const before = active;
  active = new Set(names);
  try {
    return fn();
  } finally {
    active = before;
  }
}

/** The same for asynchronous work (worker runs). */
export async function withBugsAsync<T>(names: readonly BugName[], fn: () => Promise<T>): Promise<T> {
  const before = active;
  active = new Set(names);
  try {
    return await fn();
  } finally {
    active = before;
  }
}
