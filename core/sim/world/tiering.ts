/**
 * KIP-405's tiering, executed for the remote log manager (RemoteLogManager's RLMCopyTask and
 * RLMExpirationTask): copying a rolled segment with its offset index, leader-epoch checkpoint
 * and producer snapshot; remote segment metadata and its state transitions; deleting remote
 * segments (retention raises Log-Start-Offset first); local retention; the highest offset in
 * remote storage (Ry); and the follower's look-up of a remote segment for its auxiliary state.
 */
import type { Rule } from '../../domain/rules.js';
import { type EpochEntry, checkpointUpTo, formatCheckpoint, parseCheckpoint, truncateFromStart as truncateEpochsFromStart } from '../../domain/leader-epoch-cache.js';
import { type RecordBatch, maybeIncrementLogStartOffset, producerSnapshotAt, roll } from '../../domain/partition-log.js';
import { type ProducerEntry, formatProducerSnapshot, producerSnapshotBytes } from '../../domain/producer-state.js';
import { type RemoteSegmentMetadata, batchIndexEntry, batchIndexLength, batchIndexOf, findRemoteSegment, formatOffsetIndex, objectKeysFor, segmentLeaderEpochs } from '../../domain/remote-metadata.js';
import type { SegmentRange } from '../../domain/retention.js';
import type { StoredBody, StoredObject } from '../../ports/object-store.js';
import { type BatchRun, batchesOfRuns } from '../../domain/batch.js';
import { assert } from '../../util/assert.js';
import type { Sim } from '../state/context.js';
import { metadataReady, replica, uploadsRequired } from '../state/facts.js';
import { changeLocalLog, localLogBytesChanged } from './replica-log.js';
import { storeOp } from './store.js';
import type { KernelEventOf, SegmentObjectKind } from '../state/state.js';

/** The objects a copy writes: the segment, its offset index, the leader-epoch checkpoint and the producer snapshot. */
export function segmentObjects(meta: RemoteSegmentMetadata, batches: RecordBatch[], epochs: EpochEntry[], producers: ProducerEntry[]): Array<[string, StoredObject, SegmentObjectKind]> {
  // Kafka's offset index: each batch's base offset and byte position in the `.log`.
  const index = formatOffsetIndex(batchIndexOf(batches).map(([base, , pos]) => [base, pos] as const));
  return objectsOf(meta, { kind: 'segment', batches }, batches.length, { kind: 'text', text: index }, epochs, producers);
}

/**
 * The objects of a segment of the scenario's `initial` log, whose batches are runs
 * (`meta.batchRuns`): the same objects as `segmentObjects` gives for those batches listed,
 * the `.log` batches and the `.index` text made when read (a store that writes files reads
 * them at once; the memory store only when a read asks), so a terabyte at t = 0 holds no
 * batch.
 */
export function initialSegmentObjects(meta: RemoteSegmentMetadata, runs: readonly BatchRun[], epochs: EpochEntry[], producers: ProducerEntry[]): Array<[string, StoredObject, SegmentObjectKind]> {
  const log: StoredBody = {
    kind: 'segment',
    get batches() {
      return batchesOfRuns(runs);
    },
  };
  const index: StoredBody = {
    kind: 'text',
    get text() {
      const out: Array<readonly [number, number]> = [];
      for (let i = 0, n = batchIndexLength(meta); i < n; i++) {
        const [base, , pos] = batchIndexEntry(meta, i);
        out.push([base, pos]);
      }
      return formatOffsetIndex(out);
    },
  };
  return objectsOf(meta, log, batchIndexLength(meta), index, epochs, producers);
}

function objectsOf(meta: RemoteSegmentMetadata, log: StoredBody, batchCount: number, index: StoredBody, epochs: EpochEntry[], producers: ProducerEntry[]): Array<[string, StoredObject, SegmentObjectKind]> {
  const cp = formatCheckpoint(epochs);
  const snap = formatProducerSnapshot(producers);
  return [
    [meta.objectKeys.log, { bytes: meta.sizeBytes, body: log }, 'log'],
    [meta.objectKeys.offsetIndex, { bytes: batchCount * 8, body: index }, 'offsetIndex'],
    [meta.objectKeys.leaderEpochCheckpoint, { bytes: cp.length, body: { kind: 'text', text: cp } }, 'leaderEpochCheckpoint'],
    [meta.objectKeys.producerSnapshot, { bytes: producerSnapshotBytes(producers), body: { kind: 'text', text: snap } }, 'producerSnapshot'],
  ];
}

