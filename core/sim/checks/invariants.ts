/**
 * Cluster-wide invariants, checked after every kernel step and reported in `violations`.
 * Each has an id, a title and an explanation the UI and the narration can show.
 */
import type { PartitionLog, RecordBatch } from '../../domain/partition-log.js';
import { logEndOffset } from '../../domain/partition-log.js';
import { epochForOffset } from '../../domain/leader-epoch-cache.js';
import { isAllowedTransition, type RemoteSegmentMetadata, type RemoteSegmentState } from '../../domain/remote-metadata.js';
import { firstNotBefore } from '../../util/bisect.js';
import type { Change, CheckCache, InvariantId, InvariantWatch, SentMessage, Violation } from './observed.js';

export type { Change, CheckCache, InvariantId, InvariantWatch, SentMessage, Violation } from './observed.js';

/** A replica as the invariants read it (the kernel's ReplicaState is one). */
export interface ReplicaView {
  readonly broker: number;
  readonly log: PartitionLog;
  readonly highestOffsetInRemoteStorage: number;
  /** A new leader whose copy task has not yet raised a stale Log-Start-Offset. */
  readonly logStartOffsetUnconfirmed?: boolean;
}

/** A partition as the invariants read it (the kernel's PartitionState is one). */
export interface PartitionView {
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly remoteMetadata: readonly RemoteSegmentMetadata[];
  readonly replicaStates: Readonly<Record<string, ReplicaView>>;
}

/**
 * What the checks read of the cluster, read only (the kernel's state is one), and the watch,
 * which they own: what they remember between steps, kept in the state so that a checkpoint
 * holds it.
 */
export interface ClusterView {
  readonly nowMs: number;
  readonly partitionOrder: readonly string[];
  readonly partitions: Readonly<Record<string, PartitionView>>;
  readonly brokers: readonly { readonly alive: boolean }[];
  readonly watch: InvariantWatch;
  /** The checkers' bookkeeping (the kernel's state has one; a hand-made view may not). */
  readonly checkCache?: CheckCache;
}

export interface InvariantInfo {
  id: InvariantId;
  title: string;
  explanation: string;
}

export const INVARIANTS: readonly InvariantInfo[] = [
  {
    id: 'offsetsOrdered',
    title: 'Offsets ordered',
    explanation:
      'Safety: on every replica Log-End-Offset >= high watermark >= Local-Log-Start-Offset >= Log-Start-Offset, and on a leader the highest offset in remote storage is below the high watermark (docs/protocol.md §1).',
  },
  {
    id: 'followerLogIsPrefixOfLeader',
    title: "Follower log is a prefix of the leader's",
    explanation:
      "Safety: every batch a follower appends sits at the same offsets, with the same leader epoch and producer, as the leader's batch there.",
  },
  {
    id: 'highWatermarkWithinIsr',
    title: 'High watermark within the ISR',
    explanation: "Safety: the leader's high watermark is never above the Log-End-Offset of any in-sync replica.",
  },
  {
    id: 'remoteStateForwardOnly',
    title: 'Remote segment states only move forward',
    explanation:
      'Safety: COPY_SEGMENT_STARTED -> COPY_SEGMENT_FINISHED -> DELETE_SEGMENT_STARTED -> DELETE_SEGMENT_FINISHED (or STARTED -> DELETE_STARTED).',
  },
  {
    id: 'everyOffsetRetained',
    title: 'No offset retained in neither tier',
    explanation:
      "Safety: every offset in [Log-Start-Offset, Local-Log-Start-Offset) of the leader is held by a finished remote segment, so every committed offset is readable from some tier. A new leader is held to it once its copy task has raised a stale Log-Start-Offset (its first run with the remote metadata loaded; never with remote.log.copy.disable, which has no copy task).",
  },
  {
    id: 'noLocalDeleteBeforeUpload',
    title: 'No local segment deleted before upload',
    explanation:
      "Safety: local retention deletes a segment of a tiered topic only once it is fully uploaded (end <= Ry, held by a finished remote segment) or below Log-Start-Offset (the replica's own or its leader's: a follower back after remote retention moved the leader's may delete what expired meanwhile, as Kafka's deletableSegments does with its Ry).",
  },
  {
    id: 'noCommittedRecordLost',
    title: 'No committed record lost',
    explanation:
      "Safety: every offset below the highest high watermark ever reached stays in the leader's log (locally or in a finished remote segment), with the leader epoch it was committed in.",
  },
  {
    id: 'leaderEpochNeverDecreases',
    title: 'Leader epochs never decrease',
    explanation: "Safety: a partition's leader epoch only goes up, and so does the latest epoch in each replica's cache while it follows one leader.",
  },
  {
    id: 'highestOffsetInRemoteStorageNeverDecreases',
    title: 'Ry never decreases on a broker',
    explanation: 'Safety: highestOffsetInRemoteStorage lives in memory and only goes up while the broker is up, through elections too (a restart resets it to -1 until the remote metadata is loaded).',
  },
];

