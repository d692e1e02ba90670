/**
 * Narration: one plain-English line per trace step, naming the rule applied. The CLI and
 * the browser both use it, so a newcomer reads the same explanation everywhere.
 */
import { KNOWN_FINDING_NOTE, findingById } from '../sim/checks/findings.js';
import { LIST_OFFSETS_MEANING, LIST_OFFSETS_NAMES, type ListOffsetsTimestamp } from '../domain/protocol.js';
import type { Rule } from '../domain/rules.js';
import { rlmTaskName } from '../domain/retention.js';
import type { Endpoint, RequestEntry, TraceEntry } from '../sim/state/trace.js';
import { formatRate } from '../sim/world/bandwidth.js';
import { formatBytes } from '../util/format.js';

/**
 * Why each rule applies, in the words of docs/protocol.md: one sentence for every rule the model
 * produces (core/domain/rules.ts) but the few it leaves unnarrated, and for nothing else.
 * Read by any trace entry's rule, hence the string keys of its type.
 */
export const RULES: Record<string, string> = {
  belowLogStartOffset: 'the offset is below the leader\'s Log-Start-Offset (docs/protocol.md §3: o < LSO)',
  aboveLogEndOffset: 'the offset is above the leader\'s Log-End-Offset (docs/protocol.md §3: o > LEO)',
  tieredOnlyOffset:
    'the offset is at or above Log-Start-Offset but below Local-Log-Start-Offset: it now lives only in remote storage (docs/protocol.md §3: LSO <= o < LLSO)',
  belowLocalLogStartOffset: 'the topic is not tiered and the offset is below the leader\'s local log start, so the local read is out of range',
  localRecords: 'the offset is in the leader\'s local log (docs/protocol.md §3: LLSO <= o <= LEO)',
  leaderEpochCheck: 'the request\'s leader epoch does not match the leader\'s',
  divergingEpoch: 'the follower\'s last fetched epoch ends earlier on the leader, so its log has diverged',
  unknownLastFetchedEpoch: 'the leader\'s epoch cache cannot place the follower\'s last fetched epoch, so the read is out of range (Partition.readRecords); in the tiered-only range that is OFFSET_MOVED_TO_TIERED_STORAGE (ReplicaManager.handleOffsetOutOfRangeError)',
  latest: 'ListOffsets -1 answers the Log-End-Offset',
  earliest: 'ListOffsets -2 answers the Log-Start-Offset',
  earliestLocal: 'ListOffsets -4 answers the Local-Log-Start-Offset',
  latestTiered: 'ListOffsets -5 answers the highest offset in remote storage',
  'earliestPendingUpload.notTiered': 'the topic is not tiered, so there is no pending upload offset (-1)',
  'earliestPendingUpload.unknownNothingTieredOnly':
    'Ry is unknown but Local-Log-Start-Offset equals Log-Start-Offset: nothing is tiered-only, so the answer is Log-Start-Offset',
  'earliestPendingUpload.unknownTieredOnlyExists':
    'Ry is unknown and some offsets are tiered-only: the leader does not yet know what it uploaded, so it answers -1',
  'earliestPendingUpload.afterHighestTiered': 'the answer is max(Ry + 1, Log-Start-Offset) (KIP-1023; the clamp covers a stale Ry)',
  endOffsetForEpoch: 'the leader epoch cache gives the end offset of the requested epoch (the start of the next higher one)',
  notLeader: 'the broker is not the partition\'s leader',
  brokerDown: 'the broker is down: connections to it fail, and the controller removes it from the ISR',
  brokerUnreachable: 'the broker is down: the request gets no answer, only a network error (the sender backs off and retries)',
  classicOutOfRange:
    'classic path (docs/protocol.md §4.1): ask the leader\'s Log-End-Offset (ListOffsets -1), then its Log-Start-Offset (ListOffsets -2)',
  classicOutOfRangeNotEmpty:
    'classic path even with KIP-1023 on, because the follower is not empty (its LEO is not 0)',
  classicTieredOffset:
    'classic path (docs/protocol.md §4.1): ask the leader\'s Local-Log-Start-Offset (ListOffsets -4), then build the remote auxiliary state up to it',
  classicTieredOffsetNotEmpty: 'classic tiered-offset path even with KIP-1023 on, because the follower is not empty',
  kip1023Eligible:
    'KIP-1023 applies: follower.fetch.last.tiered.offset.enable is on, the topic is tiered and not compacted, and the follower is empty; ask ListOffsets -2, -6 and -4',
  kip1023PendingUploadUnknown:
    'the earliest pending upload offset is unknown (-1) and the leader\'s Local-Log-Start-Offset is above its Log-Start-Offset: back off and retry until the leader learns what it uploaded',
  kip1023StartAtLogStart: 'the start offset equals the leader\'s Log-Start-Offset: nothing to rebuild from remote storage',
  kip1023Start: 'KIP-1023 start = max(Earliest-Pending-Upload-Offset, Local-Log-Start-Offset), never below the leader\'s local log',
  leaderEndBelowFollowerEnd: 'the leader\'s Log-End-Offset is below the follower\'s (unclean election): truncate to it',
  leaderStartAboveFollowerEnd: 'the leader\'s Log-Start-Offset is above the follower\'s Log-End-Offset: truncateFullyAndStartAt(leader LSO)',
  resumeAtFollowerEnd: 'fetch again from max(leader Log-Start-Offset, follower Log-End-Offset)',
  auxStateClassic: 'remote auxiliary state (docs/protocol.md §4.3): the local log restarts at the end of the remote segment covering LLSO - 1',
  auxStateKip1023: 'remote auxiliary state (docs/protocol.md §4.3): the local log restarts at the end of the remote segment covering start - 1',
  auxStateLeaderEpochs: 'the leader epoch cache is replaced by the checkpoint stored with the remote segment',
  auxStateProducerSnapshot: 'producer state is restored from the snapshot stored with the remote segment',
  auxStateBuilt: 'the remote auxiliary state is built and the leader\'s Log-End-Offset (ListOffsets -1) gives the initial lag, as TierStateMachine.start does; no record data was copied from remote storage',
  remoteSegmentFound: 'the remote log metadata holds a finished segment for that epoch and offset',
  remoteSegmentNotFound: 'previous remote log segment metadata was not found: back off and retry',
  remoteMetadataLoading: 'the remote log metadata for this partition is still loading on this broker: back off and retry',
  fencedLeaderEpoch: 'FENCED_LEADER_EPOCH at the current epoch: the partition is marked failed until the next leader change',
  backoff: 'every failure delays the partition by replica.fetch.backoff.ms, with fetchOffset unchanged',
  rlmMetadataLoading: 'the remote log metadata is still loading: the task cannot learn the highest offset in remote storage yet',
  rlmRefreshHighestOffset: 'the remote log manager task refreshes Ry from remote metadata on every run, even with nothing to upload (KIP-1023)',
  logStartOffsetOnBecomingLeader:
    "a new leader's copy task, on its first run, raises a stale Log-Start-Offset to the start of the earliest remote segment still listed for its earliest leader epoch (or to its local log start): a follower may not have heard of the old leader's last move",
  copyCandidate:
    'a rolled segment from max(Ry + 1, LSO) whose next segment starts at or below the last stable offset is copied (never the active segment)',
  copyFinished: 'the copy finished: COPY_SEGMENT_FINISHED, and the highest offset in remote storage is raised to the segment end',
  copyFailed: 'a failed copy is cleaned up (DELETE_SEGMENT_STARTED, delete the partial objects, DELETE_SEGMENT_FINISHED) and retried on the next run',
  localRetention:
    'local retention: the segment is below the high watermark, breaches local.retention.*, and is fully uploaded; Local-Log-Start-Offset moves, Log-Start-Offset does not',
  logRetention: 'log retention on a topic that is not tiered, or tiered with remote.log.copy.disable: the segment breaches retention.*, needs no upload, and Log-Start-Offset moves with it',
  rollForLocalRetention: 'the high watermark has reached the log end, every older segment was deletable, and the active segment breaches retention too: it is rolled, to be uploaded first or, where no upload is needed, deleted',
  remoteRetention: 'remote retention raises Log-Start-Offset once, past the last segment expiring by time or size, before it deletes any',
  retentionMs: 'the remote segment is older than retention.ms',
  retentionBytes: 'the partition is above retention.bytes across both tiers',
  retryDelete: 'an earlier delete of this segment failed (DELETE_SEGMENT_STARTED); the expiration task retries it',
  remoteDeletedOnDisable:
    'remote.storage.enable was turned off with remote.log.delete.on.disable (KIP-950; Kafka refuses it without): the remote data is deleted and Log-Start-Offset moves to the local log start; the in-memory Ry stays',
  followerLagging: 'the follower has not caught up within replica.lag.time.max.ms, so it leaves the ISR',
  brokerCrashed: 'the broker crashed: its local log survives, its in-memory state (Ry, fetch state) does not',
  brokerRestarted: 'the broker restarted and reloads its remote log metadata',
  crashWhileDown: 'the timeline crashes a broker that is already down: nothing changes',
  restartWhileUp: 'the timeline restarts a broker that is running: nothing changes (a restart is of a crashed broker)',
  brokerRegistered:
    'a new broker starts and registers with the controller (BrokerRegistration; docs/protocol.md §6, Brokers): it is in the cluster but hosts no replica until a reassignment adds one',
  lastInSyncReplicaReturned: 'the last in-sync replica came back and leads again',
  auxStateContinuesAcrossLeaderChange:
    'the leader changed while the remote auxiliary state was being read from remote storage; as in Kafka\'s synchronous TierStateMachine, the build finishes first and the follower then fetches from the new leader',
  followerCaughtUp: 'the follower reached the high watermark, so it joins the ISR',
  segmentFull: 'the batch would overflow segment.bytes (or segment.ms passed), so the active segment was rolled',
  appendAsLeader: 'the leader appends the batches to its active segment',
  minInsyncReplicas: 'acks=all needs min.insync.replicas in the ISR',
  consumerLocalRead: 'the offset is in the local log',
  transferStarted: "a response's bytes take time on the sender's network interface and the receiver's, each shared fairly by the transfers on it (docs/protocol.md §10); it arrives one hop after its last byte",
  consumerRemoteRead: 'the offset is below Local-Log-Start-Offset, so the broker reads it from remote storage',
  consumerReadRemote: 'part of the read came from remote storage: the cost KIP-1023 warns about',
  consumerReadLocal: 'the whole read came from the local log',
  consumerOutOfRange: 'the offset is outside [Log-Start-Offset, Log-End-Offset]',
  preferredReadReplica:
    "KIP-392 (docs/protocol.md): the consumer's client.rack names another zone than the leader's, and replica.selector.class RackAwareReplicaSelector picks the most caught-up in-sync replica there; the consumer reads from it until metadata.max.age.ms passes",
  preferredReadReplicaCleared: 'the replica the leader named answered with an error, so the consumer forgets it and fetches from the leader again (FetchCollector.handleInitializeErrors)',
  preferredReadReplicaExpired: 'metadata.max.age.ms passed since the leader named the replica, so the consumer asks the leader again (SubscriptionState.preferredReadReplica)',
  initialLeader: 'the first replica in the assignment leads',
  leaderCrashed: 'the leader crashed; the first live in-sync replica is elected (clean election)',
  electLeader: 'leadership moved on request to a live in-sync replica',
  electionRefused: 'only a live in-sync replica can be elected (clean election only)',
  noEligibleLeader: 'no live in-sync replica is left: the partition is offline',
  configChanged: 'a dynamic config change takes effect at once',
  configRefused:
    "Kafka's controller validates the topic's configs merged with the change (ConfigurationControlManager.validateAlterConfig, LogConfig.validate) and answers INVALID_CONFIG: nothing of the change is applied, the topic's configs are unchanged",
  networkPartition: 'a network partition cuts the broker off from the other brokers (the controller still sees it, so no election follows)',
  networkHealed: 'the network partition is over',
  storeThrottled: 'the object store answers every request more slowly (throttling)',
  walEmptyRecords: 'KIP-1176: the WAL carries the records, so the leader answers with its high watermark only (the Fetch just reports the follower\'s offset)',
  walCombinerFlush: 'KIP-1176: the broker\'s WAL combiner writes the new bytes of every WAL partition it leads as one object in the fast store',
  walMetadataPublished: 'KIP-1176: one record per chunk (object key, byte range, partition, offsets, leader epoch) goes to __remote_wal_log_metadata',
  walChunkAppended: 'KIP-1176: the follower read the chunk\'s byte range from the fast store and appended it as follower',
  walChunkStaleEpoch: 'KIP-1176: the chunk was written in an older leader epoch than the follower knows, so it is ignored (docs/protocol.md §7.7)',
  walPutFailed: 'KIP-1176: the fast store refused the object; its chunks stay pending and go into the next object after a backoff',
  walReadBackoff: 'KIP-1176: a chunk could not be read from the fast store; retry after replica.fetch.backoff.ms',
  walTailSync: 'KIP-1176 failover: before leading, the elected replica syncs the tail from the WAL (chunks of the old epoch it has not applied)',
  walTailSynced: 'KIP-1176 failover: the WAL tail is applied; the election completes at the new log end',
  walTailSyncFailed: 'KIP-1176 failover: the fast store cannot be read, so the elected replica leads with what it has (those records were never committed)',
  walOrphan: 'KIP-1176: the broker crashed while writing this WAL object, so no metadata record names it; restarted, it deletes the object',
  walObjectTiered: 'KIP-1176: every chunk in the WAL object is now in tiered storage (at or below Ry), so the object is deleted',
  walObjectPastLocalRetention: 'KIP-1176: every chunk in the WAL object is past local retention, so the object is deleted',
  walMetadataRetention: 'KIP-1176: records older than wal.metadata.retention.ms leave the WAL metadata topic',
  noLeader: 'the partition has no leader (the last in-sync replica is down), so nothing can be appended until one returns',
  notReplica: 'the broker holds no replica of the partition',
  replicaAdded: 'the new replica starts empty and fetches from the leader, down the classic or the KIP-1023 path',
  storeOutage: 'the object store refuses every request (ServiceUnavailable) until it recovers',
  storeRecovered: 'the object store answers again, at its normal speed',
  remoteSegmentMissing: 'no finished remote segment holds the offset, so the read is out of range',
  remoteReadFailed: 'the ranged GET of the remote segment failed, so the consumer gets a retriable error and fetches again',
  remoteFetchExpired: 'the remote read took longer than remote.fetch.max.wait.ms, so the broker answers without its records (DelayedRemoteFetch) and the consumer fetches again',
  rlmRunDone: 'the remote log manager task (RLMCopyTask, or RLMExpirationTask) is done until its next run, remote.log.manager.task.interval.ms after this one ended',
  logRetentionRunDone: "the broker's log retention task is done for this partition until its next run (log.retention.check.interval.ms)",
  leaderThrottled:
    'KIP-73 (docs/protocol.md §3.1): the follower is out of the ISR, its replica is in leader.replication.throttled.replicas and the leader\'s replication rate is above leader.replication.throttled.rate, so the read returns no records and the Fetch waits out replica.fetch.wait.max.ms',
  followerThrottled:
    'KIP-73 (docs/protocol.md §3.1): the fetcher is not in sync, its replica is in follower.replication.throttled.replicas and the follower\'s replication rate is above follower.replication.throttled.rate, so the partition is left out of the Fetch; the fetcher tries again after replica.fetch.backoff.ms',
  remoteCopyThrottled:
    'KIP-956 (docs/protocol.md §5.1): the copy rate is above remote.log.manager.copy.max.bytes.per.second, so the copy task waits (at most 1 s) before it checks the quota again',
  remoteFetchThrottled:
    'KIP-956 (docs/protocol.md §5.1): the remote read rate is above remote.log.manager.fetch.max.bytes.per.second, so no remote read is scheduled; the Fetch gets no records after its max wait and the consumer fetches again',
  remoteReadQueued:
    'every remote log reader thread (remote.log.reader.threads) is busy, so the read waits in the pool\'s queue (docs/protocol.md §5.1)',
  remoteReadRejected:
    'the remote log reader pool\'s queue is full (remote.log.reader.max.pending.tasks): the read is rejected and the Fetch is answered UNKNOWN_SERVER_ERROR (docs/protocol.md §5.1)',
} satisfies Record<Rule, string>;