/** The object keys of a remote segment, in the order a delete removes them. */
export function segmentObjectKeys(meta: RemoteSegmentMetadata): string[] {
  return [meta.objectKeys.log, meta.objectKeys.offsetIndex, meta.objectKeys.leaderEpochCheckpoint, meta.objectKeys.producerSnapshot];
}

/** RLMCopyTask: COPY_SEGMENT_STARTED, then the segment's objects are PUT together. */
export function startCopy(s: Sim, broker: number, key: string, requestId: number, baseOffset: number, endOffset: number): void {
  const state = s.state;
  const part = state.partitions[key];
  const r = replica(state, key, broker);
  const seg = r.log.segments.find((x) => x.baseOffset === baseOffset && x.endOffset === endOffset);
  assert(seg !== undefined && seg.rolled, `copy candidate ${baseOffset}-${endOffset} is a rolled local segment`);
  const segmentId = `${part.topic}-${part.partition}-${baseOffset}-${state.nextSegmentSeq++}`;
  const meta: RemoteSegmentMetadata = {
    segmentId,
    topic: part.topic,
    partition: part.partition,
    baseOffset,
    endOffset,
    state: 'COPY_SEGMENT_STARTED',
    brokerId: broker,
    segmentLeaderEpochs: segmentLeaderEpochs(r.log.leaderEpochs, baseOffset, endOffset),
    sizeBytes: seg.bytes,
    maxTimestampMs: seg.maxTimestampMs,
    objectKeys: objectKeysFor(part.topic, part.partition, baseOffset, segmentId),
    batchIndex: batchIndexOf(seg.batches),
  };
  part.remoteMetadata.push(meta);
  s.observe({ kind: 'remoteSegmentAdded', key, segmentId });
  s.emit({ atMs: state.nowMs, type: 'remoteMetadata', action: 'stateChanged', broker, topic: part.topic, partition: part.partition, segmentId, from: null, to: 'COPY_SEGMENT_STARTED', baseOffset, endOffset, rule: 'copyCandidate' });
  const objects = segmentObjects(meta, seg.batches.slice(), checkpointUpTo(r.log.leaderEpochs, endOffset), producerSnapshotAt(r.log, endOffset + 1));
  state.storeGroups[storeGroupId(broker, key, 'copy', requestId)] = { kind: 'copy', segmentId, remaining: objects.length, ok: true, error: null };
  for (const [objectKey, object, what] of objects) {
    storeOp(s, broker, key, { op: 'put', store: 'tiered', key: objectKey, object }, requestId, { for: 'copy', object: what });
  }
}

/** COPY_SEGMENT_FINISHED: the segment is readable from remote storage, and Ry moves up to its end. */
export function finishCopy(s: Sim, broker: number, key: string, segmentId: string, endOffset: number): void {
  setRemoteSegmentState(s, key, segmentId, 'COPY_SEGMENT_FINISHED');
  raiseHighestOffsetInRemoteStorage(s, broker, key, endOffset, 'copyFinished');
}

/** Ry never decreases while the broker is up. */
export function raiseHighestOffsetInRemoteStorage(s: Sim, broker: number, key: string, offset: number, rule: Rule, task?: string): void {
  const part = s.state.partitions[key];
  const r = replica(s.state, key, broker);
  if (offset <= r.highestOffsetInRemoteStorage) return;
  const from = r.highestOffsetInRemoteStorage;
  r.highestOffsetInRemoteStorage = offset;
  s.emit({ atMs: s.state.nowMs, type: 'rlm', action: 'highestOffsetInRemoteStorageUpdated', broker, topic: part.topic, partition: part.partition, from, highestOffsetInRemoteStorage: offset, ...(task !== undefined ? { task } : {}), rule });
}

/**
 * A new leader's copy task, before its first copy (RLMCopyTask.maybeUpdateLogStartOffsetOnBecomingLeader):
 * Log-Start-Offset is raised, never lowered, to where the remote data still listed starts
 * (UnifiedLog.updateLogStartOffsetFromRemoteTier). As a follower the replica may never have
 * heard of the old leader's last move, and until now it named deleted remote data.
 */