/** What a check that finds nothing returns (one array, never written). */
const NO_VIOLATIONS: readonly Violation[] = Object.freeze([]);

function leaderBatchAt(log: PartitionLog, offset: number): RecordBatch | undefined {
  for (const seg of log.segments) {
    if (offset < seg.baseOffset || offset > seg.endOffset) continue;
    const b = seg.batches[firstNotBefore(seg.batches, (x) => x.lastOffset < offset)];
    if (b !== undefined && b.baseOffset <= offset) return b;
  }
  return undefined;
}

/** Checked when a follower appends a batch the leader may still hold locally. */
export function checkFollowerAppend(atMs: number, key: string, broker: number, batch: RecordBatch, leaderLog: PartitionLog): readonly Violation[] {
  const l = leaderBatchAt(leaderLog, batch.baseOffset);
  if (l === undefined) {
    // The leader has not written this offset (yet). A batch of an older epoch that starts
    // at or past where the leader's cache says that epoch ended can never be in its log.
    const latest = leaderLog.leaderEpochs.length > 0 ? leaderLog.leaderEpochs[leaderLog.leaderEpochs.length - 1][0] : -1;
    if (batch.leaderEpoch >= latest) return NO_VIOLATIONS;
    const next = leaderLog.leaderEpochs.find(([e]) => e > batch.leaderEpoch);
    if (next === undefined || batch.baseOffset < next[1]) return NO_VIOLATIONS;
    return [
      {
        atMs,
        invariant: 'followerLogIsPrefixOfLeader',
        subject: `${key}@${broker}`,
        message: `broker ${broker} appended ${key} [${batch.baseOffset}, ${batch.lastOffset}] in epoch ${batch.leaderEpoch}, which the leader ended at ${next[1]} (epoch ${next[0]} starts there)`,
      },
    ];
  }
  if (l.baseOffset === batch.baseOffset && l.lastOffset === batch.lastOffset && l.leaderEpoch === batch.leaderEpoch && l.producerId === batch.producerId) return NO_VIOLATIONS;
  return [
    {
      atMs,
      invariant: 'followerLogIsPrefixOfLeader',
      subject: `${key}@${broker}`,
      message: `broker ${broker} appended ${key} [${batch.baseOffset}, ${batch.lastOffset}] epoch ${batch.leaderEpoch}, leader holds [${l.baseOffset}, ${l.lastOffset}] epoch ${l.leaderEpoch}`,
    },
  ];
}

export function checkRemoteTransition(atMs: number, key: string, segmentId: string, from: RemoteSegmentState, to: RemoteSegmentState): readonly Violation[] {
  if (isAllowedTransition(from, to)) return NO_VIOLATIONS;
  return [{ atMs, invariant: 'remoteStateForwardOnly', subject: `${key}/${segmentId}`, message: `remote segment ${segmentId} of ${key} moved ${from} -> ${to}` }];
}

/** `broker|partition` keys of the watch, made once per replica (they are looked up every step). */
const watchIds: Record<string, string[]> = {};

function watchId(broker: number, key: string): string {
  const ids = (watchIds[key] ??= []);
  return (ids[broker] ??= `${broker}|${key}`);
}

/**
 * The first offset at or above `from` not covered, contiguously, by finished remote
 * segments taken in base offset order (a stable order: equal bases keep their order).
 */
