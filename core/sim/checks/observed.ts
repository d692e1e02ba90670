/**
 * What the subsystems tell the kernel's checkers, and what the checkers keep. The subsystems
 * (network, tiering, replica-log) never call a check: at each change an invariant is about,
 * they report it through one hook, `Sim.observe(change)`; the kernel hands it to the
 * checkers (core/sim/checks/invariants.ts `checkChange`), records what they find, and keeps their
 * bookkeeping (`CheckCache`) as plain data in the state. Only types live here, so the state,
 * the subsystems and the checkers can all name them without importing each other.
 */
import type { RecordBatch } from '../../domain/partition-log.js';
import type { RemoteSegmentState } from '../../domain/remote-metadata.js';

export type InvariantId =
  | 'offsetsOrdered'
  | 'followerLogIsPrefixOfLeader'
  | 'highWatermarkWithinIsr'
  | 'remoteStateForwardOnly'
  | 'everyOffsetRetained'
  | 'noLocalDeleteBeforeUpload'
  | 'noCommittedRecordLost'
  | 'leaderEpochNeverDecreases'
  | 'highestOffsetInRemoteStorageNeverDecreases'
  | 'followerEpochsMatchLeader'
  // Checked on the wire (a request or an answer as it is sent):
  | 'listOffsetsWithinLog'
  | 'kip1023OnlyForEmptyFollower'
  | 'consumerReadsCommitted';

export interface Violation {
  atMs: number;
  invariant: InvariantId;
  message: string;
  /** What it is about (partition, broker), to report each once. */
  subject?: string;
  /** The known finding it is (core/sim/checks/findings.ts): Kafka's behaviour, not a model error. */
  finding?: string;
}

/** What the invariants remember between steps (plain data, part of the kernel state). */
export interface InvariantWatch {
  /** Per partition: the highest high watermark reached and the leader epochs of the committed offsets. */
  committed: Record<string, { highWatermark: number; epochs: Array<[number, number]> }>;
  leaderEpoch: Record<string, number>;
  /** Per broker|partition while the broker is up. */
  highestOffsetInRemoteStorage: Record<string, number>;
}

/**
 * What the checkers keep so as not to compute again what has not changed: per partition, a
 * version of its remote metadata (raised by the kernel's hook at every change reported to it)
 * and the last answer of the remote-coverage check with the version it was computed at.
 * Plain data in the kernel state, so a checkpoint carries it; left out of the exhaustive
 * checker's state key (core/check/state-key.ts): it only remembers a function of the state,
 * and two equal states reached by different paths must not count as two.
 */
export interface CheckCache {
  remoteVersion: Record<string, number>;
  coverage: Record<string, { version: number; length: number; from: number; next: number }>;
}

/**
 * What the wire checks read of a message as it is sent (the kernel's RequestMessage and
 * ResponseMessage, core/sim/state/state.ts, are such; named by shape here so that the state, which
 * holds this file's types, is not imported back).
 */
export interface SentMessage {
  readonly api: string;
  readonly key: string;
  readonly source: number | string | null;
  readonly target?: number | string | null;
  readonly body: Readonly<Record<string, unknown>>;
}

/** A change the checkers look at, reported by the subsystem that makes it, at the moment it makes it. */
export type Change =
  /** A follower appended a batch (core/sim/world/replica-log.ts): checked against the leader's batch at those offsets. */
  | { kind: 'followerAppend'; key: string; broker: number; batch: RecordBatch }
  /**
   * Local retention is about to delete a replica's oldest segment (core/sim/world/tiering.ts), with
   * the Log-Start-Offset it goes by (its own or its leader's) and whether uploads are required.
   */
  | { kind: 'localSegmentDelete'; key: string; broker: number; segment: { baseOffset: number; endOffset: number }; logStartOffset: number; uploadsRequired: boolean }
  /** A remote segment's metadata is written (core/sim/world/tiering.ts). */
  | { kind: 'remoteSegmentAdded'; key: string; segmentId: string }
  /** A remote segment's state is set, possibly to the one it has (an idempotent re-publish). */
  | { kind: 'remoteSegmentState'; key: string; segmentId: string; from: RemoteSegmentState; to: RemoteSegmentState }
  /** A request leaves its sender (core/sim/world/network.ts). */
  | { kind: 'requestSent'; msg: SentMessage }
  /** An answer leaves the broker that answers (core/sim/world/network.ts). */
  | { kind: 'responseSent'; msg: SentMessage };