function who(e: unknown): string {
  if (e === 'consumer') return 'consumer';
  if (e === 'producer') return 'producer';
  return `broker ${String(e)}`;
}

function tsName(t: ListOffsetsTimestamp | undefined): string {
  if (t === undefined) return '';
  return `${t} (${LIST_OFFSETS_NAMES[t]})`;
}

/** `, high watermark N`, or nothing where the response carries none (the model's consumer reads). */
function hw(highWatermark: number | undefined): string {
  return highWatermark === undefined ? '' : `, high watermark ${highWatermark}`;
}

function because(rule: unknown): string {
  if (typeof rule !== 'string') return '';
  const text = RULES[rule];
  return text ? `: ${text}` : '';
}

/** Which of Kafka's tasks acted, named by the event or told by its rule (docs/protocol.md §5). */
function taskOf(rule: string | undefined, named: unknown): string {
  if (typeof named === 'string') return named;
  switch (rule) {
    case 'localRetention':
    case 'logRetention':
    case 'rollForLocalRetention':
      return rlmTaskName('retention', 'leader');
    case 'remoteRetention':
    case 'retentionMs':
    case 'retentionBytes':
    case 'belowLogStartOffset':
    case 'retryDelete':
      return rlmTaskName('expiration', 'leader');
    default:
      return rlmTaskName('copy', 'leader');
  }
}