export function raiseLogStartOffsetOnBecomingLeader(s: Sim, broker: number, key: string, offset: number): void {
  const part = s.state.partitions[key];
  const r = replica(s.state, key, broker);
  r.logStartOffsetUnconfirmed = false;
  const from = r.log.logStartOffset;
  changeLocalLog(s, r, () => maybeIncrementLogStartOffset(r.log, offset));
  if (r.log.logStartOffset !== from) {
    s.emit({ atMs: s.state.nowMs, type: 'log', action: 'logStartOffsetRaised', broker, topic: part.topic, partition: part.partition, from, logStartOffset: r.log.logStartOffset, rule: 'logStartOffsetOnBecomingLeader' });
  }
}

/**
 * An expiry pass raises Log-Start-Offset once before it deletes anything
 * (RLMExpirationTask.handleLogStartOffsetUpdate), so no offset at or above the log start is
 * ever in a segment being deleted.
 */
export function raiseLogStartOffsetForRetention(s: Sim, broker: number, key: string, offset: number): void {
  const part = s.state.partitions[key];
  const r = replica(s.state, key, broker);
  if (offset <= r.log.logStartOffset) return;
  const from = r.log.logStartOffset;
  changeLocalLog(s, r, () => maybeIncrementLogStartOffset(r.log, offset));
  if (r.log.logStartOffset !== from) {
    s.emit({ atMs: s.state.nowMs, type: 'log', action: 'logStartOffsetRaised', broker, topic: part.topic, partition: part.partition, from, logStartOffset: r.log.logStartOffset, rule: 'remoteRetention' });
  }
}

/** A copy failed: traced, and the objects it may have written are deleted. */
export function abortCopy(s: Sim, broker: number, key: string, requestId: number, segmentId: string, error: string | null): void {
  const part = s.state.partitions[key];
  s.emit({ atMs: s.state.nowMs, type: 'rlm', action: 'copyFailed', broker, topic: part.topic, partition: part.partition, segmentId, error, rule: 'copyFailed' });
  startRemoteDelete(s, broker, key, requestId, segmentId, 'copyFailed', 'copy');
}

/** DELETE_SEGMENT_STARTED and the segment's objects deleted together. */
export function startRemoteDelete(s: Sim, broker: number, key: string, requestId: number, segmentId: string, rule: Rule, task: 'copy' | 'expiration'): void {
  const state = s.state;
  const part = state.partitions[key];
  const meta = part.remoteMetadata.find((m) => m.segmentId === segmentId);
  assert(meta !== undefined, `remote segment ${segmentId} exists`);
  setRemoteSegmentState(s, key, segmentId, 'DELETE_SEGMENT_STARTED');
  s.emit({ atMs: state.nowMs, type: 'rlm', action: 'deleteStarted', broker, topic: part.topic, partition: part.partition, segmentId, baseOffset: meta.baseOffset, endOffset: meta.endOffset, rule });
  const keys = segmentObjectKeys(meta);
  state.storeGroups[storeGroupId(broker, key, task, requestId)] = { kind: 'delete', segmentId, remaining: keys.length, ok: true, error: null };
  for (const k of keys) storeOp(s, broker, key, { op: 'delete', store: 'tiered', key: k }, requestId, { for: 'remoteDelete', task });
}

/**
 * The store requests of one copy or delete, by broker, partition, task and request id (the
 * copy task and the expiration task number their requests apart, so the task is in the id).
 */
function storeGroupId(broker: number, key: string, task: 'copy' | 'expiration', requestId: number): string {
  return task === 'copy' ? `${broker}|${key}|${requestId}` : `${broker}|${key}|x${requestId}`;
}

/** One object of a copy or a delete is done; the last one tells the task that asked how the whole went. */
export function onSegmentObjectDone(s: Sim, ev: KernelEventOf<'storeDone'>): void {
  const task = ev.completion.for === 'remoteDelete' ? ev.completion.task : 'copy';
  const id = storeGroupId(ev.broker, ev.key, task, ev.requestId);
  const g = s.state.storeGroups[id];
  if (g === undefined) return;
  g.remaining--;
  if (!ev.result.ok) {
    g.ok = false;
    g.error ??= ev.result.error ?? 'error';
  }
  if (g.remaining > 0) return;
  delete s.state.storeGroups[id];
  if (task === 'expiration') {
    s.deliver(ev.broker, ev.key, 'rlmExpiration', { type: 'expiration.deleteCompleted', requestId: ev.requestId, segmentId: g.segmentId, ok: g.ok, error: g.error });
    return;
  }
  s.deliver(ev.broker, ev.key, 'rlm', {
    type: g.kind === 'copy' ? 'rlm.copyCompleted' : 'rlm.deleteCompleted',
    requestId: ev.requestId,
    segmentId: g.segmentId,
    ok: g.ok,
    error: g.error,
  });
}