function coveredUpTo(remote: readonly RemoteSegmentMetadata[], from: number): number {
  // Segments are recorded in copy order, which is base offset order unless a new leader
  // copied from lower offsets: then sort (as the plain statement of the check does).
  let sorted = true;
  let prev = Number.NEGATIVE_INFINITY;
  for (const m of remote) {
    if (m.state !== 'COPY_SEGMENT_FINISHED') continue;
    if (m.baseOffset < prev) {
      sorted = false;
      break;
    }
    prev = m.baseOffset;
  }
  const finished = sorted ? remote : remote.filter((m) => m.state === 'COPY_SEGMENT_FINISHED').sort((a, b) => a.baseOffset - b.baseOffset);
  let next = from;
  for (const m of finished) {
    if (m.state !== 'COPY_SEGMENT_FINISHED') continue;
    if (m.baseOffset <= next && m.endOffset >= next) next = m.endOffset + 1;
  }
  return next;
}

/**
 * `coveredUpTo`, remembered in the state's `CheckCache`: the remote metadata grows with the
 * run (every segment ever copied stays in it, DELETE_SEGMENT_FINISHED included), while it
 * changes a few times a segment; so its answer is computed again only after a change (the
 * kernel raises the partition's version when `checkChange` is told of one) or a new log start.
 */
function coveredUpToRemembered(cache: CheckCache, key: string, remote: readonly RemoteSegmentMetadata[], from: number): number {
  const version = cache.remoteVersion[key] ?? 0;
  const c = cache.coverage[key];
  if (c !== undefined && c.version === version && c.length === remote.length && c.from === from) return c.next;
  const next = coveredUpTo(remote, from);
  if (c === undefined) cache.coverage[key] = { version, length: remote.length, from, next };
  else {
    c.version = version;
    c.length = remote.length;
    c.from = from;
    c.next = next;
  }
  return next;
}

/**
 * Checks run after every step; cheap enough for every event. `keys`: only these
 * partitions (in partition order), those the step may have changed; the kernel passes them,
 * since a partition's answer depends only on its own state, the brokers' liveness and what
 * the watch remembers of it. Without `keys`, every partition.
 * `remember`: reuse a partition's remote coverage while its remote metadata is unchanged
 * (the kernel, to which tiering.ts reports every change to it through `Sim.observe`, and
 * whose state holds the `checkCache`); without it, everything is computed from the state as
 * it is (a caller that edits the state by hand, as the tests of the checks do).
 */