/** The rules of a log change made by one of the tasks of §5: its narration names the task. */
const TASK_RULES = new Set(['localRetention', 'logRetention', 'rollForLocalRetention', 'remoteRetention', 'logStartOffsetOnBecomingLeader']);

/** One line for a trace entry, or null when the entry is not narrated at this level. */
export function narrate(e: TraceEntry, verbose = false): string | null {
  const t = `t=${e.atMs}ms`;
  const tp = e.topic !== undefined ? `${e.topic}-${e.partition}` : '';
  const x = e as Record<string, unknown>;
  switch (e.type) {
    case 'request': {
      const r = e as Extract<TraceEntry, { type: 'request' }>;
      if (r.api === 'Fetch') {
        if (!verbose && r.source !== 'consumer' && x.quiet) return null;
        return `${t} ${who(r.source)} -> ${who(r.target)}: Fetch ${tp} at offset ${r.fetchOffset}`;
      }
      if (r.api === 'ListOffsets') return `${t} ${who(r.source)} -> ${who(r.target)}: ListOffsets ${tp} timestamp ${tsName(r.timestamp)}, asking for the ${LIST_OFFSETS_MEANING[r.timestamp!]}`;
      return `${t} ${who(r.source)} -> ${who(r.target)}: OffsetsForLeaderEpoch ${tp} epoch ${r.leaderEpoch}`;
    }
    case 'response': {
      const r = e as Extract<TraceEntry, { type: 'response' }>;
      if (r.api === 'Fetch') {
        // A network error is the requester's own (the connection failed): no offset came back.
        if (r.error !== null) return `${t} ${who(r.source)} -> ${who(r.target)}: Fetch ${tp}${r.fetchOffset === undefined ? '' : ` at ${r.fetchOffset}`} answered ${r.error}${because(r.rule)}`;
        if (r.divergingEpoch) return `${t} ${who(r.source)} -> ${who(r.target)}: Fetch ${tp} answered with a diverging epoch ${r.divergingEpoch.epoch} ending at ${r.divergingEpoch.endOffset}${because('divergingEpoch')}`;
        const from = r.servedFrom ? ` from ${r.servedFrom} storage` : '';
        // An answer cut short by remote.fetch.max.wait.ms is told even though it carries nothing.
        if (r.rule === 'remoteFetchExpired') return `${t} ${who(r.source)} -> ${who(r.target)}: Fetch ${tp} at ${r.fetchOffset} answered with no records${because(r.rule)}`;
        if (r.preferredReadReplica !== undefined) return `${t} ${who(r.source)} -> ${who(r.target)}: Fetch ${tp} at ${r.fetchOffset} answered with no records and preferred read replica ${r.preferredReadReplica}`;
        if (r.records === 0 && !verbose) return null;
        if (x.wal === true) return `${t} ${who(r.source)} -> ${who(r.target)}: Fetch ${tp} at ${r.fetchOffset} answered with no records${hw(r.highWatermark)}${because(r.rule)}`;
        return `${t} ${who(r.source)} -> ${who(r.target)}: Fetch ${tp} at ${r.fetchOffset} returned ${r.records} records (${r.bytes} bytes)${from}${hw(r.highWatermark)}`;
      }
      if (r.api === 'ListOffsets') {
        if (r.error !== null) return `${t} ${who(r.source)} -> ${who(r.target)}: ListOffsets${r.timestamp === undefined ? '' : ` ${tsName(r.timestamp)}`} answered ${r.error}${because(r.rule)}`;
        return `${t} ${who(r.source)} -> ${who(r.target)}: ListOffsets ${tsName(r.timestamp)} = offset ${r.offset}, epoch ${r.leaderEpoch}${because(r.rule)}`;
      }
      if (r.error !== null) return `${t} ${who(r.source)} -> ${who(r.target)}: OffsetsForLeaderEpoch answered ${r.error}`;
      return `${t} ${who(r.source)} -> ${who(r.target)}: OffsetsForLeaderEpoch = epoch ${r.leaderEpoch}, end offset ${r.endOffset}${because(r.rule)}`;
    }
    case 'transfer': {
      const rate = formatRate(x.bytesPerSec as number);
      return `${t} ${who(x.source as Endpoint)} -> ${who(x.target as Endpoint)}: ${x.api} ${tp} response of ${formatBytes(x.bytes as number)} on its way at ${rate} (${x.sharing === 1 ? 'alone on its interfaces' : `sharing its interfaces with ${(x.sharing as number) - 1} other transfer${x.sharing === 2 ? '' : 's'}`}), last byte due at t=${x.dueMs}ms${because(e.rule)}`;
    }
    case 'objectStore': {
      const o = e as Extract<TraceEntry, { type: 'objectStore' }>;
      const what = o.purpose === 'remoteIndex' ? ' (remoteIndex: the broker\'s first read of this segment fetches its offset index into its remote index cache)' : o.purpose ? ` (${o.purpose})` : '';
      return `${t} broker ${o.broker} ${o.op.toUpperCase()} ${o.store} store ${o.key}${what}: ${o.ok ? `${o.bytes} bytes` : `failed, ${o.error}`}`;
    }
    case 'log': {
      const a = x.action;
      if (a === 'truncateFullyAndStartAt') return `${t} broker ${x.broker} ${tp}: truncateFullyAndStartAt(${x.offset}), log start ${x.logStartOffset}${because(e.rule)}`;
      if (a === 'truncateTo') return `${t} broker ${x.broker} ${tp}: truncated to ${x.offset}${because(e.rule)}`;
      if (a === 'leaderEpochsRestored') return `${t} broker ${x.broker} ${tp}: leader epochs restored ${JSON.stringify(x.leaderEpochs)}${because(e.rule)}`;
      if (a === 'producerStateRestored') return `${t} broker ${x.broker} ${tp}: producer state restored (${x.producers} producers)${because(e.rule)}`;
      const by = TASK_RULES.has(e.rule ?? '') ? `[${taskOf(e.rule, undefined)}] ` : '';
      if (a === 'localSegmentDeleted') return `${t} broker ${x.broker} ${tp}: ${by}local segment [${x.baseOffset}, ${x.endOffset}] deleted${because(e.rule)}`;
      if (a === 'logStartOffsetRaised') return `${t} broker ${x.broker} ${tp}: ${by}Log-Start-Offset ${x.from} -> ${x.logStartOffset}${because(e.rule)}`;
      if (a === 'segmentRolled' && e.rule === 'rollForLocalRetention') return `${t} broker ${x.broker} ${tp}: ${by}active segment rolled at ${x.baseOffset}${because(e.rule)}`;
      if (a === 'segmentRolled') return verbose ? `${t} broker ${x.broker} ${tp}: segment rolled at ${x.baseOffset}${because(e.rule)}` : null;
      if (a === 'walChunkAppended') return `${t} broker ${x.broker} ${tp}: WAL chunk [${x.baseOffset}, ${x.lastOffset}] of ${x.objectKey} appended (${x.records} records)${because(e.rule)}`;
      return null;
    }
    case 'wal': {
      const a = x.action;
      if (a === 'flush') return verbose ? `${t} broker ${x.broker}: WAL combiner flushes ${x.objectKey} (${x.chunks} chunks, ${x.bytes} bytes, ${x.reason})${because(e.rule)}` : null;
      if (a === 'chunkPublished') return `${t} broker ${x.broker} ${tp}: WAL chunk [${x.baseOffset}, ${x.lastOffset}] in ${x.objectKey} bytes ${(x.range as number[]).join('-')}, epoch ${x.leaderEpoch}, metadata offset ${x.metadataOffset}${because(e.rule)}`;
      if (a === 'putFailed') return `${t} broker ${x.broker}: WAL object ${x.objectKey} not written (${x.error}, ${x.failures} in a row)${because(e.rule)}`;
      if (a === 'readDelayed') return `${t} broker ${x.broker} ${tp}: WAL read delayed ${x.delayMs} ms (${x.reason})${because(e.rule)}`;
      if (a === 'syncingTail') return `${t} broker ${x.broker} ${tp}: elected, syncing the WAL tail from log end ${x.logEndOffset}${because(e.rule)}`;
      if (a === 'tailSynced') return `${t} broker ${x.broker} ${tp}: WAL tail synced (${x.chunks} chunks), log end ${x.logEndOffset}${because(e.rule)}`;
      if (a === 'deleteObject') return `${t} broker ${x.broker}: WAL object ${x.objectKey} deleted${because(e.rule)}`;
      if (a === 'metadataRetention') return verbose ? `${t} ${x.topic}: ${x.records} records expired${because(e.rule)}` : null;
      if (a === 'explain') return `${t} broker ${x.broker} ${tp}: ${RULES[e.rule ?? ''] ?? e.rule}`;
      return verbose ? `${t} wal ${String(a)}` : null;
    }
    case 'fetcher': {
      if (x.action === 'delayed') return `${t} broker ${x.broker} ${tp}: fetcher delayed ${x.delayMs} ms (${x.reason}), retry at t=${x.retryAtMs}ms${because(e.rule)}`;
      return `${t} broker ${x.broker} ${tp}: ${RULES[e.rule ?? ''] ?? e.rule}${detail(x)}`;
    }
    case 'rlm': {
      if (e.rule === 'rlmRunDone' || e.rule === 'logRetentionRunDone') {
        // Say why nothing more was uploaded or deleted, when the reason is worth knowing.
        const why: string[] = [];
        if (x.copy === 'copyDisabled') why.push('no upload: remote.log.copy.disable is set');
        if (x.copy === 'metadataLoading') why.push('no upload: the remote log metadata is still loading');
        if (x.localStoppedBy === 'notUploaded') why.push('local retention stops at a segment not yet uploaded (its end is above Ry)');
        if (x.localStoppedBy === 'notBelowHighWatermark') why.push('local retention stops at a segment not entirely below the high watermark');
        if (why.length === 0 && !verbose) return null;
        const task = e.rule === 'logRetentionRunDone' ? rlmTaskName('retention', 'leader') : String(x.task ?? 'remote log manager task');
        return `${t} broker ${x.broker} ${tp}: [${task}] run done${why.length ? `: ${why.join('; ')}` : ''}`;
      }
      const task = `[${taskOf(e.rule, x.task)}] `;
      if (x.action === 'copyFailed') return `${t} broker ${x.broker} ${tp}: ${task}copy of ${x.segmentId} failed (${x.error})${because(e.rule)}`;
      if (x.action === 'deleteStarted') return `${t} broker ${x.broker} ${tp}: ${task}deleting remote segment [${x.baseOffset}, ${x.endOffset}]${because(e.rule)}`;
      if (x.action === 'highestOffsetInRemoteStorageUpdated') return `${t} broker ${x.broker} ${tp}: ${task}highest offset in remote storage ${x.from} -> ${x.highestOffsetInRemoteStorage}${because(e.rule)}`;
      return `${t} broker ${x.broker} ${tp}: ${task}${RULES[e.rule ?? ''] ?? e.rule}`;
    }
    case 'remoteMetadata':
      if (x.action === 'stateChanged') {
        const range = `[${x.baseOffset}, ${x.endOffset}]`;
        if (x.from === null) return `${t} broker ${x.broker} ${tp}: [RLMCopyTask] segment ${range} ${x.to}${because(e.rule)}`;
        return `${t} ${tp}: remote segment ${range} ${x.from} -> ${x.to}`;
      }
      return `${t} broker ${x.broker} ${tp}: remote segment for epoch ${x.epoch}, offset ${x.offset}: ${x.found ?? 'none'}${because(e.rule)}`;
    case 'produce':
      if (x.action === 'appended') return `${t} broker ${x.broker} ${tp}: produced ${x.records} records at [${x.baseOffset}, ${x.lastOffset}] (acks=${x.acks})`;
      if (x.action === 'acknowledged') return verbose || x.acks === 'all' ? `${t} ${tp}: produce acknowledged up to ${x.lastOffset} (acks=${x.acks}) after ${x.latencyMs} ms` : null;
      return `${t} ${tp}: produce rejected ${x.error}${because(e.rule)}`;
    case 'consume':
      if (x.action === 'readReplicaChosen') return `${t} consumer ${tp} (client.rack ${x.clientRack}): leader ${x.leader} sends it to read from broker ${x.broker}${because(e.rule)}`;
      if (x.action === 'readReplicaCleared') return `${t} consumer ${tp}: stops reading from broker ${x.broker} after ${x.error}${because(e.rule)}`;
      if (x.action === 'readReplicaExpired') return `${t} consumer ${tp}: its lease on broker ${x.broker} ended${because(e.rule)}`;
      return `${t} consumer ${tp} on broker ${x.broker}: read ${x.recordsLocal} records locally and ${x.recordsRemote} from remote storage, next offset ${x.nextOffset}${because(e.rule)}`;
    case 'isr':
      return `${t} ${tp}: ISR is now [${(x.isr as number[]).join(', ')}]${because(e.rule)}`;
    case 'leader':
      if ((x.broker as number) < 0) return `${t} ${tp}: no leader at epoch ${x.leaderEpoch}${because(e.rule)}`;
      return `${t} ${tp}: broker ${x.broker} leads at epoch ${x.leaderEpoch}${because(e.rule)}`;
    case 'highWatermark':
      return verbose ? `${t} broker ${x.broker} ${tp}: high watermark ${x.highWatermark}` : null;
    case 'config':
      if (x.action === 'refused') return `${t} config change ${(x.keys as string[]).join(', ')} on ${x.topic} refused: ${x.error} "${x.message}" (LogConfig.${x.check})${because(e.rule)}`;
      return `${t} config ${x.key} = ${String(x.value)}${x.topic ? ` on ${x.topic}` : ''}${because(e.rule)}`;
    case 'broker':
      if (x.action === 'added') return `${t} broker ${x.broker} joins the cluster in zone ${String(x.zone)}${because(e.rule)}`;
      if (x.action === 'alreadyDown') return `${t} broker ${x.broker} is already down${because(e.rule)}`;
      if (x.action === 'alreadyUp') return `${t} broker ${x.broker} is already running${because(e.rule)}`;
      return `${t} broker ${x.broker} ${x.action}${because(e.rule)}`;
    case 'timeline':
      if (x.ignored) return `${t} ${x.action} ignored: ${x.ignored}`;
      if (x.action === 'addReplica') return `${t} broker ${x.broker} joins ${tp} as an empty replica`;
      if (x.action === 'objectStore') return `${t} object store ${(x.stores as string[]).join(' and ')} ${x.available ? 'available again' : 'unavailable'}`;
      return verbose ? `${t} timeline: ${x.action}` : null;
    case 'quota': {
      const rate = `rate ${x.rateBytesPerSec} B/s over ${x.windowMs} ms, quota ${x.quotaBytesPerSec} B/s`;
      if (x.action === 'leaderThrottled') return `${t} broker ${x.broker} ${tp}: ${x.heldBytes} bytes held back from follower ${x.follower} (${rate})${because(e.rule)}`;
      if (x.action === 'followerThrottled') return `${t} broker ${x.broker} ${tp}: Fetch at ${x.fetchOffset} left out, retry at t=${x.retryAtMs}ms (${rate})${because(e.rule)}`;
      if (x.action === 'remoteCopyThrottled') return `${t} broker ${x.broker} ${tp}: copy of [${x.baseOffset}, ${x.endOffset}] waits, throttle time ${x.throttleMs} ms, next check at t=${x.retryAtMs}ms (${rate})${because(e.rule)}`;
      if (x.action === 'remoteFetchThrottled') return `${t} broker ${x.broker} ${tp}: remote read at ${x.fetchOffset} skipped, throttle time ${x.throttleMs} ms (${rate})${because(e.rule)}`;
      return `${t} broker ${x.broker} ${tp}: remote read at ${x.fetchOffset}: ${x.running} of ${x.threads} reader threads busy, ${x.queued} of ${x.maxPendingTasks} queued${because(e.rule)}`;
    }
    case 'violation': {
      const f = findingById(x.finding as string | undefined);
      if (f) return `${t} KNOWN FINDING ${x.invariant}: ${x.message} (${KNOWN_FINDING_NOTE}; ${f.docs})`;
      return `${t} VIOLATION ${x.invariant}: ${x.message}`;
    }
    default:
      if (e.type.endsWith('State')) return verbose ? `${t} broker ${x.broker} ${tp} ${e.type.replace('State', '')}: ${x.from} -> ${x.to}` : null;
      return verbose ? `${t} ${e.type}` : null;
  }
}

function detail(x: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const k of ['start', 'earliestPendingUploadOffset', 'localLogStartOffset', 'logStartOffset', 'offset', 'leaderEndOffset', 'initialLag', 'error']) {
    if (x[k] !== undefined && x[k] !== null) parts.push(`${k} ${String(x[k])}`);
  }
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/**
 * A narrator for a whole run: like `narrate`, but at the default level it also skips the
 * repeated long-poll Fetch of an in-sync follower (same source, same offset as its last
 * Fetch), which would otherwise fill the narration with identical lines.
 */
export class Narrator {
  private lastFetch: Record<string, number> = {};
  constructor(private readonly verbose = false) {}

  line(e: TraceEntry): string | null {
    const r = e as RequestEntry;
    if (!this.verbose && r.type === 'request' && r.api === 'Fetch' && r.source !== 'consumer') {
      const k = `${String(r.source)}|${r.topic}-${r.partition}`;
      const offset = typeof r.fetchOffset === 'number' ? r.fetchOffset : -1;
      const repeated = this.lastFetch[k] === offset;
      this.lastFetch[k] = offset;
      if (repeated) return null;
    }
    return narrate(e, this.verbose);
  }
}