/**
 * Local retention removes the oldest local segments. Where uploads are required (tiered,
 * copy enabled) only the local log start moves; otherwise (not tiered, or
 * remote.log.copy.disable) the log start moves with it (UnifiedLog.incrementStartOffset).
 */
export function deleteLocalSegments(s: Sim, broker: number, key: string, segments: SegmentRange[]): void {
  const state = s.state;
  const part = state.partitions[key];
  const r = replica(state, key, broker);
  const now = state.nowMs;
  const isTiered = uploadsRequired(state, key);
  // What lies below the leader's Log-Start-Offset is gone from the partition: a follower that
  // returns after remote retention moved it may delete such segments before it hears of it.
  const leaderStart = part.leader >= 0 && part.leader !== broker ? replica(state, key, part.leader).log.logStartOffset : -1;
  for (const range of segments) {
    const first = r.log.segments[0];
    if (r.log.segments.length < 2 || first.baseOffset !== range.baseOffset) break;
    const start = Math.max(r.log.logStartOffset, leaderStart);
    s.observe({ kind: 'localSegmentDelete', key, broker, segment: first, logStartOffset: start, uploadsRequired: isTiered });
    r.log.segments.shift();
    localLogBytesChanged(s, -first.bytes);
    s.emit({
      atMs: now, type: 'log', action: 'localSegmentDeleted', broker, topic: part.topic, partition: part.partition,
      baseOffset: first.baseOffset, endOffset: first.endOffset, bytes: first.bytes, rule: isTiered ? 'localRetention' : 'logRetention',
    });
  }
  const newStart = r.log.segments[0].baseOffset;
  if (isTiered) {
    r.log.localLogStartOffset = Math.max(r.log.localLogStartOffset, newStart);
  } else {
    changeLocalLog(s, r, () => maybeIncrementLogStartOffset(r.log, newStart));
    r.log.localLogStartOffset = Math.max(r.log.localLogStartOffset, newStart);
  }
}

/** The active segment is rolled so that retention can take it: uploaded first where uploads are required, else deleted at the next decision. */
export function rollActiveSegment(s: Sim, broker: number, key: string): void {
  const part = s.state.partitions[key];
  const r = replica(s.state, key, broker);
  const active = r.log.segments[r.log.segments.length - 1];
  if (active.endOffset < active.baseOffset) return;
  roll(r.log, s.state.nowMs);
  s.emit({ atMs: s.state.nowMs, type: 'log', action: 'segmentRolled', broker, topic: part.topic, partition: part.partition, baseOffset: active.endOffset + 1, rule: 'rollForLocalRetention' });
}

/**
 * Every remote segment state change goes through here, so the forward-only invariant
 * sees each one (the remote log manager's copy and delete steps use it).
 */
export function setRemoteSegmentState(s: Sim, key: string, segmentId: string, to: RemoteSegmentMetadata['state']): void {
  const part = s.state.partitions[key];
  const meta = part.remoteMetadata.find((m) => m.segmentId === segmentId);
  assert(meta !== undefined, `remote segment ${segmentId} of ${key} exists`);
  const from = meta.state;
  s.observe({ kind: 'remoteSegmentState', key, segmentId, from, to });
  if (from === to) return; // an idempotent re-publish: nothing changes
  meta.state = to;
  s.emit({ atMs: s.state.nowMs, type: 'remoteMetadata', action: 'stateChanged', topic: part.topic, partition: part.partition, segmentId, from, to, baseOffset: meta.baseOffset, endOffset: meta.endOffset });
}

/**
 * Tiering turned off on a topic. Kafka (KIP-950) only allows this with
 * remote.log.delete.on.disable=true (LogConfig.validateTurningOffRemoteStorageWithDelete;
 * the controller refuses it otherwise, core/sim/world/controller.ts): the remote data is
 * deleted and Log-Start-Offset moves to
 * the local log start on every replica. The in-memory Ry stays as it was (it never
 * decreases), which is how a stale Ry below Log-Start-Offset arises when tiering is
 * enabled again.
 */