export function checkInvariants(cluster: ClusterView, keys: readonly string[] = cluster.partitionOrder, remember = false): readonly Violation[] {
  const out: Violation[] = found;
  out.length = 0;
  const atMs = cluster.nowMs;
  const watch = cluster.watch;
  for (const key of keys) {
    const part = cluster.partitions[key];
    const replicas = part.replicaStates;
    // Only committed data is uploaded: Ry stays below the highest HW the partition reached.
    // (Not the leader's own HW: a new leader's HW may lag what its predecessor committed
    // and uploaded until its followers report, as in Kafka.)
    const committedHw = watch.committed[key]?.highWatermark ?? 0;
    // Replicas in broker id order (the order of the record's integer keys).
    const brokers = cluster.brokers.length;
    for (let b = 0; b < brokers; b++) {
      const r = replicas[b];
      if (r === undefined) continue;
      const log = r.log;
      const leo = logEndOffset(log);
      if (!(leo >= log.highWatermark && log.highWatermark >= log.localLogStartOffset && log.localLogStartOffset >= log.logStartOffset)) {
        out.push({
          atMs,
          invariant: 'offsetsOrdered',
          subject: `${key}@${r.broker}`,
          message: `broker ${r.broker} ${key}: LEO ${leo}, HW ${log.highWatermark}, LLSO ${log.localLogStartOffset}, LSO ${log.logStartOffset} are out of order`,
        });
      }
      if (r.broker === part.leader && r.highestOffsetInRemoteStorage >= Math.max(log.highWatermark, committedHw)) {
        out.push({
          atMs,
          invariant: 'offsetsOrdered',
          subject: `${key}@${r.broker}/ry`,
          message: `leader ${r.broker} ${key}: highest offset in remote storage ${r.highestOffsetInRemoteStorage} is not below HW ${Math.max(log.highWatermark, committedHw)} (the highest committed)`,
        });
      }
      // On the leader (a follower's log start lags the leader's by a fetch round, so it may
      // briefly name remote data the leader already deleted), once its copy task has run: a
      // new leader's log start is its follower's until then, as in Kafka
      // (RLMCopyTask.maybeUpdateLogStartOffsetOnBecomingLeader).
      if (r.broker === part.leader && r.logStartOffsetUnconfirmed !== true && log.logStartOffset < log.localLogStartOffset) {
        // [LSO, LLSO) must be covered by finished remote segments, contiguously.
        const next = remember && cluster.checkCache !== undefined ? coveredUpToRemembered(cluster.checkCache, key, part.remoteMetadata, log.logStartOffset) : coveredUpTo(part.remoteMetadata, log.logStartOffset);
        if (next < log.localLogStartOffset) {
          out.push({
            atMs,
            invariant: 'everyOffsetRetained',
            subject: `${key}@${r.broker}/retained`,
            message: `broker ${r.broker} ${key}: offset ${next} is below the local log start ${log.localLogStartOffset} but in no finished remote segment`,
          });
        }
      }
    }
    const lastEpoch = watch.leaderEpoch[key];
    if (lastEpoch !== undefined && part.leaderEpoch < lastEpoch) {
      out.push({ atMs, invariant: 'leaderEpochNeverDecreases', subject: `${key}/epoch`, message: `${key}: leader epoch went from ${lastEpoch} to ${part.leaderEpoch}` });
    }
    watch.leaderEpoch[key] = Math.max(lastEpoch ?? -1, part.leaderEpoch);
    for (let b = 0; b < brokers; b++) {
      const r = replicas[b];
      if (r === undefined) continue;
      const id = watchId(r.broker, key);
      const seen = watch.highestOffsetInRemoteStorage[id];
      if (seen !== undefined && r.highestOffsetInRemoteStorage < seen) {
        out.push({
          atMs,
          invariant: 'highestOffsetInRemoteStorageNeverDecreases',
          subject: `${id}/ry`,
          message: `broker ${r.broker} ${key}: highest offset in remote storage went from ${seen} to ${r.highestOffsetInRemoteStorage} while up`,
        });
      }
      if (seen !== r.highestOffsetInRemoteStorage) watch.highestOffsetInRemoteStorage[id] = r.highestOffsetInRemoteStorage;
    }
    if (part.leader >= 0 && cluster.brokers[part.leader].alive) {
      const leaderLog = replicas[part.leader].log;
      const committed = watch.committed[key];
      if (committed !== undefined) {
        const leo = logEndOffset(leaderLog);
        if (leo < committed.highWatermark) {
          out.push({
            atMs,
            invariant: 'noCommittedRecordLost',
            subject: `${key}/committed-end`,
            message: `${key}: leader ${part.leader} ends at ${leo} but offsets up to ${committed.highWatermark - 1} were committed`,
          });
        } else {
          for (let i = 0; i < committed.epochs.length; i++) {
            const [epoch, start] = committed.epochs[i];
            const next = committed.epochs[i + 1];
            const last = (next === undefined ? committed.highWatermark : next[1]) - 1;
            // The first and the last committed offset of each epoch.
            for (let j = 0; j < 2; j++) {
              const o = j === 0 ? start : last;
              if (o < leaderLog.logStartOffset || o >= committed.highWatermark) continue;
              const has = epochForOffset(leaderLog.leaderEpochs, o);
              if (has !== epoch) {
                out.push({
                  atMs,
                  invariant: 'noCommittedRecordLost',
                  subject: `${key}/committed-${o}`,
                  message: `${key}: committed offset ${o} was written in epoch ${epoch}, leader ${part.leader} has it in epoch ${has}`,
                });
              }
            }
          }
        }
      }
      for (const b of part.isr) {
        const r = replicas[b];
        if (r === undefined) continue;
        // An in-sync follower agrees with the leader on the epoch of every committed offset
        // both still hold (what the remote auxiliary state's checkpoint restores): checked at
        // the first such offset and wherever either cache starts an epoch. (An offset met
        // twice gives the same answer twice, so the first failing one is the one reported.)
        if (b !== part.leader && cluster.brokers[b].alive) {
          const lo = Math.max(leaderLog.logStartOffset, r.log.logStartOffset);
          const hi = Math.min(leaderLog.highWatermark, r.log.highWatermark, logEndOffset(r.log)) - 1;
          let failed = lo <= hi && epochMismatch(out, atMs, key, part.leader, b, leaderLog, r.log, lo);
          for (let pass = 0; pass < 2 && !failed; pass++) {
            for (const [, start] of pass === 0 ? leaderLog.leaderEpochs : r.log.leaderEpochs) {
              if (start >= lo && start <= hi && epochMismatch(out, atMs, key, part.leader, b, leaderLog, r.log, start)) {
                failed = true;
                break;
              }
            }
          }
        }
        const leo = logEndOffset(r.log);
        if (leaderLog.highWatermark > leo) {
          out.push({
            atMs,
            invariant: 'highWatermarkWithinIsr',
            subject: `${key}@${b}/hw`,
            message: `leader ${part.leader} ${key}: HW ${leaderLog.highWatermark} is above in-sync replica ${b}'s LEO ${leo}`,
          });
        }
      }
    }
  }
  return out.length === 0 ? NONE : out.slice();
}

/** Violations found by the current check (one array, reused: most checks find none). */
const found: Violation[] = [];
const NONE: readonly Violation[] = Object.freeze([]);

/** followerEpochsMatchLeader at offset `o`: records the violation and returns true when the two caches disagree. */
function epochMismatch(out: Violation[], atMs: number, key: string, leader: number, b: number, leaderLog: PartitionLog, log: PartitionLog, o: number): boolean {
  const want = epochForOffset(leaderLog.leaderEpochs, o);
  const has = epochForOffset(log.leaderEpochs, o);
  if (want === has) return false;
  out.push({
    atMs,
    invariant: 'followerEpochsMatchLeader',
    subject: `${key}@${b}/epochs`,
    message: `in-sync follower ${b} ${key}: committed offset ${o} is in epoch ${has} there, ${want} on leader ${leader}`,
  });
  return true;
}

/**
 * Checked when local retention deletes a segment: it must be below the log start offset
 * (the caller passes the larger of the replica's and its leader's), or (on a tiered topic)
 * fully uploaded: end <= the broker's Ry and held by a finished remote segment.
 */
export function checkLocalDelete(
  atMs: number,
  key: string,
  broker: number,
  seg: { baseOffset: number; endOffset: number },
  logStartOffset: number,
  highestOffsetInRemoteStorage: number,
  tiered: boolean,
  remote: readonly RemoteSegmentMetadata[],
): Violation[] {
  if (!tiered || seg.endOffset < logStartOffset) return [];
  const uploaded =
    seg.endOffset <= highestOffsetInRemoteStorage &&
    coveredByFinished(remote, seg.baseOffset, seg.endOffset);
  if (uploaded) return [];
  return [
    {
      atMs,
      invariant: 'noLocalDeleteBeforeUpload',
      subject: `${key}@${broker}/${seg.baseOffset}`,
      message: `broker ${broker} deleted local segment [${seg.baseOffset}, ${seg.endOffset}] of ${key} before it was uploaded (Ry ${highestOffsetInRemoteStorage})`,
    },
  ];
}

function coveredByFinished(remote: readonly RemoteSegmentMetadata[], from: number, to: number): boolean {
  let next = from;
  const finished = remote.filter((m) => m.state === 'COPY_SEGMENT_FINISHED').sort((a, b) => a.baseOffset - b.baseOffset);
  for (const m of finished) if (m.baseOffset <= next && m.endOffset >= next) next = m.endOffset + 1;
  return next > to;
}

/**
 * The checks of one change, as a subsystem reports it (`Sim.observe`), against the cluster at
 * that moment. The kernel records what they find and, for a change to a partition's remote
 * metadata, raises the partition's version in `checkCache` (so no caller has to remember to).
 */
export function checkChange(cluster: ClusterView, change: Change): readonly Violation[] {
  const atMs = cluster.nowMs;
  switch (change.kind) {
    case 'followerAppend': {
      const part = cluster.partitions[change.key];
      if (part.leader < 0) return NO_VIOLATIONS;
      const leader = part.replicaStates[part.leader];
      return leader === undefined ? NO_VIOLATIONS : checkFollowerAppend(atMs, change.key, change.broker, change.batch, leader.log);
    }
    case 'localSegmentDelete': {
      const part = cluster.partitions[change.key];
      const r = part.replicaStates[change.broker];
      return checkLocalDelete(atMs, change.key, change.broker, change.segment, change.logStartOffset, r.highestOffsetInRemoteStorage, change.uploadsRequired, part.remoteMetadata);
    }
    case 'remoteSegmentAdded':
      return NO_VIOLATIONS;
    case 'remoteSegmentState':
      return checkRemoteTransition(atMs, change.key, change.segmentId, change.from, change.to);
    case 'requestSent':
      return kip1023OnlyForEmptyFollower(cluster, change.msg);
    case 'responseSent': {
      const found = listOffsetsWithinLog(cluster, change.msg);
      return found.length > 0 ? found : consumerReadsCommitted(cluster, change.msg);
    }
  }
}