export function deleteRemoteOnDisable(s: Sim, key: string): void {
  const state = s.state;
  const part = state.partitions[key];
  const now = state.nowMs;
  for (const r of Object.values(part.replicaStates)) {
    if (r.log.logStartOffset < r.log.localLogStartOffset) {
      const from = r.log.logStartOffset;
      r.log.logStartOffset = r.log.localLogStartOffset;
      truncateEpochsFromStart(r.log.leaderEpochs, r.log.logStartOffset);
      s.emit({ atMs: now, type: 'log', action: 'logStartOffsetRaised', broker: r.broker, topic: part.topic, partition: part.partition, from, logStartOffset: r.log.logStartOffset, rule: 'remoteDeletedOnDisable' });
    }
  }
  for (const m of part.remoteMetadata) {
    if (m.state !== 'COPY_SEGMENT_FINISHED' && m.state !== 'COPY_SEGMENT_STARTED') continue;
    setRemoteSegmentState(s, key, m.segmentId, 'DELETE_SEGMENT_STARTED');
    for (const objectKey of segmentObjectKeys(m)) {
      storeOp(s, part.leader >= 0 ? part.leader : m.brokerId, key, { op: 'delete', store: 'tiered', key: objectKey }, 0, { for: 'deleteOnDisable' });
    }
    setRemoteSegmentState(s, key, m.segmentId, 'DELETE_SEGMENT_FINISHED');
  }
}

/** The follower's look-up of the remote segment its auxiliary state is built from. */
export function onRemoteSegmentLookup(s: Sim, ev: KernelEventOf<'remoteSegmentLookedUp'>): void {
  if (!s.state.brokers[ev.broker].alive) return;
  const part = s.state.partitions[ev.key];
  const ready = metadataReady(s.state, ev.key, ev.broker);
  const found = ready ? findRemoteSegment(part.remoteMetadata, ev.epoch, ev.offset) : undefined;
  s.emit({
    atMs: s.state.nowMs,
    type: 'remoteMetadata',
    action: 'lookup',
    broker: ev.broker,
    topic: part.topic,
    partition: part.partition,
    epoch: ev.epoch,
    offset: ev.offset,
    found: found ? found.segmentId : null,
    rule: found ? 'remoteSegmentFound' : ready ? 'remoteSegmentNotFound' : 'remoteMetadataLoading',
  });
  s.deliver(ev.broker, ev.key, 'fetcher', {
    type: 'remoteSegment.lookedUp',
    requestId: ev.requestId,
    found: found
      ? {
          segmentId: found.segmentId,
          baseOffset: found.baseOffset,
          endOffset: found.endOffset,
          keys: { leaderEpochCheckpoint: found.objectKeys.leaderEpochCheckpoint, producerSnapshot: found.objectKeys.producerSnapshot },
        }
      : null,
    reason: found ? null : ready ? 'previous remote log segment metadata was not found' : 'remote log metadata is still loading',
  });
}

/** A follower's read of a remote segment's checkpoint or producer snapshot completed. */
export function onAuxStateRead(s: Sim, ev: KernelEventOf<'storeDone'>, object: 'leaderEpochCheckpoint' | 'producerSnapshot'): void {
  const body = ev.result.object?.body;
  const text = body?.kind === 'text' ? body.text : '';
  s.deliver(ev.broker, ev.key, 'fetcher', {
    type: 'objectStore.getCompleted',
    requestId: ev.requestId,
    ok: ev.result.ok,
    error: ev.result.error ?? null,
    ...(ev.result.ok && object === 'leaderEpochCheckpoint' ? { leaderEpochs: parseCheckpoint(text) } : {}),
    ...(ev.result.ok && object === 'producerSnapshot' ? { producers: JSON.parse(text) as ProducerEntry[] } : {}),
  });
}

/**
 * The replica's tasks start (again) in a role: the copy task (leader) or the follower task,
 * the expiration task (leader only; none on a follower), and the broker's log retention of
 * the partition, which keeps the broker's schedule (docs/protocol.md §5).
 */
export function startReplicaTasks(s: Sim, broker: number, key: string, role: 'leader' | 'follower'): void {
  s.deliver(broker, key, 'rlm', { type: 'rlm.started', role });
  s.deliver(broker, key, 'rlmExpiration', { type: 'expiration.started', role });
  if (s.machineSnapshot(broker, key, 'logRetention')?.value === 'inactive') s.deliver(broker, key, 'logRetention', { type: 'retention.started' });
}