/**
 * Invariant kip1023OnlyForEmptyFollower: KIP-1023's ListOffsets(EARLIEST_PENDING_UPLOAD) is
 * asked only by a follower whose log is empty (docs/protocol.md, "KIP-1023 path"); a
 * follower with records takes the classic path.
 */
function kip1023OnlyForEmptyFollower(cluster: ClusterView, msg: SentMessage): readonly Violation[] {
  if (msg.api !== 'ListOffsets' || msg.body['timestamp'] !== -6 || typeof msg.source !== 'number') return NO_VIOLATIONS;
  const broker = msg.source;
  const end = logEndOffset(cluster.partitions[msg.key].replicaStates[broker].log);
  if (end === 0) return NO_VIOLATIONS;
  return [
    {
      atMs: cluster.nowMs,
      invariant: 'kip1023OnlyForEmptyFollower',
      subject: `${msg.key}@${broker}`,
      message: `follower ${broker} of ${msg.key} asks ListOffsets -6 (KIP-1023) with records up to offset ${end - 1} in its log; KIP-1023 is for an empty follower only`,
    },
  ];
}

/**
 * Invariant listOffsetsWithinLog: an offset a leader answers ListOffsets with (other than -1,
 * none) lies in its log, from its Log-Start-Offset to its Log-End-Offset: offsets below the
 * Log-Start-Offset no longer exist (UnifiedLog.fetchOffsetByTimestamp).
 */
function listOffsetsWithinLog(cluster: ClusterView, msg: SentMessage): readonly Violation[] {
  const o = msg.body['offset'];
  if (msg.api !== 'ListOffsets' || msg.body['error'] !== null || typeof o !== 'number' || o < 0 || typeof msg.source !== 'number') return NO_VIOLATIONS;
  const from = msg.source;
  const log = cluster.partitions[msg.key].replicaStates[from].log;
  const end = logEndOffset(log);
  if (o >= log.logStartOffset && o <= end) return NO_VIOLATIONS;
  return [
    {
      atMs: cluster.nowMs,
      invariant: 'listOffsetsWithinLog',
      subject: `${msg.key}@${from}`,
      message: `leader ${from} of ${msg.key} answers ListOffsets ${String(msg.body['timestamp'])} with offset ${o}, outside its log [${log.logStartOffset}, ${end}]`,
    },
  ];
}

/**
 * Invariant consumerReadsCommitted: a consumer gets only committed records, whichever replica
 * serves it: the leader, a KIP-392 follower (up to its own high watermark, which trails the
 * leader's) or remote storage (FetchIsolation.HIGH_WATERMARK; docs/protocol.md §3 and §3.2).
 * Committed: below the highest high watermark the partition has reached (or, before any
 * advance, the highest any replica holds).
 */
function consumerReadsCommitted(cluster: ClusterView, msg: SentMessage): readonly Violation[] {
  if (msg.api !== 'Fetch' || msg.target !== 'consumer' || typeof msg.source !== 'number') return NO_VIOLATIONS;
  const batches = msg.body['batches'] as readonly RecordBatch[] | undefined;
  if (batches === undefined || batches.length === 0) return NO_VIOLATIONS;
  const part = cluster.partitions[msg.key];
  let committed = cluster.watch.committed[msg.key]?.highWatermark ?? 0;
  for (const r of Object.values(part.replicaStates)) if (r !== undefined) committed = Math.max(committed, r.log.highWatermark);
  const last = batches[batches.length - 1].lastOffset;
  if (last < committed) return NO_VIOLATIONS;
  return [
    {
      atMs: cluster.nowMs,
      invariant: 'consumerReadsCommitted',
      subject: `${msg.key}@${msg.source}`,
      message: `broker ${msg.source} answers a consumer of ${msg.key} with records up to offset ${last}, at or above the highest high watermark ${committed}: a consumer reads committed records only`,
    },
  ];
}
